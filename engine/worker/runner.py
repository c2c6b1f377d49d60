"""Run a user's script in this process and record it into a Trace.

`run_script` is what the worker service (service.py) calls for each run. It
compiles the source under the user's file name (tracebacks and warnings point
at the user's lines), executes it as a fresh, importable `__main__` module
(main_module.py) with `device` predefined, with every registered probe installed (engine/probes:
backward calls, the user's hooks, module calls, and any feature probe),
captures prints through `on_output`, and removes every probe afterwards -
also when the script raises or calls sys.exit. It never raises for anything
the script does.

After the script: the recorder builds what it left for later (the trace
objects and summaries of plain backward calls), every tensor with a grad_fn
left in the namespace whose graph was not captured yet gets a graph with
origin "namespace", and each probe contributes its fields. `on_progress`
hears about long work meanwhile (see progress.py).

Notes written to the trace carry a code and parameters beside the English
text (`Trace.add_note`), so the app shows them in the user's language:
  output_truncated   {"stream", "kept", "total"}
  nonleaf_grad_read  {"line"}: the script read .grad of a non-leaf (None)
  checkpoint_use_reentrant_missing  {"line"}: checkpoint called without use_reentrant
  checkpoint_no_input_requires_grad {"line"}: reentrant checkpoint, no input requires grad
  checkpoint_output_loses_grad {"line", "output_type"}: (the checkpoint probe's)
  checkpoint_not_read {"nodes"}: saved tensors in non-reentrant checkpoints
  runs_truncated     {"calls", "recorded"}
  internal_error     {"stage", "error"}: a failure of ours; the script ran as usual
"""

from __future__ import annotations

import io
import linecache
import os
import sys
import threading
import time
import traceback
import warnings
from types import FrameType
from typing import Callable, Optional

import torch

from autogradviz.engine.trace.model import ErrorInfo, TensorSummary, Trace
from autogradviz.engine.worker.capture import CaptureState
from autogradviz.engine.worker.error_module import module_of_error
from autogradviz.engine.worker.explain import explained, module_note, warning_note
from autogradviz.engine.worker.main_module import MainModule
from autogradviz.engine.worker import os_fork
from autogradviz.engine.worker.progress import ProgressCallback
from autogradviz.engine.worker.recording import Recording
from autogradviz.engine.worker.recorder import user_line as _user_line
from autogradviz.engine.worker.summarize import TensorStore, full_summary

# Characters of stdout/stderr kept in the trace (each); the worker may cap further.
MAX_CAPTURED_OUTPUT = 2_000_000

# engine/ (worker, probes, trace): frames of ours, hidden from the script's traceback
_ENGINE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class _Stream(io.TextIOBase):
    """sys.stdout/sys.stderr stand-in: forwards text to the run as it is written."""

    def __init__(self, name: str, sink: Callable[[str, str], None]):
        self.name = name
        self._sink = sink

    @property
    def encoding(self):
        return "utf-8"

    @property
    def errors(self):
        return "strict"

    def writable(self):
        return True

    def isatty(self):
        return False

    def fileno(self):
        raise io.UnsupportedOperation("fileno")

    def write(self, s):
        if not isinstance(s, str):
            raise TypeError(f"write() argument must be str, not {type(s).__name__}")
        if s:
            self._sink(self.name, s)
        return len(s)

    def flush(self):
        pass


class ScriptRun:
    """The result of one run: the trace, plus the live objects for `fetch`."""

    def __init__(self, trace: Trace, namespace: dict, store: TensorStore, state: Optional[CaptureState]):
        self.trace = trace
        self.namespace = namespace
        self._store = store
        self._state = state

    def fetch(self, tensor_id: str) -> Optional[TensorSummary]:
        t = self._store.get(tensor_id)
        if t is None:
            return None
        s = full_summary(t)
        if s is not None:
            s.id = tensor_id
        return s


class _Output:
    def __init__(self, trace: Trace, on_output):
        self.trace = trace
        self.on_output = on_output
        self.parts: dict[str, list[str]] = {"stdout": [], "stderr": []}
        self.size = {"stdout": 0, "stderr": 0}
        self.total = {"stdout": 0, "stderr": 0}
        self._tls = threading.local()  # (threads print too: "busy" is per thread)

    def __call__(self, stream: str, text: str) -> None:
        self.total[stream] += len(text)
        room = MAX_CAPTURED_OUTPUT - self.size[stream]
        if room > 0:
            piece = text[:room]
            self.parts[stream].append(piece)
            self.size[stream] += len(piece)
        tls = self._tls
        if self.on_output is not None and not getattr(tls, "busy", False):
            # (a callback that prints would otherwise come back here forever)
            tls.busy = True
            try:
                self.on_output(stream, text)
            except Exception:
                pass
            finally:
                tls.busy = False

    def finish(self) -> None:
        for stream in ("stdout", "stderr"):
            text = "".join(self.parts[stream])
            if self.total[stream] > self.size[stream]:
                self.trace.add_note("output_truncated", stream=stream, kept=self.size[stream],
                                    total=self.total[stream])
            setattr(self.trace, stream, text)


