#!/usr/bin/env bash
# irgc's CPU backend against the GAP Benchmark Suite on kron22 and road (issue 18's table), in pairs: each row runs
# GAP, then irgc, on the same graph in the same minute, so a ratio compares like with like on a shared machine.
#
#   scripts/cpu-gap.sh GAPBS_DIR GRAPH_DIR [ROUNDS]
#
# GAPBS_DIR: a built gapbs (`make`: g++ -O3 -fopenmp). GRAPH_DIR holds what `../shared/tools/gen_graphs.py` writes
# and GAP's copies of it: kron22.gr and kron22.sg (GAP's `converter -f kron22.el -s -b kron22.sg`), road.gr, and
# road.el / road.wel (road.gr's edges, 0-based, with the weights for SSSP). 2 threads on both sides; irgc is
# `target/release/irgc` (build it first). Prints one line a row: GAP's average, irgc's median, and the ratio.
# TC on kron22 runs once a round on each side (about a minute each), with `irgc run` (its count is printed and
# compared with GAP's; `irgc bench` would also run the reference count, single-threaded); every other irgc row is
# `irgc bench`, verified.
set -euo pipefail
gap=${1:?GAPBS_DIR}
g=${2:?GRAPH_DIR}
rounds=${3:-1}
irgc=${IRGC:-target/release/irgc}
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
row() { # kernel graph gap_ms irgc_ms program
    python3 -c "import sys; a, b = float(sys.argv[3]), sys.argv[4]; r = '%.2f' % (float(b) / a) if b != 'FAILED' else '-'
print('| %s | %s | %s | %s (%s) | %s |' % (sys.argv[1], sys.argv[2], sys.argv[3], b, sys.argv[5], r))" "$@"
}

echo "| kernel | graph | GAP (ms) | irgc (ms, program) | ratio |"
echo "|---|---|---|---|---|"
for _ in $(seq "$rounds"); do
    row BFS kron22 "$(gap_ms "$gap/bfs" -f "$g/kron22.sg" -r 0 -n 5)" \
        "$(irgc_ms bfs/bfs_do.irg "$g/kron22.gr" --param 'source=#0')" bfs_do
    row BFS road "$(gap_ms "$gap/bfs" -f "$g/road.el" -s -r 0 -n 5)" \
        "$(irgc_ms bfs/bfs_do.irg "$g/road.gr" --param 'source=#0')" bfs_do
    row CC kron22 "$(gap_ms "$gap/cc" -f "$g/kron22.sg" -n 5)" "$(irgc_ms cc/afforest.irg "$g/kron22.gr")" afforest
    row CC road "$(gap_ms "$gap/cc" -f "$g/road.el" -s -n 5)" "$(irgc_ms cc/rem.irg "$g/road.gr")" rem
    row SSSP road "$(gap_ms "$gap/sssp" -f "$g/road.wel" -s -r 0 -d 8192 -n 5)" \
        "$(irgc_ms sssp/sssp_nearfar.irg "$g/road.gr" --param 'source=#0')" sssp_nearfar
    row PageRank kron22 "$(gap_ms "$gap/pr" -f "$g/kron22.sg" -n 3)" \
        "$(irgc_ms pagerank/pagerank_pull_f32.irg "$g/kron22.gr")" pagerank_pull_f32
    row BC kron22 "$(gap_ms "$gap/bc" -f "$g/kron22.sg" -r 0 -i 1 -n 3)" \
        "$(irgc_ms bc/bc.irg "$g/kron22.gr" --param 'source=#0')" bc
    row BC road "$(gap_ms "$gap/bc" -f "$g/road.el" -s -r 0 -i 1 -n 5)" \
        "$(irgc_ms bc/bc.irg "$g/road.gr" --param 'source=#0')" bc
    row TC road "$(gap_ms "$gap/tc" -f "$g/road.el" -s -n 5)" "$(irgc_ms tc/tc.irg "$g/road.gr")" tc
    tc_gap=$(gap_ms "$gap/tc" -f "$g/kron22.sg" -n 1)
    tc_irgc=$("$irgc" run programs/tc/tc.irg --graph "$g/kron22.gr" --threads 2 --no-check-bounds --json |
        python3 -c 'import json,sys; r=json.load(sys.stdin); print("%.1f" % (r["compute_seconds"] * 1000))
print("irgc tc kron22:", r["printed"], "set-up", r["setup_parts_seconds"], file=sys.stderr)')
    row TC kron22 "$tc_gap" "$tc_irgc" "tc, run once, renumbering read from the graph cache"
done
