#!/usr/bin/env bash
# The optimizer's ablation table on the GPU (issue #11): every shipped program on each graph class of
# ../shared/notes/performance.md (written by ../shared/tools/gen_graphs.py, so times compare with the peers'
# table) with every pass, with each pass disabled, and with none: `irgc bench --ablation`, one process per class,
# which runs a configuration only for the programs whose optimized IR it changes (for the others it is the same
# code as "all passes") and verifies every row (an output identical to a verified one by that identity). Writes
# its JSON rows and its log (one line per row as it finishes) per class into $OUT/ablation (or ./ablation), packed
# into CLASS.SET.tar.gz (one file comes back from the GPU machine more surely than many; a bench stopped by its time
# limit leaves its log); `scripts/ablation-table.py` turns them into the table of docs/optimizer.md.
# Run on the GPU machine from the repository root with the release binary at .carry/irgc.
#   GPU_ABL_GRAPHS    classes (default: road grid2k urand22 rmatg22 rgg22 kron22)
#   GPU_ABL_PROGRAMS  programs (default: every programs/*/*.irg)
#   GPU_ABL_RUNS      timed runs per row (default 1, after one warm-up)
#   GPU_ABL_WARMUP    warm-up runs per row (default 1)
#   GPU_ABL_RECHECK   timed runs for each configuration of a program flagged after the first pass (every pass more
#                     than 10% slower than none), `irgc bench --recheck` (default 5; 0: no recheck)
#   GPU_ABL_TIMEOUT   seconds one `irgc bench` (one class) may take (default 300)
#   GPU_ABL_SETS      which of a class's two runs: `plain` (the programs its file's weights serve) and `random`
#                     (those needing weights the file lacks, run with random ones); default both
#   GPU_ABL_GPUS      GPUs to spread the runs over (default: every GPU nvidia-smi lists). Each (class, set) run is
#                     one `irgc bench` on one GPU; with several GPUs they run side by side (six classes in one
#                     10-minute call on four H100s), but their CPU references share the host, which makes one-run
#                     cells noisier: the recheck re-runs what that flags
set -u
. "$(dirname "$0")/gpu-env.sh"
DIR=${GPU_ABL_DIR:-/tmp/g}
CLASSES=${GPU_ABL_GRAPHS:-"road grid2k urand22 rmatg22 rgg22 kron22"}
PROGRAMS=${GPU_ABL_PROGRAMS:-$(ls programs/*/*.irg)}
RUNS=${GPU_ABL_RUNS:-1}
WARMUP=${GPU_ABL_WARMUP:-1}
RECHECK=${GPU_ABL_RECHECK:-5}
TIMEOUT=${GPU_ABL_TIMEOUT:-300}
SETS=${GPU_ABL_SETS:-"plain random"}
GPUS=${GPU_ABL_GPUS:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')}
[ "$GPUS" -ge 1 ] 2>/dev/null || GPUS=1
DEST=${OUT:-.}/ablation
WORK=$(mktemp -d)
mkdir -p "$DEST"
# shellcheck disable=SC2086
gen_graphs "$DIR" $CLASSES || exit 1
# Programs that read weights without a default get random ones on classes whose files have none.
needs_weights() { grep -qE '^graph G\(.*weight: *[a-z0-9]+ *\)' "$1"; }

# The runs, one line each: CLASS SET PROGRAM...
jobs=()
for g in $CLASSES; do
  weighted=0
  grep -q '"weighted": true' "$DIR/$g.info.json" 2>/dev/null && weighted=1
  plain=""
  random=""
  for p in $PROGRAMS; do
    if [ $weighted = 0 ] && needs_weights "$p"; then random="$random $p"; else plain="$plain $p"; fi
  done
  for set in $SETS; do
    progs=${!set}
    [ -n "$progs" ] && jobs+=("$g $set$progs")
  done
done

# One (class, set) on one GPU: one process, so the graph is loaded once, and a configuration whose output is
# identical to a verified one's is verified by that (`irgc bench --ablation`).
run_one() {
  local gpu=$1 g=$2 set=$3 extra=""
  shift 3
  [ "$set" = random ] && extra="--weights random:1:255"
  [ "$RECHECK" -gt 0 ] && extra="$extra --recheck $RECHECK"
  echo "== $g ($set) on GPU $gpu: $*" >&2
  # shellcheck disable=SC2086
  CUDA_VISIBLE_DEVICES=$gpu "$IRGC" bench --backend cuda --ablation --runs "$RUNS" --warmup "$WARMUP" \
    --timeout "$TIMEOUT" --json --graph "$DIR/$g.gr" $extra "$@" > "$WORK/$g.$set.json" 2> "$WORK/$g.$set.log"
  echo "== $g ($set) done: $(tail -1 "$WORK/$g.$set.log")" >&2
  tar -C "$WORK" -czf "$DEST/$g.$set.tar.gz" "$g.$set.json" "$g.$set.log"
}

# GPU k takes runs k, k + GPUS, k + 2 GPUS, ... in order. The workers are waited for by id: a bare `wait` would
# also wait for a caller's `exec > >(tee ...)`, which never ends.
pids=""
for ((k = 0; k < GPUS; k++)); do
  (
    for ((i = k; i < ${#jobs[@]}; i += GPUS)); do
      # shellcheck disable=SC2086
      run_one "$k" ${jobs[$i]}
    done
  ) &
  pids="$pids $!"
done
# shellcheck disable=SC2086
wait $pids
rm -rf "$WORK"
