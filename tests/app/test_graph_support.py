"""Traces for the graph/inspector/stepper tests (helpers, no tests here).

The GUI process must not import torch, so real traces are produced by
`engine.worker.runner.run_script` in a helper subprocess (`python -c ...`) and sent
back as JSON; each script is traced once per test session (cached).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile


import pytest

from autogradviz.engine.trace.model import Trace

LESSON = """\
import torch
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
y = x * w
y.retain_grad()
def double(g):
    return g * 2
y.register_hook(double)
z = y.sum()
loss = z * 3
loss.backward()
"""

# a value used twice (a, b share x): copies and per-use labels
SHARED = """\
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
a = x * 2
b = x + 1
c = (a * b).sum()
c.backward()
"""

NO_BACKWARD = """\
import torch
x = torch.ones(3, requires_grad=True)
y = (x * 2).sum()
"""

TWO_RUNS = """\
import torch
a = torch.tensor([2.0, -1.0], requires_grad=True)
b = (a * a).sum()
b.backward(retain_graph=True)
b.backward()
c = a.exp().mean()
c.backward()
"""

BIG = """\
import torch
m = torch.arange(100.0).reshape(10, 10).requires_grad_()
v = torch.ones(10, requires_grad=True)
out = (m @ v).tanh()
total = out.sum()
total.backward()
"""

_HELPER = r"""
import sys
from autogradviz.engine.worker.runner import run_script
src = open(sys.argv[1], encoding="utf-8").read()
result = run_script(src, filename="<test>")
with open(sys.argv[2], "w", encoding="utf-8") as f:
    f.write(result.trace.to_json())
"""

_cache: dict[str, str] = {}


def trace_json(source: str, timeout: float = 120.0) -> str:
    """JSON of the trace of `source`, produced in a subprocess (cached)."""
    if source in _cache:
        return _cache[source]
    with tempfile.TemporaryDirectory(prefix="h5-trace-") as d:
        src = os.path.join(d, "script.py")
        out = os.path.join(d, "trace.json")
        with open(src, "w", encoding="utf-8") as f:
            f.write(source)
        proc = subprocess.run([sys.executable, "-c", _HELPER, src, out], capture_output=True,
                              text=True, timeout=timeout)
        if proc.returncode != 0 or not os.path.exists(out):
            raise AssertionError(f"tracing failed (rc {proc.returncode}): {proc.stderr[-2000:]}")
        with open(out, encoding="utf-8") as f:
            text = f.read()
    _cache[source] = text
    return text


def trace_of(source: str) -> Trace:
    """A fresh Trace object (tests may not share mutable objects)."""
    return Trace.from_json(trace_json(source))


def wait_layout(qtbot, view, timeout: int = 30_000) -> None:
    """Wait until the view shows a laid-out picture of the session's graph."""
    qtbot.waitUntil(lambda: bool(view._layout_graph_id) and view._layout_graph_id == view.session.graph_id
                    and not view.runner.is_running(), timeout=timeout)


def stop_view(qtbot, view) -> None:
    view.shutdown()
    qtbot.waitUntil(lambda: not view.runner.is_running(), timeout=10_000)


def shown_view(qtbot, trace: Trace, width: int, height: int):
    """A shown GraphView of `width`×`height` on a session of its own, showing
    `trace` laid out (stop it with `stop_view`)."""
    from autogradviz.app.graph.view import GraphView
    from autogradviz.app.session import TraceSession

    v = GraphView(TraceSession())
    qtbot.addWidget(v)
    v.resize(width, height)
    v.show()
    with qtbot.waitSignal(v.layoutFinished, timeout=30_000):
        v.session.set_trace(trace)
    qtbot.waitUntil(lambda: v.graph_scene().layout is not None and not v.runner.is_running(), timeout=30_000)
    return v


def node_by_label(trace: Trace, graph_id: str, label: str):
    g = trace.graph(graph_id)
    for n in g.nodes:
        if n.label == label:
            return n
    raise KeyError(label)


def settle(qtbot, ms: int = 20) -> None:
    qtbot.wait(ms)


@pytest.fixture
def view(qtbot):
    """A shown GraphView (900×700) on a session of its own, stopped after the test
    (used by the graph view and folded-module tests: `from test_graph_support import view`)."""
    from autogradviz.app.graph.view import GraphView
    from autogradviz.app.session import TraceSession

    v = GraphView(TraceSession())
    qtbot.addWidget(v)
    v.resize(900, 700)
    v.show()
    yield v
    stop_view(qtbot, v)
