"""Selecting a node with thousands of inputs: the Cat node of a torch.cat of 4,000 tensors.

Target (issue 24): under 0.5 s from `select_node` to the Inspector laid out
(its derivative rule and gradients) on the GUI thread, at the last step.
Binding the rule was quadratic in the inputs (every input's shape in every
input's parameters: 15 s and 5.5 GB), and the Inspector laid out 8,000 lines
of rich text (4 s); both now cost what is drawn (the first inputs, then
"… and N more"). The trace is recorded by the real worker.

    QT_QPA_PLATFORM=offscreen python benchmarks/bench_select.py
"""

from __future__ import annotations

import os
import resource
import statistics
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from targets import Targets  # noqa: E402

from autogradviz.engine.protocol.client import WorkerClient  # noqa: E402

CAT = """\
import torch
xs = [torch.full((1,), float(i), requires_grad=True) for i in range(4000)]
y = torch.cat(xs)
(y * 2).sum().backward()
"""
TARGET_S = 0.5


def main() -> int:
    targets = Targets()
    with WorkerClient() as client:
        client.start()
        outcome = client.run(CAT, filename="<bench>", timeout=120)
    trace = outcome.trace
    assert trace is not None and trace.error is None, trace and trace.error

    from PySide6.QtWidgets import QApplication

    from autogradviz.app.panels.inspector import InspectorPanel
    from autogradviz.app.session import TraceSession
    from autogradviz.engine.trace import replay

    app = QApplication.instance() or QApplication(sys.argv)
    replay.prepare(trace)
    session = TraceSession()
    panel = InspectorPanel(session)
    panel.resize(420, 900)
    panel.show()
    session.set_trace(trace)
    session.set_step(session.step_count)
    app.processEvents()
    graph = trace.graphs[0]
    cat = next(n for n in graph.nodes if n.op == "CatBackward0")
    other = next(n for n in graph.nodes if n.op == "MulBackward0")
    times = []
    for _ in range(5):
        session.select_node(other.id)
        app.processEvents()
        t0 = time.perf_counter()
        session.select_node(cat.id)
        app.processEvents()
        times.append(time.perf_counter() - t0)
    med, worst = statistics.median(times), max(times)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    print(f"select the Cat node of a 4,000-tensor cat ({len(graph.nodes)} nodes): median {med * 1e3:.1f} ms, "
          f"max {worst * 1e3:.1f} ms; peak RSS {rss} MB (target < {TARGET_S} s)")
    targets.check(f"select Cat of 4,000 inputs < {TARGET_S} s", worst < TARGET_S, f"{worst * 1e3:.1f} ms")
    return targets.exit_code()


if __name__ == "__main__":
    raise SystemExit(main())
