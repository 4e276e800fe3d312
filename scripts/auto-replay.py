#!/usr/bin/env python3
"""Replays `hybrid ... above auto`'s model (irgc_artifact::AutoHybrid, ported line for line) and fixed thresholds
over recorded rounds, to see what each policy would have cost without a GPU call per variant.

Input: two `--stats-out FILE.csv` records of one program on one graph, one run with every round dense (`--param
H=0.0`) and one with every round sparse (`--param H=1.0`). Each round's time in either mode is the sum of its
launches' ms (a dense round of bfs_do is clear_front + mark_front + bottom_up). A policy's replayed time is the
sum, over rounds, of the time of the mode it picks, with the worklist sizes of the sparse record. That is exact for
a BFS (its levels do not depend on the mode) and an approximation for a speculative colouring (the worklists of
the two records can differ; rounds are matched by number, and a round missing from the dense record is charged
as sparse).

usage: auto-replay.py DENSE.csv SPARSE.csv NODES [EXPLORE]"""
import csv
import math
import sys
from collections import defaultdict

NAN = math.nan


def rounds(path):
    """Three maps by round: its ms (every launch of the round), its items (those of its first sparse launch, which
    iterates exactly the worklist), and its mode (that of its launches, empty for a round outside the hybrid)."""
    ms, items, mode = defaultdict(float), {}, {}
    for row in csv.DictReader(open(path)):
        r = int(row["round"])
        ms[r] += float(row["ms"])
        if row["mode"] == "sparse" and r not in items:
            items[r] = int(row["items"])
        if row["mode"]:
            mode[r] = row["mode"]
    return ms, items, mode


class Auto:
    EXPLORE = 16.0

    def __init__(self):
        self.last_size = self.last_sparse = self.base = self.per = self.dense_t = NAN

    def sparse_at(self, x):
        return self.base + self.per * x

    def dense(self, x, n):
        if math.isnan(self.per):
            return False
        if math.isnan(self.dense_t):
            return x * self.EXPLORE >= n
        return self.dense_t < self.sparse_at(x)

    def update(self, dense, x, ns):
        if dense:
            self.dense_t = ns
            return
        one = max(x, 1.0)
        anchored = not math.isnan(self.last_size)
        far = x >= 2 * self.last_size or 2 * x <= self.last_size
        if anchored and far:
            per = (ns - self.last_sparse) / (x - self.last_size)
            base = ns - per * x
        elif anchored:
            per, base = self.per, ns - self.per * x
        else:
            per, base = ns / one, 0.0
        if per < 0:
            per, base = 0.0, ns
        if base < 0:
            per, base = ns / one, 0.0
        if not (anchored and not far):
            self.last_size, self.last_sparse = x, ns
        self.base, self.per = base, per


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__.strip().splitlines()[-1])
    dense_ms, _, dense_mode = rounds(sys.argv[1])
    sparse_ms, items, _ = rounds(sys.argv[2])
    n = int(sys.argv[3])
    if len(sys.argv) > 4:
        Auto.EXPLORE = float(sys.argv[4])
    order = sorted(items)
    cost = lambda r, d: dense_ms[r] if d and r in dense_ms and dense_mode.get(r) == "dense" else sparse_ms[r]
    for h in (0.05, 0.2, 0.6, 1.0):
        print(f"H={h:<5} {sum(cost(r, items[r] > h * n) for r in order):9.3f} ms")
    a, total, picks = Auto(), 0.0, []
    for r in order:
        d = a.dense(items[r], n)
        t = cost(r, d)
        a.update(d, items[r], t * 1e6)
        total += t
        picks.append("D" if d else "s")
    print(f"{'auto':<20} {total:9.3f} ms  {''.join(picks)[:80]}")
    best = sum(min(cost(r, False), cost(r, True)) for r in order)
    print(f"{'oracle per round':<20} {best:9.3f} ms")

main()
