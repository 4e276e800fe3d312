#!/usr/bin/env bash
# Every shipped program verified on the GPU, at scale: one `irgc bench --backend cuda` per graph (the graph is
# generated or loaded once and every program runs on it, each result checked with the CPU reference), with the
# all-pairs programs on graphs of their own size. Run on the GPU machine from the repository root, with the
# release binary at .carry/irgc and the shared graphs (if wanted) under .carry/data.
#
#   GPU_VERIFY_GRAPHS   graphs (space-separated `gen:` specs or files); default: the 2^22 classes of
#                       ../shared/notes/performance.md (R-MAT Graph500 and RMAT-G, Erdős–Rényi, RGG, grid)
#   GPU_VERIFY_APSP     graphs for the all-pairs programs (default: n = 4096, degree 16); "" skips them
#   GPU_VERIFY_RUNS     timed runs per program (default 1: this is a check; gpu-bench.sh times)
#   GPU_VERIFY_TIMEOUT  seconds per graph (default 240); a graph that runs over it is reported
#   GPU_VERIFY_SKIP     program stems to leave out (e.g. "louvain_local")
# Prints bench's lines as they come; exits non-zero if any run did not verify.
set -u
. "$(dirname "$0")/gpu-env.sh"
GRAPHS=${GPU_VERIFY_GRAPHS:-"gen:kron:scale=22,ef=16,seed=1 gen:rmat:scale=22,ef=8,preset=rmat-g,seed=1 gen:er:scale=22,deg=16,seed=1 gen:rgg:scale=22,seed=1 gen:grid:w=2048,h=2048,drop=0.25,seed=1"}
APSP=${GPU_VERIFY_APSP-"gen:er:n=4096,deg=16,seed=1"}
RUNS=${GPU_VERIFY_RUNS:-1}
BACKEND=${GPU_VERIFY_BACKEND:-cuda} # `cpu` tries the script on a machine without a GPU
TIMEOUT=${GPU_VERIFY_TIMEOUT:-240}
SKIP=" ${GPU_VERIFY_SKIP:-} "
SECONDS=0

is_apsp() { grep -q 'as apsp' "$1"; }
# Slow programs last, so a graph that runs out of time still reports the others.
order() { case $1 in *louvain* | *coloring* | *matching*) echo "1 $1" ;; *) echo "0 $1" ;; esac; }
keep() { case "$SKIP" in *" $(basename "$1" .irg) "*) return 1 ;; esac; }

GRAPH_PROGS=() APSP_PROGS=()
for p in $(for f in $(find programs -name '*.irg'); do order "$f"; done | sort | cut -d' ' -f2); do
  keep "$p" || continue
  if is_apsp "$p"; then APSP_PROGS+=("$p"); else GRAPH_PROGS+=("$p"); fi
done

failed=0
bench() {
  local graph=$1
  shift
  echo "== $graph ($# programs; elapsed ${SECONDS}s)"
  timeout "$TIMEOUT" "$IRGC" bench --backend "$BACKEND" --runs "$RUNS" --warmup 0 --symmetrize --weights random:1:255 \
    --graph "$graph" "$@" 2>&1 | grep -vE '^(program|-----|MTEPS|one-pass)'
  local rc=${PIPESTATUS[0]}
  if [ "$rc" -eq 124 ]; then
    echo "   TIMEOUT: over ${TIMEOUT}s on $graph (programs without a line above did not finish)"
    failed=1
  elif [ "$rc" -ne 0 ]; then
    failed=1
  fi
}

command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
for g in $GRAPHS; do bench "$g" "${GRAPH_PROGS[@]}"; done
if [ ${#APSP_PROGS[@]} -gt 0 ]; then
  for g in $APSP; do bench "$g" "${APSP_PROGS[@]}"; done
fi
echo "done in ${SECONDS}s: $([ $failed -eq 0 ] && echo 'every run verified' || echo 'SOME RUNS DID NOT VERIFY')"
exit $failed
