#!/usr/bin/env bash
# --check-bounds on the GPU: (1) three programs with a bad index stop with the diagnostic; (2) under
# compute-sanitizer memcheck the checked kernels touch no memory outside their arrays; (3) every shipped program
# verifies with the checks on (no false alarms), and what the checks cost (compute ms, pipes round by round in
# both columns). Run on the GPU machine from the repository root with the release binary at .carry/irgc.
set -u
. "$(dirname "$0")/gpu-env.sh"
dir=$(mktemp -d)
bad() {
  cat >"$dir/$1.irg" <<IRG
graph G;
node x: u32 = 0;
array h: u32[4] = 0;
output x;
kernel bad() {
    forall v in G.nodes {
        $2
    }
}
plan { bad(); }
IRG
}
bad node_array 'x[((v as u32) * 1000000) as node] = 1;'
bad dense_array 'h[G.degree(v)] += 1;'
bad graph_query 'x[v] = G.dst((v as u64 + 5000000) as edge) as u32;'
G=gen:rmat:scale=12,ef=8,seed=1
for p in node_array dense_array graph_query; do
  echo "== $p"
  "$IRGC" run "$dir/$p.irg" --backend cuda --graph $G --check-bounds 2>&1 | grep -E "error|index"; echo "exit ${PIPESTATUS[0]}"
  compute-sanitizer --tool memcheck "$IRGC" run "$dir/$p.irg" --backend cuda --graph $G --check-bounds 2>&1 \
    | grep -E "ERROR SUMMARY|Invalid" | head -2
done
echo "== every program, checked, verified; compute ms unchecked / checked (both round by round)"
for g in gen:rmat:scale=18,ef=16,seed=1 gen:grid:w=512,h=512; do
  for p in programs/*/*.irg; do
    args=(--backend cuda --graph "$g" --weights random:1:255 --no-outline --json)
    case $p in *apsp*) args=(--backend cuda --graph gen:rmat:scale=9,ef=8,seed=1 --weights random:1:255 --no-outline --json) ;; esac
    off=$(timeout 120 "$IRGC" run "$p" "${args[@]}" 2>/dev/null | python3 -c "import json,sys; print('%.3f' % (1e3*json.load(sys.stdin)['compute_seconds']))" 2>/dev/null)
    on=$(timeout 120 "$IRGC" run "$p" "${args[@]}" --verify 2>/dev/null | python3 -c "
import json,sys
v=json.load(sys.stdin); ok=(v.get('verification') or {}).get('ok')
print('%.3f %s' % (1e3*v['compute_seconds'], 'verified' if ok else 'NOT VERIFIED'))" 2>/dev/null)
    printf "%-28s %-34s %10s  %s\n" "$(basename "$p" .irg)" "$g" "${off:-error}" "${on:-error}"
  done
done
rm -rf "$dir"