def _format_tb(exc: BaseException) -> str:
    """The traceback without our own frames (runner/recorder wrappers)."""
    try:
        te = traceback.TracebackException.from_exception(exc)
        for t in _chain(te):
            kept = [fr for fr in t.stack if not os.path.abspath(fr.filename).startswith(_ENGINE_DIR + os.sep)]
            t.stack = traceback.StackSummary.from_list(kept)
        return "".join(te.format())
    except Exception:
        return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))


def _chain(te):
    seen = set()
    while te is not None and id(te) not in seen:
        seen.add(id(te))
        yield te
        te = te.__cause__ or te.__context__


# codes about the script as a whole (reading it, importing), never about a layer
_NOT_IN_A_MODULE = ("syntax", "import_name", "missing_module", "missing_submodule", "input_eof")


def error_info(exc: BaseException, filename: str) -> ErrorInfo:
    # the explanation as a code the app translates, its English text kept beside it
    code, params, explanation = explained(exc) or (None, {}, None)
    if code is not None and code not in _NOT_IN_A_MODULE:
        where = module_of_error(exc, filename)  # the layer it happened in, with its sizes
        if where is not None:
            params = {**params, **where}
            explanation = f"{explanation} {module_note(code, params)}"
    if isinstance(exc, SyntaxError):
        return ErrorInfo(type=type(exc).__name__, message=exc.msg or str(exc), line=exc.lineno,
                         explanation=explanation, code=code, params=params,
                         traceback="".join(traceback.format_exception_only(type(exc), exc)))
    if isinstance(exc, SystemExit):
        return ErrorInfo(type="SystemExit", message=f"the script called exit({exc.code!r})",
                         line=_user_line(exc, filename), traceback=_format_tb(exc))
    msg = str(exc)
    if isinstance(exc, KeyError):
        msg = repr(exc.args[0]) if exc.args else ""
    # (a missing module's code: the app explains it and offers to install it)
    return ErrorInfo(type=type(exc).__name__, message=msg, line=_user_line(exc, filename),
                     explanation=explanation, code=code, params=params, traceback=_format_tb(exc))


def device_error(device: str) -> Optional[ErrorInfo]:
    """Why a script cannot run on `device` (the error the trace carries
    instead of running it), or None when it can. The one source of this
    error for every caller (the runner, the worker service)."""
    if device not in ("cpu", "cuda") and not device.startswith("cuda:"):
        return ErrorInfo(type="ValueError", message=f"unknown device {device!r} (use cpu or cuda)")
    if device.startswith("cuda") and not torch.cuda.is_available():
        return ErrorInfo(
            type="CUDAUnavailable",
            message=(f"CUDA was requested but torch {torch.__version__} sees no CUDA device "
                     "on this machine; run on the cpu instead"),
            explanation=("The script was not run. This torch build has no CUDA support or no GPU "
                         "is visible (check drivers and CUDA_VISIBLE_DEVICES). Choose the cpu device."))
    return None


