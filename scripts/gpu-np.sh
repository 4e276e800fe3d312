#!/usr/bin/env bash
# The nested-parallelism pass on the GPU: `irgc bench --backend cuda` of the programs whose inner loops `np`
# schedules, with every pass and with `--disable-pass np`, on the graph classes of ../shared/notes/performance.md
# (written by ../shared/tools/gen_graphs.py, so the times compare with the peers' table). Every row is verified.
# Run on the GPU machine from the repository root with the release binary at .carry/irgc.
#   GPU_NP_GRAPHS    class names (default: kron22 urand22 road)
#   GPU_NP_PROGRAMS  programs (default: those with scheduled loops)
#   GPU_NP_RUNS      timed runs (default 3)
#   GPU_NP_DIR       where the graphs go (default /tmp/g)
# ../shared does not travel to the GPU machine: scripts/carry.sh puts gen_graphs.py and data/FLA.gr.xz into .carry/.
set -u
. "$(dirname "$0")/gpu-env.sh"
DIR=${GPU_NP_DIR:-/tmp/g}
GRAPHS=${GPU_NP_GRAPHS:-"kron22 urand22 road"}
RUNS=${GPU_NP_RUNS:-3}
PROGRAMS=${GPU_NP_PROGRAMS:-"programs/bfs/bfs_worklist.irg programs/sssp/sssp_worklist.irg programs/sssp/sssp_harish.irg programs/sssp/sssp_atomic.irg programs/cc/ecl_cc.irg programs/coloring/ipgc_hybrid.irg programs/louvain/louvain_local.irg programs/matching/suitor.irg"}
# shellcheck disable=SC2086
gen_graphs "$DIR" $GRAPHS || exit 1
for g in $GRAPHS; do
  for config in "all passes|" "without np|--disable-pass np"; do
    label=${config%%|*}
    flags=${config#*|}
    echo "== $g, $label"
    # shellcheck disable=SC2086
    timeout 240 "$IRGC" bench --backend cuda --runs "$RUNS" --warmup 1 --graph "$DIR/$g.gr" $flags $PROGRAMS 2>&1 \
      | grep -vE '^  [a-z_0-9]+ +cuda +median'
  done
done
