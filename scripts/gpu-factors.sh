#!/usr/bin/env bash
# The `interleave` and `unroll` passes' factors (`--pass-param PASS.factor=N`, 2, 4 or 8; default 4) on the GPU,
# one binary, the factors interleaved so that a lease's drift falls on all of them alike. The question: on the
# high-diameter classes a BFS or SSSP level is a chain of dependent loads and atomics in the threads of one
# cluster (docs/next-iteration-outlining.md §4), and a rgg22 node has ~14.5 edges: whether 8 at once shortens it.
# Run on the GPU machine from the repository root with the release binary at .carry/irgc; each row is printed as
# it comes (label, program, graph, median ms, launches, verified).
#   GPU_FACTORS_DIR (default /tmp/g)   GPU_FACTORS_RUNS (default 5)   GPU_FACTORS_ROUNDS (default 2)
#   GPU_FACTORS_CLASSES (default "road grid2k rgg22")   GPU_FACTORS_PASS (default interleave)
#   GPU_FACTORS_BACKEND (default cuda; cpu to try the script here, where the factors change nothing)
set -u -o pipefail
. "$(dirname "$0")/gpu-env.sh"
DIR=${GPU_FACTORS_DIR:-/tmp/g}
RUNS=${GPU_FACTORS_RUNS:-5}
ROUNDS=${GPU_FACTORS_ROUNDS:-2}
CLASSES=${GPU_FACTORS_CLASSES:-road grid2k rgg22}
PASS=${GPU_FACTORS_PASS:-interleave}
BACKEND=${GPU_FACTORS_BACKEND:-cuda}
PROGRAMS="programs/bfs/bfs_worklist.irg programs/bfs/bfs_do.irg programs/sssp/sssp_worklist.irg programs/sssp/sssp_nearfar.irg"
status=0
for g in $CLASSES; do
  gen_graphs "$DIR" "$g" || exit 1
  for r in $(seq "$ROUNDS"); do
    for f in 2 4 8; do
      # shellcheck disable=SC2086
      BENCH_TIMEOUT=200 bench_rows "$BACKEND" --runs "$RUNS" --warmup 1 --weights random:1:255 --graph "$DIR/$g.gr" \
        --pass-param "$PASS.factor=$f" $PROGRAMS | sed "s/^/$PASS=$f /" || status=1
    done
  done
done
exit $status
