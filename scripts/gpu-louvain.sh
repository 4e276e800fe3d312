#!/usr/bin/env bash
# Multi-level Louvain on the GPU: `irgc bench --backend cuda` of programs/louvain/louvain.irg (and the one-level
# louvain_local.irg beside it) on the classes ν-Louvain was measured on in ../shared/notes/performance.md (road FLA
# 0.9945 / 18.7 ms, rgg22 0.9894 / 67.2 ms, kron22 0.0638 / 421.8 ms on an H200). Every row is verified on the CPU
# (the exact modularity of the output), and the quality column gives modularity and communities. Before that, the
# `G.contract` example of compiler/cli/tests/contract.rs runs on the GPU and must print the same rows as on the CPU.
# Run on the GPU machine from the repository root with the release binary at .carry/irgc.
#   GPU_LOUVAIN_GRAPHS  class names (default: road rgg22 kron22)
#   GPU_LOUVAIN_RUNS    timed runs (default 3)
#   GPU_LOUVAIN_DIR     where the graphs go (default /tmp/g)
set -u -o pipefail
. "$(dirname "$0")/gpu-env.sh"
DIR=${GPU_LOUVAIN_DIR:-/tmp/g}
GRAPHS=${GPU_LOUVAIN_GRAPHS:-"road rgg22 kron22"}
RUNS=${GPU_LOUVAIN_RUNS:-3}
status=0
# The contraction example: CPU and GPU outputs must be identical.
tmp=$(mktemp -d)
sed -n '/^const PAIRS: &str = "/,/^";/p' compiler/cli/tests/contract.rs | sed '1s/^const PAIRS: &str = "//; $d' >"$tmp/pairs.irg"
printf '1 2\n2 3\n3 4\n4 5\n5 6\n' >"$tmp/path.txt"
"$IRGC" run "$tmp/pairs.irg" --graph "$tmp/path.txt" --no-cache --out "$tmp/cpu.txt" >/dev/null 2>&1 || status=1
"$IRGC" run "$tmp/pairs.irg" --graph "$tmp/path.txt" --no-cache --backend cuda --out "$tmp/gpu.txt" >/dev/null 2>&1 || status=1
if cmp -s "$tmp/cpu.txt" "$tmp/gpu.txt"; then echo "G.contract example: GPU output equals the CPU's"; else
  echo "G.contract example: GPU output DIFFERS"; diff "$tmp/cpu.txt" "$tmp/gpu.txt"; status=1; fi
# Two contractions by hashed labels, then order-independent measures of the quotient (its rows' order is the GPU's).
"$IRGC" gen "rmat:scale=16,ef=16,weights=int:1:100" -o "$tmp/rmat.gr" --format galois >/dev/null || status=1
for t in none u32 i64 f32 f64; do
  if [ $t = none ]; then decl="graph G(undirected);"; sum=u32; w=1u32; else
    case $t in u32) one=1u32 ;; i64) one=1i64 ;; f32) one=1.0f32 ;; *) one=1.0 ;; esac
    decl="graph G(undirected, weight: $t = $one);"; sum=$t; w="G.weight(e)"; fi
  cat >"$tmp/contract_$t.irg" <<EOF
$decl
node label: node;
node deg: u64;
node wsum: $sum;
node low: node;
node strays: u32;
output deg;
output wsum;
output low;
output strays;
kernel hashed(div: u32) {
    forall v in G.nodes { label[v] = ((((v as u32) * 2654435761u32) >> 8) % (G.num_nodes as u32 / div + 1u32)) as node; }
}
kernel measure() {
    forall v in G.nodes {
        deg[v] = G.degree(v) as u64;
        var s: $sum = 0 as $sum;
        var l: node = inf;
        var away: u32 = 0;
        for e in G.edges(v) {
            s += $w;
            l = min(l, G.dst(e));
            if G.src(e) != v { away += 1u32; }
        }
        strays[v] = away;
        wsum[v] = s;
        low[v] = l;
    }
}
plan { hashed(3u32); G.contract(label); hashed(5u32); G.contract(label); measure(); }
EOF
  "$IRGC" run "$tmp/contract_$t.irg" --graph "$tmp/rmat.gr" --out "$tmp/cpu_$t.txt" >/dev/null 2>&1 || status=1
  # Both contractions on the GPU, then each handing over to the host at one of them (IRGC_CONTRACT_ON).
  for on in dd dh hd; do
    if IRGC_CHECK_QUOTIENTS=1 IRGC_CONTRACT_ON=$on "$IRGC" run "$tmp/contract_$t.irg" --graph "$tmp/rmat.gr" \
      --backend cuda --out "$tmp/gpu_$t.txt" >"$tmp/log_$t.txt" 2>&1 && cmp -s "$tmp/cpu_$t.txt" "$tmp/gpu_$t.txt" &&
      [ "$(grep -c "on the device" "$tmp/log_$t.txt")" = "$(echo $on | tr -cd d | wc -c)" ]; then
      echo "G.contract, $t weights, contracted $on (d: device, h: host): quotients equal the host's, output the CPU's"
    else
      echo "G.contract, $t weights, contracted $on: DIFFERS"; grep -iE "error|contract " "$tmp/log_$t.txt"; status=1
    fi
  done
done
# A label that is no node: the same error on both backends, naming the node and its label.
sed 's/^plan {.*/kernel spoil() { forall v in G.nodes { if v == 7 as node { label[v] = (G.num_nodes as u32 + 5u32) as node; } } }\
plan { hashed(3u32); G.contract(label); hashed(5u32); spoil(); G.contract(label); measure(); }/' \
  "$tmp/contract_none.irg" >"$tmp/bad.irg"
cpu=$("$IRGC" run "$tmp/bad.irg" --graph "$tmp/rmat.gr" 2>&1 | grep -o "node #.*")
gpu=$("$IRGC" run "$tmp/bad.irg" --graph "$tmp/rmat.gr" --backend cuda 2>&1 | grep -o "node #.*")
if [ -n "$cpu" ] && [ "$cpu" = "$gpu" ]; then echo "G.contract, a bad label: the same error on the GPU: $gpu"; else
  echo "G.contract, a bad label: CPU '$cpu', GPU '$gpu'"; status=1; fi
# shellcheck disable=SC2086
gen_graphs "$DIR" $GRAPHS || exit 1
for g in $GRAPHS; do
  echo "== $g"
  timeout 240 "$IRGC" bench --backend cuda --runs "$RUNS" --warmup 1 --graph "$DIR/$g.gr" \
    programs/louvain/louvain.irg 2>&1 | grep -vE '^  [a-z_0-9]+ +cuda +median' || status=1
done
exit $status