def run_script(source: str, filename: str = "<editor>", device: str = "cpu",
               on_output: Optional[Callable[[str, str], None]] = None,
               max_runs: Optional[int] = None, record_steps: bool = True,
               on_progress: Optional[ProgressCallback] = None, no_checkpoint: bool = False,
               record_values: bool = True, output_fds=None,
               at_end: Optional[Callable[[], None]] = None, shorten_floats: bool = False) -> ScriptRun:
    """Run `source` as __main__ and trace it. `record_steps=False`: graphs and
    leaf_grads only, no per-step recording (cheaper, for drawing the graph).
    `on_progress(code, params)`: long capture/summarising of big graphs,
    at most about 5 calls a second (codes in progress.py). `no_checkpoint`:
    checkpoint(fn, ...) runs as fn(...) (engine/probes/direct_checkpoint.py).
    `record_values=False`: summaries with shape and dtype only, saved values
    not read (Trace.values_recorded). `output_fds` (fd_output.FdOutput, a run in
    its own process): the output is read from fds 1 and 2 and sys.stdout/stderr
    stay real files on them. `at_end()`: what python does once the main code
    has ended (run_child.end_of_main: threads waited for, atexit), still
    recorded, its output still the run's. `shorten_floats`: the trace is only
    to be encoded (the worker sends it): float32/bfloat16/float16 values are
    kept as their shortest decimals from the start (Trace.float_digits
    "dtype"; each still rounds to exactly torch's value)."""
    t0 = time.perf_counter()
    trace = Trace(script=filename, device=device, torch_version=torch.__version__,
                  steps_recorded=record_steps)
    store = TensorStore()
    main = MainModule(source, filename, device)  # a real, importable __main__ (main_module.py)
    namespace = main.namespace
    out = _Output(trace, on_output)

    err = device_error(device)
    if err is not None:
        trace.error = err
        return ScriptRun(trace, namespace, store, None)

    # Make the source available to tracebacks and warnings under the user's name.
    lines = source.splitlines(True)
    linecache.cache[filename] = (len(source), None, lines, filename)

    try:
        code = compile(source, filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:  # ValueError: null bytes
        if isinstance(exc, SyntaxError):
            trace.error = error_info(exc, filename)
        else:
            trace.error = ErrorInfo(type=type(exc).__name__, message=str(exc), line=None)
        trace.duration_s = time.perf_counter() - t0
        return ScriptRun(trace, namespace, store, None)

    # trace, capture state, recorder, probes: as every recording (recording.py)
    rec = Recording(trace, namespace, filename, record_steps=record_steps, record_values=record_values,
                    max_runs=max_runs, on_progress=on_progress, store=store, shorten_floats=shorten_floats)
    state, ctx, probes = rec.state, rec.ctx, rec.probes
    ctx.output = out  # (children's prints: engine/worker/children.py)
    if no_checkpoint:
        from autogradviz.engine.probes.direct_checkpoint import add_to
        add_to(probes)

    old_out, old_err = sys.stdout, sys.stderr
    seen_warnings: set = set()
    # Global torch switches a script may flip and leave flipped: the next run
    # in the same worker must start fresh.
    torch_state = (torch.is_grad_enabled(), torch.get_default_dtype(),
                   torch.is_anomaly_enabled(), torch.is_inference_mode_enabled())

    with warnings.catch_warnings():
        def showwarning(message, category, fname, lineno, file=None, line=None):
            try:
                found = warning_note(str(message))
                if found is not None:
                    code_ = found[0]
                    # torch's checkpoint warnings point into torch (stacklevel):
                    # the script's line is the innermost frame of its file.
                    line_ = lineno if fname == filename else _script_line(filename)
                    key = (str(message), line_)
                    if key not in seen_warnings:
                        seen_warnings.add(key)
                        trace.add_note(code_, line=line_)  # ("Warning (line N): ...": engine/trace/notes.py)
            except Exception:
                pass
            # What Python's default showwarning does (sys.stderr is ours here).
            try:
                (file or sys.stderr).write(warnings.formatwarning(message, category, fname, lineno, line))
            except Exception:
                pass

        warnings.showwarning = showwarning
        if output_fds is not None:  # (python's own files on fds 1/2, read by FdOutput)
            output_fds.connect(out)
        else:
            sys.stdout = _Stream("stdout", out)
            sys.stderr = _Stream("stderr", out)
        try:
            probes.install()
            with main:
                try:
                    exec(code, namespace)
                except BaseException as exc:
                    os_fork.end_of_script(exc)  # (a child of os.fork() ends here, as under python)
                    raise
                os_fork.end_of_script(None)
        except SystemExit as exc:
            if exc.code not in (None, 0):
                trace.error = error_info(exc, filename)
        except BaseException as exc:
            trace.error = error_info(exc, filename)
        finally:
            if at_end is not None:
                at_end()
            probes.remove()
            try:
                sys.stdout.flush()
            except Exception:
                pass
            if output_fds is not None:
                output_fds.sync()
            sys.stdout, sys.stderr = old_out, old_err
            _restore_torch_state(torch_state)

    rec.finish()  # the rest of the trace: namespace graphs, probes' fields, notes
    if at_end is not None:  # a run in its own process ends as python's does
        _clear_main(namespace, output_fds)
    out.finish()
    trace.duration_s = time.perf_counter() - t0
    return ScriptRun(trace, namespace, store, state)


def _clear_main(namespace: dict, output_fds) -> None:
    """What python does to `__main__` at exit, once the trace no longer needs
    the names: `_x` names first, then the others, set to None, so that the
    script's `__del__` methods run now and their errors print "Exception
    ignored in ..." into this run's stderr. (fetch reads the TensorStore.)"""
    try:
        for underscore in (True, False):
            for name in list(namespace):
                if name != "__builtins__" and name.startswith("_") == underscore \
                        and not (underscore and name.startswith("__")):
                    namespace[name] = None
        import gc
        gc.collect()
        if output_fds is not None:
            output_fds.sync()
    except Exception:
        pass


def _script_line(filename: str) -> Optional[int]:
    """The line of the script running now (the innermost frame of its file), or None."""
    f: Optional[FrameType] = sys._getframe(1)
    while f is not None:
        if f.f_code.co_filename == filename:
            return f.f_lineno
        f = f.f_back
    return None


def _restore_torch_state(state) -> None:
    grad, dtype, anomaly, _inference = state
    try:
        torch.set_grad_enabled(grad)
        torch.set_default_dtype(dtype)
        torch.autograd.set_detect_anomaly(anomaly)
    except Exception:
        pass
