#!/usr/bin/env bash
# BFS and connected components on the GPU over the graph classes of docs (road FLA, kron22, urand22, grid2k):
# each run with --verify, printing compute time (CUDA events), launches and the verdict. Run on the GPU machine
# from the repository root with the binary at .carry/irgc and FLA.gr.xz at .carry/FLA.gr.xz.
#   GPU_BENCH_GRAPHS  override the graph list (space-separated; `gen:` specs or files)
set -u
IRGC=${IRGC:-.carry/irgc}
GRAPHS=${GPU_BENCH_GRAPHS:-".carry/FLA.gr.xz gen:kron:scale=22,ef=16,seed=1 gen:er:scale=22,deg=16,seed=1 gen:grid:w=2048,h=2048,drop=0.25,seed=1"}
printf '%-40s %-28s %12s %9s  %s\n' graph program "compute ms" launches verdict
for g in $GRAPHS; do
  for p in bfs/bfs_worklist bfs/bfs_topology cc/rem cc/shiloach_vishkin; do
    args=(run "programs/$p.irg" --graph "$g" --backend cuda --verify --symmetrize)
    case $p in bfs/*) case $g in *FLA*) args+=(--param source=1) ;; *) args+=(--param source=0) ;; esac ;; esac
    out=$(timeout 120 "$IRGC" "${args[@]}" 2>&1)
    ms=$(echo "$out" | awk '/^compute/ {print $2}')
    l=$(echo "$out" | awk '/^launches/ {print $2}')
    v=$(echo "$out" | grep -E '^verify' | head -1 | grep -q ': ok' && echo ok || echo "FAILED: $(echo "$out" | tail -1)")
    printf '%-40s %-28s %12s %9s  %s\n' "${g##*/}" "$p" "${ms:--}" "${l:--}" "$v"
  done
done
