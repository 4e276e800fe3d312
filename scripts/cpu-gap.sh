#!/usr/bin/env bash
# irgc's CPU backend against the GAP Benchmark Suite on kron22 and road (issue 18's table), in pairs: each row runs
# GAP, then irgc, on the same graph in the same minute, so a ratio compares like with like on a shared machine.
#
#   scripts/cpu-gap.sh GAPBS_DIR GRAPH_DIR [ROUNDS]
#
# GAPBS_DIR: a built gapbs (`make`: g++ -O3 -fopenmp). GRAPH_DIR holds what `../shared/tools/gen_graphs.py` writes
# and GAP's copies of it: kron22.gr and kron22.sg (GAP's `converter -f kron22.el -s -b kron22.sg`), road.gr, and
# road.el / road.wel (road.gr's edges, 0-based, with the weights for SSSP). 2 threads on both sides; irgc is
# `target/release/irgc` (build it first). Prints one line a row and round: GAP's average, irgc's median, and the
# ratio; with more than one round, then a summary: each side's median over the rounds, their ratio, and in how
# many rounds the pair's own ratio was at most 1.2 (on a shared 2-core machine one round can swing 2x).
# TC on kron22 runs once a round on each side (about a minute each), with `irgc run` (its count is printed and
# compared with GAP's; `irgc bench` would also run the reference count, single-threaded); every other irgc row is
# `irgc bench`, verified.
#   CPU_GAP_ROWS: which rows, by name (default all: bfs-kron22 bfs-road cc-kron22 cc-road sssp-road pr-kron22
#                 bc-kron22 bc-road tc-road tc-kron22)
set -euo pipefail
gap=${1:?GAPBS_DIR}
g=${2:?GRAPH_DIR}
rounds=${3:-1}
irgc=${IRGC:-target/release/irgc}
rows=${CPU_GAP_ROWS:-"bfs-kron22 bfs-road cc-kron22 cc-road sssp-road pr-kron22 bc-kron22 bc-road tc-road tc-kron22"}
export OMP_NUM_THREADS=2

gap_ms() { # GAP's "Average Time" in ms
    "$@" | awk '/Average Time/ { printf "%.1f", $3 * 1000 }'
}
irgc_ms() { # irgc bench's median in ms, or "FAILED"
    local program=$1 graph=$2
    shift 2
    "$irgc" bench "programs/$program" --graph "$graph" --threads 2 --runs 5 --warmup 1 --json "$@" 2>/dev/null |
        python3 -c 'import json,sys; r=json.load(sys.stdin)[0]; print("%.1f" % r["median_ms"] if r["verified"] == "ok" else "FAILED")'
}
tc_kron22_ms() { # irgc's TC on kron22, run once (its count goes to stderr beside the set-up parts)
    "$irgc" run programs/tc/tc.irg --graph "$g/kron22.gr" --threads 2 --no-check-bounds --json |
        python3 -c 'import json,sys; r=json.load(sys.stdin); print("%.1f" % (r["compute_seconds"] * 1000))
print("irgc tc kron22:", r["printed"], "set-up", r["setup_parts_seconds"], file=sys.stderr)'
}

