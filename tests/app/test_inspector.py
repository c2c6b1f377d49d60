"""InspectorPanel: node facts, values (lazy load), gradients at the current step."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from autogradviz.app.graph.items import summary_text
from autogradviz.app.panels.inspector import InspectorPanel
from autogradviz.app.session import TraceSession
from autogradviz.engine.trace.codec import to_builtins
from autogradviz.engine.trace.model import TensorSummary

from test_graph_support import BIG, LESSON, node_by_label, trace_of


@pytest.fixture
def inspector(qtbot):
    session = TraceSession()
    panel = InspectorPanel(session)
    qtbot.addWidget(panel)
    panel.resize(400, 700)
    panel.show()
    return panel


def table_values(table):
    out = []
    for r in range(table.rowCount()):
        for c in range(table.columnCount()):
            it = table.item(r, c)
            if it is not None:
                out.append(float(it.text()))
    return out


def test_empty_until_a_node_is_clicked(qtbot, inspector):
    inspector.session.set_trace(trace_of(LESSON))
    assert inspector.empty.isVisible() and not inspector.scroll.isVisible()


def test_node_facts_and_values(qtbot, inspector):
    trace = trace_of(LESSON)
    s = inspector.session
    s.set_trace(trace)
    y = node_by_label(trace, s.graph_id, "y")
    s.select_node(y.id)
    assert inspector.scroll.isVisible()
    f = inspector.fields
    assert f["op"].text() == y.op == "MulBackward0"
    assert f["name"].text() == "y"
    assert f["shape"].text() == "(3)"
    assert f["retains_grad"].text() == "True"
    assert f["is_leaf"].text() == "False"
    assert table_values(inspector.values_table) == pytest.approx(y.tensor.values)
    assert not inspector.load_btn.isVisible()
    x = node_by_label(trace, s.graph_id, "x")
    s.select_node(x.id)
    assert f["is_leaf"].text() == "True" and f["op"].text() == "AccumulateGrad"
    assert table_values(inspector.values_table) == pytest.approx([1.0, 2.0, 3.0])


def test_gradients_follow_the_step(qtbot, inspector):
    trace = trace_of(LESSON)
    s = inspector.session
    s.set_trace(trace)
    run = trace.backward_runs[0]
    y = node_by_label(trace, s.graph_id, "y")
    s.select_node(y.id)
    k = next(i for i, st in enumerate(run.steps) if st.node == y.id) + 1
    s.set_step(k - 1)
    assert ("not started" if k - 1 == 0 else "not run yet") in inspector.grad_label.text()
    s.set_step(k)
    text = inspector.grad_label.text()
    step = run.steps[k - 1]
    assert summary_text(step.grad_outputs[0], 16) in text
    for g in step.grad_inputs:
        assert summary_text(g, 16) in text
    s.set_step(0)
    assert "not started" in inspector.grad_label.text()


def test_load_all_values(qtbot, inspector):
    trace = trace_of(BIG)
    s = inspector.session
    s.set_trace(trace)
    m = node_by_label(trace, s.graph_id, "m")
    assert m.tensor.truncated and m.tensor.numel == 100
    s.select_node(m.id)
    assert inspector.load_btn.isVisible()
    with qtbot.waitSignal(s.valuesRequested, timeout=2000) as blocker:
        qtbot.mouseClick(inspector.load_btn, Qt.LeftButton)
    assert blocker.args == [m.tensor.id]
    full = TensorSummary(shape=[10, 10], dtype=m.tensor.dtype, device="cpu",
                         values=[float(i) for i in range(100)], numel=100, id=m.tensor.id)
    with qtbot.waitSignal(s.valuesArrived, timeout=2000):
        s.deliver_values(m.tensor.id, to_builtins(full), None)
    assert table_values(inspector.values_table) == [float(i) for i in range(100)]
    assert inspector.values_table.rowCount() == 10 and inspector.values_table.columnCount() == 10
    assert not inspector.load_btn.isVisible()


def test_load_values_error(qtbot, inspector):
    trace = trace_of(BIG)
    s = inspector.session
    s.set_trace(trace)
    m = node_by_label(trace, s.graph_id, "m")
    s.select_node(m.id)
    qtbot.mouseClick(inspector.load_btn, Qt.LeftButton)
    s.deliver_values(m.tensor.id, None, "the worker was restarted")
    assert "the worker was restarted" in inspector.values_note.text()
    assert inspector.load_btn.isEnabled()


CHANGED_AFTER = """
import torch
x = torch.tensor([0.5, 1.0], requires_grad=True)
class Box:
    pass
