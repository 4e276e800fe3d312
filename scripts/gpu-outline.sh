#!/usr/bin/env bash
# Outlined hybrid pipes on the GPU (issue 12): correctness with the persistent kernel entered at the first round,
# compute-sanitizer on it, and the time outlined against round by round.
#   1. `ipgc_hybrid` (at every H of the issue's table, so both modes run inside the kernel and it switches) and
#      `bfs_do` (its own rule, and H forced low so bottom-up rounds run inside the kernel), each `--verify`d, with
#      IRGC_ENTER_PIPES_AT_ONCE set: the pipe runs in its persistent kernel from its first round, not only after
#      the host rounds a real run starts with.
#   2. compute-sanitizer memcheck, racecheck and synccheck on the same, on small graphs.
#   3. `irgc bench` (every row verified) of both programs and `bfs_worklist`, outlined (the default) and with
#      --no-outline, on the classes of ../shared/notes/performance.md.
#   4. 64-bit reductions (combined across a warp by shuffles): tests/conformance/reductions64.irg's output on the
#      GPU against the CPU's, and the programs with 64-bit reductions verified.
#   5. Retry pipes (`sssp_nearfar`): verified with the kernel entered at once (small graphs and the weighted
#      classes), compute-sanitizer on it, and outlined against --no-outline with `sssp_worklist` beside it.
#   6. Per-round records from outlined kernels: `--stats` on an outlined pipe against `--stats --no-outline` (the
#      same rounds, sizes and modes where the program's rounds are deterministic; scripts/round-records.py) and
#      against a run without statistics (compute time), and a `--plot` of each into $OUT if set.
#   7. The same for outlined `while` loops (`--outline-loops auto`, the default): `--stats` against `--stats
#      --outline-loops=never` (the same reduction trace where the rounds are deterministic; round-records.py
#      --loops) and against a run without statistics, and a `--plot` of each on road into $OUT if set.
# Run on the GPU machine from the repository root with the release binary at .carry/irgc.
#   GPU_OUTLINE_CLASSES  classes for 1 and 3 (default: road grid2k rgg22 urand22 rmatg22 kron22)
#   GPU_OUTLINE_RUNS     timed runs in 3 (default 5)
#   GPU_OUTLINE_PARTS    which parts run (default "1 2 3 4 5 6")
#   GPU_OUTLINE_DIR      where the graphs go (default /tmp/g)
# ../shared does not travel to the GPU machine: scripts/carry.sh puts gen_graphs.py and data/FLA.gr.xz into .carry/.
set -u -o pipefail
. "$(dirname "$0")/gpu-env.sh"
DIR=${GPU_OUTLINE_DIR:-/tmp/g}
CLASSES=${GPU_OUTLINE_CLASSES:-"road grid2k rgg22 urand22 rmatg22 kron22"}
RUNS=${GPU_OUTLINE_RUNS:-5}
PARTS=" ${GPU_OUTLINE_PARTS:-1 2 3 4 5 6 7} "
HYBRID=programs/coloring/ipgc_hybrid.irg
BFS_DO=programs/bfs/bfs_do.irg
SMALL="gen:grid:w=200,h=200 gen:rmat:scale=13,seed=3 gen:rgg:scale=13,seed=2"
status=0
# shellcheck disable=SC2086
gen_graphs "$DIR" $CLASSES || exit 1
files=$(for c in $CLASSES; do echo "$DIR/$c.gr"; done)

# One checked run with the pipe entered at once: the verify line and the outlined line.
check() {
  local graph=$1 prog=$2
  shift 2
  local out
  out=$(IRGC_ENTER_PIPES_AT_ONCE=1 timeout 300 "$IRGC" run --backend cuda --no-check-bounds --verify \
    --graph "$graph" "$prog" "$@" 2>&1)
  local rc=$?
  printf '%-28s %-12s %-10s %s | %s\n' "$(basename "$graph")" "$(basename "$prog" .irg)" "$*" \
    "$(echo "$out" | grep -E '^verify' | cut -c1-90)" "$(echo "$out" | grep -E '^outlined' | cut -c11-80 | tr '\n' ' ')"
  if [ $rc -ne 0 ]; then
    echo "$out" | tail -5
    status=1
  fi
}

