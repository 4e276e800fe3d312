#!/usr/bin/env python3
"""Compares a run's statistics with the pipe outlined (rounds recorded inside the persistent kernel) against the
same run round by round (--no-outline), and against a run without statistics (issue 12, item 6).

    round-records.py OUTLINED.json ROUND_BY_ROUND.json PLAIN.json [--same-sizes] [--loops]

Each file is `irgc run --json` output (the first two with --stats). Prints one line; exits 1 when the rounds
recorded inside the kernel are not the rounds the kernel reports it ran, a recorded round has no positive time,
or (with --same-sizes, for programs whose rounds are deterministic) the two runs saw different numbers of rounds,
worklist sizes or hybrid modes. A pipe too short to enter its kernel (the runtime runs the first rounds from the
host) records no round there, and that is not a failure.

With --loops the rounds are an outlined `while` loop's (`loop_rounds`, among the launches from the host), and
--same-sizes compares the reduction trace: every reduced value of the outlined run, its launches' and its kernel
rounds' in order, against the round-by-round run's launches'.
"""
import json
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def trace(stats):
    """Every reduced value of a run in order: its launches' and its loops' kernel rounds'."""
    rows = [(2 * i + 1, l.get("reduced")) for i, l in enumerate(stats["launches"])]
    rows += [(2 * r["after_launches"], r.get("reduced")) for r in stats.get("loop_rounds", [])]
    return [v for _, v in sorted(rows, key=lambda r: r[0]) if v is not None]


def loops(outlined, host, plain, same_sizes):
    inside = outlined["stats"].get("loop_rounds", [])
    problems = []
    ran = sum(o["rounds"] for o in outlined["stats"]["outlined"] if not o["worklist"])
    if len(inside) != ran:
        problems.append(f"{len(inside)} loop rounds recorded inside the kernel, which ran {ran}")
    if any(r["ms"] <= 0 for r in inside):
        problems.append("a recorded round has no time")
    a, b = trace(outlined["stats"]), trace(host["stats"])
    if same_sizes and a != b:
        problems.append(f"the reduction traces differ ({len(a)} values outlined, {len(b)} round by round)")
    in_kernel_ms = sum(r["ms"] for r in inside)
    print(
        f"loop rounds in kernel {len(inside)} (their clock {in_kernel_ms:.3f} ms), reduced values {len(a)} | "
        f"compute ms: stats+outlined {outlined['compute_seconds'] * 1e3:.3f}, plain {plain['compute_seconds'] * 1e3:.3f}, "
        f"stats+never {host['compute_seconds'] * 1e3:.3f} | {'ok' if not problems else 'FAIL: ' + '; '.join(problems)}"
    )
    sys.exit(1 if problems else 0)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    same_sizes = "--same-sizes" in sys.argv
    outlined, host, plain = (load(p) for p in args)
    if "--loops" in sys.argv:
        loops(outlined, host, plain, same_sizes)
    a, b = outlined["stats"]["pipe_rounds"], host["stats"]["pipe_rounds"]
    inside = [r for r in a if r.get("ms") is not None]
    problems = []
    ran = sum(o["rounds"] for o in outlined["stats"]["outlined"] if o["worklist"])
    if len(inside) != ran:
        problems.append(f"{len(inside)} rounds recorded inside the kernel, which ran {ran}")
    if any(r["ms"] <= 0 for r in inside):
        problems.append("a recorded round has no time")
    if same_sizes:
        if len(a) != len(b):
            problems.append(f"{len(a)} rounds outlined, {len(b)} round by round")
        if [r["size"] for r in a] != [r["size"] for r in b]:
            problems.append("the worklist sizes differ")
        modes_a = [h["mode"] for h in outlined["stats"]["hybrid"]]
        modes_b = [h["mode"] for h in host["stats"]["hybrid"]]
        if modes_a != modes_b:
            problems.append("the hybrid modes differ")
    in_kernel_ms = sum(r["ms"] for r in inside)
    dense = sum(1 for r in inside if r.get("dense"))
    print(
        f"rounds {len(a)} ({len(inside)} in kernel, {dense} dense, their clock {in_kernel_ms:.3f} ms) | "
        f"compute ms: stats+outlined {outlined['compute_seconds'] * 1e3:.3f}, plain {plain['compute_seconds'] * 1e3:.3f}, "
        f"stats+no-outline {host['compute_seconds'] * 1e3:.3f} | {'ok' if not problems else 'FAIL: ' + '; '.join(problems)}"
    )
    sys.exit(1 if problems else 0)


main()
