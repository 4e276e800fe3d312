#!/usr/bin/env bash
# Whether outlined pipes should stay on the host after a heavy round (IRGC_PIPE_HEAVY_US, runtime/cuda/src/
# pipe_grid.rs; off by default until this says where the line lies). The pipe programs on the classes of
# ../shared/notes/performance.md, `irgc bench --backend cuda`, with the rule off and at each limit in turn, twice
# over (off, 100, 300, off, 100, 300), one line a program: class, limit, program, median ms, launches, verified.
# Run on the GPU machine from the repository root with the release binary at .carry/irgc.
#   GPU_HEAVY_CLASSES  (default: rmatg22 urand22 kron22 rgg22 road)   GPU_HEAVY_LIMITS (µs; default "100 300")
#   GPU_HEAVY_RUNS     (default 3)   GPU_HEAVY_DIR (default /tmp/g)
set -u
. "$(dirname "$0")/gpu-env.sh"
DIR=${GPU_HEAVY_DIR:-/tmp/g}
CLASSES=${GPU_HEAVY_CLASSES:-"rmatg22 urand22 kron22 rgg22 road"}
LIMITS="0 ${GPU_HEAVY_LIMITS:-100 300}"
RUNS=${GPU_HEAVY_RUNS:-3}
PIPES="programs/coloring/ipgc_hybrid.irg programs/coloring/ipgc_data.irg programs/coloring/ipgc_topology.irg
  programs/coloring/jp_ldf.irg programs/matching/suitor.irg programs/bfs/bfs_worklist.irg"
WEIGHTED="programs/sssp/sssp_nearfar.irg programs/sssp/sssp_worklist.irg"  # on the classes with weights
status=0
# shellcheck disable=SC2086
gen_graphs "$DIR" $CLASSES || exit 1
for g in $CLASSES; do
  # Suitor reads weights: random ones where the class's file has none.
  progs=$PIPES extra="--weights random:1:255"
  grep -q '"weighted": true' "$DIR/$g.info.json" 2>/dev/null && progs="$progs $WEIGHTED" extra=""
  for pass in 1 2; do
    for us in $LIMITS; do
      # shellcheck disable=SC2086
      IRGC_PIPE_HEAVY_US=$us timeout 300 "$IRGC" bench --backend cuda --runs "$RUNS" --warmup 1 \
        --graph "$DIR/$g.gr" $extra $progs 2>&1 |
        awk -v g="$g" -v us="$us" -v pass="$pass" '/^error/ { print g, us, pass, $0; bad = 1 }
          / median [0-9]/ {
            ok = ($0 ~ /verified Ok/); if (!ok) bad = 1
            printf "%-8s %4s %s %-16s %10s %s %s\n", g, us, pass, $1, $4, $6, (ok ? "ok" : "NOT VERIFIED") }
          END { exit bad }' || status=1
    done
  done
done
exit $status
