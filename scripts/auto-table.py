#!/usr/bin/env python3
"""The table of scripts/gpu-auto.sh: for each program and class, the median ms of every form (fixed H, bfs_do's own
rule, auto) and auto against the best fixed H. Reads the JSON lines `irgc bench --json` rows, each with `form`
and `cls` added; a form timed in several passes shows the median of its passes' medians. Exits 1 if a row did
not verify."""
import json
import statistics
import sys

rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
bad = [r for r in rows if r.get("verified") != "ok"]
forms = ["H=0.05", "H=0.2", "H=0.6", "H=1.0", "rule", "auto"]
classes = list(dict.fromkeys(r["cls"] for r in rows))
for program in dict.fromkeys(r["program"] for r in rows):
    print(f"\n{program}")
    present = [f for f in forms if any(r["program"] == program and r["form"] == f for r in rows)]
    print("| class | " + " | ".join(present) + " | auto / best fixed H |")
    print("|---" * (len(present) + 2) + "|")
    for c in classes:
        times = {}
        for r in rows:
            if r["program"] == program and r["cls"] == c:
                times.setdefault(r["form"], []).append(r["median_ms"])
        ms = {f: statistics.median(t) for f, t in times.items()}
        fixed = [ms[f] for f in forms[:4] if f in ms]
        ratio = f"{ms['auto'] / min(fixed):.2f}" if fixed and "auto" in ms else "-"
        cells = [f"{ms[f]:.3f}" if f in ms else "-" for f in present]
        print(f"| {c} | " + " | ".join(cells) + f" | {ratio} |")
for r in bad:
    print(f"NOT VERIFIED: {r['program']} {r['form']} {r['cls']}: {r.get('verified')} {r.get('verify_detail', '')}")
sys.exit(1 if bad else 0)
