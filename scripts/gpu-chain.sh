#!/usr/bin/env bash
# The chained traversals on the GPU (bfs_chain.irg, sssp_chain.irg; issue 12's high-diameter targets):
#   1. verified with the persistent kernel entered at the first round (IRGC_ENTER_PIPES_AT_ONCE), for several chain
#      lengths, and under compute-sanitizer (memcheck, racecheck, synccheck);
#   2. `irgc bench` (every row verified) of each chain length against the programs they compete with
#      (bfs_worklist, bfs_do; sssp_worklist, sssp_nearfar) on the high-diameter classes; prints median ms and the
#      launches (rounds) per row.
# Run on the GPU machine from the repository root with the release binary at .carry/irgc.
#   GPU_CHAIN_CLASSES (default: road grid2k rgg22)   GPU_CHAIN_SSSP_CLASSES (the weighted ones; default: road grid2k)
#   GPU_CHAIN_LENGTHS (default: 1 2 4 8 16)
#   GPU_CHAIN_RUNS (default 5)   GPU_CHAIN_PARTS (default "1 2")   GPU_CHAIN_DIR (default /tmp/g)
set -u -o pipefail
. "$(dirname "$0")/gpu-env.sh"
DIR=${GPU_CHAIN_DIR:-/tmp/g}
CLASSES=${GPU_CHAIN_CLASSES:-"road grid2k rgg22"}
SSSP_CLASSES=" ${GPU_CHAIN_SSSP_CLASSES:-road grid2k} "
weighted() { [[ "$1" == gen:* || "$SSSP_CLASSES" == *" $(basename "$1" .gr) "* ]]; }
LENGTHS=${GPU_CHAIN_LENGTHS:-"1 2 4 8 16"}
RUNS=${GPU_CHAIN_RUNS:-5}
PARTS=" ${GPU_CHAIN_PARTS:-1 2} "
BFS=programs/bfs/bfs_chain.irg
SSSP=programs/sssp/sssp_chain.irg
status=0
# shellcheck disable=SC2086
gen_graphs "$DIR" $CLASSES || exit 1

if [[ "$PARTS" == *" 1 "* ]]; then
  echo "== 1. verified, persistent kernel from the first round; compute-sanitizer"
  for g in gen:grid:w=300,h=300,weights=int gen:rmat:scale=14,seed=3,weights=int $(for c in $CLASSES; do echo "$DIR/$c.gr"; done); do
    for k in $LENGTHS 64; do
      for p in $BFS $SSSP; do
        [ "$p" = "$SSSP" ] && ! weighted "$g" && continue
        out=$(IRGC_ENTER_PIPES_AT_ONCE=1 timeout 300 "$IRGC" run --backend cuda --no-check-bounds --verify --graph "$g" \
          --param "chain=$k" "$p" 2>&1)
        rc=$?
        printf '%-34s %-10s chain=%-3s %s\n' "$(basename "$g")" "$(basename "$p" .irg)" "$k" \
          "$(echo "$out" | grep -E '^verify' | cut -c1-60)"
        [ $rc -eq 0 ] || { echo "$out" | tail -4; status=1; }
      done
    done
  done
  sanitize gen:grid:w=64,h=64,weights=int $BFS $SSSP || status=1
fi

if [[ "$PARTS" == *" 2 "* ]]; then
  echo "== 2. median ms of $RUNS runs (verified), launches"
  row() { # class label program args...
    local c=$1 label=$2
    shift 2
    timeout 600 "$IRGC" bench --backend cuda --runs "$RUNS" --warmup 1 --graph "$DIR/$c.gr" --json "$@" 2>/dev/null |
      python3 -c "import json,sys
for r in json.load(sys.stdin): print('%-8s %-22s %9.3f ms %6d launches %s' % ('$c', '$label', r['median_ms'], r['launches'], r['verified']))" ||
      { echo "$c $label: failed"; status=1; }
  }
  for c in $CLASSES; do
    row "$c" bfs_worklist programs/bfs/bfs_worklist.irg
    row "$c" bfs_do programs/bfs/bfs_do.irg
    for k in $LENGTHS; do
      row "$c" "bfs_chain chain=$k" --param "chain=$k" $BFS
    done
    weighted "$c" || continue
    row "$c" sssp_worklist programs/sssp/sssp_worklist.irg
    row "$c" sssp_nearfar programs/sssp/sssp_nearfar.irg
    for k in $LENGTHS; do
      row "$c" "sssp_chain chain=$k" --param "chain=$k" $SSSP
    done
  done
fi
exit $status
