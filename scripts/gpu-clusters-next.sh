#!/usr/bin/env bash
# What the cluster rounds (on by default on Hopper since 2026-11-29, docs/optimizer.md "Cluster rounds") have not
# yet been measured on: run on the GPU machine from the repository root with the release binary at .carry/irgc.
#   1. The BFS and SSSP pipes on urand22 (not skewed, so the default clusters apply: its few levels are large),
#      and on rmatg22 and kron22 (skewed: the default launches without clusters, as before), clusters of 1 and the
#      default interleaved (1, default, 1, default), every row verified.
#   2. The solo limit with clusters of 16 (IRGC_SOLO_ITEMS: 1,024 / 2,048 / 4,096, the default / 8,192) on the
#      high-diameter classes: whether 256 items a block is still the best limit when a cluster runs the round.
#   GPU_NEXT_DIR (default /tmp/g)   GPU_NEXT_RUNS (default 5)   GPU_NEXT_PARTS (default "1 2")
set -u -o pipefail
. "$(dirname "$0")/gpu-env.sh"
DIR=${GPU_NEXT_DIR:-/tmp/g}
RUNS=${GPU_NEXT_RUNS:-5}
PARTS=" ${GPU_NEXT_PARTS:-1 2} "
status=0
gen_graphs "$DIR" road grid2k rgg22 urand22 rmatg22 kron22 || exit 1
# `row LABEL GRAPH PROGRAM...`: one line per program: label, program, graph, median ms, launches, verified.
row() {
  local label=$1 g=$2
  shift 2
  BENCH_TIMEOUT=200 bench_rows cuda --runs "$RUNS" --warmup 1 --weights random:1:255 --graph "$DIR/$g.gr" "$@" |
    sed "s/^/$label /"
}
BFS_SSSP="programs/bfs/bfs_worklist.irg programs/bfs/bfs_do.irg programs/sssp/sssp_worklist.irg programs/sssp/sssp_nearfar.irg"
if [[ $PARTS == *" 1 "* ]]; then
  echo "== 1. clusters of 1 and the default, interleaved (label, program, graph, ms, launches, verified)"
  for g in urand22 rmatg22 kron22; do
    # shellcheck disable=SC2086
    for r in 1 2; do
      IRGC_PIPE_CLUSTER=1 row c1 "$g" $BFS_SSSP || status=1
      row default "$g" $BFS_SSSP || status=1
    done | sort -k2,2 -k1,1 -s
  done
fi
if [[ $PARTS == *" 2 "* ]]; then
  echo "== 2. the solo limit with the default clusters (label: the limit)"
  for g in road grid2k rgg22; do
    for limit in 1024 2048 4096 8192; do
      # shellcheck disable=SC2086
      IRGC_SOLO_ITEMS=$limit row "$limit" "$g" programs/bfs/bfs_worklist.irg programs/bfs/bfs_do.irg || status=1
    done
  done
fi
exit $status
