#!/usr/bin/env bash
# Packs what the gpu-*.sh scripts need on the GPU machine into .carry/ (git-ignored; the device tool's `carry`
# argument takes it along, within its 64 MiB): the stripped release binary, xz-compressed (gpu-env.sh unpacks it
# there), and ../shared's graph generator and road file, which do not travel by themselves. Run here, from any
# directory, after the code changes that the lease should measure; then call the device with carry [".carry"].
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked -p irgc
mkdir -p .carry
rm -f .carry/irgc .carry/irgc.xz
strip -o .carry/irgc target/release/irgc
xz -T0 -9 .carry/irgc
install -m 644 ../shared/tools/gen_graphs.py ../shared/data/FLA.gr.xz .carry/
echo "==> .carry: $(du -sh .carry | cut -f1) ($(git rev-parse --short HEAD)$(git diff --quiet || echo ', uncommitted changes'))"
