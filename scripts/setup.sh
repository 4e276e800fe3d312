#!/usr/bin/env bash
# Installs the system packages irgc needs on Debian (LLVM 19 for the PTX backend, a C compiler), builds the
# release binary and puts `irgc` on the PATH: a copy in Cargo's bin directory (~/.cargo/bin, where rustup's
# shell set-up already points PATH), so the README's tour works as written in any new shell.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
echo "==> cargo build --release -p irgc"
cargo build --release --locked -p irgc
bin="${CARGO_HOME:-$HOME/.cargo}/bin"
mkdir -p "$bin"
install -m 755 target/release/irgc "$bin/irgc"
echo "==> installed $bin/irgc ($("$bin/irgc" --version))"
case ":$PATH:" in
  *":$bin:"*) ;;
  *) echo "note: $bin is not on this shell's PATH; add it (rustup's ~/.cargo/env does) or run $bin/irgc" >&2 ;;
esac