box = Box()
box.t = x * 2          # an activation the script holds without a name
loss = box.t.sin().sum()
loss.backward()
with torch.no_grad():
    box.t.add_(7.0)
"""


def _sin_with_skipped_value(inspector):
    trace = trace_of(CHANGED_AFTER)
    inspector.session.set_trace(trace)
    sin = next(n for n in trace.graph(inspector.session.graph_id).nodes if n.op == "SinBackward0")
    assert [sv.skipped is not None for sv in sin.saved] == [True]
    return sin


def test_saved_value_not_read_says_why_from_its_code_in_the_ui_language(qtbot, inspector):
    from PySide6.QtWidgets import QApplication

    from autogradviz.app import i18n

    sin = _sin_with_skipped_value(inspector)
    sv = sin.saved[0]
    assert sv.skipped_code in (None, "changed_in_place")  # None: a worker from before the codes
    # The app reads the code, never the English: give it English it could not match.
    sv.skipped_code = "changed_in_place"
    sv.skipped = "(English for people reading the file)"
    inspector.session.select_node(sin.id)
    assert inspector.saved_box.isVisible()
    text = inspector.saved_label.text()
    assert "changed in place after it was captured" in text and "English for people" not in text
    try:
        assert i18n.set_language("zh_CN", save=False)
        QApplication.processEvents()
        text = inspector.saved_label.text()
        assert "原地修改" in text and "changed in place" not in text
    finally:
        i18n.set_language("en", save=False)
        QApplication.processEvents()
    assert "changed in place after it was captured" in inspector.saved_label.text()


@pytest.mark.parametrize("code, english, zh", [
    ("checkpoint", "inside a non-reentrant checkpoint segment", "非重入式"),
    ("saved_tensors_hooks", "saved with saved_tensors_hooks", "unpack 钩子"),
    ("freed", "already freed by an earlier backward", "释放"),
])
def test_every_skip_code_has_its_text(qtbot, inspector, code, english, zh):
    from PySide6.QtWidgets import QApplication

    from autogradviz.app import i18n

    sin = _sin_with_skipped_value(inspector)
    sin.saved[0].skipped_code = code
    sin.saved[0].skipped = "(English for people reading the file)"
    inspector.session.select_node(sin.id)
    assert english in inspector.saved_label.text()
    try:
        assert i18n.set_language("zh_CN", save=False)
        QApplication.processEvents()
        text = inspector.saved_label.text()
        assert zh in text and english not in text
    finally:
        i18n.set_language("en", save=False)
        QApplication.processEvents()


def test_a_trace_without_skip_codes_shows_the_english_reason(qtbot, inspector):
    """Trace files written before the codes existed carry only the English reason."""
    from PySide6.QtWidgets import QApplication

    from autogradviz.app import i18n

    sin = _sin_with_skipped_value(inspector)
    sin.saved[0].skipped_code = None
    sin.saved[0].skipped = "an English reason from an older worker"
    inspector.session.select_node(sin.id)
    assert "an English reason from an older worker" in inspector.saved_label.text()
    try:
        assert i18n.set_language("zh_CN", save=False)
        QApplication.processEvents()
        assert "an English reason from an older worker" in inspector.saved_label.text()
    finally:
        i18n.set_language("en", save=False)
        QApplication.processEvents()
