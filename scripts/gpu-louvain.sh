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
# shellcheck disable=SC2086
gen_graphs "$DIR" $GRAPHS || exit 1
for g in $GRAPHS; do
  echo "== $g"
  timeout 240 "$IRGC" bench --backend cuda --runs "$RUNS" --warmup 1 --graph "$DIR/$g.gr" \
    programs/louvain/louvain.irg 2>&1 | grep -vE '^  [a-z_0-9]+ +cuda +median' || status=1
done
exit $status
