#!/usr/bin/env bash
# The GAP kernels' GPU table (docs/gap.md): `irgc bench --backend cuda` (CUDA events, compute only, median of
# GPU_GAP_RUNS after a warm-up; every program verified once per graph against its CPU reference, a failed check
# shows as a failed row) for pagerank, tc (the total, GAP's result), tc_per_node and bc on the graph classes of
# ../shared/notes/performance.md: kron22, road (FLA), urand22, rmatg22, rgg22, grid2k, written by gen_graphs.py
# (node 0 lies in the largest component, so it is BC's source). The CPU references run in parallel.
# Run on the GPU machine from the repository root with the release binary at .carry/irgc; ../shared does not
# travel, so scripts/carry.sh puts gen_graphs.py and data/FLA.gr.xz into .carry/.
#   GPU_GAP_GRAPHS   which graph classes (default "kron22 road urand22 rmatg22 rgg22 grid2k")
#   GPU_GAP_PROGRAMS which programs (default the four above)
#   GPU_GAP_RUNS     timed runs (default 3)
#   GPU_GAP_TIMEOUT  seconds per bench call (default 600)
set -u
. "$(dirname "$0")/gpu-env.sh"
DIR=${GPU_GAP_DIR:-/tmp/g}
GRAPHS=${GPU_GAP_GRAPHS:-"kron22 road urand22 rmatg22 rgg22 grid2k"}
PROGRAMS=${GPU_GAP_PROGRAMS:-"programs/pagerank/pagerank.irg programs/tc/tc.irg programs/tc/tc_per_node.irg programs/bc/bc.irg"}
RUNS=${GPU_GAP_RUNS:-3}
TIMEOUT=${GPU_GAP_TIMEOUT:-600}
# shellcheck disable=SC2086 # GRAPHS is a list of names
gen_graphs "$DIR" $GRAPHS || exit 1
args=()
for g in $GRAPHS; do
  args+=(--graph "$DIR/$g.gr")
done
echo "== GAP kernels: $PROGRAMS (PageRank: damping 0.85, tolerance 1e-4; BC from node 0)"
# shellcheck disable=SC2086 # PROGRAMS is a list of paths
timeout "$TIMEOUT" "$IRGC" bench --backend cuda --runs "$RUNS" --warmup 1 \
  $PROGRAMS --param source=0 "${args[@]}" 2>&1 |
  grep -vE '^  [a-z_0-9]+ +cuda +median' # keep the table, not the progress lines
[ "${PIPESTATUS[0]}" -eq 124 ] && echo "TIMEOUT: over ${TIMEOUT}s"
exit 0