if [[ "$PARTS" == *" 1 "* ]]; then
  echo "== 1. verified, persistent kernel from the first round"
  for g in $SMALL $files; do
    for h in 0.05 0.2 0.6 1.0; do check "$g" $HYBRID --param "H=$h"; done
    check "$g" $BFS_DO
    check "$g" $BFS_DO --param H=0.0001
  done
fi

if [[ "$PARTS" == *" 2 "* ]]; then
  echo "== 2. compute-sanitizer"
  for tool in memcheck racecheck synccheck; do
    for g in gen:grid:w=64,h=64 gen:rmat:scale=10,seed=3; do
      for run in "$HYBRID --param H=0.2" "$BFS_DO --param H=0.0001" "$BFS_DO"; do
        # shellcheck disable=SC2086
        out=$(IRGC_ENTER_PIPES_AT_ONCE=1 timeout 400 compute-sanitizer --tool "$tool" --error-exitcode 9 \
          "$IRGC" run --backend cuda --no-check-bounds --verify --graph "$g" $run 2>&1)
        rc=$?
        printf '%-10s %-24s %-40s rc=%s %s\n' "$tool" "$g" "$run" "$rc" \
          "$(echo "$out" | grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^verify' | tr '\n' ' ' | cut -c1-140)"
        [ $rc -eq 0 ] || status=1
      done
    done
  done
fi

if [[ "$PARTS" == *" 3 "* ]]; then
  echo "== 3. outlined (default) against round by round"
  for f in $files; do
    for flags in "" "--no-outline"; do
      echo "== $(basename "$f") ${flags:-outlined}"
      # shellcheck disable=SC2086
      timeout 300 "$IRGC" bench --backend cuda --runs "$RUNS" --warmup 1 --graph "$f" $flags \
        $HYBRID $BFS_DO programs/bfs/bfs_worklist.irg 2>&1 | grep -vE '^  [a-z_0-9]+ +cuda +median' || status=1
    done
  done
fi
if [[ "$PARTS" == *" 4 "* ]]; then
  echo "== 4. 64-bit reductions"
  for g in gen:grid:w=37,h=29 gen:rmat:scale=16,seed=5; do
    rm -f /tmp/r64.cpu /tmp/r64.gpu
    "$IRGC" run tests/conformance/reductions64.irg --graph "$g" --out /tmp/r64.cpu >/dev/null 2>&1 || status=1
    "$IRGC" run tests/conformance/reductions64.irg --graph "$g" --backend cuda --out /tmp/r64.gpu >/dev/null 2>&1 \
      || status=1
    if cmp -s /tmp/r64.cpu /tmp/r64.gpu && [ -s /tmp/r64.cpu ]; then
      echo "reductions64 on $g: the GPU's 6 values equal the CPU's"
    else
      echo "reductions64 on $g: DIFFERENT"; diff /tmp/r64.cpu /tmp/r64.gpu; status=1
    fi
  done
  timeout 300 "$IRGC" bench --backend cuda --runs 1 --warmup 0 --graph gen:kron:scale=18,seed=2 \
    programs/tc/tc.irg programs/tc/tc_per_node.irg programs/cc/afforest.irg $BFS_DO 2>&1 | grep -E ' ok$|FAIL|error' \
    || status=1
fi
if [[ "$PARTS" == *" 5 "* ]]; then
  echo "== 5. retry pipes"
  NEARFAR=programs/sssp/sssp_nearfar.irg
  weighted=$(for c in $CLASSES; do case $c in road | grid2k | urand22 | kron22) echo "$DIR/$c.gr" ;; esac; done)
  for g in gen:grid:w=200,h=200,weights=int:1:255 gen:rmat:scale=13,seed=3,weights=int:1:255 $weighted; do
    for d in 0 64; do check "$g" $NEARFAR --param "delta=$d"; done
  done
  for tool in memcheck racecheck synccheck; do
    for g in gen:grid:w=64,h=64,weights=int:1:255 gen:rmat:scale=10,seed=3,weights=int:1:255; do
      out=$(IRGC_ENTER_PIPES_AT_ONCE=1 timeout 400 compute-sanitizer --tool "$tool" --error-exitcode 9 \
        "$IRGC" run --backend cuda --no-check-bounds --verify --graph "$g" $NEARFAR 2>&1)
      rc=$?
      printf '%-10s %-40s rc=%s %s\n' "$tool" "$g" "$rc" \
        "$(echo "$out" | grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^verify' | tr '\n' ' ' | cut -c1-140)"
      [ $rc -eq 0 ] || status=1
    done
  done
  for f in $weighted; do
    for flags in "" "--no-outline"; do
      echo "== $(basename "$f") ${flags:-outlined}"
      # shellcheck disable=SC2086
      timeout 300 "$IRGC" bench --backend cuda --runs "$RUNS" --warmup 1 --graph "$f" $flags \
        $NEARFAR programs/sssp/sssp_worklist.irg 2>&1 | grep -vE '^  [a-z_0-9]+ +cuda +median' || status=1
    done
  done
