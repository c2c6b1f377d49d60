"""`with autogradviz.record() as run:` - the worker's recording, in the learner's own process.

Learners work in notebooks and their own training scripts; they should not
have to paste code into the app to see its backward pass. The block is
recorded exactly as the worker records a script (engine/worker/recording.py:
the same trace, recorder and registered probes - backward steps, hooks,
retain_grad, checkpoint, GradScaler, the lines of the calling code), the
probes installed on entry and removed on exit whatever the block did
(an exception still propagates: this is the learner's process, not ours to
hide errors in). After the block:

- `run.trace`   the documented Trace (engine/trace/model.py, docs/trace-format.md)
- `run.save(p)` writes it as the app's JSON trace file, atomically
- `run.open()`  opens the desktop app on it in its own process (`python -m autogradviz TRACE.json`)
- `run.show()`  the interactive stepper for a notebook (the exports issue's web
                page, embedded); the page is drawn by the app's scene, which
                needs Qt, so it is given by `autogradviz.record()` as a function
                (this module is torch-side and never imports Qt).

"The calling code" is the file of the frame that entered the block: a
script's file, or a notebook cell's (IPython compiles each cell under its
own file name and keeps its lines in linecache). Its names (the caller's
globals and locals) label tensors and parameters as the script's namespace
does in the worker; only names bound or rebound inside the block count as
"tensors left in the namespace", so a notebook's earlier cells add nothing.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from types import FrameType
from typing import Callable, Literal, Optional, cast

import torch

from autogradviz.engine.trace import codec
from autogradviz.engine.trace.atomic_file import write_atomic
from autogradviz.engine.trace.model import Trace
from autogradviz.engine.worker.recording import Recording


class RecordedRun:
    """One `record()` block: a context manager, then its trace (see the module docstring)."""

    def __init__(self, record_steps: bool = True, record_values: bool = True,
                 show: Optional[Callable[..., object]] = None, filename: Optional[str] = None):
        self._steps = record_steps
        self._values = record_values
        self._show = show
        self._filename = filename
        self._recording: Optional[Recording] = None
        self._before: dict = {}
        self._frame: Optional[FrameType] = None
        self._t0 = 0.0
        self.trace: Optional[Trace] = None
        self.path: Optional[str] = None  # the file `save()` or `open()` wrote last

    # -- the block -----------------------------------------------------------
    def __enter__(self) -> "RecordedRun":
        if self._recording is not None:
            raise RuntimeError("this record() block is running already")
        frame = sys._getframe(1)
        self._frame = frame
        filename = self._filename or frame.f_code.co_filename
        namespace = frame.f_globals
        trace = Trace(script=filename, device="cpu", torch_version=torch.__version__,
                      steps_recorded=self._steps)
        self._before = {k: id(v) for k, v in _names(frame).items()}
        self._recording = Recording(trace, namespace, filename, record_steps=self._steps,
                                    record_values=self._values)
        self._t0 = time.perf_counter()
        self._recording.install()
        return self

    def __exit__(self, exc_type, exc, tb) -> Literal[False]:
        rec, frame = self._recording, self._frame
        self._recording = self._frame = None
        assert rec is not None and frame is not None  # (both set by __enter__)
        try:
            rec.remove()
        finally:
            # (nothing of ours may change what the block raised, nor keep torch patched)
            try:
                now = _names(frame)
                fresh = {k: v for k, v in now.items() if self._before.get(k) != id(v)}
                if exc is not None:
                    from autogradviz.engine.worker.runner import error_info
                    rec.trace.error = error_info(exc, cast(str, rec.recorder.filename))  # (record() always names the file)
                rec.finish(namespace=fresh)
                rec.trace.duration_s = time.perf_counter() - self._t0
                self.trace = rec.trace
            except Exception as err:  # a failure of ours: the block's own outcome stands
                self.trace = rec.trace
                rec.trace.add_note("internal_error", f"internal: finish: {err}", stage="finish", error=str(err))
            self._store = rec.store  # (summaries' tensors, as the worker keeps them for fetch)
        return False

    # -- after the block -------------------------------------------------------
    def _done(self) -> Trace:
        if self.trace is None:
            raise RuntimeError("nothing recorded yet: use the run after its `with autogradviz.record()` block")
        return self.trace

    def save(self, path) -> str:
        """Write the trace as the app's JSON trace file (atomically); returns the path."""
        data = codec.encode_trace(self._done()) + b"\n"
        path = os.fspath(path)
        write_atomic(path, data)
        self.path = path
        return path

    def open(self, path=None) -> subprocess.Popen:
        """Open the desktop app on this trace in a process of its own (the
        `autogradviz TRACE.json` command); it outlives this one. Without
        `path`, the trace goes to a temporary file (kept: the app reads it)."""
        if path is None:
            fd, path = tempfile.mkstemp(prefix="autogradviz-", suffix=".json")
            os.close(fd)
        path = self.save(path)
        return subprocess.Popen(open_command(path), start_new_session=True,
                                stdin=subprocess.DEVNULL)

    def show(self, run: int = 0, **options):
        """An object a notebook displays as the interactive stepper of backward
        run `run` (see `autogradviz.record`)."""
        trace = self._done()
        if not trace.backward_runs:
            raise ValueError("the recorded code made no backward call: nothing to step through")
        if not 0 <= run < len(trace.backward_runs):
            raise ValueError(f"no backward run {run} (the run has {len(trace.backward_runs)})")
        if self._show is None:
            raise RuntimeError("show() needs the page maker: use autogradviz.record()")
        return self._show(trace, run=run, **options)


def open_command(path: str) -> list[str]:
    """The command line that opens the app on the trace file at `path`."""
    return [sys.executable, "-m", "autogradviz", os.path.abspath(path)]


def _names(frame) -> dict:
    """The caller's names: its globals, then its locals (a function's block)."""
    out = dict(frame.f_globals)
    if frame.f_locals is not frame.f_globals:
        out.update(frame.f_locals)
    return {k: v for k, v in out.items() if not k.startswith("__")}
