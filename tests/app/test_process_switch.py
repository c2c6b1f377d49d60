"""The stepper's process/thread switch and DDP all-reduce marks (app/panels/processes.py).

The trace comes from a real run: a one-rank gloo process group with a DDP
model (its all-reduce fires during backward) and a second thread calling
backward, so the runs come from two threads of rank 0.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from autogradviz.app.panels.processes import allreduce_text
from autogradviz.app.panels.stepper import StepperPanel
from autogradviz.app.session import TraceSession

from test_graph_support import LESSON, trace_of

DDP_AND_THREAD = """\
import os, socket, threading
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"] = "127.0.0.1", str(port)
dist.init_process_group("gloo", rank=0, world_size=1)
torch.manual_seed(0)
model = DDP(torch.nn.Linear(3, 1))
loss = model(torch.ones(2, 3)).sum()
loss.backward()
def side():
    w = torch.ones(2, requires_grad=True)
    (w * 3).sum().backward()
t = threading.Thread(target=side, name="side")
t.start(); t.join()
dist.destroy_process_group()
"""


@pytest.fixture(scope="module")
def ddp_trace_json():
    return trace_of(DDP_AND_THREAD).to_json()


@pytest.fixture
def stepper(qtbot):
    panel = StepperPanel(TraceSession())
    qtbot.addWidget(panel)
    panel.resize(1000, 260)
    panel.show()
    yield panel
    panel.stop()


def test_switch_hidden_for_one_process(stepper):
    stepper.session.set_trace(trace_of(LESSON))
    assert not stepper.rank_switch.isVisible()


def test_switch_picks_a_thread_and_filters_runs(qtbot, stepper, ddp_trace_json):
    from autogradviz.engine.trace.model import Trace

    trace = Trace.from_json(ddp_trace_json)
    assert [(r.rank, r.thread) for r in trace.backward_runs] == [(0, "MainThread"), (0, "side")]
    s = stepper.session
    s.set_trace(trace)
    sw = stepper.rank_switch
    assert sw.isVisible()
    texts = [sw.combo.itemText(i) for i in range(sw.combo.count())]
    assert texts == ["All", "rank 0", "rank 0 · thread side"]
    assert "rank 0 · thread side" in stepper.run_combo.itemText(1)
    with qtbot.waitSignal(s.runChanged, timeout=2000):
        sw.combo.setCurrentIndex(2)
    assert s.run_index == 1
    view = stepper.run_combo.view()
    assert view.isRowHidden(0) and not view.isRowHidden(1)
    sw.combo.setCurrentIndex(1)
    assert s.run_index == 0 and view.isRowHidden(1)
    sw.combo.setCurrentIndex(0)
    assert not view.isRowHidden(0) and not view.isRowHidden(1)
    # a long thread name does not squeeze the run list and the speed slider away
    sw.combo.addItem("main process · thread Thread-1 (train_one_rank)")
    stepper.resize(740, 260)
    qtbot.wait(50)
    assert stepper.speed.width() >= 60
    long_text = sw.combo.itemText(sw.combo.count() - 1)
    assert sw.combo.sizeHint().width() < sw.combo.fontMetrics().horizontalAdvance(long_text)


def test_allreduce_marked_on_its_step(stepper, ddp_trace_json):
    from autogradviz.engine.trace.model import Trace

    trace = Trace.from_json(ddp_trace_json)
    run = trace.backward_runs[0]
    (ev,) = [e for e in run.events if e.kind == "allreduce"]
    stepper.session.set_trace(trace)
    marks = stepper.marks  # the DDP feature's (app/features/ddp.py)
    k = ev.step + 1  # steps are shown 1..n
    assert [m.position for m in marks.of("ddp")] == [k] and marks.overlay.isVisible()
    items = [stepper.events.item(i) for i in range(stepper.events.count())]
    (item,) = [i for i in items if "DDP all-reduced gradient bucket 0" in i.text()]
    assert item.data(Qt.UserRole) == k and item.text() == allreduce_text(k, ev)
    # one rank: the average is this rank's own gradients
    assert ev.received.values == ev.returned.values
    stepper.events.itemClicked.emit(item)
    assert stepper.session.step == k
    assert "weight" in item.text() and "bias" in item.text()


def test_allreduce_mark_has_a_tooltip(qtbot, stepper, ddp_trace_json):
    from PySide6.QtCore import QEvent, QPoint
    from PySide6.QtGui import QHelpEvent
    from PySide6.QtWidgets import QApplication, QToolTip

    from autogradviz.engine.trace.model import Trace

    stepper.session.set_trace(Trace.from_json(ddp_trace_json))
    tl = stepper.timeline
    (k,) = [m.position for m in stepper.marks.of("ddp")]
    pos = QPoint(int(tl._x(k)), tl.height() // 2)
    QApplication.sendEvent(tl, QHelpEvent(QEvent.ToolTip, pos, tl.mapToGlobal(pos)))
    qtbot.waitUntil(lambda: "DDP all-reduced gradient bucket 0" in QToolTip.text(), timeout=2000)
    QToolTip.hideText()
