"""Layout time per engine on real traces and a synthetic 10,000-node graph.

Workloads (scripts traced in-process with `engine.runner.run_script`, as the
worker does): an MLP, a 6-layer nn.TransformerEncoder, a GPT-2-small-shaped
model (12 blocks, width 768; the script of bench_trace_cli.py), an RNNCell
unrolled over 100, 300 and 1,000 steps, a real ~10,000-node trace without
modules (a deep elementwise chain), and a synthetic 10,000-node graph.

For each: trace nodes, boxes drawn, and the time of
  auto       - what the app and `autogradviz export` do by default
               (grouping collapses big graphs; Graphviz for small pictures,
               our layered layout for big ones),
  graphviz   - Graphviz dot (system dot if on PATH, else the wasm build) on
               the same picture as auto, time limit 60 s,
  layered    - our layered layout on the same picture,
  full       - the whole graph, nothing collapsed (group none; shared leaves
               drawn per use): our layered layout, and Graphviz (time limit);
  expanded   - every module group expanded (frames drawn), our layered
               layout: its time, and its quality: pairs of module frames that
               overlap without being nested, edges that pass through a box.
Run: .venv/bin/python benchmarks/bench_layout.py [--quick]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests"))  # synthetic_graphs
from workloads import DEEP_CHAIN  # noqa: E402

MLP = """
import torch
import torch.nn as nn
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
x = torch.randn(8, 32)
loss = nn.functional.cross_entropy(model(x), torch.randint(0, 10, (8,)))
loss.backward()
"""

TRANSFORMER = """
import torch
import torch.nn as nn
torch.manual_seed(0)
layer = nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128, batch_first=True,
                                   dropout=0.0)
encoder = nn.TransformerEncoder(layer, num_layers=6, enable_nested_tensor=False)
x = torch.randn(2, 10, 64)
loss = encoder(x).pow(2).mean()
loss.backward()
"""

RNN = """
import torch
import torch.nn as nn
torch.manual_seed(0)
STEPS = {steps}
cell = nn.RNNCell(16, 32)
xs = torch.randn(STEPS, 4, 16)
h = torch.zeros(4, 32)
for t in range(STEPS):
    h = cell(xs[t], h)
