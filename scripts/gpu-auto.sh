#!/usr/bin/env bash
# `hybrid ... above auto` on the GPU (issue 12, item 5): the mode picked each round from the earlier rounds' times
# against fixed thresholds H in {0.05, 0.2, 0.6, 1.0}, for `ipgc_hybrid` and `bfs_do` (and bfs_do's own rule,
# Beamer's, H < 0) on the classes of ../shared/notes/performance.md.
#   1. The `auto` forms (each program with its `hybrid ... above H` written `above auto`, in /tmp) verified with the
#      persistent kernel entered at the first round (IRGC_ENTER_PIPES_AT_ONCE), and under compute-sanitizer.
#   2. `irgc bench` (every row verified) of every form on every class, all forms of a class in one bench, in
#      GPU_AUTO_PASSES passes; scripts/auto-table.py prints the table: each form's median (the median of the
#      passes' medians), and auto against the best fixed H.
# Run on the GPU machine from the repository root with the release binary at .carry/irgc.
#   GPU_AUTO_CLASSES  (default: road grid2k rgg22 urand22 rmatg22 kron22)   GPU_AUTO_RUNS (default 5)
#   GPU_AUTO_PARTS    (default "1 2")   GPU_AUTO_DIR (default /tmp/g)   GPU_AUTO_PASSES (part 2; default 2)
#   GPU_AUTO_BACKEND  (part 2; default cuda, cpu to try the script where there is no GPU)
set -u -o pipefail
. "$(dirname "$0")/gpu-env.sh"
DIR=${GPU_AUTO_DIR:-/tmp/g}
CLASSES=${GPU_AUTO_CLASSES:-"road grid2k rgg22 urand22 rmatg22 kron22"}
RUNS=${GPU_AUTO_RUNS:-5}
PASSES=${GPU_AUTO_PASSES:-2}
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
  echo "== 2. auto against fixed H (median ms of $RUNS runs, verified; $PASSES passes, forms interleaved)"
  # Every form is its own file (the default of param H rewritten), so that one `irgc bench` per class and pass times
  # them all: the graph is loaded once, and forms run side by side rather than minutes apart (on the H100 one form
  # run twice, one after the other, differs by up to 10% on grid2k). Odd passes run the forms in reverse order.
  mkdir -p /tmp/auto/forms
  forms=()
  for h in 0.05 0.2 0.6 1.0; do
    t=${h/./}
    sed "s/^param H: f64 = .*;/param H: f64 = $h;/" programs/coloring/ipgc_hybrid.irg >/tmp/auto/forms/ipgc_hybrid__H$t.irg
    sed "s/^param H: f64 = .*;/param H: f64 = $h;/" programs/bfs/bfs_do.irg >/tmp/auto/forms/bfs_do__H$t.irg
    forms+=(/tmp/auto/forms/ipgc_hybrid__H$t.irg /tmp/auto/forms/bfs_do__H$t.irg)
  done
  cp programs/bfs/bfs_do.irg /tmp/auto/forms/bfs_do__rule.irg
  cp /tmp/auto/ipgc_hybrid_auto.irg /tmp/auto/forms/ipgc_hybrid__auto.irg
  cp /tmp/auto/bfs_do_auto.irg /tmp/auto/forms/bfs_do__auto.irg
  forms+=(/tmp/auto/forms/bfs_do__rule.irg /tmp/auto/forms/ipgc_hybrid__auto.irg /tmp/auto/forms/bfs_do__auto.irg)
  for f in "${forms[@]}"; do
    case $f in *__H*) grep -q '^param H: f64 = [01]' "$f" || { echo "$f: H was not rewritten"; exit 1; } ;; esac
  done
  : >/tmp/auto/rows.jsonl
  for c in $CLASSES; do
    for ((pass = 0; pass < PASSES; pass++)); do
      order=("${forms[@]}")
      if ((pass % 2)); then
        order=()
        for ((i = ${#forms[@]} - 1; i >= 0; i--)); do order+=("${forms[i]}"); done
      fi
      # The bench's JSON rows, tagged with form, class and pass, to rows.jsonl, and one short line each printed.
      timeout 300 "$IRGC" bench --backend "${GPU_AUTO_BACKEND:-cuda}" --runs "$RUNS" --warmup 1 --json \
        --graph "$DIR/$c.gr" "${order[@]}" 2>/dev/null | python3 -c "
import json, sys
for r in json.load(sys.stdin):
    program, form = r['program'].split('__')
    form = {'H005': 'H=0.05', 'H02': 'H=0.2', 'H06': 'H=0.6', 'H10': 'H=1.0'}.get(form, form)
    r = dict(r, program=program, form=form, cls='$c', attempt=$pass)
    print(json.dumps(r), file=open('/tmp/auto/rows.jsonl', 'a'))
    print(r['form'], r['program'], r['cls'], $pass, '%.4g' % r['median_ms'], r.get('verified'))
" || status=1
    done
  done
  python3 scripts/auto-table.py /tmp/auto/rows.jsonl || status=1
fi
exit $status
