#!/usr/bin/env bash
# The test command: installs what the tests need on a fresh Debian machine, then runs the formatting check,
# clippy with warnings denied, every test of the workspace, and the Python package's tests (scripts/test-python.sh).
# CI runs exactly this (see .ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh

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

# A one-off build gains nothing from incremental caches (1.4 GB in a fresh clone); set CARGO_INCREMENTAL=1 to keep them.
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"

rustup component add rustfmt clippy >/dev/null 2>&1 || true

echo "==> cargo fmt --check"
cargo fmt --all -- --check
echo "==> cargo clippy (warnings are errors)"
cargo clippy --workspace --all-targets --locked -- -D warnings
echo "==> cargo test"
cargo test --workspace --locked
echo "==> Python package"
scripts/test-python.sh
