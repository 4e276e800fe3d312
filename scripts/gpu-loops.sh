#!/usr/bin/env bash
# Outlined loops on the GPU: `--outline-loops auto` (the default: host rounds timed, a trial in the kernel, the
# rest where a round was faster; runtime/exec/src/loop_gate.rs) against `never` (every round from the host) and,
# with GPU_LOOPS_MODES, `always`; the modes of a class interleaved so that a lease's drift falls on all alike.
# First, per class, `irgc run` on GPU_LOOPS_SHOW prints the trial it made (`loop      trial of N rounds ...`).
# Run on the GPU machine from the repository root with the release binary at .carry/irgc; each row is printed as
# it comes (mode, program, graph, median ms, launches, verified). docs/traversals.md, "Outlined loops", has the
# tables of 2026-11-29 (H200).
#   GPU_LOOPS_DIR (default /tmp/g)   GPU_LOOPS_RUNS (default 3)   GPU_LOOPS_MODES (default "never auto")
#   GPU_LOOPS_CLASSES (default "rmatg22 road grid2k rgg22 urand22 kron22")
#   GPU_LOOPS_PROGRAMS (default: the ten programs with outlined loops but apsp_batched and pagerank_pull_f32)
#   GPU_LOOPS_SHOW (default: bfs_topology, sssp_atomic, pagerank)   GPU_LOOPS_BACKEND (default cuda)
set -u -o pipefail
. "$(dirname "$0")/gpu-env.sh"
DIR=${GPU_LOOPS_DIR:-/tmp/g}
RUNS=${GPU_LOOPS_RUNS:-3}
MODES=${GPU_LOOPS_MODES:-never auto}
CLASSES=${GPU_LOOPS_CLASSES:-rmatg22 road grid2k rgg22 urand22 kron22}
BACKEND=${GPU_LOOPS_BACKEND:-cuda}
PROGRAMS=${GPU_LOOPS_PROGRAMS:-programs/bfs/bfs_topology.irg programs/sssp/sssp_atomic.irg programs/sssp/sssp_harish.irg \
programs/pagerank/pagerank.irg programs/pagerank/pagerank_pull.irg programs/coloring/ipgc_topology.irg programs/cc/stages.irg \
programs/cc/shiloach_vishkin.irg programs/cc/cc_update.irg programs/louvain/louvain_local.irg}
SHOW=${GPU_LOOPS_SHOW:-programs/bfs/bfs_topology.irg programs/sssp/sssp_atomic.irg programs/pagerank/pagerank.irg}
status=0
for g in $CLASSES; do
  gen_graphs "$DIR" "$g" || exit 1
  for p in $SHOW; do
    # Bounds checks would keep every loop on the host: off, as in a benchmark.
    timeout 120 "$IRGC" run --backend "$BACKEND" --no-check-bounds --verify --weights random:1:255 --graph "$DIR/$g.gr" "$p" 2>&1 |
      grep -E "^(compute|verify|outlined|loop) " | sed "s|^|$g $(basename "$p" .irg) |"
  done
  for m in $MODES; do
    # shellcheck disable=SC2086
    BENCH_TIMEOUT=300 bench_rows "$BACKEND" --runs "$RUNS" --warmup 1 --weights random:1:255 --graph "$DIR/$g.gr" \
      --outline-loops="$m" $PROGRAMS | sed "s/^/$m /" || status=1
  done
done
exit $status
