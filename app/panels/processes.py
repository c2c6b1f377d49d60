"""The stepper's process/rank/thread switch, and DDP's all-reduce events on its timeline.

A trace of a DDP script holds one backward run per rank (each child process
records its own; engine/trace/merge.py), a threaded script one run per
thread. `RankSwitch` sits in the stepper's toolbar, shown only when the
runs come from more than one process or thread: picking "rank 1" keeps the
run list to rank 1's runs and moves to the run at the same position among
them, so the learner compares what each rank did in the same backward call.

`allreduce_marks` puts a green diamond on the stepper's timeline at every
step during which DDP all-reduced a gradient bucket (an "allreduce" event,
engine/probes/ddp.py), with a tooltip naming the bucket and its parameters.
`allreduce_text` is the event's line in the stepper's event list. Both are
declared in the DDP feature (app/features/ddp.py).

Plain view code: it only reads the trace and moves the session's run.
"""

from __future__ import annotations

from typing import Optional

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QWidget

from autogradviz.app.features import StepMark
from autogradviz.app.graph.items import summary_text
from autogradviz.engine.trace import replay

ALLREDUCE_COLOR = "#2e9d5b"



def tr(text: str) -> str:
    return QCoreApplication.translate("RankSwitch", text)


def run_key(run) -> tuple:
    """What tells runs apart: (rank, pid, thread)."""
    return (run.rank, run.pid, run.thread)


def key_text(key: tuple, main_pid: Optional[int]) -> str:
    """"rank 1", "main process", "thread worker-2", combined as needed."""
    rank, pid, thread = key
    if rank is not None:
        text = tr("rank {0}").format(rank)
    elif pid is None or pid == main_pid:
        text = tr("main process")
    else:
        text = tr("process {0}").format(pid)
    if thread and thread != "MainThread":
        text += " · " + tr("thread {0}").format(thread)
    return text


def allreduce_text(k: int, ev) -> str:
    """The events-list line of an "allreduce" event at step `k`."""
    params = ", ".join(p for p in ev.params if p) or "—"
    text = tr("step {0}: DDP all-reduced gradient bucket {1} ({2}): this rank's {3}").format(
        k, ev.bucket if ev.bucket is not None else "?", params, summary_text(ev.received))
    if ev.returned is not None:
        text += tr(" → averaged over all ranks {0}").format(summary_text(ev.returned))
    return text


class RankSwitch(QWidget):
    """A combo of the trace's processes/ranks/threads (see the module docstring)."""

    def __init__(self, session, run_combo: QComboBox, parent: Optional[QWidget] = None):
        super().__init__(parent)
        self.session = session
        self.run_combo = run_combo
        self.label = QLabel(self)
        self.combo = QComboBox(self)
        # as wide as a short name: a long thread name ("main process · thread
        # Thread-1 (train)") squeezed the run list and the speed slider away
        self.combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.combo.setMinimumContentsLength(10)
        self.combo.currentIndexChanged.connect(self._picked)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.label)
        lay.addWidget(self.combo)
        self._groups: dict = {}  # key -> [run index]
        self.retranslate()
        self.hide()

    def retranslate(self) -> None:
        self.label.setText(tr("Process:"))
        self.combo.setToolTip(tr("The script's backward runs came from several processes (DDP ranks, "
                                  "spawned children) or threads: pick one to step through its runs. "
                                  "Switching keeps the same backward call, so you can compare ranks."))

    def refresh(self) -> None:
        """After the stepper (re)filled its run list: the groups, and the filter."""
        t = self.session.trace
        groups: dict = {}
        for i, r in enumerate(t.backward_runs if t is not None else ()):
            groups.setdefault(run_key(r), []).append(i)
        self._groups = groups
        old = self.combo.currentData()
        main_pid = _main_pid(t)
        self.combo.blockSignals(True)
        self.combo.clear()
        self.combo.addItem(tr("All"), None)
        for key in sorted(groups, key=_order):
            runs = groups[key]
            self.combo.addItem(key_text(key, main_pid), key)
            pid = key[1]
            self.combo.setItemData(self.combo.count() - 1, tr("pid {0}, {1} backward run(s)").format(
                pid if pid is not None else "?", len(runs)), Qt.ItemDataRole.ToolTipRole)
        pos = self.combo.findData(old) if old is not None else 0
        self.combo.setCurrentIndex(max(pos, 0))
        self.combo.blockSignals(False)
        self.setVisible(len(groups) > 1)
        if len(groups) > 1:  # each run says whose it is
            for row in range(self.run_combo.count()):
                idx = self.run_combo.itemData(row)
                if isinstance(idx, int) and t is not None and idx < len(t.backward_runs):
                    self.run_combo.setItemText(row, self.run_combo.itemText(row) + " · "
                                               + key_text(run_key(t.backward_runs[idx]), main_pid))
        self._filter()

    def _filter(self) -> None:
        key = self.combo.currentData()
        view = getattr(self.run_combo, "view", lambda: None)()
        t = self.session.trace
        for row in range(self.run_combo.count()):
            idx = self.run_combo.itemData(row)
            hide = (key is not None and isinstance(idx, int) and t is not None
                    and run_key(t.backward_runs[idx]) != key)
            if view is not None:
                view.setRowHidden(row, hide)

    def _picked(self, _pos: int) -> None:
        self._filter()
        key = self.combo.currentData()
        t = self.session.trace
        if key is None or t is None or key not in self._groups:
            return
        current = self.session.run_index
        if current >= 0 and run_key(t.backward_runs[current]) == key:
            return
        # the run at the same position among the chosen group's runs
        mine = self._groups.get(run_key(t.backward_runs[current])) if current >= 0 else None
        nth = mine.index(current) if mine and current in mine else 0
        target = self._groups[key]
        self.session.select_run(target[min(nth, len(target) - 1)])


def _order(key: tuple):
    rank, pid, thread = key
    return (rank is not None, rank if rank is not None else -1, pid or 0, thread or "")


def _main_pid(trace) -> Optional[int]:
    """The pid of the worker's own runs: runs without a rank come first from it."""
    if trace is None:
        return None
    for r in trace.backward_runs:
        if r.rank is None:
            return r.pid
    return None


def allreduce_marks(trace, run_index: int) -> list[StepMark]:
    """A green diamond (with its tooltip) at every step of run `run_index`
    during which DDP all-reduced a gradient bucket (the DDP feature's marks,
    app/features/ddp.py)."""
    if not 0 <= run_index < len(trace.backward_runs):
        return []
    return [StepMark(k, "below", allreduce_text(k, ev), ALLREDUCE_COLOR)
            for k, ev in replay.event_step_numbers(trace, run_index) if ev.kind == "allreduce"]
