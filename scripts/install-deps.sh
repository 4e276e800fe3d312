#!/usr/bin/env bash
# Installs the Debian packages irgc builds against, where missing: a C compiler (the bundled xz library),
# LLVM 19 for the PTX backend (static linking also needs Polly, zstd and zlib), and Python's venv (for the Python
# package's tests). Used by setup.sh and test.sh.
set -euo pipefail
need_apt=()
command -v cc >/dev/null 2>&1 || need_apt+=(gcc libc6-dev)
command -v make >/dev/null 2>&1 || need_apt+=(make)
command -v unzip >/dev/null 2>&1 || need_apt+=(unzip)
[ -x /usr/lib/llvm-19/bin/llvm-config ] || need_apt+=(llvm-19-dev)
[ -e /usr/lib/llvm-19/lib/libPolly.a ] || need_apt+=(libpolly-19-dev)
[ -e /usr/include/zstd.h ] || need_apt+=(libzstd-dev)
[ -e /usr/include/zlib.h ] || need_apt+=(zlib1g-dev)
# The Python package's tests run in a virtualenv (scripts/test-python.sh); Debian keeps venv's pip apart.
command -v python3 >/dev/null 2>&1 || need_apt+=(python3)
python3 -c 'import ensurepip' >/dev/null 2>&1 || need_apt+=(python3-venv)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "==> installing ${need_apt[*]}"
  sudo_cmd=""; [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
if ! command -v cargo >/dev/null 2>&1; then
  echo "error: cargo not found; install Rust with rustup (https://rustup.rs), then run this again" >&2
  exit 1
fi
