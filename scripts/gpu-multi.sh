#!/usr/bin/env bash
# Multi-GPU connected components (seed 004; docs/distributed.md) on a machine with two GPUs, from the repository
# root, with the release binary at .carry/irgc (and gen_graphs.py, FLA.gr.xz in .carry/ for the graph classes).
# Phases (GPU_MULTI_PHASES, default "check classes table"):
#   check    the GPUs, their link (nvidia-smi topo), NCCL; ecl_cc on R-MAT 16 over 2 GPUs with each --comm, and
#            as 2 ranks (one process per GPU) over NCCL and over sockets, every run verified;
#   classes  every merging CC program verified on 2 GPUs (NCCL) on the six classes of ../shared/notes/performance.md;
#   table    1 GPU against 2 GPUs (peer copies, NCCL) on kron22 and urand22 (`bench --json`), and 2 ranks over
#            NCCL (`run --json`, GPU_MULTI_RANK_RUNS times);
#   large    the same on R-MAT scale GPU_MULTI_SCALE (default 25, edge factor 16), written once by `irgc gen`.
# Everything printed is also kept under $OUT (or /tmp): multi.log and the JSON files.
set -u
. "$(dirname "$0")/gpu-env.sh"
PHASES=${GPU_MULTI_PHASES:-"check classes table"}
G=${GPU_MULTI_GRAPHS:-/tmp/g}
RUNS=${GPU_MULTI_RUNS:-5}
RANK_RUNS=${GPU_MULTI_RANK_RUNS:-3}
SCALE=${GPU_MULTI_SCALE:-25}
TIMEOUT=${GPU_MULTI_TIMEOUT:-300}
LOGDIR=${OUT:-/tmp}
LOG=$LOGDIR/multi.log
CC="programs/cc/ecl_cc.irg programs/cc/rem.irg programs/cc/afforest.irg programs/cc/groute.irg"
mkdir -p "$LOGDIR" "$G"
SECONDS=0
say() { echo "$@" | tee -a "$LOG"; }
run() { say "\$ $*"; timeout "$TIMEOUT" "$@" 2>&1 | tee -a "$LOG"; }

# `irgc bench ARGS --json` into FILE, then its rows as one line each: program, graph, backend, median, merge, verdict.
bench_json() {
  local file=$1
  shift
  say "\$ $IRGC bench $* --json > $(basename "$file")"
  timeout "$TIMEOUT" "$IRGC" bench "$@" --json >"$file" 2>>"$LOG" || say "   (exit $?)"
  python3 - "$file" <<'PY' | tee -a "$LOG"
import json, sys
try:
    rows = json.load(open(sys.argv[1]))
except Exception as e:
    sys.exit(f"   no rows: {e}")
for r in rows:
    merge = "" if r.get("merge_ms") is None else f"  merge {r['merge_ms']:.3f} ({r.get('moved_by')})"
    print(f"   {r['program']:<10} {r['graph'][-14:]:<14} {r['backend']:<8} median {r['median_ms']:9.3f} ms"
          f" (min {r['min_ms']:.3f}, max {r['max_ms']:.3f}){merge}  setup {r['setup_ms']:.1f}  {r['verified']}")
PY
}

# Rank 0's `run --json` summary as one line: the run's compute, rank 0's part, its merge, the verdict.
rank_line() {
  python3 - "$1" <<'PY' | tee -a "$LOG"
import json, sys
try:
    v = json.load(open(sys.argv[1]))
except Exception as e:
    sys.exit(f"   no summary: {e}")
r = v["rank"] if isinstance(v.get("rank"), dict) else v
ok = (v.get("verification") or {}).get("ok")
name = f"{v['program']:<8} {v['graph']['name'][-12:]:<12}" if "graph" in v else f"rank {r['rank']}"
print(f"   ranks {name} total {r['compute_seconds']*1e3:9.3f} ms: "
      f"part {r['part']['compute_seconds']*1e3:.3f}, merge {r['merge_seconds']*1e3:.3f} (received {r['merges_received']}),"
      f" barrier {r['barrier_seconds']*1e3:.1f}, join {r['join_seconds']*1e3:.0f}; {r['link']}; verified {ok}")
PY
}

