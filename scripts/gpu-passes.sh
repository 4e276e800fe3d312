#!/usr/bin/env bash
# What each optimizer pass is worth on the GPU: `irgc bench --backend cuda` of the given programs with every pass,
# with each pass disabled in turn, and with none, on a road-like grid (thousands of levels: outlining's case) and
# a Kronecker graph (skewed: cooperative conversion's). Every row is verified. Run on the GPU machine from the
# repository root with the release binary at .carry/irgc.
#   GPU_PASSES_PROGRAMS  programs (default: the worklist traversals and the pushing CC and colouring programs)
#   GPU_PASSES_GRAPHS    graphs (default: 2048^2 grid, 25% of edges dropped; Kronecker scale 20)
#   GPU_PASSES_RUNS      timed runs (default 3)
set -u
. "$(dirname "$0")/gpu-env.sh"
PROGRAMS=${GPU_PASSES_PROGRAMS:-"programs/bfs/bfs_worklist.irg programs/sssp/sssp_worklist.irg programs/cc/groute.irg programs/matching/suitor.irg"}
GRAPHS=${GPU_PASSES_GRAPHS:-"gen:grid:w=2048,h=2048,drop=0.25,seed=1 gen:kron:scale=20,ef=16,seed=1"}
RUNS=${GPU_PASSES_RUNS:-3}
passes=$("$IRGC" passes | awk '/^[^ ]/ {print $1}')  # the pass lines (its parameters are indented below)
configs=("all passes|")
for p in $passes; do configs+=("without $p|--disable-pass $p"); done
none=""
for p in $passes; do none="$none --disable-pass $p"; done
configs+=("no passes|$none")
for graph in $GRAPHS; do
  graph_args=(--graph "$graph")
  for c in "${configs[@]}"; do
    label=${c%%|*}
    flags=${c#*|}
    echo "== $graph, $label"
    # shellcheck disable=SC2086
    timeout 300 "$IRGC" bench --backend cuda --runs "$RUNS" --warmup 1 --symmetrize --weights random:1:255 \
      "${graph_args[@]}" $flags $PROGRAMS 2>&1 | grep -vE '^  [a-z_0-9]+ +cuda +median'
  done
done
