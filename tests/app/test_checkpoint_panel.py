"""The Checkpoint panel against real traces: one row per recorded checkpoint
call, the op table is the recorded forward and re-run ops, moving the session
to a re-run's (run, step) highlights exactly that re-run (computed here from the
trace alone), clicking a re-run moves the session there, and the dock is there
only for traces with checkpoint calls."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from autogradviz.app.graph.items import shape_text, summary_text
from autogradviz.app.panels.checkpoint import CheckpointPanel
from autogradviz.app.session import TraceSession

from test_graph_support import LESSON, trace_of

EARLY_STOP = """
import torch
from torch.utils.checkpoint import checkpoint
x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
def body(t):
    a = torch.sin(t)
    b = torch.exp(a)
    return b + 1, b * 0
y, z = checkpoint(body, x, use_reentrant=False)
y.sum().backward()
"""

REENTRANT = """
import torch
from torch.utils.checkpoint import checkpoint
x = torch.tensor([0.5, -1.0, 2.0, 0.1], requires_grad=True)
y = checkpoint(lambda t: torch.exp(torch.cos(t)).sum(), x * 2, use_reentrant=True)
(y * 3).backward()
"""

SEQUENTIAL = """
import torch
from torch.utils.checkpoint import checkpoint_sequential
torch.manual_seed(0)
seq = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 4), torch.nn.Tanh(),
                          torch.nn.Linear(4, 2))
x = torch.randn(2, 3, requires_grad=True)
out = checkpoint_sequential(seq, 3, x, use_reentrant=False)
out.sum().backward()
"""

LOOP = """
import torch
from torch.utils.checkpoint import checkpoint
torch.manual_seed(0)
block = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.Dropout(0.5), torch.nn.ReLU())
head = torch.nn.Linear(3, 1)
for it in range(2):
    x = torch.randn(4, 3)
    h = checkpoint(block, x, use_reentrant=False, preserve_rng_state=False)
    loss = head(h).pow(2).sum()
    loss.backward()
