#!/usr/bin/env bash
# `hybrid ... above auto` on the GPU (issue 12, item 5): the mode picked each round from the earlier rounds' times
# against fixed thresholds H in {0.05, 0.2, 0.6, 1.0}, for `ipgc_hybrid` and `bfs_do` (and bfs_do's own rule,
# Beamer's, H < 0) on the classes of ../shared/notes/performance.md.
#   1. The `auto` forms (each program with its `hybrid ... above H` written `above auto`, in /tmp) verified with the
#      persistent kernel entered at the first round (IRGC_ENTER_PIPES_AT_ONCE), and under compute-sanitizer.
#   2. `irgc bench` (every row verified) of every form on every class; scripts/auto-table.py prints the table:
#      each form's median, and auto against the best fixed H.
# Run on the GPU machine from the repository root with the release binary at .carry/irgc.
#   GPU_AUTO_CLASSES  (default: road grid2k rgg22 urand22 rmatg22 kron22)   GPU_AUTO_RUNS (default 5)
#   GPU_AUTO_PARTS    (default "1 2")   GPU_AUTO_DIR (default /tmp/g)
#   GPU_AUTO_BACKEND  (part 2; default cuda, cpu to try the script where there is no GPU)
set -u -o pipefail
. "$(dirname "$0")/gpu-env.sh"
DIR=${GPU_AUTO_DIR:-/tmp/g}
CLASSES=${GPU_AUTO_CLASSES:-"road grid2k rgg22 urand22 rmatg22 kron22"}
RUNS=${GPU_AUTO_RUNS:-5}
PARTS=" ${GPU_AUTO_PARTS:-1 2} "
status=0
# shellcheck disable=SC2086
gen_graphs "$DIR" $CLASSES || exit 1
mkdir -p /tmp/auto
sed 's/hybrid work above H {/hybrid work above auto {/' programs/coloring/ipgc_hybrid.irg >/tmp/auto/ipgc_hybrid_auto.irg
sed 's/hybrid frontier above select(H >= 0.0, H, rule) {/hybrid frontier above auto {/' programs/bfs/bfs_do.irg \
  >/tmp/auto/bfs_do_auto.irg
for f in /tmp/auto/*.irg; do grep -q 'above auto' "$f" || { echo "$f: the hybrid was not rewritten"; exit 1; }; done

if [[ "$PARTS" == *" 1 "* ]]; then
  echo "== 1. auto forms verified, persistent kernel from the first round; compute-sanitizer"
  for g in gen:grid:w=200,h=200 gen:rmat:scale=13,seed=3 gen:rgg:scale=13,seed=2 $(for c in $CLASSES; do echo "$DIR/$c.gr"; done); do
    for p in /tmp/auto/ipgc_hybrid_auto.irg /tmp/auto/bfs_do_auto.irg; do
      out=$(IRGC_ENTER_PIPES_AT_ONCE=1 timeout 300 "$IRGC" run --backend cuda --no-check-bounds --verify --graph "$g" "$p" 2>&1)
      rc=$?
      printf '%-26s %-18s %s | %s\n' "$(basename "$g")" "$(basename "$p" .irg)" \
        "$(echo "$out" | grep -E '^verify' | cut -c1-70)" "$(echo "$out" | grep -E '^outlined' | cut -c11-70)"
      [ $rc -eq 0 ] || { echo "$out" | tail -4; status=1; }
    done
  done
  sanitize gen:rmat:scale=10,seed=3 /tmp/auto/ipgc_hybrid_auto.irg /tmp/auto/bfs_do_auto.irg || status=1
fi

if [[ "$PARTS" == *" 2 "* ]]; then
  echo "== 2. auto against fixed H (median ms of $RUNS runs, verified)"
  : >/tmp/auto/rows.jsonl
  # `rows FORM CLASS BENCH-ARGS...`: the bench's JSON rows, tagged, to rows.jsonl, and one short line each printed
  # as it comes (so a lease cut short still shows what it measured).
  rows() {
    local form=$1 cls=$2
    shift 2
    timeout 300 "$IRGC" bench --backend "${GPU_AUTO_BACKEND:-cuda}" --runs "$RUNS" --warmup 1 --json "$@" 2>/dev/null | python3 -c "
import json, sys
for r in json.load(sys.stdin):
    r = dict(r, program=r['program'].replace('_auto', ''), form='$form', cls='$cls')
    print(json.dumps(r), file=open('/tmp/auto/rows.jsonl', 'a'))
    print(r['form'], r['program'], r['cls'], '%.4g' % r['median_ms'], r.get('verified'))
"
  }
  for c in $CLASSES; do
    f=$DIR/$c.gr
    for h in 0.05 0.2 0.6 1.0; do
      rows "H=$h" "$c" --graph "$f" --param "H=$h" programs/coloring/ipgc_hybrid.irg programs/bfs/bfs_do.irg ||
        status=1
    done
    rows rule "$c" --graph "$f" programs/bfs/bfs_do.irg || status=1
    rows auto "$c" --graph "$f" /tmp/auto/ipgc_hybrid_auto.irg /tmp/auto/bfs_do_auto.irg || status=1
  done
  python3 scripts/auto-table.py /tmp/auto/rows.jsonl || status=1
fi
exit $status
