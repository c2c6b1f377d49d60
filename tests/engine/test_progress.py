"""Progress of long work: `run_script(on_progress=...)` hears about the
capture and summaries of a big graph, at most about 5 times a second, and
about nothing for a learner's small script."""

from __future__ import annotations

import time

from autogradviz.engine.worker.progress import INTERVAL, MIN_ITEMS, Progress
from autogradviz.engine.worker.runner import run_script

BIG = """\
import torch
x = torch.randn(4, requires_grad=True)
w = torch.randn(4, requires_grad=True)
h = x
for _ in range(5000):
    h = torch.sin(h) * w
loss = h.sum()
loss.backward()
"""

TINY = """\
import torch
x = torch.randn(4, requires_grad=True)
(x.sin() * 2).sum().backward()
"""


def _run(src):
    calls = []
    r = run_script(src, filename="/virtual/progress.py",
                   on_progress=lambda code, params: calls.append((time.monotonic(), code, dict(params))))
    assert r.trace.error is None, r.trace.error
    return r.trace, calls


def test_a_10000_node_script_reports_progress():
    tr, calls = _run(BIG)
    n = len(tr.graphs[0].nodes)
    assert n >= 10_000
    assert calls
    for _, code, params in calls:
        unit = {"capturing": "nodes", "building": "nodes", "summarising": "tensors"}[code]
        assert set(params) == {unit, "done"}
        assert params[unit] >= MIN_ITEMS and 0 <= params["done"] <= params[unit]
    # the capture at the backward call, with the graph's size
    assert any(code == "capturing" and p["nodes"] == n for _, code, p in calls)
    times = [t for t, _, _ in calls]
    assert all(b - a >= INTERVAL * 0.99 for a, b in zip(times, times[1:]))


def test_a_tiny_script_reports_nothing():
    tr, calls = _run(TINY)
    assert len(tr.backward_runs) == 1 and tr.backward_runs[0].steps
    assert calls == []


def test_reports_are_rate_limited_and_a_failing_callback_is_dropped():
    now = [0.0]
    got = []
    p = Progress(lambda code, params: got.append((now[0], code, params)), clock=lambda: now[0])
    assert p.phase("building", MIN_ITEMS - 1).tick(0) is None and got == []  # too small
    ph = p.phase("building", 5000)  # reports its start
    for t, done in ((0.1, 100), (0.25, 200), (0.3, 300), (0.5, 400)):
        now[0] = t
        ph.tick(done)
    assert got == [(0.0, "building", {"nodes": 5000, "done": 0}),
                   (0.25, "building", {"nodes": 5000, "done": 200}),
                   (0.5, "building", {"nodes": 5000, "done": 400})]

    def boom(code, params):
        raise RuntimeError("a bad callback")

    q = Progress(boom, clock=lambda: now[0])
    q.phase("summarising", 5000, "tensors")  # raises inside: dropped, not raised
    assert q.callback is None
