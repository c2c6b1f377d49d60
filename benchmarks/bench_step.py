"""One stepper update on a 1,000-node graph: replay state + scene update.

Target (issue 3): under 16 ms per step (one frame). Measures, on a synthetic
1,000-node trace (an MLP-like chain: 500 ops, each using a parameter leaf),
`engine.replay.state_at` alone and `state_at` + `GraphScene.apply_step`
(offscreen Qt, no painting), stepping forward through the whole run and back.

    QT_QPA_PLATFORM=offscreen python benchmarks/bench_step.py
"""

from __future__ import annotations

import os
import statistics
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from targets import Targets  # noqa: E402

from autogradviz.engine.trace.model import (  # noqa: E402
    BackwardRun, Edge, Event, Graph, Node, Step, TensorSummary, Trace,
)


def _ts(i: int, n: int = 4) -> TensorSummary:
    vals = [float(i + j) / 7 for j in range(n)]
    return TensorSummary(shape=[n], dtype="float32", device="cpu", values=vals, numel=n,
                         min=min(vals), max=max(vals), mean=sum(vals) / n, norm=sum(v * v for v in vals) ** 0.5)


def synthetic_trace(n_nodes: int = 1000) -> Trace:
    """A chain of ops, each consuming the previous op and one parameter leaf."""
    n_ops = n_nodes // 2
    nodes, edges = [], []
    for i in range(n_ops):
        nodes.append(Node(f"op{i}", "AddmmBackward0" if i % 2 else "ReluBackward0", "op",
                          label=f"h{i}", tensor=_ts(i)))
        nodes.append(Node(f"p{i}", "AccumulateGrad", "leaf", label=f"layers.{i // 10}.w{i}", tensor=_ts(i),
                          retains_grad=False, hooks=["h"] if i % 50 == 0 else []))
    for i in range(n_ops):
        if i > 0:
            edges.append(Edge(src=f"op{i - 1}", dst=f"op{i}", slot=0))
        edges.append(Edge(src=f"p{i}", dst=f"op{i}", slot=1))
    g = Graph(id="g0", nodes=nodes, edges=edges, roots=[f"op{n_ops - 1}"])
    steps, events, k = [], [], 0
    for i in reversed(range(n_ops)):
        steps.append(Step(k, f"op{i}", [_ts(k)], [_ts(k + 1), _ts(k + 2)]))
        k += 1
        steps.append(Step(k, f"p{i}", [_ts(k)], []))
        if i % 50 == 0:
            events.append(Event(step=k, kind="tensor_hook", node=f"p{i}", name="h", received=_ts(k)))
        k += 1
    run = BackwardRun(index=0, graph="g0", steps=steps, events=events,
                      leaf_grads={f"p{i}": _ts(i) for i in range(n_ops)})
    return Trace(graphs=[g], backward_runs=[run], backward_calls=1)


def main() -> int:
    from autogradviz.engine.trace import replay

    targets = Targets()
    trace = synthetic_trace(1000)
    n = replay.step_count(trace, 0)
    t0 = time.perf_counter()
    replay.state_at(trace, 0, 0)
    t_pre = time.perf_counter() - t0
    ts = []
    for k in range(n + 1):
        t0 = time.perf_counter()
        replay.state_at(trace, 0, k)
        ts.append(time.perf_counter() - t0)
    print(f"replay: 1000 nodes, {n} steps; first call (precompute) {t_pre * 1e3:.2f} ms; "
          f"state_at median {statistics.median(ts) * 1e3:.2f} ms, max {max(ts) * 1e3:.2f} ms")

    from PySide6.QtWidgets import QApplication
    from autogradviz.app.graph.scene import GraphScene
    from autogradviz.engine.layout import LayoutOptions, layout_graph

    app = QApplication.instance() or QApplication(sys.argv)
    layout = layout_graph(trace.graphs[0], LayoutOptions(group="none"))
    scene = GraphScene()
    t0 = time.perf_counter()
    scene.set_graph(trace.graphs[0], layout)
    print(f"scene build: {len(layout.boxes)} boxes, {len(layout.edges)} edges "
          f"({layout.engine}) in {(time.perf_counter() - t0) * 1e3:.1f} ms")
    fwd, back = [], []
    for k in range(n + 1):
        t0 = time.perf_counter()
        scene.apply_step(replay.state_at(trace, 0, k))
        fwd.append(time.perf_counter() - t0)
    for k in range(n, -1, -1):
        t0 = time.perf_counter()
        scene.apply_step(replay.state_at(trace, 0, k))
        back.append(time.perf_counter() - t0)
    allt = fwd + back
    med, p95, mx = statistics.median(allt), sorted(allt)[int(len(allt) * 0.95)], max(allt)
    print(f"step update (state_at + apply_step), 1000 nodes: median {med * 1e3:.2f} ms, "
          f"p95 {p95 * 1e3:.2f} ms, max {mx * 1e3:.2f} ms (target < 16 ms)")
    targets.check("step update p95 < 16 ms", p95 < 0.016, f"{p95 * 1e3:.2f} ms")
    # jump first -> last (worst case: every item changes)
    t0 = time.perf_counter()
    scene.apply_step(replay.state_at(trace, 0, 0))
    scene.apply_step(replay.state_at(trace, 0, n))
    print(f"jump 0 -> n (two full updates): {(time.perf_counter() - t0) * 1e3:.1f} ms")

    # the whole thing in the widget: session.set_step -> scene update -> repaint
    from autogradviz.app.graph.view import GraphView
    from autogradviz.app.session import TraceSession

    session = TraceSession()
    view = GraphView(session)
    view.resize(1200, 800)
    view.show()
    session.set_trace(trace)
    t_end = time.perf_counter() + 60
    while (view.runner.is_running() or not view._layout_graph_id) and time.perf_counter() < t_end:
        app.processEvents()
    app.processEvents()
    view.follow = "--no-follow" not in sys.argv  # as in the app: keep the running node in sight
    view.view.resetTransform()  # readable zoom (boxes large on screen), the usual way to step
    view.view.centerOn(view.graph_scene().center_of(trace.backward_runs[0].steps[0].node))
    app.processEvents()
    frames = []
    for k in list(range(1, 201)) + list(range(200, 0, -1)):
        t0 = time.perf_counter()
        session.set_step(k)
        view.view.viewport().repaint()  # synchronous paint of what changed
        frames.append(time.perf_counter() - t0)
    med, p95 = statistics.median(frames), sorted(frames)[int(len(frames) * 0.95)]
    print(f"step in GraphView incl. repaint (1200x800, 1000 nodes): median {med * 1e3:.2f} ms, "
          f"p95 {p95 * 1e3:.2f} ms, max {max(frames) * 1e3:.2f} ms (target < 16 ms)")
    targets.check("step in GraphView p95 < 16 ms", p95 < 0.016, f"{p95 * 1e3:.2f} ms")
    # as the app paints: set_step, then the event loop paints the dirty region only
    app_frames = []
    for k in list(range(1, 201)) + list(range(200, 0, -1)):
        t0 = time.perf_counter()
        session.set_step(k)
        app.sendPostedEvents()
        app.processEvents()
        app_frames.append(time.perf_counter() - t0)
    print(f"step in GraphView, the dirty region painted by the event loop (as in the app): median "
          f"{statistics.median(app_frames) * 1e3:.2f} ms, p95 {sorted(app_frames)[int(len(app_frames) * 0.95)] * 1e3:.2f} ms")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"load average (1 min) at the end: {load:.2f}")
    view.shutdown()
    view.close()
    del app
    return targets.exit_code()


if __name__ == "__main__":
    sys.exit(main())
