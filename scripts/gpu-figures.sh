#!/usr/bin/env bash
# The rounds figures of docs/results.md, on the GPU: `irgc run --backend cuda --plot` for the hybrid programs
# (ipgc_hybrid, bfs_do) on a road network (FLA) and an R-MAT graph (rmatg22 of ../shared/notes/performance.md),
# every run verified. The SVGs and --stats-out JSON files go to $OUT (or /tmp/figures).
# Run on the GPU machine from the repository root with the release binary at .carry/irgc; ../shared does not
# travel, so scripts/carry.sh puts gen_graphs.py and data/FLA.gr.xz into .carry/.
set -u
. "$(dirname "$0")/gpu-env.sh"
DIR=${GPU_FIG_DIR:-/tmp/g}
OUTDIR=${OUT:-/tmp/figures}
mkdir -p "$OUTDIR"
gen_graphs "$DIR" rmatg22 road || exit 1
for g in road rmatg22; do
  for p in coloring/ipgc_hybrid bfs/bfs_do; do
    name=$(basename "$p")-$g
    echo "== $name"
    timeout 120 "$IRGC" run "programs/$p.irg" --backend cuda --graph "$DIR/$g.gr" --symmetrize --verify \
      --plot "$OUTDIR/$name.svg" --stats-out "$OUTDIR/$name.json" 2>&1 | grep -E "compute|launches|verify|rror|denied|found"
  done
done
