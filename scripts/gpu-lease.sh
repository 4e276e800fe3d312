#!/usr/bin/env bash
# What the next GPU lease runs, as steps that each fit one device call (10 minutes): run `scripts/carry.sh` here,
# then call the device with carry [".carry"] and the command `scripts/gpu-lease.sh STEP` for each step in order,
# while the machine stays warm (the graphs of `gen` stay in /tmp/g between calls; a step whose graphs are missing
# writes them first, with the same generator). Each step prints the card and driver, and keeps its whole log in
# $OUT/STEP.log when $OUT is set.
#   gen      the six classes of ../shared/notes/performance.md (road grid2k rgg22 urand22 rmatg22 kron22)
#   colour1  issue 13: jp_ldf against the colouring candidates of scripts/bench on urand22 and rmatg22
#   colour2  the same on rgg22 and kron22
#   sanitize compute-sanitizer memcheck, racecheck and synccheck on the colouring candidates (R-MAT 2^10)
#   bfs      issue 12: bfs_do and ipgc_hybrid outlined against round by round, beside bfs_worklist, on the six
#            classes (scripts/gpu-outline.sh part 3): bfs_do within 1.2x of the best BFS, no program slower outlined
#   auto     issue 12: `hybrid ... above auto` against fixed H on rmatg22, kron22 and rgg22 (scripts/gpu-auto.sh)
# On an H200 lease, run colour1 and colour2 first: the issues' targets are H200 figures.
set -u -o pipefail
cd "$(dirname "$0")/.."
step=${1:?usage: scripts/gpu-lease.sh gen|colour1|colour2|sanitize|bfs|auto}
log=${OUT:+$OUT/$step.log}
log=${log:-/dev/null}
run() {
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  case $step in
  gen)
    . scripts/gpu-env.sh
    time gen_graphs /tmp/g road grid2k rgg22 urand22 rmatg22 kron22
    ;;
  colour1) GPU_CANDIDATES_GRAPHS="urand22 rmatg22" GPU_CANDIDATES_SANITIZE="" scripts/gpu-candidates.sh ;;
  colour2) GPU_CANDIDATES_GRAPHS="rgg22 kron22" GPU_CANDIDATES_SANITIZE="" scripts/gpu-candidates.sh ;;
  sanitize)
    . scripts/gpu-env.sh
    sanitize gen:rmat:scale=10 scripts/bench/jp_*.irg
    ;;
  bfs) GPU_OUTLINE_PARTS=3 scripts/gpu-outline.sh ;;
  auto) GPU_AUTO_CLASSES="rmatg22 kron22 rgg22" scripts/gpu-auto.sh ;;
  *)
    echo "unknown step '$step': gen, colour1, colour2, sanitize, bfs or auto"
    return 2
    ;;
  esac
}
run 2>&1 | tee "$log"
