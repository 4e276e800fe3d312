#!/usr/bin/env bash
# The optimizer's ablation table on the GPU (issue #11): every shipped program on each graph class of
# ../shared/notes/performance.md (written by ../shared/tools/gen_graphs.py, so times compare with the peers'
# table) with every pass, with each pass disabled, and with none. A configuration is run only for the programs
# whose optimized IR it changes (`irgc compile --emit ir-opt` differs): for the others it is the same code as
# "all passes". Every row is verified. Writes one `irgc bench --json` file per class and configuration into
# $OUT/ablation (or ./ablation), packed per class into CLASS.tar.gz after every configuration (so a call that runs
# out of time still brings back what it measured); `scripts/ablation-table.py` turns them into the table of
# docs/optimizer.md.
# Run on the GPU machine from the repository root with the release binary at .carry/irgc.
#   GPU_ABL_GRAPHS    classes (default: road grid2k urand22 rmatg22 rgg22 kron22)
#   GPU_ABL_PROGRAMS  programs (default: every programs/*/*.irg)
#   GPU_ABL_RUNS      timed runs per row (default 1, after one warm-up)
#   GPU_ABL_WARMUP    warm-up runs per row (default 1)
#   GPU_ABL_TIMEOUT   seconds one `irgc bench` (one class and configuration) may take (default 300)
#   GPU_ABL_CONFIGS   configurations: `all`, `none`, or a pass's name for "that pass disabled" (default: all,
#                     each pass, none)
set -u
. "$(dirname "$0")/gpu-env.sh"
DIR=${GPU_ABL_DIR:-/tmp/g}
CLASSES=${GPU_ABL_GRAPHS:-"road grid2k urand22 rmatg22 rgg22 kron22"}
PROGRAMS=${GPU_ABL_PROGRAMS:-$(ls programs/*/*.irg)}
RUNS=${GPU_ABL_RUNS:-1}
WARMUP=${GPU_ABL_WARMUP:-1}
TIMEOUT=${GPU_ABL_TIMEOUT:-300}
DEST=${OUT:-.}/ablation
WORK=$(mktemp -d)
mkdir -p "$DEST"
passes=$("$IRGC" passes | awk '{print $1}')
all_off=""
for p in $passes; do all_off="$all_off --disable-pass $p"; done
# shellcheck disable=SC2086
gen_graphs "$DIR" $CLASSES || exit 1
ir() { "$IRGC" compile "$1" --emit ir-opt "${@:2}" 2>/dev/null; }
# Programs that read weights without a default get random ones on classes whose files have none.
needs_weights() { grep -qE '^graph G\(.*weight: *[a-z0-9]+ *\)' "$1"; }
for g in $CLASSES; do
  graph=$DIR/$g.gr
  weighted=0
  grep -q '"weighted": true' "$DIR/$g.info.json" 2>/dev/null && weighted=1
  for config in ${GPU_ABL_CONFIGS:-all $passes none}; do
    case $config in
      all) flags="" ;;
      none) flags=$all_off ;;
      *) flags="--disable-pass $config" ;;
    esac
    plain=""
    random=""
    for p in $PROGRAMS; do
      # shellcheck disable=SC2086
      if [ "$config" != all ] && [ "$(ir "$p")" = "$(ir "$p" $flags)" ]; then continue; fi
      if [ $weighted = 0 ] && needs_weights "$p"; then random="$random $p"; else plain="$plain $p"; fi
    done
    for set in plain random; do
      progs=${!set}
      [ -z "$progs" ] && continue
      extra=""
      [ $set = random ] && extra="--weights random:1:255"
      echo "== $g, $config ($set):$progs" >&2
      echo "$progs" | tr ' ' '\n' | grep . | xargs -n1 basename | sed 's/\.irg$//' > "$WORK/$g.$config.$set.programs"
      # shellcheck disable=SC2086
      "$IRGC" bench --backend cuda --runs "$RUNS" --warmup "$WARMUP" --timeout "$TIMEOUT" --json --graph "$graph" \
        $extra $flags $progs > "$WORK/$g.$config.$set.json" 2> "$WORK/$g.$config.$set.log"
      tail -3 "$WORK/$g.$config.$set.log" >&2
      # One file per class comes back from the GPU machine more surely than many.
      tar -C "$WORK" -czf "$DEST/$g.tar.gz" $(cd "$WORK" && ls "$g".*)
    done
  done
done
rm -rf "$WORK"
