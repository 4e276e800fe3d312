#!/usr/bin/env python3
"""The optimizer's ablation table (docs/optimizer.md) from the files `scripts/gpu-ablation.sh` writes.

Usage: ablation-table.py DIR   (DIR holds CLASS.CONFIG.SET.json, one `irgc bench --json` array each)

Per program and graph class: the median compute time (ms) with every pass, with each pass disabled, and with
none. "=" marks a configuration whose optimized IR is that of "all passes" (the same code: not re-run); "n/r" one
that was not run (the bench's time limit or the lease ran out first). A row that did not verify says so. The last column flags rows where every pass is more than 10% slower
than none (the issue's rule).
"""
import glob
import json
import os
import re
import sys

CLASSES = ["road", "grid2k", "urand22", "rmatg22", "rgg22", "kron22"]


LOG_ROW = re.compile(r"^  (\S+) +cuda +median ([0-9.]+) ms \(\d+ launches\), verified (\w+)")


def rows_from_log(path):
    try:
        lines = open(path).read().splitlines()
    except OSError:
        return []
    rows = []
    for line in lines:
        m = LOG_ROW.match(line)
        if m:
            ok = "ok" if m.group(3) == "Ok" else m.group(3)
            rows.append({"program": m.group(1), "median_ms": float(m.group(2)), "verified": ok})
    return rows


def main(d):
    rows = {}  # (program, class) -> {config: cell}
    configs = []
    paths = set(glob.glob(os.path.join(d, "*.json")))
    paths |= {p[: -len(".log")] + ".json" for p in glob.glob(os.path.join(d, "*.log"))}
    for path in sorted(paths):
        cls, config, _ = os.path.basename(path).split(".", 2)
        if config not in configs and config not in ("all", "none"):
            configs.append(config)
        try:
            data = json.load(open(path))
        except (OSError, ValueError):
            # A bench stopped by its --timeout prints no JSON: take the rows its log printed as they finished.
            data = rows_from_log(path[: -len(".json")] + ".log")
        for r in data:
            cell = r.get("median_ms")
            verified = r.get("verified", "")
            if cell is None or not str(verified).startswith("ok"):
                cell = "✘ " + str(verified or r.get("error", "failed"))[:40]
            rows.setdefault((r["program"], cls), {})[config] = cell
    # Which programs each class and configuration was to run (the others have the code of "all passes").
    planned = {}
    for path in glob.glob(os.path.join(d, "*.programs")):
        cls, config, _ = os.path.basename(path).split(".", 2)
        if config not in configs and config not in ("all", "none"):
            configs.append(config)
        planned.setdefault((cls, config), set()).update(open(path).read().split())
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
            elif todo is not None and prog not in todo and c != "all":
                v = "="
            else:
                v = "n/r"  # not run: the bench's time limit (or the lease) ran out first
            out.append(f"{v:.3g}" if isinstance(v, float) else str(v))
        none_same = planned.get((cls, "none")) is not None and prog not in planned[(cls, "none")]
        a, n = cells.get("all"), cells.get("none", cells.get("all") if none_same else None)
        flag = ""
        if isinstance(a, float) and isinstance(n, float) and n > 0:
            ratio = a / n
            flag = f"{ratio:.2f}×" + (" ⚠" if ratio > 1.10 else "")
        print(f"| {prog} | {cls} | " + " | ".join(out) + f" | {flag} |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "ablation")
