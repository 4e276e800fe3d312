#!/usr/bin/env bash
# Cluster rounds on the GPU (issue 12; IRGC_PIPE_CLUSTER, docs/next-iteration-outlining.md "Cluster rounds"):
# whether they run and give the same answers, before scripts/gpu-rounds.sh times them.
#   1. The launch itself: `bfs_worklist` on road with clusters of each size of GPU_CLUSTERS_SIZES, `--stats`
#      (the persistent kernel's grid and cluster are in the error when the driver refuses; the rounds and their
#      modes when it runs), verified.
#   2. Every shipped program with a pipe (APSP and Louvain left out: they take minutes here) verified with the
#      persistent kernel entered at the first round, clusters of each size, and the solo limit at 40 (rounds
#      crossing it both ways) and at the default (256 items a block of the cluster), on small generated graphs of
#      three shapes and on road.
#   3. compute-sanitizer's memcheck, racecheck and synccheck on `bfs_worklist`, `bfs_do` and `sssp_nearfar` with
#      clusters of 4 on a grid of SANITIZE_PIPE_BLOCKS blocks (default 8), and racecheck on the BFS programs without
#      clusters on 4 blocks (racecheck did not finish them on the whole resident grid).
# Run on the GPU machine from the repository root with the release binary at .carry/irgc (scripts/gpu-env.sh).
#   GPU_CLUSTERS_SIZES (default "2 8 16")   GPU_CLUSTERS_PARTS (default "1 2 3")   GPU_CLUSTERS_DIR (default /tmp/g)
set -u -o pipefail
. "$(dirname "$0")/gpu-env.sh"
DIR=${GPU_CLUSTERS_DIR:-/tmp/g}
SIZES=${GPU_CLUSTERS_SIZES:-"2 8 16"}
PARTS=" ${GPU_CLUSTERS_PARTS:-1 2 3} "
SMALL="gen:grid:w=200,h=200 gen:rmat:scale=14,seed=3 gen:rgg:scale=14,seed=2"
status=0
gen_graphs "$DIR" road || exit 1

if [[ $PARTS == *" 1 "* ]]; then
  echo "== 1. bfs_worklist on road in clusters (--stats: rounds; verified)"
  for c in $SIZES; do
    out=$(IRGC_PIPE_CLUSTER=$c timeout 120 "$IRGC" run --backend cuda --verify --stats programs/bfs/bfs_worklist.irg \
      --graph "$DIR/road.gr" 2>&1)
    rc=$?
    echo "clusters of $c: rc=$rc $(echo "$out" | grep -E '^verify|error|rounds' | head -3 | tr '\n' ' ' | cut -c1-200)"
    [ $rc -eq 0 ] || status=1
  done
fi

if [[ $PARTS == *" 2 "* ]]; then
  echo "== 2. every pipe program verified in clusters, pipes entered at once (lines only for failures)"
  programs=$(find programs -name '*.irg' | grep -v -e apsp -e louvain | sort)
  for c in $SIZES; do
    for solo in 40 default; do
      limit=$([ "$solo" = default ] && echo $((256 * c)) || echo "$solo")
      for g in $SMALL "$DIR/road.gr"; do
        # shellcheck disable=SC2086
        IRGC_PIPE_CLUSTER=$c IRGC_SOLO_ITEMS=$limit IRGC_ENTER_PIPES_AT_ONCE=1 timeout 300 "$IRGC" bench \
          --backend cuda --runs 1 --warmup 0 --symmetrize --weights random:1:255 --graph "$g" $programs 2>&1 |
          awk -v c="$c" -v s="$solo" -v g="$g" '($5 == "cuda" && $NF != "ok") || /error|panic|FAIL/ { print "NOT OK", c, s, $0; bad = 1 }
            $5 == "cuda" { n++ } END { printf "clusters %s, solo %s, %s: %d rows\n", c, s, g, n; exit bad }' || status=1
      done
    done
  done
fi

if [[ $PARTS == *" 3 "* ]]; then
  echo "== 3. compute-sanitizer"
  IRGC_PIPE_CLUSTER=4 IRGC_SOLO_ITEMS=300 SANITIZE_PIPE_BLOCKS=${SANITIZE_PIPE_BLOCKS:-8} \
    sanitize gen:grid:w=40,h=40 programs/bfs/bfs_worklist.irg programs/bfs/bfs_do.irg || status=1
  IRGC_PIPE_CLUSTER=4 SANITIZE_PIPE_BLOCKS=${SANITIZE_PIPE_BLOCKS:-8} SANITIZE_ARGS="--weights random:1:255" \
    sanitize gen:grid:w=24,h=24 programs/sssp/sssp_nearfar.irg || status=1
  echo "-- without clusters, 4 blocks: racecheck on the BFS pipes"
  IRGC_PIPE_CLUSTER=1 IRGC_SOLO_ITEMS=30 SANITIZE_PIPE_BLOCKS=4 SANITIZE_TOOLS=racecheck \
    sanitize gen:grid:w=40,h=40 programs/bfs/bfs_worklist.irg programs/bfs/bfs_do.irg || status=1
fi
exit $status