loss = h.pow(2).mean()
loss.backward()
"""


DEEP = DEEP_CHAIN


def gpt2_script() -> str:
    from bench_trace_cli import SCRIPT
    return SCRIPT


def workloads(quick: bool = False):
    items = [("MLP", MLP), ("TransformerEncoder x6", TRANSFORMER), ("GPT-2-small shape", None),
             ("RNN 100 steps", RNN.format(steps=100)), ("RNN 300 steps", RNN.format(steps=300)),
             ("RNN 1000 steps", RNN.format(steps=1000)),
             ("deep chain (real trace)", DEEP)]
    if quick:
        items = [i for i in items if "300" not in i[0] and "GPT" not in i[0]]
    return items


def trace_graph(source: str):
    from autogradviz.engine.worker.runner import run_script

    run = run_script("device = 'cpu'\n" + source, "bench.py")
    trace = run.trace
    if trace.error is not None:
        raise RuntimeError(f"{trace.error.type}: {trace.error.message}")
    if trace.backward_runs:
        g = trace.graph(trace.backward_runs[0].graph)
    elif trace.graphs:
        g = max(trace.graphs, key=lambda g: len(g.nodes))
    else:
        raise RuntimeError("the script built no graph")
    return g


def timed(fn, repeat=1):
    best = None
    out = None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        dt = time.perf_counter() - t
        best = dt if best is None else min(best, dt)
    return best, out


def bench_graph(name, g, gv_limit=30.0):
    from autogradviz.engine.layout import LayoutOptions, layout_graph, prepare

    dg = prepare(g)
    row = {"name": name, "nodes": len(g.nodes), "boxes": len(dg.nodes)}
    t, r = timed(lambda: layout_graph(g), repeat=2)
    row["auto"] = f"{t:.3f} s ({r.engine.split(' (')[0]})"
    # the same picture with each engine
    try:
        t, r = timed(lambda: layout_graph(g, LayoutOptions(engine="graphviz", time_limit_s=gv_limit)))
        row["graphviz"] = f"{t:.3f} s" if r.engine != "layered" else f">{gv_limit:g} s (timed out)"
    except Exception as exc:  # noqa: BLE001 - report, keep going
        row["graphviz"] = f"failed: {exc}"
    t, r = timed(lambda: layout_graph(g, LayoutOptions(engine="layered")), repeat=2)
    row["layered"] = f"{t:.3f} s"
    full = prepare(g, group="none")
    t, r = timed(lambda: layout_graph(g, LayoutOptions(engine="layered", group="none")))
    row["full"] = f"{t:.3f} s / {len(full.nodes)} boxes"
    t, r = timed(lambda: layout_graph(g, LayoutOptions(engine="graphviz", group="none",
                                                       time_limit_s=gv_limit)))
    row["full_gv"] = f"{t:.3f} s" if r.engine != "layered" else f">{gv_limit:g} s (timed out)"
    # quality of our layout with every module group expanded (frames drawn)
    paths = {".".join(n.module.split(".")[: i + 1]) for n in g.nodes if n.module
             for i in range(n.module.count(".") + 1)}
    if len(prepare(g, group="modules", collapsed=set(), unrolled=paths).nodes) <= 11000:
        t, r = timed(lambda: layout_graph(g, LayoutOptions(engine="layered", group="modules",
                                                           collapsed=set(), unrolled=paths)))
        frames, overlaps, crossing = quality(r)
        row["expanded"] = (f"{t:.3f} s, {len(r.boxes)} boxes, {frames} frames: {overlaps} overlapping, "
                           f"{crossing} edges through boxes")
    else:
        row["expanded"] = "(skipped: > 11,000 boxes)"
    return row


def quality(r):
    """(expanded frames, pairs of frames that overlap without being nested,
    edges that pass through a box other than their own ends)."""
    frames = [x for x in r.groups if not x.collapsed and x.w > 0]

    def meet(a, b):
        return a.x < b.x + b.w - 0.5 and b.x < a.x + a.w - 0.5 and a.y < b.y + b.h - 0.5 and b.y < a.y + a.h - 0.5
    overlaps = sum(1 for i, a in enumerate(frames) for b in frames[i + 1:]
                   if not (a.id.startswith(b.id + "/") or b.id.startswith(a.id + "/")) and meet(a, b))
    cell, grid = 200.0, {}
    for b in r.boxes:
        for gx in range(int(b.x // cell), int((b.x + b.w) // cell) + 1):
            for gy in range(int(b.y // cell), int((b.y + b.h) // cell) + 1):
                grid.setdefault((gx, gy), []).append(b)
    crossing = 0
    for e in r.edges:
        hit = False
        for (x0, y0), (x1, y1) in zip(e.points, e.points[1:]):
            for gx in range(int(min(x0, x1) // cell), int(max(x0, x1) // cell) + 1):
                for gy in range(int(min(y0, y1) // cell), int(max(y0, y1) // cell) + 1):
                    for b in grid.get((gx, gy), ()):
                        if b.key not in (e.src, e.dst) and _through(x0, y0, x1, y1, b):
                            hit = True
        crossing += hit
    return len(frames), overlaps, crossing


def _through(x0, y0, x1, y1, b, shrink=1.0):
    lo_x, lo_y, hi_x, hi_y = b.x + shrink, b.y + shrink, b.x + b.w - shrink, b.y + b.h - shrink
    t0, t1 = 0.0, 1.0
    for p, q in ((x0 - x1, x0 - lo_x), (x1 - x0, hi_x - x0), (y0 - y1, y0 - lo_y), (y1 - y0, hi_y - y0)):
        if p == 0:
            if q < 0:
                return False
        elif p < 0:
            t0 = max(t0, q / p)
        else:
            t1 = min(t1, q / p)
        if t0 > t1:
            return False
    return t1 - t0 > 1e-9


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="skip the slowest workloads")
    args = ap.parse_args()
    from autogradviz.engine.layout import graphviz_backend
    import synthetic_graphs as S  # (tests/synthetic_graphs.py)

    print(f"bench_layout: Graphviz backend = {graphviz_backend()}")
    rows = []
    for name, src in workloads(args.quick):
        try:
            g = trace_graph(src if src is not None else gpt2_script())
        except Exception as exc:  # noqa: BLE001
            print(f"  {name}: could not trace ({type(exc).__name__}: {exc})")
            continue
        rows.append(bench_graph(name, g))
        print("  " + _fmt(rows[-1]), flush=True)
    g = S.random_dag(10000)
    rows.append(bench_graph("synthetic 10,000 nodes", g, gv_limit=20.0))
    print("  " + _fmt(rows[-1]), flush=True)
    print()
    print(f"{'workload':24} {'nodes':>6} {'boxes':>6}  {'auto':28} {'graphviz':18} {'layered':10} "
          f"{'full graph: layered':28} full graph: graphviz")
    for r in rows:
        print(f"{r['name']:24} {r['nodes']:>6} {r['boxes']:>6}  {r['auto']:28} {r['graphviz']:18} "
              f"{r['layered']:10} {r['full']:28} {r['full_gv']}")
    print()
    print("every module group expanded, our layered layout:")
    for r in rows:
        print(f"{r['name']:24} {r['expanded']}")
    return 0


def _fmt(r):
    return ", ".join(f"{k}={v}" for k, v in r.items())


if __name__ == "__main__":
    raise SystemExit(main())
