"""Runs the same script again without checkpoint, for the Memory panel's comparison.

A second `WorkerProcess` of its own, so the main worker, its trace and the
session stay as they are: the comparison trace goes only to the panel. It
runs with the app's one `WorkerConfig` (engine/protocol/worker_config.py),
the run request's `config` (the main worker's): the interpreter chosen in
Preferences and the run timeout, and it follows a change of interpreter as
the main worker does. The request carries the worker option `no_checkpoint`
(checkpoint(fn, ...) runs as fn(...)). Started on first use, kept warm for
the next comparison, shut down with the panel.
"""

from __future__ import annotations

from typing import Optional

from PySide6.QtCore import QObject, Signal

from autogradviz.app.services.worker_process import WorkerProcess
from autogradviz.engine.protocol.worker_config import WorkerConfig


class ComparisonRun(QObject):
    finished = Signal(object)  # the Trace without checkpoint
    # why there is none: code ("crashed", "timeout", "unreadable") and the worker's own words
    failed = Signal(str, str)
    busyChanged = Signal(bool)

    def __init__(self, parent: Optional[QObject] = None, config: Optional[WorkerConfig] = None):
        super().__init__(parent)
        self.worker: Optional[WorkerProcess] = None
        # Used when a request brings none (a panel on its own, in tests): the app's own Python.
        self.config = config if config is not None else WorkerConfig()
        self.busy = False

    def start(self, request: dict) -> None:
        """`request`: {"source", "filename", "device", "config"} of the run to
        repeat (`config`: the WorkerConfig the run was made with)."""
        w = self._worker(request.get("config") or self.config)
        self._set_busy(True)
        w.run(request["source"], request.get("filename") or "<editor>", request.get("device") or "cpu",
              no_checkpoint=True)

    def cancel(self) -> None:
        if self.worker is not None and self.busy:
            self.worker.stop()
        self._set_busy(False)

    def shutdown(self) -> None:
        if self.worker is not None:
            self.worker.shutdown()
            self.worker.deleteLater()
            self.worker = None
        self._set_busy(False)

    def _worker(self, config: WorkerConfig) -> WorkerProcess:
        if self.worker is not None and self.worker.config is not config:
            self.shutdown()  # (another app's configuration: a worker of its own)
        if self.worker is None:
            w = WorkerProcess(self, config=config)
            w.traceReady.connect(self._on_trace)
            w.traceFailed.connect(self._on_unreadable)
            w.crashed.connect(self._on_crashed)
            w.timedOut.connect(self._on_timed_out)
            w.runStopped.connect(self._on_stopped)
            self.worker = w
        return self.worker

    def _set_busy(self, busy: bool) -> None:
        if busy != self.busy:
            self.busy = busy
            self.busyChanged.emit(busy)

    def _on_trace(self, trace) -> None:
        if not self.busy:
            return  # cancelled meanwhile
        self._set_busy(False)
        self.finished.emit(trace)

    def _fail(self, code: str, detail: str) -> None:
        if self.busy:
            self._set_busy(False)
            self.failed.emit(code, detail)

    def _on_unreadable(self, message: str) -> None:
        self._fail("unreadable", message)

    def _on_crashed(self, message: str) -> None:
        self._fail("crashed", message)

    def _on_timed_out(self, seconds: float, line=None) -> None:
        self._fail("timeout", str(int(seconds)))

    def _on_stopped(self) -> None:
        self._set_busy(False)
