#!/usr/bin/env bash
# The operator conformance table on a device: every tests/conformance/ops/NAME.irg run with `irgc run --out`
# and compared, value by value, with NAME.expected (what irgc-scalar, the language's one scalar evaluator, says).
# Run from the repository root on the GPU machine with the release binary at .carry/irgc (BACKEND=cpu runs the
# same check on the CPU backend). Prints every differing value and, last, `N passed, M failed` (values; a `?` in
# NAME.expected is a value the specification leaves open, counted as neither).
set -u
. "$(dirname "$0")/gpu-env.sh"
BACKEND=${BACKEND:-cuda}
tmp=$(mktemp -d)
passed=0 failed=0 open=0 broken=0
for prog in tests/conformance/ops/*.irg; do
  name=$(basename "$prog" .irg)
  expected=tests/conformance/ops/$name.expected
  rows=$(wc -l <"$expected")
  if ! "$IRGC" run "$prog" --graph "gen:grid:w=$rows,h=1,drop=0" --backend "$BACKEND" --out "$tmp/$name.out" \
    >"$tmp/$name.log" 2>&1; then
    echo "$name: irgc run failed:"
    cat "$tmp/$name.log"
    broken=$((broken + 1))
    continue
  fi
  # Column names from the program's `output` lines, in order.
  cols=$(grep -E '^output ' "$prog" | sed -E 's/^output ([a-z_0-9]+);/\1/' | tr '\n' ' ')
  read -r p f u < <(cut -d' ' -f2- "$tmp/$name.out" | paste -d'|' - "$expected" | awk -v name="$name" -v cols="$cols" '
    BEGIN { split(cols, c, " ") }
    { split($0, halves, "|"); n = split(halves[1], g, " "); m = split(halves[2], w, " ")
      if (n != m) { f++; printf "%s row %d: %d values, expected %d\n", name, NR - 1, n, m > "/dev/stderr" }
      for (i = 1; i <= n; i++) {
        if (w[i] == "?") u++
        else if (g[i] == w[i]) p++
        else { f++; printf "%s row %d %s: got %s, expected %s\n", name, NR - 1, c[i], g[i], w[i] > "/dev/stderr" } } }
    END { print p + 0, f + 0, u + 0 }')
  passed=$((passed + p))
  failed=$((failed + f))
  open=$((open + u))
  echo "$name: $p values agree, $f differ, $u left open" >&2
done
rm -rf "$tmp"
[ "$broken" -gt 0 ] && echo "$broken table(s) did not run"
echo "$passed passed, $failed failed ($open left open by the specification)"
[ "$failed" -eq 0 ] && [ "$broken" -eq 0 ]