fi
if [[ "$PARTS" == *" 6 "* ]]; then
  echo "== 6. per-round records from outlined kernels"
  for f in gen:grid:w=300,h=300 $files; do
    for run in "programs/bfs/bfs_worklist.irg|--same-sizes" "$BFS_DO|--same-sizes" "$HYBRID --param H=0.2|" \
      "programs/sssp/sssp_nearfar.irg|"; do
      prog=${run%|*}
      case "$prog $f" in *sssp*grid:* | *sssp*rgg22* | *sssp*rmatg22*) continue ;; esac
      name=$(basename "${prog%% *}" .irg)
      # shellcheck disable=SC2086
      timeout 300 "$IRGC" run --backend cuda --graph "$f" $prog --stats --json >/tmp/rr.a.json 2>/tmp/rr.err &&
        timeout 300 "$IRGC" run --backend cuda --graph "$f" $prog --stats --json --no-outline >/tmp/rr.b.json &&
        timeout 300 "$IRGC" run --backend cuda --graph "$f" $prog --json >/tmp/rr.c.json || {
        echo "$name $f: the run failed"; tail -3 /tmp/rr.err; status=1; continue
      }
      printf '%-14s %-24s ' "$name" "$(basename "$f")"
      python3 scripts/round-records.py /tmp/rr.a.json /tmp/rr.b.json /tmp/rr.c.json ${run#*|} || status=1
      if [ -n "${OUT:-}" ] && [ "$f" = "$DIR/road.gr" ]; then
        # shellcheck disable=SC2086
        "$IRGC" run --backend cuda --graph "$f" $prog --plot "$OUT/rounds-$name-road.svg" >/dev/null 2>&1 || status=1
      fi
    done
  done
fi
if [[ "$PARTS" == *" 7 "* ]]; then
  echo "== 7. per-round records from outlined loops"
  for f in $files; do
    for run in "programs/bfs/bfs_topology.irg|--same-sizes" "programs/sssp/sssp_atomic.irg|" \
      "programs/pagerank/pagerank.irg|"; do
      prog=${run%|*}
      name=$(basename "$prog" .irg)
      w="--weights random:1:255"
      timeout 300 "$IRGC" run --backend cuda --graph "$f" $w "$prog" --stats --json >/tmp/rr.a.json 2>/tmp/rr.err &&
        timeout 300 "$IRGC" run --backend cuda --graph "$f" $w "$prog" --stats --json --outline-loops=never \
          >/tmp/rr.b.json &&
        timeout 300 "$IRGC" run --backend cuda --graph "$f" $w "$prog" --json >/tmp/rr.c.json || {
        echo "$name $f: the run failed"; tail -3 /tmp/rr.err; status=1; continue
      }
      printf '%-14s %-24s ' "$name" "$(basename "$f")"
      # shellcheck disable=SC2086
      python3 scripts/round-records.py /tmp/rr.a.json /tmp/rr.b.json /tmp/rr.c.json --loops ${run#*|} || status=1
      if [ -n "${OUT:-}" ] && [ "$f" = "$DIR/road.gr" ]; then
        "$IRGC" run --backend cuda --graph "$f" $w "$prog" --plot "$OUT/loop-rounds-$name-road.svg" >/dev/null 2>&1 ||
          status=1
      fi
    done
  done
fi
exit $status
