#!/usr/bin/env bash
# The test command: installs what the tests need on a fresh Debian machine, then runs the formatting check,
# clippy with warnings denied, and every test of the workspace. CI runs exactly this (see .ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."

# System packages: a C compiler (the bundled xz library) and LLVM 19 for the PTX backend (static linking needs
# Polly, zstd and zlib too).
need_apt=()
command -v cc >/dev/null 2>&1 || need_apt+=(gcc libc6-dev)
command -v make >/dev/null 2>&1 || need_apt+=(make)
[ -x /usr/lib/llvm-19/bin/llvm-config ] || need_apt+=(llvm-19-dev)
[ -e /usr/lib/llvm-19/lib/libPolly.a ] || need_apt+=(libpolly-19-dev)
[ -e /usr/include/zstd.h ] || need_apt+=(libzstd-dev)
[ -e /usr/include/zlib.h ] || need_apt+=(zlib1g-dev)
command -v unzip >/dev/null 2>&1 || need_apt+=(unzip)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "==> installing ${need_apt[*]}"
  sudo_cmd=""; [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

# ptxas, to prove without a GPU that the generated PTX assembles: from NVIDIA's PyPI wheel, cached in .tools/.
ptxas=.tools/cuda_nvcc/bin/ptxas
if [ ! -x "$ptxas" ]; then
  echo "==> fetching ptxas (PyPI wheel nvidia-cuda-nvcc-cu12)"
  tmp=$(mktemp -d)
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --platform manylinux2014_x86_64 \
    -d "$tmp" nvidia-cuda-nvcc-cu12
  mkdir -p .tools
  unzip -o -q "$tmp"/nvidia_cuda_nvcc_cu12-*.whl 'nvidia/cuda_nvcc/bin/ptxas' -d "$tmp/x"
  mkdir -p .tools/cuda_nvcc/bin && mv "$tmp/x/nvidia/cuda_nvcc/bin/ptxas" "$ptxas" && chmod +x "$ptxas"
  rm -rf "$tmp"
fi
export IRGC_PTXAS="$PWD/$ptxas" IRGC_REQUIRE_PTXAS=1

if ! command -v cargo >/dev/null 2>&1; then
  echo "error: cargo not found; install Rust with rustup (https://rustup.rs), then run this again" >&2
  exit 1
fi
rustup component add rustfmt clippy >/dev/null 2>&1 || true

echo "==> cargo fmt --check"
cargo fmt --all -- --check
echo "==> cargo clippy (warnings are errors)"
cargo clippy --workspace --all-targets --locked -- -D warnings
echo "==> cargo test"
cargo test --workspace --locked