"""

SCRIPTS = {"early_stop": EARLY_STOP, "reentrant": REENTRANT, "sequential": SEQUENTIAL, "loop": LOOP}


@pytest.fixture(scope="module")
def traces():
    return {k: trace_of(s) for k, s in SCRIPTS.items()}


@pytest.fixture
def panel(qtbot):
    session = TraceSession()
    p = CheckpointPanel(session)
    qtbot.addWidget(p)
    p.resize(1000, 500)
    p.show()
    return p


def all_reruns(trace):
    """(checkpoint index, re-run index, Recomputation) for every re-run."""
    return [(i, j, r) for i, c in enumerate(trace.checkpoints) for j, r in enumerate(c.recomputations)]


def rerun_at(panel, row):
    ref = panel.refs[row]
    return ref.checkpoint, ref.index


def test_the_scripts_record_what_the_tests_need(traces):
    """Guards the fixtures: without these the other tests would check nothing."""
    (c,) = traces["early_stop"].checkpoints
    assert c.kind == "non_reentrant" and c.recomputations[0].early_stopped
    assert len(c.recomputations[0].ops) < len(c.forward_ops)
    assert traces["reentrant"].checkpoints[0].kind == "reentrant"
    assert len(traces["sequential"].checkpoints) >= 2
    loop = traces["loop"]
    assert len(loop.checkpoints) == 2 and len(loop.backward_runs) == 2
    assert [c.recomputations[0].run for c in loop.checkpoints] == [0, 1]


@pytest.mark.parametrize("name", list(SCRIPTS))
def test_one_row_per_checkpoint_with_kind_and_line(panel, traces, name):
    trace = traces[name]
    panel.session.set_trace(trace)
    assert panel.segments.count() == len(trace.checkpoints)
    for i, c in enumerate(trace.checkpoints):
        text = panel.segments.item(i).text()
        assert text.startswith(f"checkpoint {i + 1} · ")
        assert ("non-reentrant" if c.kind == "non_reentrant" else "reentrant") in text
        assert f"line {c.line}" in text
        if c.function:
            assert c.function in text
    assert len(panel.refs) == sum(len(c.recomputations) for c in trace.checkpoints)


@pytest.mark.parametrize("name", list(SCRIPTS))
def test_session_at_a_rerun_highlights_exactly_it(panel, traces, name):
    trace = traces[name]
    session = panel.session
    session.set_trace(trace)
    reruns = all_reruns(trace)
    assert reruns
    for i, j, r in reruns:
        assert r.run is not None and trace.backward_runs[r.run].steps[r.step].node == r.trigger
        session.select_run(r.run)
        session.set_step(r.step + 1)  # the trigger's step is done: it is the current node
        assert session.state.current == r.trigger
        expected = {(a, b) for a, b, q in reruns if q.run == r.run and q.step == r.step}
        assert {rerun_at(panel, row) for row in panel.highlighted} == expected
        assert (i, j) in expected
        assert panel.caption.text().startswith(f"<b>Recomputing checkpoint {i + 1}</b>")
        assert ("(1 op)" if len(r.ops) == 1 else f"({len(r.ops)} ops)") in panel.caption.text()
        trigger = next(n for n in trace.graph(trace.backward_runs[r.run].graph).nodes if n.id == r.trigger)
        assert f"because {trigger.label} ({trigger.op})" in panel.caption.text() if trigger.label \
            else f"because {trigger.op} needs" in panel.caption.text()
        assert panel.segments.currentRow() in {a for a, _ in expected}
        # one step before, the trigger has not run yet: nothing re-runs, the caption says what is next
        session.set_step(r.step)
        if not any(q.run == r.run and q.step == r.step - 1 for _, _, q in reruns):
            assert panel.highlighted == []
            assert panel.caption.text().startswith("Next: checkpoint ")


@pytest.mark.parametrize("name", list(SCRIPTS))
def test_clicking_a_rerun_moves_the_session_there(qtbot, panel, traces, name):
    trace = traces[name]
    session = panel.session
    session.set_trace(trace)
    lines = []
    session.lineRequested.connect(lines.append)
    for row in range(len(panel.refs)):
        i, j = rerun_at(panel, row)
        r = trace.checkpoints[i].recomputations[j]
        session.select_run(0)
        session.set_step(0)
        rect = panel.reruns.visualItemRect(panel.reruns.item(row))
        qtbot.mouseClick(panel.reruns.viewport(), Qt.LeftButton, pos=rect.center())
        assert session.run_index == r.run
        assert session.step == r.step + 1
        assert session.state.current == r.trigger == session.selected_node
        assert lines[-1] == trace.checkpoints[i].line
        assert row in panel.highlighted
        assert panel.rerun_column() == r.ops
        assert panel.forward_column() == trace.checkpoints[i].forward_ops


def test_up_down_move_between_reruns(qtbot, panel, traces):
    trace = traces["loop"]
    session = panel.session
    session.set_trace(trace)
    before = [[r.ops for r in c.recomputations] for c in trace.checkpoints]
    panel.go_to(0)
    rows = []
    for key in (Qt.Key_Down, Qt.Key_Down, Qt.Key_Up):
        qtbot.keyClick(panel.reruns, key)
        rows.append(panel.reruns.currentRow())
        i, j = rerun_at(panel, rows[-1])
        r = trace.checkpoints[i].recomputations[j]
        assert (session.run_index, session.step) == (r.run, r.step + 1)
        assert panel.highlighted == [rows[-1]]
    assert rows == [1, 1, 0]  # a list: stops at its end
    # keys reaching the panel itself (focus elsewhere in it) move the same way
    qtbot.keyClick(panel, Qt.Key_Down)
    assert panel.reruns.currentRow() == 1 and session.run_index == 1
    # the trace itself is untouched
    assert [[r.ops for r in c.recomputations] for c in trace.checkpoints] == before


def test_op_table_is_forward_beside_rerun_with_early_stop(panel, traces):
    trace = traces["early_stop"]
    panel.session.set_trace(trace)
    (c,) = trace.checkpoints
    r = c.recomputations[0]
    assert panel.ops.rowCount() == len(c.forward_ops)
    assert panel.forward_column() == c.forward_ops
    assert panel.rerun_column() == r.ops
    for k in range(len(r.ops), len(c.forward_ops)):
        assert panel.ops.item(k, 1).text() == "— not re-run"
    text = panel.details.text()
    assert f"Stopped early: every needed tensor was recovered after {len(r.ops)} of {len(c.forward_ops)} ops" in text
    assert "Only the inputs are kept" in text
    (kept,) = c.inputs
    assert f"{shape_text(kept)} {kept.dtype} {summary_text(kept)}" in text  # "(3) float32 [0.5, -1, 2]"


def test_a_new_trace_replaces_the_highlight(panel, traces):
    """A re-run lit in one trace says nothing about the next trace's rows."""
    session = panel.session
    session.set_trace(traces["loop"])
    r = traces["loop"].checkpoints[1].recomputations[0]
    session.select_run(r.run)
    session.set_step(r.step + 1)
    assert [rerun_at(panel, row) for row in panel.highlighted] == [(1, 0)]
    session.set_trace(traces["early_stop"])
    assert panel.highlighted == [] and panel.reruns.count() == 1
    assert panel.caption.text().startswith("Next: checkpoint 1 ")


