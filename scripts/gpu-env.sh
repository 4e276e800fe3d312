# Sourced by the gpu-*.sh scripts (run on the GPU machine from the repository root): the carried binary and
# libraries, `sanitize GRAPH PROGRAM...` (compute-sanitizer's three tools), and `gen_graphs DIR CLASS...`, which
# writes the graph classes of ../shared/notes/performance.md with ../shared's own generator. ../shared does not
# travel to the GPU machine: scripts/carry.sh copies tools/gen_graphs.py and data/FLA.gr.xz (the `road` class)
# into .carry/ with the binary.
if [ -d .carry/lib ]; then
  export LD_LIBRARY_PATH=$PWD/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
# scripts/carry.sh packs the binary as .carry/irgc.xz: unpack it once on the machine.
if [ ! -x .carry/irgc ] && [ -f .carry/irgc.xz ]; then
  xz -dk .carry/irgc.xz && chmod +x .carry/irgc
fi
IRGC=${IRGC:-.carry/irgc}

gen_graphs() {
  local dir=$1
  shift
  GEN_ROAD=${GEN_ROAD:-.carry/FLA.gr.xz} python3 "${GEN_GRAPHS:-.carry/gen_graphs.py}" "$dir" "$@" >/dev/null
}

# `bench_rows BACKEND ARGS...`: `irgc bench --backend BACKEND ARGS` cut to one line a row (program, graph, median
# ms, launches, verified), within BENCH_TIMEOUT seconds (default 600); fails when a row is not verified.
bench_rows() {
  local backend=$1
  shift
  timeout "${BENCH_TIMEOUT:-600}" "$IRGC" bench --backend "$backend" "$@" 2>&1 |
    awk -v b="$backend" '$5 == b { print $1, $2, $6, $(NF-3), $NF; if ($NF != "ok") bad = 1 } END { exit bad }'
}

# `sanitize GRAPH PROGRAM...`: compute-sanitizer's memcheck, racecheck and synccheck on each program, verified, with
# outlined pipes entered at the first round (IRGC_ENTER_PIPES_AT_ONCE); one line a tool and program. Fails when
# any run does. SANITIZE_PIPE_BLOCKS=N runs the persistent kernels on at most N blocks (IRGC_PIPE_BLOCKS), so that
# racecheck finishes on the long BFS pipes; SANITIZE_ARGS adds options to each run (e.g. `--weights random:1:255`);
# SANITIZE_TOOLS picks the tools (default: all three); SANITIZE_TIMEOUT bounds each run (default 400 s: keep it
# under the caller's own limit, since a `timeout` around this function does not stop the run in flight). A failing
# run's whole report is written to $OUT/sanitize-TOOL-PROGRAM.txt.
sanitize() {
  local graph=$1 tool p out rc failed=0
  shift
  for tool in ${SANITIZE_TOOLS:-memcheck racecheck synccheck}; do
    for p in "$@"; do
      out=$(IRGC_ENTER_PIPES_AT_ONCE=1 IRGC_PIPE_BLOCKS=${SANITIZE_PIPE_BLOCKS:-} timeout "${SANITIZE_TIMEOUT:-400}" \
        compute-sanitizer --tool "$tool" --error-exitcode 9 \
        "$IRGC" run --backend cuda --no-check-bounds --verify --graph "$graph" ${SANITIZE_ARGS:-} "$p" 2>&1)
      rc=$?
      printf '%-10s %-18s rc=%s %s\n' "$tool" "$(basename "$p" .irg)" "$rc" \
        "$(echo "$out" | grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^verify' | tr '\n' ' ' | cut -c1-120)"
      if [ $rc -ne 0 ]; then
        failed=1
        # The line above is cut short; the whole report (which access, which threads) comes back under $OUT.
        [ -n "${OUT:-}" ] && echo "$out" > "$OUT/sanitize-$tool-$(basename "$p" .irg).txt"
      fi
    done
  done
  return $failed
}
