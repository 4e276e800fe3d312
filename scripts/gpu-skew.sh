#!/usr/bin/env bash
# Whether the nested-parallelism schedules should run on a graph (`irgc_artifact::skewed`'s rule; docs/optimizer.md,
# "The skew rule, measured"): every shipped program on the classes of ../shared/notes/performance.md with the flag
# forced off, on, and `wide` (IRGC_SKEWED=0, 1, wide: the default since 2026-12-07, the schedules for worklist
# sweeps only on a graph with a node of 32 edges or more), `irgc bench --backend cuda`, one line a program: class,
# flag, program, median ms, launches, verified. Classes without weights run with random ones (the programs that
# read weights need them). Run on the GPU machine from the repository root with the release binary at .carry/irgc.
#   GPU_SKEW_CLASSES   (default: rgg22 urand22 grid2k road)   GPU_SKEW_PROGRAMS (default: every programs/*/*.irg)
#   GPU_SKEW_FLAGS     (default: 0 1 wide)   GPU_SKEW_RUNS (default 3)   GPU_SKEW_DIR (default /tmp/g)
#   GPU_SKEW_TIMEOUT   (seconds per bench, default 300)
set -u
. "$(dirname "$0")/gpu-env.sh"
DIR=${GPU_SKEW_DIR:-/tmp/g}
CLASSES=${GPU_SKEW_CLASSES:-"rgg22 urand22 grid2k road"}
PROGRAMS=${GPU_SKEW_PROGRAMS:-$(ls programs/*/*.irg)}
RUNS=${GPU_SKEW_RUNS:-3}
status=0
# shellcheck disable=SC2086
gen_graphs "$DIR" $CLASSES || exit 1
for g in $CLASSES; do
  extra="--weights random:1:255"
  grep -q '"weighted": true' "$DIR/$g.info.json" 2>/dev/null && extra=""
  for flag in ${GPU_SKEW_FLAGS:-0 1 wide}; do
    # shellcheck disable=SC2086
    IRGC_SKEWED=$flag timeout "${GPU_SKEW_TIMEOUT:-300}" "$IRGC" bench --backend cuda --runs "$RUNS" --warmup 1 \
      --graph "$DIR/$g.gr" $extra $PROGRAMS 2>&1 |
      awk -v g="$g" -v f="$flag" '/^error/ { print g, f, $0; bad = 1 }
        / median [0-9]/ {
          ok = ($0 ~ /verified Ok/); if (!ok) bad = 1
          printf "%-8s %-4s %-18s %10s %s %s\n", g, f, $1, $4, $6, (ok ? "ok" : "NOT VERIFIED") }
        END { exit bad }' || status=1
  done
done
exit $status
