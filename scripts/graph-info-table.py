#!/usr/bin/env python3
# The table of docs/graphs.md ("irgc info on the shared graphs"): `irgc info --json --no-cache` on every graph of
# the shared data directory, one Markdown row each. Run from the repository root after
# `cargo build --release -p irgc`:
#   scripts/graph-info-table.py [IRGC (default target/release/irgc)] [DATA (default ../shared/data)]
# The reference-answer files (p2p-31-*) are not graphs, and the LDBC pair is named once, by its .e file.
import json, subprocess, sys, os, time
irgc = sys.argv[1] if len(sys.argv) > 1 else 'target/release/irgc'
d = sys.argv[2] if len(sys.argv) > 2 else '../shared/data'
files = sorted(f for f in os.listdir(d) if f not in ('README.md', 'SHA256SUMS') and not f.startswith('p2p-31-') and f != 'p2p-31.v.xz')
def g(x): return f"{x:,}"
rows = []
rows.append("| file | format | nodes | edges | sym. | self loops | dup. edges | weights | degree min / median / max / mean | components (largest) | diameter (hops) | load s | analysis s | wall s |")
rows.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for f in files:
    t = time.time()
    out = subprocess.run([irgc, 'info', os.path.join(d, f), '--no-cache', '--json'], capture_output=True, text=True)
    wall = time.time() - t
    if out.returncode != 0:
        rows.append(f"| `{f}` | error: {out.stderr.strip()} |"); continue
    v = json.loads(out.stdout)
    w = v['weights']
    ws = 'none' if w is None else f"{w['type']} {w['min']}..{w['max']}"
    od = v['out_degree']
    deg = f"{od['min']} / {od['median']} / {g(od['max'])} / {od['mean']:.2f}"
    if not v['symmetric']:
        deg = 'out ' + deg + f"; in max {g(v['in_degree']['max'])}"
    c = v['components']
    comp = f"{g(c['count'])}{' weak' if c['weakly'] else ''} ({g(c['largest'])})"
    dm = v['diameter']
    dia = g(dm['lower_bound']) if dm['exact'] else f"≥ {g(dm['lower_bound'])} (≤ {g(dm['upper_bound'])})"
    edges = g(v['edges']) + (f" ({g(v['undirected_edges'])} undir.)" if v['symmetric'] else '')
    rows.append(f"| `{f}` | {v['format']} | {g(v['nodes'])} | {edges} | {'yes' if v['symmetric'] else 'no'} | {g(v['self_loops'])} | {g(v['duplicate_edges'])} | {ws} | {deg} | {comp} | {dia} | {v['seconds']['load']:.2f} | {v['seconds']['analysis']:.2f} | {wall:.2f} |")
print("\n".join(rows))