# Two ranks of `irgc run ARGS`, one per GPU, at once; rank 0's output (a line of it, for a TAG with `json`), then
# rank 1's summary lines, to stdout and $LOG.
ranks() {
  local join tag=$1
  shift
  join=$(mktemp -u /tmp/irgc-join.XXXXXX)
  say "\$ [ranks 0 and 1] $IRGC run $* --ranks 2 --rank R --join $join"
  timeout "$TIMEOUT" "$IRGC" run "$@" --ranks 2 --rank 1 --join "$join" >"$LOGDIR/rank1-$tag.out" 2>&1 &
  local other=$!
  timeout "$TIMEOUT" "$IRGC" run "$@" --ranks 2 --rank 0 --join "$join" >"$LOGDIR/rank0-$tag.out" 2>&1
  say "-- rank 0 (exit $?)"
  wait $other
  local rc=$?
  say "-- rank 1 (exit $rc):"
  case $tag in
    *json*) rank_line "$LOGDIR/rank0-$tag.out" && rank_line "$LOGDIR/rank1-$tag.out" ;;
    *) tee -a "$LOG" <"$LOGDIR/rank0-$tag.out" && grep -E '^(rank|merge|error)' "$LOGDIR/rank1-$tag.out" | tee -a "$LOG" ;;
  esac
  rm -f "$join" "$LOGDIR/rank1-$tag.out"
}

for phase in $PHASES; do
  say "== $phase (elapsed ${SECONDS}s)"
  case $phase in
    check)
      nvidia-smi -L 2>&1 | tee -a "$LOG"
      nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | tee -a "$LOG"
      nvidia-smi topo -m 2>&1 | tee -a "$LOG"
      env | grep -E '^NCCL_' | tee -a "$LOG"
      python3 -c "import nvidia.nccl as m; print('nvidia.nccl:', list(m.__path__)[0])" 2>&1 | tee -a "$LOG"
      small=gen:kron:scale=16,ef=16,seed=1
      export NCCL_DEBUG=WARN
      for comm in peer nccl auto; do
        run "$IRGC" run programs/cc/ecl_cc.irg --graph $small --backend cuda --devices 2 --comm $comm --verify
      done
      ranks nccl-small programs/cc/ecl_cc.irg --graph $small --backend cuda --comm nccl --verify
      ranks sockets-small programs/cc/rem.irg --graph $small --backend cuda --comm sockets --verify
      unset NCCL_DEBUG
      ;;
    classes)
      gen_graphs "$G" road grid2k urand22 rmatg22 rgg22 kron22
      for c in road grid2k urand22 rmatg22 rgg22 kron22; do
        run "$IRGC" bench $CC --graph "$G/$c.gr" --backend cuda --gpus 0,1 --comm nccl --runs 1 --warmup 0 --symmetrize
      done
      ;;
    table)
      gen_graphs "$G" urand22 kron22
      graphs="--graph $G/kron22.gr --graph $G/urand22.gr"
      bench_json "$LOGDIR/table-1gpu.json" $CC $graphs --backend cuda --gpus 0 --runs "$RUNS" --warmup 1
      for comm in peer nccl; do
        bench_json "$LOGDIR/table-2gpu-$comm.json" $CC $graphs --backend cuda --gpus 0,1 --comm $comm --runs "$RUNS" \
          --warmup 1
      done
      for c in kron22 urand22; do
        for p in ecl_cc rem; do
          for i in $(seq "$RANK_RUNS"); do
            ranks "json-$p-$c-$i" programs/cc/$p.irg --graph "$G/$c.gr" --backend cuda --comm nccl --json --verify
          done
        done
      done
      ;;
    large)
      big=$G/rmat$SCALE.gr
      [ -s "$big" ] || run "$IRGC" gen "rmat:scale=$SCALE,ef=16,seed=1" --format galois -o "$big"
      pl="programs/cc/ecl_cc.irg programs/cc/rem.irg"
      bench_json "$LOGDIR/large-1gpu.json" $pl --graph "$big" --backend cuda --gpus 0 --runs 3 --warmup 1
      bench_json "$LOGDIR/large-2gpu-peer.json" $pl --graph "$big" --backend cuda --gpus 0,1 --comm peer --runs 3 \
        --warmup 1
      bench_json "$LOGDIR/large-2gpu-lower.json" programs/cc/ecl_cc.irg --graph "$big" --backend cuda --gpus 0,1 \
        --comm peer --partition lower-edges --runs 3 --warmup 1
      ranks json-large-rem programs/cc/rem.irg --graph "$big" --backend cuda --comm nccl --json --verify
      ;;
    *) say "unknown phase $phase" ;;
  esac
done
say "done in ${SECONDS}s"
