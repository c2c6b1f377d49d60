"""StepperPanel: runs, buttons, keyboard, timeline scrubbing, events list."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt

from autogradviz.app.panels.stepper import StepperPanel
from autogradviz.app.session import TraceSession

from test_graph_support import LESSON, NO_BACKWARD, TWO_RUNS, trace_of

MANY_RUNS = """\
import torch
p = torch.ones(2, requires_grad=True)
for i in range(55):
    (p * i).sum().backward()
"""


@pytest.fixture
def stepper(qtbot):
    session = TraceSession()
    panel = StepperPanel(session)
    qtbot.addWidget(panel)
    panel.resize(900, 260)
    panel.show()
    yield panel
    panel.stop()


def test_runs_are_selectable(qtbot, stepper):
    trace = trace_of(TWO_RUNS)
    stepper.session.set_trace(trace)
    assert stepper.run_combo.count() == len(trace.backward_runs) == 3
    assert stepper.run_combo.isEnabled()
    with qtbot.waitSignal(stepper.session.runChanged, timeout=2000) as blocker:
        stepper.run_combo.setCurrentIndex(2)
    assert blocker.args == [2]
    assert stepper.session.graph_id == trace.backward_runs[2].graph
    assert stepper.session.step == 0
    assert stepper.timeline.n == len(trace.backward_runs[2].steps)


def test_buttons_and_keys(qtbot, stepper):
    trace = trace_of(LESSON)
    s = stepper.session
    s.set_trace(trace)
    n = s.step_count
    assert n == len(trace.backward_runs[0].steps)
    assert not stepper.back_btn.isEnabled() and stepper.forward_btn.isEnabled()
    qtbot.mouseClick(stepper.forward_btn, Qt.LeftButton)
    assert s.step == 1
    stepper.setFocus()
    qtbot.keyClick(stepper, Qt.Key_Right)
    assert s.step == 2
    qtbot.keyClick(stepper, Qt.Key_Left)
    assert s.step == 1
    qtbot.keyClick(stepper, Qt.Key_End)
    assert s.step == n and not stepper.forward_btn.isEnabled()
    assert "Step {0} of {0}".format(n) in stepper.step_label.text()
    qtbot.keyClick(stepper, Qt.Key_Home)
    assert s.step == 0
    qtbot.mouseClick(stepper.last_btn, Qt.LeftButton)
    assert s.step == n
    qtbot.mouseClick(stepper.first_btn, Qt.LeftButton)
    assert s.step == 0


def test_play_pause(qtbot, stepper):
    s = stepper.session
    s.set_trace(trace_of(LESSON))
    stepper.speed.setValue(20)
    stepper.setFocus()
    qtbot.keyClick(stepper, Qt.Key_Space)
    assert stepper.is_playing()
    qtbot.waitUntil(lambda: s.step == s.step_count, timeout=5000)
    qtbot.waitUntil(lambda: not stepper.is_playing(), timeout=2000)
    # play again from the end restarts; pause stops
    qtbot.mouseClick(stepper.play_btn, Qt.LeftButton)
    assert stepper.is_playing() and s.step == 0
    qtbot.mouseClick(stepper.play_btn, Qt.LeftButton)
    assert not stepper.is_playing()


def test_timeline_scrub(qtbot, stepper):
    s = stepper.session
    s.set_trace(trace_of(LESSON))
    n = s.step_count
    tl = stepper.timeline
    for k in (n, 2, 0):
        x = int(round(tl._x(k)))
        qtbot.mouseClick(tl, Qt.LeftButton, pos=QPoint(x, tl.height() // 2))
        assert s.step == k


def test_events_in_sync_and_clickable(qtbot, stepper):
    trace = trace_of(LESSON)
    s = stepper.session
    s.set_trace(trace)
    run = trace.backward_runs[0]
    assert run.events, "the lesson registers a hook"
    items = [stepper.events.item(i) for i in range(stepper.events.count())]
    items = [it for it in items if it.data(Qt.UserRole) is not None]
    from autogradviz.engine.trace import replay

    assert len(items) == len(replay.event_step_numbers(trace, 0)) >= len(run.events)
    hook_item = next(it for it in items if "double" in it.text())
    k = hook_item.data(Qt.UserRole)
    step_index = next(e.step for e in run.events if e.kind == "tensor_hook")
    assert run.steps[k - 1].index == step_index
    assert k in stepper.timeline.hook_steps
    rect = stepper.events.visualItemRect(hook_item)
    qtbot.mouseClick(stepper.events.viewport(), Qt.LeftButton, pos=rect.center())
    assert s.step == k
    assert stepper.is_event_current(hook_item)
    s.set_step(0)
    assert not stepper.is_event_current(hook_item)


def test_no_backward_says_why(qtbot, stepper):
    stepper.session.set_trace(trace_of(NO_BACKWARD))
    assert stepper.note.isVisible()
    assert "backward" in stepper.note.text()
    assert not stepper.forward_btn.isEnabled() and not stepper.play_btn.isEnabled()


def test_truncated_runs_note(qtbot, stepper):
    trace = trace_of(MANY_RUNS)
    stepper.session.set_trace(trace)
    assert trace.runs_truncated and len(trace.backward_runs) == 50
    assert stepper.note.isVisible() and "50" in stepper.note.text()
    assert stepper.run_combo.count() == 50


def test_no_trace(qtbot, stepper):
    stepper.session.set_trace(None)
    assert stepper.note.isVisible() and stepper.note.text()


def test_autograd_grad_run_says_what_it_returned(qtbot, stepper):
    trace = trace_of(TWO_RUNS.replace("c.backward()", "(g,) = torch.autograd.grad(c, [a])"))
    s = stepper.session
    s.set_trace(trace)
    grad_runs = [i for i, r in enumerate(trace.backward_runs) if r.kind == "grad"]
    assert grad_runs
    s.select_run(grad_runs[0])
    s.set_step(s.step_count)
    assert "autograd.grad" in stepper.step_label.text()
    assert "returned" in stepper.step_label.text()


def test_forward_only_graph_is_selectable(qtbot, stepper):
    trace = trace_of(LESSON + "extra = x.exp() * 2\n")
    s = stepper.session
    s.set_trace(trace)
    ns = [g for g in trace.graphs if g.id not in {r.graph for r in trace.backward_runs}]
    assert ns, "the leftover tensor `extra` has a graph no backward ran on"
    pos = stepper.run_combo.findData("graph:" + ns[0].id)
    assert pos >= 0 and "extra" in stepper.run_combo.itemText(pos)
    with qtbot.waitSignal(s.graphChanged, timeout=2000):
        stepper.run_combo.setCurrentIndex(pos)
    assert s.graph_id == ns[0].id and s.run_index == -1
    assert stepper.note.isVisible() and not stepper.forward_btn.isEnabled()
    stepper.run_combo.setCurrentIndex(0)
    assert s.run_index == 0 and stepper.forward_btn.isEnabled()


LONG_RULE = """\
import torch
w = torch.randn(16, 1, requires_grad=True)
x = torch.randn(16, 16)
loss = ((x @ w) ** 2).mean()
loss.backward()
"""


def test_a_long_caption_scrolls_instead_of_being_cut(qtbot, stepper):
    """A caption longer than the strip is high (a rule quoting a 16-value
    gradient in a narrow strip): the strip keeps its height and the whole
    caption is reachable in its scroll area, its last words included."""
    trace = trace_of(LONG_RULE)
    stepper.resize(420, 160)
    stepper.show()
    qtbot.waitExposed(stepper)
    stepper.session.set_trace(trace)
    ops = {n.id: n.op for n in trace.graphs[0].nodes}
    k = next(i for i, st in enumerate(trace.backward_runs[0].steps, 1) if ops[st.node] == "MmBackward0")
    stepper.session.set_step(k)
    qtbot.wait(50)
    area, label = stepper.caption_area, stepper.step_label
    text = label.text()
    assert "Rule:" in text and "∂L/∂" in text
    # the strip asks for four lines, whatever the caption's length
    assert area.sizeHint().height() <= label.fontMetrics().lineSpacing() * 4 + 4
    area.setFixedHeight(label.fontMetrics().lineSpacing() * 2 + 4)  # a small window's strip
    qtbot.wait(50)
    assert label.height() > area.viewport().height()  # longer than the strip shows...
    bar = area.verticalScrollBar()
    bar.setValue(bar.maximum())  # ...and all of it reachable: its end scrolled into view
    assert bar.maximum() > 0 and bar.maximum() + area.viewport().height() >= label.height()
