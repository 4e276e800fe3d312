#!/usr/bin/env bash
# Installs the system packages irgc needs on Debian (LLVM 19 for the PTX backend, a C compiler) and builds the
# release binary at target/release/irgc.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
echo "==> cargo build --release -p irgc"
cargo build --release --locked -p irgc
