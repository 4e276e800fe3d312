#!/usr/bin/env bash
# The GPU check: run on the GPU machine, from the repository root, with a prebuilt release binary at .carry/irgc
# (that machine has no Rust; build it elsewhere with `cargo build --release -p irgc` and carry it).
#
#   1. nvidia-smi -L and the driver version;
#   2. every program in programs/ on generated graphs (the shared graph files are not on that machine), with
#      --backend cuda and --backend cpu, both with --verify: a table of program, graph, backend, verdict, compute
#      ms, and whether the two backends' output digests agree (informational: some programs, e.g. colouring, have
#      several correct answers);
#   3. compute-sanitizer memcheck on a small case of every program, racecheck on the tile (shared-memory) program.
#
# Everything is printed as it happens (a timeout still leaves the results so far) and kept in $OUT/gpu-check.log
# (or /tmp/gpu-check.log); the stderr of every failed run is kept beside it. The whole script stays within
# GPU_CHECK_BUDGET seconds (default 480): work that would not fit is reported as skipped.
#
# Environment:
#   GPU_CHECK_SCALES       graph scales to run (default "16"; e.g. "16 20" or "16 20 22")
#   GPU_CHECK_BUDGET       seconds for the whole script (default 480)
#   GPU_CHECK_RUN_TIMEOUT  seconds per run (default 60)
#   GPU_CHECK_NO_CPU=1     skip the CPU comparison runs
#   IRGC                   the binary (default .carry/irgc)
# Shared libraries the binary needs that the machine lacks (libffi, libzstd: see `ldd`) can be carried in
# .carry/lib; it is put on LD_LIBRARY_PATH.
set -u

. "$(dirname "$0")/gpu-env.sh"
SCALES=${GPU_CHECK_SCALES:-16}
BUDGET=${GPU_CHECK_BUDGET:-480}
RUN_TIMEOUT=${GPU_CHECK_RUN_TIMEOUT:-60}
SANITIZER_RESERVE=150 # seconds kept for the sanitizer phase
SANITIZER=/usr/local/cuda/bin/compute-sanitizer
LOGDIR=${OUT:-/tmp}
LOG=$LOGDIR/gpu-check.log
mkdir -p "$LOGDIR"
: >"$LOG"
SECONDS=0

say() { echo "$@" | tee -a "$LOG"; }

if [ ! -x "$IRGC" ]; then
  say "error: no irgc binary at $IRGC (build it with cargo build --release -p irgc and carry it as .carry/irgc)"
  exit 1
fi

say "== GPU"
nvidia-smi -L 2>&1 | tee -a "$LOG"
nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv,noheader 2>&1 | tee -a "$LOG"
if ! version=$("$IRGC" --version 2>&1); then
  say "error: $IRGC does not start here: $version"
  ldd "$IRGC" 2>&1 | grep -i 'not found' | tee -a "$LOG"
  exit 1
fi
say "irgc: $version"

# The graphs of one scale: name -> spec.
graphs_for_scale() {
  local s=$1 side
  case $s in
    16) side=256 ;;
    18) side=512 ;;
    20) side=1024 ;;
    22) side=2048 ;;
    *) side=$((1 << (s / 2))) ;;
  esac
  echo "gen:rmat:scale=$s,ef=16,seed=1"
  echo "gen:er:scale=$s,deg=16,seed=1"
  echo "gen:rgg:scale=$s,seed=1"
  echo "gen:grid:w=$side,h=$side,seed=1"
}

# All-pairs programs need n^2 memory and n^3 time: they get graphs of their own.
apsp_graphs() {
  echo "gen:er:n=1024,deg=8,seed=1"
  case " $SCALES " in *" 20 "* | *" 22 "*) echo "gen:er:n=4096,deg=8,seed=1" ;; esac
}

is_apsp() { grep -q 'as apsp' "$1"; }

PROGRAMS=$(find programs -name '*.irg' | sort)
COMMON=(--verify --weights random:1:255 --symmetrize)

fail_count=0
run_count=0
row() { printf '%-34s %-34s %-5s %-10s %12s  %s\n' "$@" | tee -a "$LOG"; }

