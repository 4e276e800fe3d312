#!/usr/bin/env bash
# Runs every cargo-fuzz target (fuzz/) for SECONDS each (default 600), one after another, and prints a line per
# target: executions, run time, crashes. New interesting inputs go to a scratch corpus (the repository keeps only
# the seeds in fuzz/corpus/TARGET, plus any crash input, which becomes a seed once fixed); crash inputs go to
# fuzz/artifacts/TARGET/. Needs `cargo install cargo-fuzz`; runs on stable Rust with `-s none` (no sanitizer).
#   scripts/fuzz.sh [SECONDS] [TARGET...]
set -uo pipefail
cd "$(dirname "$0")/.."
secs=${1:-600}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(front graph_file gen_spec param specs)
work=${FUZZ_WORK:-/tmp/irgc-fuzz-corpus}
cargo fuzz build -s none -O >/dev/null || exit 1
for t in "${targets[@]}"; do
  mkdir -p "$work/$t"
  log="$work/$t.log"
  cargo fuzz run -s none -O "$t" "$work/$t" "fuzz/corpus/$t" -- -max_total_time="$secs" -rss_limit_mb=4096 \
    -malloc_limit_mb=4096 -timeout=20 -print_final_stats=1 >"$log" 2>&1
  rc=$?
  execs=$(grep -m1 'stat::number_of_executed_units' "$log" | awk '{print $2}')
  crashes=$(ls "fuzz/artifacts/$t" 2>/dev/null | wc -l)
  echo "$t: exit $rc, ${execs:-?} executions in ${secs} s, $crashes crash/timeout/oom input(s) in fuzz/artifacts/$t"
done
