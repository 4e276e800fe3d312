#!/usr/bin/env python3
"""The optimizer's ablation table (docs/optimizer.md) from the files `scripts/gpu-ablation.sh` writes.

Usage: ablation-table.py DIR   (DIR holds CLASS.json, one `irgc bench --ablation --json` array per class, whose
rows name their configuration; or, from older runs, CLASS.CONFIG.SET.json, one `irgc bench --json` array per
configuration, with CLASS.CONFIG.SET.programs listing the programs it was to run)

Per program and graph class: the median compute time (ms) with every pass, with each pass disabled, and with
none. "=" marks a configuration whose optimized IR is that of "all passes" (the same code: not re-run); "n/r" one
that was not run (the bench's time limit or the lease ran out first). A row that did not verify says so. The last
column flags rows where every pass is more than 10% slower than none (the issue's rule); ↻ marks a program that
`--recheck` ran again in every configuration with more runs (its cells are those runs' medians).
"""
import glob
import json
import os
import re
import sys

CLASSES = ["road", "grid2k", "urand22", "rmatg22", "rgg22", "kron22"]


LOG_ROW = re.compile(r"^  (\S+)(?: \[(\S+)\])? +cuda +median ([0-9.]+) ms \((\d+) launches\), verified (\w+)")


RECHECK = re.compile(r"^recheck (\S+) on ")


def rows_from_log(path):
    try:
        lines = open(path).read().splitlines()
    except OSError:
        return []
    rows = []
    rechecking = set()  # programs `--recheck` announced ("recheck PROG on GRAPH: ..."): their later rows replace
    for line in lines:
        r = RECHECK.match(line)
        if r:
            rechecking.add(r.group(1))
        m = LOG_ROW.match(line)
        if m:
            ok = "ok" if m.group(5) == "Ok" else m.group(5)
            row = {"program": m.group(1), "median_ms": float(m.group(3)), "launches": int(m.group(4)), "verified": ok}
            if m.group(2):
                row["config"] = m.group(2)
            if m.group(1) in rechecking:
                row["rechecked"] = True
            rows.append(row)
    return rows


def main(d):
    rows = {}  # (program, class) -> {config: cell}
    configs = []
    paths = set(glob.glob(os.path.join(d, "*.json")))
    paths |= {p[: -len(".log")] + ".json" for p in glob.glob(os.path.join(d, "*.log"))}
    planned = {}  # (class, config) -> the programs it was to run (the others have the code of "all passes")
    rechecked = set()  # (program, class) re-run in every configuration by `--recheck`
    launches = {}  # (program, class, config) -> kernel launches of its median run
    cut = set()  # (program, class): the program a stopped `bench --ablation` was running; its missing columns are n/r
    for path in sorted(paths):
        parts = os.path.basename(path).split(".")
        cls, config = parts[0], (parts[1] if len(parts) == 4 else None)  # CLASS.CONFIG.SET.json, or CLASS.SET.json
        try:
            data = json.load(open(path))
        except (OSError, ValueError):
            # A bench stopped by its --timeout prints no JSON: take the rows its log printed as they finished.
            data = rows_from_log(path[: -len(".json")] + ".log")
            if config is None and data:
                cut.add((data[-1]["program"], cls))
        for r in data:
            if config is None:
                # `bench --ablation`: a program with no row in a configuration ran the code of "all passes",
                # unless the bench stopped before it (its `all` row is then missing too, or it is the last one).
                c = r.get("config", "all")
                c = c[1:] if c.startswith("-") else c
                planned.setdefault((cls, c), set()).add(r["program"])
            else:
                c = config
            if c not in configs and c not in ("all", "none"):
                configs.append(c)
            cell = r.get("median_ms")
            verified = r.get("verified", "")
            if cell is None or not str(verified).startswith("ok"):
                cell = "✘ " + str(verified or r.get("error", "failed"))[:40]
            rows.setdefault((r["program"], cls), {})[c] = cell
            if "launches" in r:
                launches[(r["program"], cls, c)] = r["launches"]
            if r.get("rechecked") and c == "all":
                rechecked.add((r["program"], cls))
    for path in glob.glob(os.path.join(d, "*.programs")):
        cls, config, _ = os.path.basename(path).split(".", 2)
        if config not in configs and config not in ("all", "none"):
            configs.append(config)
        planned.setdefault((cls, config), set()).update(open(path).read().split())
    # The passes in pipeline order (`irgc passes`), any other name after them.
    pipeline = ["np", "unroll", "interleave", "coop", "outline"]
    configs.sort(key=lambda c: (pipeline.index(c) if c in pipeline else len(pipeline), c))
    order = ["all"] + configs + ["none"]
    head = ["program", "class", "all passes"] + ["−" + c for c in configs] + ["no passes", "all vs none"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    key = lambda pc: (pc[0], CLASSES.index(pc[1]) if pc[1] in CLASSES else 99)
    for (prog, cls) in sorted(rows, key=key):
        cells = rows[(prog, cls)]
        out = []
        for c in order:
            todo = planned.get((cls, c))
            if c in cells:
                v = cells[c]
            elif todo is not None and prog not in todo and c != "all" and (prog, cls) not in cut:
                v = "="
            else:
                v = "n/r"  # not run: the bench's time limit (or the lease) ran out first
            out.append(f"{v:.3g}" if isinstance(v, float) else str(v))
        none_same = (
            planned.get((cls, "none")) is not None and prog not in planned[(cls, "none")] and (prog, cls) not in cut
        )
        a, n = cells.get("all"), cells.get("none", cells.get("all") if none_same else None)
        flag = ""
        if isinstance(a, float) and isinstance(n, float) and n > 0:
            ratio = a / n
            flag = f"{ratio:.2f}×" + (" ⚠" if ratio > 1.10 else "")
            # Different launch counts in the two runs (rounds that depend on races): different work, as `bench` marks.
            la, ln = launches.get((prog, cls, "all")), launches.get((prog, cls, "none"))
            if ratio > 1.10 and la is not None and ln is not None and la != ln:
                flag += f" ≠ {la}/{ln}"
            flag += " ↻" if (prog, cls) in rechecked else ""
        print(f"| {prog} | {cls} | " + " | ".join(out) + f" | {flag} |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "ablation")