def test_dropout_without_preserved_rng_is_warned(panel, traces):
    panel.session.set_trace(traces["loop"])
    assert "may differ from the forward" in panel.details.text()
    panel.session.set_trace(traces["early_stop"])
    assert "may differ from the forward" not in panel.details.text()


def test_errors_are_red(panel, traces):
    import msgspec
    from autogradviz.app.theme import colors

    trace = traces["early_stop"]
    c = trace.checkpoints[0]
    r = msgspec.structs.replace(c.recomputations[0], error="RuntimeError: boom")
    bad = msgspec.structs.replace(trace, checkpoints=[msgspec.structs.replace(c, error="ValueError: no",
                                                                            recomputations=[r])])
    panel.session.set_trace(bad)
    red = colors("light")["error"]
    assert panel.segments.item(0).foreground().color().name() == red
    assert panel.reruns.item(0).foreground().color().name() == red
    assert f"color:{red}'>The call raised: ValueError: no" in panel.details.text()
    assert "The re-run raised: RuntimeError: boom" in panel.details.text()


def test_texts_follow_the_ui_language(panel, traces):
    from PySide6.QtWidgets import QApplication

    from autogradviz.app import i18n

    session = panel.session
    session.set_trace(traces["reentrant"])
    r = traces["reentrant"].checkpoints[0].recomputations[0]
    session.select_run(r.run)
    session.set_step(r.step + 1)
    try:
        assert i18n.set_language("zh_CN", save=False)
        QApplication.processEvents()
        assert panel.segments.item(0).text().startswith("检查点 1 · 可重入")
        assert "正在重新计算检查点 1" in panel.caption.text()
        assert panel.ops.horizontalHeaderItem(0).text() == "前向操作"
        assert panel.highlighted == [0]
    finally:
        i18n.set_language("en", save=False)
        QApplication.processEvents()
    assert panel.segments.item(0).text().startswith("checkpoint 1 · reentrant")
    assert panel.caption.text().startswith("<b>Recomputing checkpoint 1</b>")


def test_dock_only_for_traces_with_checkpoints(main_window, traces):
    w = main_window
    dock = w.panels.dock("checkpoint")
    assert not dock.isVisible()
    trace = traces["loop"]
    # the editor shows the trace's script (not what an earlier test typed over
    # the default lesson, which the lesson keeps as its edit)
    w.editor.setPlainText(LOOP)
    w.session.set_trace(trace)
    assert dock.isVisible()
    panel = w.panels.widget("checkpoint")
    panel.go_to(1)
    r = trace.checkpoints[1].recomputations[0]
    assert (w.session.run_index, w.session.step, w.session.selected_node) == (r.run, r.step + 1, r.trigger)
    assert w.editor.textCursor().blockNumber() + 1 == trace.checkpoints[1].line
    w.session.set_trace(trace_of(LESSON))
    assert not dock.isVisible()