# run_one PROGRAM GRAPH BACKEND: prints a table row; sets DIGEST.
run_one() {
  local prog=$1 graph=$2 backend=$3 out errf rc ms status note
  errf=$LOGDIR/err-$(basename "$prog" .irg)-$(echo "$graph" | tr -c 'a-zA-Z0-9_\n' '_')-$backend.txt
  out=$(timeout "$RUN_TIMEOUT" "$IRGC" run "$prog" --graph "$graph" --backend "$backend" "${COMMON[@]}" 2>"$errf")
  rc=$?
  run_count=$((run_count + 1))
  ms=$(echo "$out" | awk '$1 == "compute" { print $2; exit }')
  DIGEST=$(echo "$out" | awk '$1 == "digest" { print $2; exit }')
  note=""
  if [ $rc -eq 124 ]; then
    status=TIMEOUT
    note="(over ${RUN_TIMEOUT}s)"
  elif [ $rc -eq 0 ] && echo "$out" | grep -q ': ok against'; then
    status=verified
  elif grep -q 'declares no checkable output' "$errf"; then
    status=unchecked
  elif echo "$out" | grep -q 'verify    FAILED'; then
    status=FAILED
    note=$(head -c 300 "$errf" | head -n 1)
  else
    status=ERROR
    note=$(head -c 300 "$errf" | head -n 1)
  fi
  case $status in verified | unchecked) rm -f "$errf" ;; *) fail_count=$((fail_count + 1)) ;; esac
  row "$(basename "$(dirname "$prog")")/$(basename "$prog")" "$graph" "$backend" "$status" "${ms:--}" "$note"
}

say ""
say "== programs x graphs (scales: $SCALES; each run at most ${RUN_TIMEOUT}s; budget ${BUDGET}s)"
row program graph back verdict "compute ms" "note"
main_deadline=$((BUDGET - SANITIZER_RESERVE))
skipped=0
for scale in $SCALES; do
  for prog in $PROGRAMS; do
    if is_apsp "$prog"; then
      [ "$scale" = "$(echo $SCALES | awk '{print $1}')" ] || continue # once, not per scale
      graphs=$(apsp_graphs)
    else
      graphs=$(graphs_for_scale "$scale")
    fi
    for graph in $graphs; do
      if [ $SECONDS -ge $main_deadline ]; then
        skipped=$((skipped + 1))
        continue
      fi
      run_one "$prog" "$graph" cuda
      gpu_digest=$DIGEST
      if [ "${GPU_CHECK_NO_CPU:-0}" != 1 ] && [ $SECONDS -lt $main_deadline ]; then
        run_one "$prog" "$graph" cpu
        if [ -n "$gpu_digest" ] && [ -n "$DIGEST" ]; then
          if [ "$gpu_digest" = "$DIGEST" ]; then say "    digests agree ($DIGEST)"; else say "    digests differ (cuda $gpu_digest, cpu $DIGEST)"; fi
        fi
      fi
    done
  done
done
[ $skipped -gt 0 ] && say "skipped $skipped program x graph case(s): over the time budget"
say "runs: $run_count, not verified: $fail_count (elapsed ${SECONDS}s)"

say ""
say "== compute-sanitizer (small cases)"
if [ ! -x "$SANITIZER" ]; then
  say "no $SANITIZER: skipped"
else
  SMALL="gen:rmat:scale=10,ef=8,seed=1"
  sanitize() {
    local tool=$1 prog=$2 graph=$3 logf summary rc
    if [ $SECONDS -ge $((BUDGET - 10)) ]; then
      say "$(printf '%-10s %-34s skipped (time budget)' "$tool" "$prog")"
      return
    fi
    logf=$LOGDIR/sanitizer-$tool-$(basename "$prog" .irg).txt
    local left=$((BUDGET - SECONDS - 5))
    local limit=$((left < 120 ? left : 120))
    timeout "$limit" "$SANITIZER" --tool "$tool" --error-exitcode 99 \
      "$IRGC" run "$prog" --graph "$graph" --backend cuda --weights random:1:255 >"$logf" 2>&1
    rc=$?
    summary=$(grep -E '(ERROR|RACECHECK) SUMMARY' "$logf" | tail -n 1 | sed 's/^=* *//')
    [ $rc -eq 124 ] && summary="TIMEOUT after ${limit}s"
    [ -z "$summary" ] && summary="no summary (exit $rc; see $(basename "$logf"))"
    say "$(printf '%-10s %-34s exit %-3s %s' "$tool" "$(basename "$(dirname "$prog")")/$(basename "$prog")" "$rc" "$summary")"
  }
  for prog in $PROGRAMS; do
    if is_apsp "$prog"; then g="gen:er:n=96,deg=6,seed=1"; else g=$SMALL; fi
    sanitize memcheck "$prog" "$g"
  done
  for prog in $PROGRAMS; do
    # Racecheck finds shared-memory hazards: only tile kernels use shared memory.
    if grep -q 'forall tile' "$prog"; then
      sanitize racecheck "$prog" "gen:er:n=96,deg=6,seed=1"
    fi
  done
fi
say ""
say "done in ${SECONDS}s; log: $LOG"
[ $fail_count -eq 0 ]
