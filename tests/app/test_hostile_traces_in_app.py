"""A saved trace is data from anywhere: File ▸ Open Trace refuses a broken
one with a clear message (nothing else changes), draws a deep module path cut,
and selecting a node costs what the panels draw - also for a legitimate
torch.cat of 4,000 tensors (its rule was bound for every pair of inputs:
~60 s and 3-5 GB on the GUI thread).

The files are real traces (the real worker, saved by the app) with one thing
changed; the CLI side of the same files: tests/engine/test_hostile_traces.py.
The speed of selecting the Cat node is measured in benchmarks/bench_select.py.
"""

from __future__ import annotations

import json

import pytest

from hostile_trace_files import REFUSED, hostile  # (tests/hostile_trace_files.py)

from autogradviz.app.services.worker_process import READY

RUN_TIMEOUT_MS = 120_000

SCRIPT = """\
import torch
x = torch.tensor([2.0], requires_grad=True)
w = torch.tensor([3.0], requires_grad=True)
model = torch.nn.Sequential(torch.nn.Linear(1, 1))
y = model(x * w)
y.sum().backward()
"""

CAT_SCRIPT = """\
import torch
xs = [torch.full((1,), float(i), requires_grad=True) for i in range(4000)]
y = torch.cat(xs)
(y * 2).sum().backward()
"""


def _run(qtbot, w, wait_until, worker, text):
    wait_until(lambda: worker.state == READY, 60_000, "worker ready")
    w.trace_files.quiet = True
    w.ask_unsaved = lambda: "discard"
    w.files.new_file()
    w.editor.setPlainText(text)
    with qtbot.waitSignal(w.runFinished, timeout=RUN_TIMEOUT_MS) as blocker:
        w.actions["run"].trigger()
    trace = blocker.args[0]
    assert trace.error is None, trace.error
    return trace


@pytest.fixture
def saved(qtbot, main_window, wait_until, shared_worker, tmp_path):
    """The window after a real run of SCRIPT, and that run's trace file as plain data."""
    w = main_window
    _run(qtbot, w, wait_until, shared_worker, SCRIPT)
    path = tmp_path / "real.json"
    with qtbot.waitSignal(w.trace_files.traceSaved, timeout=20_000):
        w.trace_files.save(str(path))
    return w, json.loads(path.read_text())


@pytest.mark.parametrize("kind, expect", [(k, REFUSED[k]) for k in ("shape", "slot", "step_node", "nested")])
def test_open_trace_refuses_a_hostile_file_and_keeps_what_was_shown(qtbot, saved, tmp_path, kind, expect):
    w, data = saved
    shown = w.session.trace
    path = tmp_path / f"{kind}.json"
    path.write_text(hostile(data, kind))
    with qtbot.waitSignal(w.trace_files.failed, timeout=30_000) as failure:
        w.trace_files.open(str(path))
    text = failure.args[0]
    assert str(path) in text and "is not an Autograd Visualizer trace" in text and expect in text, text
    assert "\n" not in text and "Traceback" not in text and len(text) < 1000
    assert w.session.trace is shown and w.session.saved_file is None


def test_open_trace_with_a_module_path_of_10000_parts_and_select_every_node(qtbot, saved, tmp_path):
    w, data = saved
    path = tmp_path / "deep.json"
    path.write_text(hostile(data, "module_path"))
    with qtbot.waitSignal(w.trace_files.traceOpened, timeout=30_000):
        w.trace_files.open(str(path))
    opened = w.session.trace
    deep = [n for n in opened.graphs[0].nodes if n.module and n.module.startswith("m.m")]
    assert deep and all(n.module.count(".") < 64 for n in deep)
    qtbot.waitUntil(lambda: "module path(s) in this trace were deeper than 64 parts" in w.output.plain_text,
                    timeout=10_000)
    qtbot.waitUntil(lambda: not w.graph_view.runner.is_running(), timeout=60_000)
    insp = w.panels.widget("inspector")
    w.session.set_step(w.session.step_count)
    for n in opened.graphs[0].nodes:
        w.session.select_node(n.id)
    qtbot.waitUntil(lambda: insp.why_box.isVisibleTo(insp) or insp.grad_label.text() != "", timeout=10_000)


def test_selecting_the_cat_of_4000_tensors_binds_only_what_is_drawn(qtbot, main_window, wait_until,
                                                                    shared_worker):
    from autogradviz.app.panels import why_gradient
    from autogradviz.app.panels.inspector import MAX_GRADS_LISTED

    w = main_window
    trace = _run(qtbot, w, wait_until, shared_worker, CAT_SCRIPT)
    w.session.set_step(w.session.step_count)
    cat = next(n for n in trace.graphs[0].nodes if n.op == "CatBackward0")
    insp = w.panels.widget("inspector")
    w.session.select_node(cat.id)
    qtbot.waitUntil(lambda: "more inputs" in insp.why_box.label.text(), timeout=30_000)
    shown = why_gradient.MAX_SLOTS_SHOWN
    bound = why_gradient.bound_rule(w.session, cat)
    # The work: the rules of the inputs drawn, each with its own few parameters
    # (it was every input's shape in every input's parameters: 4,000 x 8,000).
    assert len(bound.slots) == shown and bound.omitted == 4000 - shown
    assert sum(len(p) for p in bound.params.values()) <= 20 * shown
    assert f"… and {4000 - shown:,} more inputs" in insp.why_box.label.text()
    grads = insp.grad_label.text()
    assert f"… and {4000 - MAX_GRADS_LISTED:,} more" in grads
    assert grads.count("grad_inputs[") == MAX_GRADS_LISTED and len(grads) < 20_000
    # Each input's place in the gradient, from one pass over the inputs' shapes.
    text = insp.why_box.label.text()
    assert "∂L/∂xs[0] = grad[0:1]" in text and f"∂L/∂xs[{shown - 1}] = grad[{shown - 1}:{shown}]" in text
