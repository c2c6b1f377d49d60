"""File ▸ Save Trace… and File ▸ Open Trace…: keep a run, look at it later.

A saved trace is the documented JSON (docs/trace-format.md, the same bytes
`autogradviz trace -o` writes), so a trace recorded on a GPU server opens on a
laptop. Opened, it is shown exactly as a run's trace is (the session, every
panel, the output with its prints, error and notes) without any worker: the
session knows it came from a file, so asking for full tensor values says they
are not available. A file that is not a trace, or a trace from a newer
autogradviz (a greater format `version`), is refused with a message that says
which; nothing else changes then.

Reading and writing run on a thread (a 10,000-node trace takes about a second
to decode and prepare); a progress dialog appears when it takes longer than
half a second. Opening a trace puts the code it was recorded from (`source`)
in the editor, after the usual question about unsaved changes; it never runs.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Callable, Optional

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QFileDialog, QProgressDialog, QWidget

from autogradviz.engine.trace import codec, replay
from autogradviz.engine.trace.model import Trace, gc_paused

from autogradviz.app.services import settings
from autogradviz.app.services.text_safety import plain_label, warn
from autogradviz.app.session import TraceSession

APP_NAME = "Autograd Visualizer"
PROGRESS_AFTER_MS = 500


def read_trace_file(path: str) -> Trace:
    """The Trace in `path`, ready for the stepper (codec.TraceDecodeError,
    TraceVersionError or OSError when it cannot be had)."""
    data = Path(path).read_bytes()
    with gc_paused():
        trace = codec.decode_trace(data)
        replay.prepare(trace)
    return trace


def write_trace_file(trace: Trace, path: str) -> None:
    """`trace` as the documented JSON, written atomically (an existing file is
    replaced only once the new one is complete)."""
    from autogradviz.app.export.files import atomic_path

    data = codec.encode_trace(trace) + b"\n"
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as f:
            f.write(data)


class TraceFileController(QObject):
    """Saves the session's trace and opens saved ones; see the module docstring.

    `show_trace(trace, path)` puts an opened trace on screen (the run
    controller's, so that it looks as a run's does); `status(text)` reports
    a line to the learner (the Output pane)."""

    traceOpened = Signal(str)   # path, once the trace is shown
    traceSaved = Signal(str)    # path
    failed = Signal(str)        # the message shown (for tests; a dialog shows it too)
    _done = Signal(object, object, object)  # (job, result, error) from the reading/writing thread

    def __init__(self, window: QWidget, session: TraceSession,
                 show_trace: Callable[[Trace, str], None], status: Callable[[str], None],
                 show_source: Optional[Callable[[str, str], bool]] = None):
        super().__init__(window)
        self._window = window
        self._session = session
        self._show_trace = show_trace
        self._show_source = show_source
        self._status = status
        self._progress: Optional[QProgressDialog] = None
        self._busy = False
        self.quiet = False  # tests: report failures through `failed` only, no modal dialog
        self._done.connect(self._finished, Qt.ConnectionType.QueuedConnection)

    # -- commands ----------------------------------------------------------------------------
    def save_dialog(self) -> None:
        trace = self._session.trace
        if trace is None:
            self._status(self.tr("There is no trace to save yet: run a script first."))
            return
        stem = Path(trace.script).stem if trace.script and not trace.script.startswith("<") else "trace"
        folder = os.path.dirname(settings.get("files/last_trace", "") or "") or str(Path.home())
        path, _ = QFileDialog.getSaveFileName(self._window, self.tr("Save the trace"),
                                              os.path.join(folder, f"{stem}.trace.json"), self._filter())
        if path:
            self.save(path)

    def open_dialog(self) -> None:
        folder = os.path.dirname(settings.get("files/last_trace", "") or "") or str(Path.home())
        path, _ = QFileDialog.getOpenFileName(self._window, self.tr("Open a saved trace"), folder,
                                              self._filter())
        if path:
            self.open(path)

    def save(self, path: str) -> None:
        """Write the session's trace to `path` (on a thread)."""
        trace = self._session.trace
        if trace is None or self._busy:
            return
        self._start(("save", path), lambda: write_trace_file(trace, path),
                    self.tr("Saving the trace to {name}…").format(name=os.path.basename(path)))

    def open(self, path: str) -> None:
        """Read the trace in `path` (on a thread) and show it."""
        if self._busy:
            return
        self._start(("open", path), lambda: read_trace_file(path),
                    self.tr("Opening the trace {name}…").format(name=os.path.basename(path)))

    def _filter(self) -> str:
        return self.tr("Autograd traces (*.json);;All files (*)")

    # -- the thread ----------------------------------------------------------------------------
    def _start(self, job, work: Callable, label: str) -> None:
        self._busy = True
        progress = QProgressDialog("", "", 0, 0, self._window)
        progress.setLabel(plain_label(progress, label))  # it names the file: plain text
        progress.setCancelButton(None)  # (reading a file is not cancelled half-way)
        progress.setWindowTitle(APP_NAME)
        progress.setMinimumDuration(PROGRESS_AFTER_MS)
        progress.setWindowModality(Qt.WindowModality.WindowModal)
        self._progress = progress

        def run():
            try:
                result, error = work(), None
            except Exception as exc:  # reported to the learner, never raised in the thread
                result, error = None, exc
            try:
                self._done.emit(job, result, error)
            except RuntimeError:  # the window closed meanwhile: nobody to tell
                pass

        threading.Thread(target=run, name="trace-file", daemon=True).start()

    def _finished(self, job, result, error) -> None:
        self._busy = False
        if self._progress is not None:
            self._progress.reset()
            self._progress.deleteLater()
            self._progress = None
        kind, path = job
        if error is not None:
            self._report(kind, path, error)
            return
        settings.put("files/last_trace", path)
        settings.add_recent_file(os.path.abspath(path))
        if kind == "save":
            self._status(self.tr("Saved the trace to {path}").format(path=path))
            self.traceSaved.emit(path)
        else:
            if result.source is not None and self._show_source is not None:
                self._show_source(result.source, result.script or "")
            self._show_trace(result, os.path.abspath(path))  # (the output pane says where it is from)
            self.traceOpened.emit(path)

    def _report(self, kind: str, path: str, error: Exception) -> None:
        if isinstance(error, codec.TraceVersionError):
            text = self.tr("{path} was written by a newer Autograd Visualizer (trace format version {found}; "
                           "this one reads up to version {known}). Update the app to open it.").format(
                path=path, found=error.found, known=error.known)
        elif isinstance(error, codec.TraceDecodeError):
            text = self.tr("{path} is not an Autograd Visualizer trace ({detail}).").format(
                path=path, detail=str(error))
        elif kind == "open":
            text = self.tr("Could not open {path}:\n{error}").format(
                path=path, error=getattr(error, "strerror", None) or error)
        else:
            text = self.tr("Could not save {path}:\n{error}").format(
                path=path, error=getattr(error, "strerror", None) or error)
        self.failed.emit(text)
        if not self.quiet:
            warn(self._window, APP_NAME, text)