# One row: prints `kernel graph gap_ms irgc_ms program`, tab-separated, for the named row.
row() { printf '%s\t%s\t%s\t%s\t%s\n' "$@"; }
measure() {
    case $1 in
    bfs-kron22) row BFS kron22 "$(gap_ms "$gap/bfs" -f "$g/kron22.sg" -r 0 -n 5)" \
        "$(irgc_ms bfs/bfs_do.irg "$g/kron22.gr" --param 'source=#0')" bfs_do ;;
    bfs-road) row BFS road "$(gap_ms "$gap/bfs" -f "$g/road.el" -s -r 0 -n 5)" \
        "$(irgc_ms bfs/bfs_do.irg "$g/road.gr" --param 'source=#0')" bfs_do ;;
    cc-kron22) row CC kron22 "$(gap_ms "$gap/cc" -f "$g/kron22.sg" -n 5)" "$(irgc_ms cc/afforest.irg "$g/kron22.gr")" afforest ;;
    cc-road) row CC road "$(gap_ms "$gap/cc" -f "$g/road.el" -s -n 5)" "$(irgc_ms cc/rem.irg "$g/road.gr")" rem ;;
    sssp-road) row SSSP road "$(gap_ms "$gap/sssp" -f "$g/road.wel" -s -r 0 -d 8192 -n 5)" \
        "$(irgc_ms sssp/sssp_nearfar.irg "$g/road.gr" --param 'source=#0')" sssp_nearfar ;;
    pr-kron22) row PageRank kron22 "$(gap_ms "$gap/pr" -f "$g/kron22.sg" -n 3)" \
        "$(irgc_ms pagerank/pagerank_pull_f32.irg "$g/kron22.gr")" pagerank_pull_f32 ;;
    bc-kron22) row BC kron22 "$(gap_ms "$gap/bc" -f "$g/kron22.sg" -r 0 -i 1 -n 3)" \
        "$(irgc_ms bc/bc.irg "$g/kron22.gr" --param 'source=#0')" bc ;;
    bc-road) row BC road "$(gap_ms "$gap/bc" -f "$g/road.el" -s -r 0 -i 1 -n 5)" \
        "$(irgc_ms bc/bc.irg "$g/road.gr" --param 'source=#0')" bc ;;
    tc-road) row TC road "$(gap_ms "$gap/tc" -f "$g/road.el" -s -n 5)" "$(irgc_ms tc/tc.irg "$g/road.gr")" tc ;;
    tc-kron22) row TC kron22 "$(gap_ms "$gap/tc" -f "$g/kron22.sg" -n 1)" "$(tc_kron22_ms)" \
        "tc, run once, renumbering read from the graph cache" ;;
    *) echo "unknown row '$1' (see CPU_GAP_ROWS in the script's header)" >&2; exit 2 ;;
    esac
}

results=$(mktemp)
trap 'rm -f "$results"' EXIT
echo "| kernel | graph | GAP (ms) | irgc (ms, program) | ratio |"
echo "|---|---|---|---|---|"
for _ in $(seq "$rounds"); do
    for r in $rows; do
        measure "$r" | tee -a "$results" | python3 -c "import sys; k, gr, a, b, p = sys.stdin.read().rstrip('\n').split('\t')
r = '%.2f' % (float(b) / float(a)) if b != 'FAILED' else '-'
print('| %s | %s | %s | %s (%s) | %s |' % (k, gr, a, b, p, r))"
    done
done
[ "$rounds" -gt 1 ] || exit 0
echo
echo "Over $rounds rounds: each side's median, the ratio of the medians, and the rounds whose own ratio was <= 1.2"
echo
python3 - "$results" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    k, g, a, b, p = line.rstrip('\n').split('\t')
    rows.setdefault((k, g, p.split(',')[0]), []).append((float(a), None if b == 'FAILED' else float(b)))
print("| kernel | graph | program | GAP median (ms) | irgc median (ms) | ratio | rounds <= 1.2 |")
print("|---|---|---|---|---|---|---|")
for (k, g, p), v in rows.items():
    ok = [x for x in v if x[1] is not None]
    if len(ok) < len(v):
        print("| %s | %s | %s | %.1f | FAILED in %d round(s) | - | - |" % (k, g, p, statistics.median(a for a, _ in v), len(v) - len(ok)))
        continue
    ga, ir = statistics.median(a for a, _ in v), statistics.median(b for _, b in v)
    within = sum(1 for a, b in v if b / a <= 1.2)
    print("| %s | %s | %s | %.1f | %.1f | %.2f | %d of %d |" % (k, g, p, ga, ir, ir / ga, within, len(v)))
PY
