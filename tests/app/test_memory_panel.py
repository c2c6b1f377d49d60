"""The Memory panel in the main window, on a real worker: the marker follows the
stepper exactly as the trace's memory points say, clicking the curve moves the
step, the stacked bars are the recorded parts, and "Compare without
checkpoint" runs the script again (a real second worker) and draws that run
as a second curve with numbers that are the two traces' own."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPointF, Qt

from autogradviz.app.panels.memory import curve_data as cd
from autogradviz.app.panels.memory.parts_chart import MOMENTS, PARTS

RUN_TIMEOUT_MS = 60_000

SCRIPT = """\
import torch, torch.nn as nn
from torch.utils.checkpoint import checkpoint
torch.manual_seed(0)
blocks = nn.ModuleList(nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 8), nn.Tanh()) for _ in range(2))
head = nn.Linear(8, 2)
opt = torch.optim.SGD(list(blocks.parameters()) + list(head.parameters()), lr=0.1, momentum=0.9)
h = torch.randn(4, 8)
for b in blocks:
    h = checkpoint(b, h, use_reentrant=False)
loss = head(h).pow(2).sum()
loss.backward()
opt.step()
"""


@pytest.fixture
def ran(qtbot, main_window):
    w = main_window
    w.editor.setPlainText(SCRIPT)
    with qtbot.waitSignal(w.runs.runFinished, timeout=RUN_TIMEOUT_MS):
        w.actions["run"].trigger()
    trace = w.session.trace
    assert trace.error is None, trace.error
    panel = w.panels.widget("memory")
    yield w, panel, trace
    panel.shutdown()


def expected_value(trace, run, k):
    """Bytes held at session step k, straight from the points: the last forward
    point for k = 0, else the last backward point of a step before k."""
    points = trace.memory.runs[run].points
    value = [p.bytes for p in points if p.phase == "forward"][-1]
    for p in points:
        if p.phase == "backward" and p.step < k:
            value = p.bytes
    return value


def test_marker_follows_the_stepper_and_clicks_move_it(qtbot, ran):
    w, panel, trace = ran
    assert w.panels.dock("memory").isVisible()
    steps = len(trace.backward_runs[0].steps)
    assert steps > 5 and any(p.phase == "recompute" for p in trace.memory.runs[0].points)
    for k in range(steps + 1):
        w.session.set_step(k)
        assert panel.chart.cursor.value() == pytest.approx(1 + k / steps)
        xs, ys = panel.chart.marker.getData()
        assert list(ys) == [expected_value(trace, 0, k)]
        assert cd.human_bytes(expected_value(trace, 0, k)) in panel.now.text()
    # the curve drawn is the recorded points at their places
    c = panel.main_curve
    points = trace.memory.runs[0].points
    assert c.ys[1:] == [float(p.bytes) for p in points if p.phase == "forward"] + \
        [float(p.bytes) for p in points if p.phase != "forward"]
    # clicking the chart at step 3's place moves the session there
    vb = panel.chart.getPlotItem().getViewBox()
    qtbot.waitUntil(lambda: vb.sceneBoundingRect().width() > 50)
    target = 3
    scene_pos = vb.mapViewToScene(QPointF(1 + target / steps, 0))
    view_pos = panel.chart.mapFromScene(scene_pos)
    qtbot.mouseClick(panel.chart.viewport(), Qt.LeftButton, pos=view_pos + type(view_pos)(0, -5))
    assert w.session.step == target
    # and in the forward half: back to the end of forward
    view_pos = panel.chart.mapFromScene(vb.mapViewToScene(QPointF(0.5, 0)))
    qtbot.mouseClick(panel.chart.viewport(), Qt.LeftButton, pos=view_pos + type(view_pos)(0, -5))
    assert w.session.step == 0


def test_bars_are_the_recorded_parts(ran):
    w, panel, trace = ran
    run = trace.memory.runs[0]
    drawn = panel.parts.values()
    assert list(drawn) == list(MOMENTS)
    for m in MOMENTS:
        assert drawn[m] == {f: getattr(getattr(run, m), f) for f, _ in PARTS}
    assert run.after_step.optimizer_states > 0  # SGD's momentum buffers
    assert cd.human_bytes(run.after_step.parameters) in panel.parts_legend.text().replace("&nbsp;", " ")
    # each entry stays on one line ("optimizer | states", or CJK text between any two letters)
    from PySide6.QtGui import QTextDocument

    from autogradviz.app import i18n
    i18n.set_language("zh_CN", save=False)
    try:
        panel._update_legend()
        html = panel.parts_legend.text()
    finally:
        i18n.set_language("en", save=False)
        panel._update_legend()
    assert "优化器" in html.replace("\u2060", "")
    doc = QTextDocument()
    doc.setHtml(html)
    full = doc.idealWidth()
    for k in range(6, 19):  # a narrowing dock: entries move whole to the next line
        doc.setTextWidth(full * k / 20)
        doc.documentLayout().documentSize()
        block, ends = doc.begin(), []
        for n in range(block.layout().lineCount()):
            line = block.layout().lineAt(n)
            ends.append(block.text()[line.textStart():line.textStart() + line.textLength()].rstrip("\u00a0 "))
        assert all(e.endswith(("B", ":")) for e in ends), ends


def test_compare_without_checkpoint_draws_a_second_curve(qtbot, ran):
    w, panel, trace = ran
    assert panel.compare_button.isEnabled()
    assert panel.other is None and panel.chart.other is None
    w.panels.dock("memory").raise_()  # (tabbed with the stepper)
    w.activateWindow()
    panel.compare_button.setFocus()
    qtbot.waitUntil(lambda: panel.isVisible() and panel.compare_button.hasFocus(), timeout=5_000)
    with qtbot.waitSignal(panel.runner.busyChanged, timeout=5_000):
        qtbot.keyClick(panel.compare_button, Qt.Key_M, Qt.ControlModifier | Qt.ShiftModifier)
    assert panel.progress.isVisible() and panel.cancel_button.isVisible()
    qtbot.waitUntil(lambda: panel.other is not None, timeout=RUN_TIMEOUT_MS)
    other = panel.other
    assert other.memory.checkpoints_direct and not other.checkpoints
    assert not panel.progress.isVisible()
    assert panel.chart.other is not None
    assert panel.chart.other.ys[1:] == [float(p.bytes) for p in other.memory.runs[0].points
                                        if p.phase == "forward"] + \
        [float(p.bytes) for p in other.memory.runs[0].points if p.phase != "forward"]
    # the numbers are the two traces' own
    with_ = trace.memory.runs[0].end_of_forward.activations
    without = other.memory.runs[0].end_of_forward.activations
    reran = sum(len(r.ops) for c in trace.checkpoints for r in c.recomputations if r.run == 0)
    assert without > with_ and reran > 0
    text = panel.result.text()
    assert f"saved {cd.human_bytes(without - with_)} of activations ({100 * (without - with_) / without:.0f} %)" in text
    assert f"re-ran {reran} ops" in text
    # in a low window the panel scrolls: no text is drawn over the chart, and the
    # legend (one row) sits in headroom above the highest curve
    w.resize(1100, 560)
    qtbot.wait(100)
    for label in (panel.title, panel.now, panel.result):
        assert not label.geometry().intersects(panel.chart.geometry())
    (_, y_top) = panel.chart.getPlotItem().getViewBox().viewRange()[1]
    assert max(panel.chart.main.ys + panel.chart.other.ys) * 1.5 <= y_top
    # the session still holds the original trace (the comparison ran in a worker of its own)
    assert w.session.trace is trace
    # a new trace drops the comparison
    w.session.set_trace(None)
    assert panel.other is None and panel.chart.other is None and not panel.compare_button.isEnabled()


def test_cancel_stops_the_comparison(qtbot, ran):
    w, panel, trace = ran
    panel.compare()
    assert panel.runner.busy
    panel.cancel_button.click()
    assert not panel.runner.busy and not panel.progress.isVisible()
    assert panel.other is None


def test_a_run_without_an_optimizer_step_says_so_in_place_of_its_bar(qapp):
    """The third place of the chart is the optimizer step's; a script that
    takes none (recorded: no after_step) gets a note there, not a blank."""
    from autogradviz.app import i18n
    from autogradviz.app.panels.memory.parts_chart import PartsChart
    from autogradviz.engine.worker.runner import run_script

    trace = run_script("import torch\nlin = torch.nn.Linear(3, 2)\nlin(torch.ones(4, 3)).sum().backward()\n",
                       filename="<nostep>").trace
    (run,) = trace.memory.runs
    assert run.after_step is None and run.after_backward is not None
    chart = PartsChart()
    chart.set_run(run)
    assert list(chart.values()) == ["end_of_forward", "after_backward"]
    assert [(m, item.toPlainText()) for m, item in chart.notes] == [("after_step", "no optimizer step")]
    i18n.set_language("zh_CN", save=False)
    try:
        chart.set_run(run)
        assert chart.notes[0][1].toPlainText() == "没有优化器步骤"
    finally:
        i18n.set_language("en", save=False)
    chart.deleteLater()
