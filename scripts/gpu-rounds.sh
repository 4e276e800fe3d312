#!/usr/bin/env bash
# What a round of an outlined pipe costs on the GPU, and the round-bound programs it governs (issue 12): run on the
# GPU machine from the repository root with the release binary at .carry/irgc (scripts/gpu-env.sh).
#   1. scripts/bench/round_cost.irg: 4,000 rounds of 1, 256 and 2,048 items, on the whole grid (IRGC_SOLO_ITEMS=0)
#      and on block 0 or the first cluster alone (the default limit); prints ms and µs a round. Every round also
#      writes hits[v], which is checked: rounds + 1 for each of the `width` items.
#   2. BFS and SSSP on the high-diameter classes (every row verified).
#   Both once per cluster size of GPU_ROUNDS_CLUSTERS (IRGC_PIPE_CLUSTER; default "1 16": block 0 alone, then the
#   runtime's default clusters of 16; e.g. "1 4 8 16").
#   GPU_ROUNDS_DIR (default /tmp/g)   GPU_ROUNDS_RUNS (default 5)   GPU_ROUNDS_CLASSES (default: road grid2k rgg22)
#   GPU_ROUNDS_BACKEND (default cuda; `cpu` tries the script on a machine without a GPU)
set -u -o pipefail
. "$(dirname "$0")/gpu-env.sh"
DIR=${GPU_ROUNDS_DIR:-/tmp/g}
RUNS=${GPU_ROUNDS_RUNS:-5}
CLASSES=${GPU_ROUNDS_CLASSES:-"road grid2k rgg22"}
BACKEND=${GPU_ROUNDS_BACKEND:-cuda}
CLUSTERS=${GPU_ROUNDS_CLUSTERS:-"1 16"}
ROUNDS=4000
status=0
# shellcheck disable=SC2086
gen_graphs "$DIR" $CLASSES || exit 1
median() { "$IRGC" bench --backend "$BACKEND" --runs "$RUNS" --warmup 1 "$@" 2>&1 | awk -v b="$BACKEND" '$5==b {print $6}'; }
# Prints the number of wrong lines of `irgc run --out -`: `width` nodes must have run rounds + 1 times, all others 0.
wrong_hits() {
  awk -v w="$1" -v r="$ROUNDS" '$2 == r + 1 { n++; next } $2 != 0 { bad++ } END { print bad + (n != w) }'
}

for cluster in $CLUSTERS; do
export IRGC_PIPE_CLUSTER=$cluster
echo "== 1. a round's fixed cost ($ROUNDS rounds; ms, µs a round; clusters of $cluster)"
for width in 1 256 2048; do
  for where in grid alone; do
    limit=$([ "$where" = grid ] && echo 0 || echo $((256 * cluster)))
    ms=$(IRGC_SOLO_ITEMS=$limit median scripts/bench/round_cost.irg --graph "$DIR/road.gr" \
      --param rounds=$ROUNDS --param width=$width)
    bad=$(IRGC_SOLO_ITEMS=$limit "$IRGC" run --backend "$BACKEND" scripts/bench/round_cost.irg --graph "$DIR/road.gr" \
      --param rounds=$ROUNDS --param width=$width --out - 2>/dev/null | wrong_hits "$width")
    [ "$bad" -eq 0 ] || status=1
    awk -v ms="$ms" -v w="$width" -v where="$where" -v r="$ROUNDS" -v bad="$bad" \
      'BEGIN { printf "width %4d  %-6s  %8s ms  %6.2f us/round  %s\n", w, where, ms, ms * 1000 / r, (bad ? "WRONG HITS" : "hits ok") }'
  done
done

echo "== 2. round-bound programs (median ms, launches, verified; clusters of $cluster)"
for g in $CLASSES; do
  bench_rows "$BACKEND" --runs "$RUNS" --warmup 1 programs/bfs/bfs_worklist.irg programs/bfs/bfs_do.irg \
    --graph "$DIR/$g.gr" || status=1
done
for g in $CLASSES; do
  [ "$g" = rgg22 ] && continue # no weights in its file
  bench_rows "$BACKEND" --runs "$RUNS" --warmup 1 programs/sssp/sssp_worklist.irg programs/sssp/sssp_nearfar.irg \
    --graph "$DIR/$g.gr" || status=1
done
done
exit $status
