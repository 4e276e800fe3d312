#!/usr/bin/env bash
# The GPU benchmark tables of the issues: `irgc bench --backend cuda` (CUDA events, compute only, median of
# GPU_BENCH_RUNS after a warm-up, every program verified once per graph) for
#   cc         every connected-components program on road FLA, grid2k, rmatg22, rgg22, urand22, kron22, uk-2007;
#   traversal  every BFS and SSSP program on road FLA, grid2k, urand22, kron22, rmat22 (source 0; for FLA, the
#              node written 1, as the file numbers nodes from 1);
#   apsp       every all-pairs program at n = 4096 and 8192 (Erdős–Rényi, degree 16, weights 1-255).
# Graph classes: ../shared/notes/performance.md. Run on the GPU machine from the repository root, with the release
# binary at .carry/irgc and the shared graphs at .carry/data (FLA.gr.xz, uk-2007-05@100000.arcs.tsv.xz).
#   GPU_BENCH_SETS    which tables (default "cc traversal apsp")
#   GPU_BENCH_RUNS    timed runs (default 3)
#   GPU_BENCH_TIMEOUT seconds per bench call (default 240)
set -u
. "$(dirname "$0")/gpu-env.sh"
DATA=${DATA:-.carry/data}
SETS=${GPU_BENCH_SETS:-"cc traversal apsp"}
RUNS=${GPU_BENCH_RUNS:-3}
TIMEOUT=${GPU_BENCH_TIMEOUT:-240}
KRON=gen:kron:scale=22,ef=16,seed=1
RMATG=gen:rmat:scale=22,ef=8,preset=rmat-g,seed=1
URAND=gen:er:scale=22,deg=16,seed=1
RGG=gen:rgg:scale=22,seed=1
GRID=gen:grid:w=2048,h=2048,drop=0.25,seed=1

bench() {
  timeout "$TIMEOUT" "$IRGC" bench --backend cuda --runs "$RUNS" --warmup 1 --symmetrize "$@" 2>&1 |
    grep -vE '^  [a-z_0-9]+ +cuda +median' # keep the table, not the progress lines
  [ "${PIPESTATUS[0]}" -eq 124 ] && echo "TIMEOUT: over ${TIMEOUT}s: $*"
}
stems() { find "$@" -name '*.irg' | sort; }

for set in $SETS; do
  case $set in
    cc)
      echo "== connected components"
      bench $(stems programs/cc) --graph "$DATA/FLA.gr.xz" --graph "$GRID" --graph "$RMATG" --graph "$RGG" \
        --graph "$URAND" --graph "$KRON" --graph "$DATA/uk-2007-05@100000.arcs.tsv.xz"
      ;;
    traversal)
      echo "== BFS and SSSP (weights 1-255)"
      bench $(stems programs/bfs programs/sssp) --weights random:1:255 --param source=1 --graph "$DATA/FLA.gr.xz"
      bench $(stems programs/bfs programs/sssp) --weights random:1:255 --param source=0 --graph "$GRID" \
        --graph "$URAND" --graph "$KRON" --graph gen:rmat:scale=22,ef=16,seed=1
      ;;
    apsp)
      echo "== all pairs (int32 min+add: n^3 each)"
      bench $(stems programs/apsp) --weights random:1:255 --graph gen:er:n=4096,deg=16,seed=1 \
        --graph gen:er:n=8192,deg=16,seed=1
      ;;
  esac
done
