"""The GradScaler panel against real traces: scrubbing the calls lights exactly
the stages the trace says, refused calls show torch's message, the editor is
asked for each call's line, the table and chart follow the recorded scale, the
inspector shows scaled gradients with their unscaled values, and the dock is
there only for traces with GradScaler calls."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from autogradviz.app.graph.items import summary_text, unscaled_summary
from autogradviz.app.panels.grad_scaler import GradScalerPanel
from autogradviz.app.panels.inspector import InspectorPanel
from autogradviz.app.session import TraceSession

from test_graph_support import LESSON, trace_of

SCRIPT = """
import torch
torch.manual_seed(0)
a = torch.nn.Linear(2, 1)
b = torch.nn.Linear(2, 1)
oa = torch.optim.SGD(a.parameters(), lr=0.1)
ob = torch.optim.SGD(b.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu", init_scale=1024.0, growth_interval=2)
x = torch.randn(3, 2)
for it in range(4):
    oa.zero_grad(); ob.zero_grad()
    loss = a(x).sum() + b(x).sum()
    if it == 1:
        loss = loss * float("inf")
    scaler.scale(loss).backward()
    scaler.unscale_(oa)
    scaler.step(oa)
    scaler.step(ob)
    scaler.update()
try:
    scaler.step(oa); scaler.step(oa)
except RuntimeError as e:
    print(e)
"""


@pytest.fixture(scope="module")
def trace():
    return trace_of(SCRIPT)


@pytest.fixture
def panel(qtbot):
    session = TraceSession()
    p = GradScalerPanel(session)
    qtbot.addWidget(p)
    p.resize(1000, 600)
    p.show()
    return p


def expected_stages(events, k):
    """Each optimizer's stage after call k, and the call refused at k, read
    straight from the recorded events."""
    stage = {}
    for e in events:
        if e.optimizer:
            stage.setdefault(e.optimizer, "READY")
    refused = None
    for i, e in enumerate(events[: k + 1]):
        if e.error is not None:
            refused = (e.optimizer, e.call, e.error.message) if i == k else refused
            continue
        if e.call in ("unscale_", "step"):
            stage[e.optimizer] = e.stage_after
        elif e.call == "update":
            stage = {o: "READY" for o in stage}
    return stage, refused


def test_scrubbing_lights_the_recorded_stages(qtbot, panel, trace):
    events = trace.scaler_events
    lines = []
    panel.session.lineRequested.connect(lines.append)
    panel.session.set_trace(trace)
    assert set(panel.diagrams) == {"o1", "o2"}
    assert panel.calls.count() == len(events) == 4 * 5 + 2
    panel.setFocus()
    qtbot.keyClick(panel, Qt.Key_Home)
    for k in range(len(events)):
        if k:
            qtbot.keyClick(panel, Qt.Key_Right)
        assert panel.index == k
        stages, refused = expected_stages(events, k)
        for o, d in panel.diagrams.items():
            if refused and refused[0] == o:
                assert d.refused == (events[k].stage_before, events[k].call)
                assert d.message == refused[2]
            else:
                assert d.stage == stages[o] and d.refused is None, (k, o)
        assert lines[-1] == events[k].line
    # the last call: step twice, refused with torch's own message, in red
    assert panel.diagrams["o1"].message == "step() has already been called since the last update()."
    assert "refused" in panel.calls.item(len(events) - 1).text()
    qtbot.keyClick(panel, Qt.Key_End)
    assert panel.index == len(events) - 1
    qtbot.keyClick(panel, Qt.Key_Left)
    assert panel.index == len(events) - 2


def test_transition_arrows_follow_the_calls(qtbot, panel, trace):
    panel.session.set_trace(trace)
    events = trace.scaler_events
    for k, e in enumerate(events):
        panel.set_index(k)
        if e.error is None and e.call == "unscale_":
            assert panel.diagrams[e.optimizer].taken[2] == "unscale_"
        if e.error is None and e.call == "step":
            kind = "step_implicit" if e.implicit_unscale else "step"
            assert panel.diagrams[e.optimizer].taken[2] == kind
        if e.error is None and e.call == "update":
            assert all(d.taken[2] == "update" for d in panel.diagrams.values())


def test_table_and_chart_follow_the_recorded_scale(qtbot, panel, trace):
    panel.session.set_trace(trace)
    events = trace.scaler_events
    updates = [e for e in events if e.call == "update"]
    assert panel.table.rowCount() == len(updates) + 1  # + the iteration of the final refused steps
    skipped_iter = {e.iteration for e in events if e.skipped}
    assert skipped_iter == {1}
    assert panel.table.item(1, 4).text() == "o1, o2"  # both optimizers skipped their step
    assert panel.table.item(0, 4).text() == panel.tr("no")
    assert [float(panel.table.item(r, 2).text()) for r in range(len(updates))] == \
        [e.scale_before for e in updates]
    assert [p[1] for p in panel.chart.points] == [e.scale_after for e in updates]
    assert [p[2] for p in panel.chart.points][1] == "backoff"
    assert panel.chart.skipped == [1]


def test_inspector_shows_scaled_gradients_unscaled(qtbot, trace):
    session = TraceSession()
    inspector = InspectorPanel(session)
    qtbot.addWidget(inspector)
    session.set_trace(trace)
    run = session.run
    assert run.scaled_by is not None
    scale = trace.scaler_events[run.scaled_by].scale_before
    leaf = next(n for n in session.graph.nodes if n.label == "a.bias")
    session.select_node(leaf.id)
    session.set_step(session.step_count)
    text = inspector.grad_label.text()
    assert f"{scale:g} ×" in text
    scaled = session.state.leaf_grads[leaf.id]
    unscaled = unscaled_summary(scaled, scale)
    assert unscaled.values == [v / scale for v in scaled.values]
    assert f"{summary_text(scaled, 16)} ÷ {scale:g} → {summary_text(unscaled, 16)}" in text
    # a run that did not start from scale(): no division shown
    session.set_trace(trace_of(LESSON))
    session.select_node(session.graph.nodes[0].id)
    session.set_step(session.step_count)
    assert "÷" not in inspector.grad_label.text()


def test_dock_only_for_traces_with_gradscaler_calls(main_window, trace):
    w = main_window
    dock = w.panels.dock("gradScaler")
    assert not dock.isVisible()
    w.editor.setPlainText(SCRIPT)  # the code the trace came from (a call's line is selected in it)
    w.session.set_trace(trace)
    assert dock.isVisible()
    panel = w.panels.widget("gradScaler")
    panel.set_index(3)
    assert w.editor.textCursor().blockNumber() + 1 == trace.scaler_events[3].line
    w.session.set_trace(trace_of(LESSON))
    assert not dock.isVisible()


def test_stepper_caption_shows_the_real_gradient(qtbot, trace):
    from autogradviz.app.panels.stepper import StepperPanel

    session = TraceSession()
    stepper = StepperPanel(session)
    qtbot.addWidget(stepper)
    session.set_trace(trace)
    scale = session.run_scale()
    assert scale == trace.scaler_events[session.run.scaled_by].scale_before == 1024.0
    session.set_step(1)  # the scale() multiplication: received 1.0, sent 1024.0
    state = session.state
    first = state.node_steps[state.current].grad_outputs[0]
    caption = stepper._flow_text(state)
    expected = summary_text(unscaled_summary(first, scale))
    assert f"GradScaler: {scale:g} × the real gradient {expected}" in caption
    session.set_trace(trace_of(LESSON))
    session.set_step(1)
    assert "GradScaler" not in stepper._flow_text(session.state)
