#!/usr/bin/env bash
# Colouring on the GPU: `irgc bench --backend cuda` of the three IPGC variants (plain data-driven, plain
# topology-driven, the hybrid at its default H) and largest-degree-first Jones-Plassmann (in rounds, `jp_ldf`; in
# one asynchronous sweep, released by counts, `jp_async`; pulling, with ECL-GC's shortcut, `jp_shortcut`: the three
# give the same colouring, so equal digests), on the graph classes of
# ../shared/notes/performance.md (written by ../shared/tools/gen_graphs.py), so the times and colour counts compare
# with docs/coloring.md's CPU table and with ECL-GC's colours (urand22 10, rmatg22 14, rgg22 19, kron22 282). Every
# row is verified, and the quality column gives its colours. The hybrid also runs with H forced each way
# (H=-1: always topology-driven, H=1: always data-driven) to show what the switch buys.
# Run on the GPU machine from the repository root with the release binary at .carry/irgc.
#   GPU_COLORING_GRAPHS    class names (default: urand22 rmatg22 rgg22 kron22 road)
#   GPU_COLORING_PROGRAMS  programs (default: the six colouring programs)
#   GPU_COLORING_RUNS      timed runs (default 3)
#   GPU_COLORING_DIR       where the graphs go (default /tmp/g)
#   GPU_COLORING_H         the forced settings of the hybrid's H to run too (default "-1 1"; empty: none)
# ../shared does not travel to the GPU machine: scripts/carry.sh puts gen_graphs.py and data/FLA.gr.xz into .carry/.
set -u -o pipefail
. "$(dirname "$0")/gpu-env.sh"
DIR=${GPU_COLORING_DIR:-/tmp/g}
GRAPHS=${GPU_COLORING_GRAPHS:-"urand22 rmatg22 rgg22 kron22 road"}
RUNS=${GPU_COLORING_RUNS:-3}
FORCED_H=${GPU_COLORING_H-"-1 1"}
PROGRAMS=${GPU_COLORING_PROGRAMS:-"programs/coloring/ipgc_data.irg programs/coloring/ipgc_topology.irg programs/coloring/ipgc_hybrid.irg programs/coloring/jp_ldf.irg programs/coloring/jp_async.irg programs/coloring/jp_shortcut.irg"}
# shellcheck disable=SC2086
gen_graphs "$DIR" $GRAPHS || exit 1
# pipefail: a failed bench (a wrong answer, a timeout) fails the script, after every graph has run.
status=0
for g in $GRAPHS; do
  echo "== $g"
  # shellcheck disable=SC2086
  timeout 300 "$IRGC" bench --backend cuda --runs "$RUNS" --warmup 1 --graph "$DIR/$g.gr" $PROGRAMS 2>&1 \
    | grep -vE '^  [a-z_0-9]+ +cuda +median' || status=1
  for h in $FORCED_H; do
    echo "== $g, ipgc_hybrid with H=$h"
    timeout 300 "$IRGC" bench --backend cuda --runs "$RUNS" --warmup 1 --graph "$DIR/$g.gr" --param "H=$h" \
      programs/coloring/ipgc_hybrid.irg 2>&1 | grep -vE '^  [a-z_0-9]+ +cuda +median' || status=1
  done
done
exit $status
