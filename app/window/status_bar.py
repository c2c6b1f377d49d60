"""The status bar: what the worker is doing, how big the graph is, how it was
laid out, and the worker's progress on long work.

It reads the worker's state and the session, and writes only its own labels, so
the run and file logic never format status text. The running clock ticks every
200 ms while a run is going and stops when the worker is idle again.
"""

from __future__ import annotations

import os
import sys

from typing import Any, Mapping, Optional

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QLabel, QMainWindow, QProgressBar

from autogradviz.app.services.worker_process import CRASHED, FAILED, READY, STARTING, WorkerProcess
from autogradviz.app.services.text_safety import plain, plain_tip
from autogradviz.app.session import TraceSession

TICK_MS = 200


class WindowStatus(QObject):
    """Owns the status bar's widgets: worker label, busy indicator, graph and layout labels."""

    def __init__(self, window: QMainWindow, worker: WorkerProcess, session: TraceSession):
        super().__init__(window)
        self._window = window
        self._worker = worker
        self._session = session
        self._layout_busy = False
        self._layout_info = ""
        self._progress: tuple[str, dict] | None = None
        sb = window.statusBar()
        self.worker_label = plain(QLabel(window))  # paths and names: plain text
        self.worker_label.setObjectName("workerLabel")
        self.busy = QProgressBar(window)
        self.busy.setObjectName("busyIndicator")
        self.busy.setRange(0, 0)
        self.busy.setMaximumWidth(90)
        self.busy.setMaximumHeight(14)
        self.busy.setTextVisible(False)
        self.busy.hide()
        self.graph_label = plain(QLabel(window))
        self.graph_label.setObjectName("graphLabel")
        self.layout_label = plain(QLabel(window))
        self.layout_label.setObjectName("layoutLabel")
        sb.addWidget(self.worker_label)
        sb.addWidget(self.busy)
        sb.addPermanentWidget(self.graph_label)
        sb.addPermanentWidget(self.layout_label)
        self._clock = QTimer(self)
        self._clock.setInterval(TICK_MS)
        self._clock.timeout.connect(self.update_worker)
        worker.stateChanged.connect(self._on_worker_state)
        session.graphChanged.connect(lambda _gid: self.update_graph())
        session.traceChanged.connect(self.update_graph)
        sb.messageChanged.connect(lambda _text: self.update_worker())

    @property
    def layout_busy(self) -> bool:
        """True while the graph view lays out a graph."""
        return self._layout_busy

    @property
    def clock_running(self) -> bool:
        return self._clock.isActive()

    def show_message(self, text: str, ms: int = 3000) -> None:
        self._window.statusBar().showMessage(text, ms)

    # -- the worker ----------------------------------------------------------------
    def run_started(self) -> None:
        """A run was sent: count its seconds until the worker is idle again."""
        self._progress = None
        self._clock.start()
        self.update_worker()

    def _on_worker_state(self, state: str) -> None:
        if state in (READY, CRASHED, FAILED) and not self._worker.is_busy():
            self._clock.stop()
            self._progress = None
        self.update_worker()

    def stop_clock(self) -> None:
        self._clock.stop()
        self._progress = None
        self.update_worker()

    def set_progress(self, code: Optional[str], params: Mapping[str, Any]) -> None:
        """The worker's progress on long work (a code and its parameters), shown
        beside the running time until the run ends; None clears it."""
        self._progress = None if code is None else (code, dict(params or {}))
        self.update_worker()

    def progress_text(self) -> str:
        if self._progress is None:
            return ""
        code, params = self._progress
        nodes, done = params.get("nodes"), params.get("done")
        tensors = params.get("tensors")
        partial = isinstance(done, int) and 0 < done < (nodes if isinstance(nodes, int) else
                                                       tensors if isinstance(tensors, int) else 0)
        if code == "summarising" and isinstance(nodes, int):
            if partial:
                return self.tr("Summarising {nodes} nodes… ({done} done)").format(
                    nodes=f"{nodes:,}", done=f"{done:,}")
            return self.tr("Summarising {nodes} nodes…").format(nodes=f"{nodes:,}")
        if code == "summarising" and isinstance(tensors, int):
            if partial:
                return self.tr("Summarising {n} tensors… ({done} done)").format(n=f"{tensors:,}", done=f"{done:,}")
            return self.tr("Summarising {n} tensors…").format(n=f"{tensors:,}")
        if code == "capturing" and isinstance(nodes, int):
            return self.tr("Capturing a graph of {nodes} nodes…").format(nodes=f"{nodes:,}")
        if code == "building" and isinstance(nodes, int):
            return self.tr("Building the trace of {nodes} nodes…").format(nodes=f"{nodes:,}")
        if code == "encoding" and isinstance(nodes, int):
            return self.tr("Sending the trace ({nodes} nodes)…").format(nodes=f"{nodes:,}")
        return self.tr("Working…")

    def update_worker(self) -> None:
        state = self._worker.state
        busy = self._worker.is_busy()
        waiting = busy and self._worker.waiting_for_input()
        if busy and state == STARTING:
            text = self.tr("Starting the worker (importing torch), then running…")
        elif waiting:
            text = self.tr("Waiting for your input in the Output pane (the run timeout is paused)")
        elif busy:
            text = self.tr("Running {s:.1f} s").format(s=self._worker.running_seconds())
        elif state == STARTING:
            text = self.tr("Worker starting (importing torch)…")
        elif state == READY:
            version = self._worker.info.get("torch_version", "")
            text = self.tr("Worker ready · torch {v}").format(v=version) if version else self.tr("Worker ready")
        elif state == CRASHED:
            text = self.tr("Worker crashed · restarting")
        elif state == FAILED:
            text = self.tr("Worker failed to start · press Run to retry")
        else:
            text = self.tr("Worker stopped")
        python = getattr(self._worker, "python", sys.executable)
        if python != sys.executable and state == READY:  # another interpreter (Tools ▸ Preferences)
            text += " · " + (os.path.basename(os.path.dirname(os.path.dirname(python))) or python)
        progress = self.progress_text()
        if progress:
            text += " · " + progress
        self.worker_label.setText(text)
        self.worker_label.setToolTip(plain_tip(self.tr("Scripts run with {python}").format(python=python)))
        # (a passing message hides the left-hand widgets; the indicator must
        # not reappear on top of it: it comes back when the message goes)
        message = self._window.statusBar().currentMessage()
        self.busy.setVisible(not message and ((busy and not waiting) or state in (STARTING, CRASHED)
                                              or self._layout_busy))

    # -- the graph and its layout -----------------------------------------------------
    def update_graph(self) -> None:
        graph = self._session.graph if self._session.trace is not None else None
        if graph is None:
            self.graph_label.setText(self.tr("No graph"))
            if not self._layout_busy:
                self._layout_info = ""
                self.layout_label.setText("")
            return
        trace = self._session.trace
        text = self.tr("{n} nodes · {e} edges").format(n=len(graph.nodes), e=len(graph.edges))
        # (a reentrant checkpoint's re-run graphs are drawn inside their region, not counted)
        shown = [g.id for g in trace.graphs if g.origin != "recompute"]
        if len(shown) > 1 and graph.id in shown:
            text = self.tr("Graph {i} of {k}: ").format(i=shown.index(graph.id) + 1, k=len(shown)) + text
        self.graph_label.setText(text)

    def layout_started(self) -> None:
        self._layout_busy = True
        self._layout_info = ""
        self.layout_label.setText(self.tr("Laying out the graph…"))
        self.update_worker()

    def layout_finished(self, info: str) -> None:
        self._layout_busy = False
        self._layout_info = info
        # The graph view's info already names the engine and the time ("… layout: dot in 0.1 s").
        self.layout_label.setText(info)
        self.layout_label.setToolTip(self.tr("How the graph was laid out"))
        self.update_worker()

    def layout_dropped(self) -> None:
        """The layout under way was given up (its trace went away): no longer busy, nothing to say."""
        self._layout_busy = False
        self._layout_info = ""
        self.layout_label.setText("")
        self.update_worker()

    def layout_failed(self, _message: str) -> None:
        self._layout_busy = False
        self._layout_info = ""
        self.layout_label.setText(self.tr("Layout failed"))
        self.update_worker()

    def retranslate(self) -> None:
        self.update_worker()
        self.update_graph()
        if self._layout_busy:
            self.layout_label.setText(self.tr("Laying out the graph…"))
        elif not self._layout_info:
            self.layout_label.setText("")
        else:
            # the graph view says its last layout again, in the new language
            view: Any = getattr(self._window, "graph_view", None)
            info = view.layout_info_text() if hasattr(view, "layout_info_text") else ""
            if info:
                self._layout_info = info
                self.layout_label.setText(info)
            self.layout_label.setToolTip(self.tr("How the graph was laid out"))
