#!/usr/bin/env bash
# A shipped program against candidate forms of it that must give the same answer (e.g. the colouring candidates in
# scripts/bench, which must colour exactly as jp_ldf does): on the GPU, each program's digest on each class must
# equal the first program's, then `irgc bench --backend cuda` times them side by side (every row verified), then
# compute-sanitizer runs on each candidate. Run on the GPU machine from the repository root, after
# scripts/carry.sh here.
#   GPU_CANDIDATES         programs, the shipped one first (default: jp_ldf and the three colouring candidates)
#   GPU_CANDIDATES_GRAPHS  class names (default: urand22 rmatg22 rgg22 kron22)
#   GPU_CANDIDATES_RUNS    timed runs (default 5)
#   GPU_CANDIDATES_ROUNDS  bench passes over the programs, for run-to-run spread (default 2)
#   GPU_CANDIDATES_VARIANTS  params (NAME=VALUE, space-separated) that each give one more digest check and bench
#                          pass, of the programs that declare NAME (default: words=8, jp_rounds_shortcut's marks)
#   GPU_CANDIDATES_SANITIZE  the graph compute-sanitizer runs on (default gen:rmat:scale=10; empty: none)
#   GPU_CANDIDATES_DIR     where the graphs go (default /tmp/g)
#   GPU_CANDIDATES_BACKEND cuda (default), or cpu to try the script on a machine without a GPU (no sanitizer then)
set -u -o pipefail
. "$(dirname "$0")/gpu-env.sh"
DIR=${GPU_CANDIDATES_DIR:-/tmp/g}
GRAPHS=${GPU_CANDIDATES_GRAPHS:-"urand22 rmatg22 rgg22 kron22"}
RUNS=${GPU_CANDIDATES_RUNS:-5}
ROUNDS=${GPU_CANDIDATES_ROUNDS:-2}
SANITIZE_GRAPH=${GPU_CANDIDATES_SANITIZE-gen:rmat:scale=10}
BACKEND=${GPU_CANDIDATES_BACKEND:-cuda}
[ "$BACKEND" = cuda ] || SANITIZE_GRAPH=""
VARIANTS=${GPU_CANDIDATES_VARIANTS-words=8}
DEFAULT="programs/coloring/jp_ldf.irg scripts/bench/jp_ldf_taken.irg scripts/bench/jp_rounds_shortcut.irg"
DEFAULT+=" scripts/bench/jp_masks.irg"
read -r -a PROGRAMS <<<"${GPU_CANDIDATES:-$DEFAULT}"
# shellcheck disable=SC2086
gen_graphs "$DIR" $GRAPHS || exit 1
status=0
# `check GRAPH PROGRAM [OPTIONS...]`: prints PROGRAM's digest and pipe rounds on GRAPH (a run without --verify: the
# bench verifies). The first program's digest is the one wanted (`want`); another's that differs fails the run.
check() {
  local g=$1 p=$2 d
  shift 2
  d=$(timeout 300 "$IRGC" run --backend "$BACKEND" --no-check-bounds --stats --graph "$DIR/$g.gr" "$@" "$p" 2>&1 |
    awk '/^pipe rounds/ { r = $3; sub(/,$/, "", r) } /^digest/ { d = $2 } END { print d, r }')
  echo "  $(basename "$p" .irg)${*:+ $*} digest ${d% *} rounds ${d#* }"
  if [ "$p" = "${PROGRAMS[0]}" ] && [ $# -eq 0 ]; then
    want=${d% *}
  elif [ "${d% *}" != "$want" ]; then
    echo "  MISMATCH: $(basename "$p" .irg)${*:+ $*} differs from ${PROGRAMS[0]}"
    status=1
  fi
}
# `bench_passes GRAPH LABEL ARGS...`: ROUNDS bench passes of ARGS (programs and options) on GRAPH.
bench_passes() {
  local g=$1 label=$2 round
  shift 2
  for round in $(seq "$ROUNDS"); do
    echo "== $g: bench$label, pass $round"
    BENCH_TIMEOUT=500 bench_rows "$BACKEND" --runs "$RUNS" --warmup 1 --graph "$DIR/$g.gr" "$@" || status=1
  done
}
for g in $GRAPHS; do
  echo "== $g: digests"
  for p in "${PROGRAMS[@]}"; do
    check "$g" "$p"
  done
  bench_passes "$g" "" "${PROGRAMS[@]}"
  for v in $VARIANTS; do
    declaring=()
    for p in "${PROGRAMS[@]}"; do
      grep -q "^param ${v%%=*}:" "$p" && declaring+=("$p")
    done
    [ ${#declaring[@]} -gt 0 ] || continue
    for p in "${declaring[@]}"; do
      check "$g" "$p" --param "$v"
    done
    bench_passes "$g" " with --param $v" --param "$v" "${declaring[@]}"
  done
done
if [ -n "$SANITIZE_GRAPH" ]; then
  echo "== compute-sanitizer on $SANITIZE_GRAPH"
  sanitize "$SANITIZE_GRAPH" "${PROGRAMS[@]:1}" || status=1
fi
exit $status
