"""A spawned child process of the script, started through us: recorded too.

The child-processes probe (engine/probes/children.py) replaces
multiprocessing's `spawn_main(...)` command line by `child_main(cfg, ...)`.
Here, before multiprocessing's own `spawn_main` runs as usual:

- prints go to the parent's relay (engine/worker/children.py) as well as
  nowhere else - under python they reach the same terminal as the parent's -
  line-buffered as python's stdout is (engine/worker/child_stream.py);
- the script is imported as `__mp_main__` the way multiprocessing does it,
  but compiled under the name the user sees (its path, or "<editor>" for
  unsaved text written to a temporary file), with `device` predefined as in
  the parent, so tracebacks and recorded lines point at the user's text;
- once the main module is imported, the same probes as in the worker are
  installed (backward calls, hooks, DDP's all-reduces...), recording into a
  trace of the child's own, whose runs carry the child's index as their rank
  unless torch.distributed gives one;
- at exit (multiprocessing's `sys.exit(exitcode)`), the probes are removed
  and the trace sent to the parent, which merges it.

Our failures never change what the child does: the child then runs
unrecorded, as it would under python.
"""

from __future__ import annotations

import builtins
import json
import linecache
import os
import sys
import threading
import types


# How long a print waits for the relay to have passed it on (engine/worker/children.py).
ACK_WAIT_S = 2.0


class _Link:
    """The connection to the parent's relay (thread-safe sends)."""

    def __init__(self, cfg: dict):
        from multiprocessing.connection import Client

        self.conn = Client(cfg["address"], authkey=bytes.fromhex(cfg.get("key") or ""))
        self.lock = threading.Lock()
        self.send(b"H" + json.dumps({"pid": os.getpid(), "index": cfg["index"]}).encode())

    def send(self, data: bytes) -> None:
        from autogradviz.engine.worker import child_exit

        # (ending by SIGTERM, in its handler: this thread may hold the lock
        # already, mid-send; waiting forever would keep the child alive)
        if not self.lock.acquire(timeout=1.0 if child_exit.terminating else -1):
            return
        try:
            self.conn.send_bytes(data)
            if data[:1] == b"O" and self.conn.poll(ACK_WAIT_S):
                # the relay has passed the text on: a print is in the run's
                # output before the child goes on (and so before the parent
                # prints after waiting for this child, as under python)
                self.conn.recv_bytes()
        except Exception:
            pass
        finally:
            self.lock.release()

    def printed(self, stream: str, text: str) -> None:
        self.printed_bytes(stream, text.encode("utf-8", "replace"))

    def printed_bytes(self, stream: str, data: bytes) -> None:
        """One flush of the child's stream (engine/worker/child_stream.py)."""
        self.send(b"O" + (b"e" if stream == "stderr" else b"o") + data)


def _import_main(main_path: str, cfg: dict, before_exec=None) -> None:
    """multiprocessing.spawn._fixup_main_from_path for the script's file;
    `before_exec(namespace)` runs just before the script's code does (the
    probes go in there: names the script binds at import, such as
    `from torch.utils.checkpoint import checkpoint`, get the recorded
    function, as in the worker where the probes are in before exec)."""
    with open(main_path, encoding="utf-8") as f:
        source = f.read()
    display = cfg["display"]
    linecache.cache[display] = (len(source), None, source.splitlines(True), display)
    module = types.ModuleType("__mp_main__")
    ns = module.__dict__
    ns["__file__"] = main_path
    ns["__builtins__"] = builtins
    ns["device"] = cfg["device"]
    sys.modules["__main__"] = sys.modules["__mp_main__"] = module
    if before_exec is not None:
        before_exec(ns)
    exec(compile(source, display, "exec", dont_inherit=True), ns)


class _Recording:
    """The child's own recording (what runner.run_script does around exec)."""

    def __init__(self, cfg: dict, namespace: dict, output):
        import torch

        from autogradviz.engine.probes.probe_set import ProbeSet
        from autogradviz.engine.worker.probe_context import context_for
        from autogradviz.engine.trace.model import Trace
        from autogradviz.engine.worker.capture import CaptureState
        from autogradviz.engine.worker.progress import Progress
        from autogradviz.engine.worker.recorder import Recorder
        from autogradviz.engine.worker.summarize import Summarizer, TensorStore

        self.trace = Trace(script=cfg["display"], device=cfg["device"], torch_version=torch.__version__,
                           steps_recorded=cfg["steps"])
        self.summ = Summarizer(TensorStore())
        state = CaptureState(self.summ)
        state.progress = self.summ.progress = Progress(None)
        self.trace.graphs = state.graphs
        self.recorder = Recorder(self.trace, state, namespace, user_filename=cfg["display"],
                                 record_steps=cfg["steps"])
        self.recorder.default_rank = cfg["index"]
        self.ctx = context_for(self.recorder)
        self.ctx.output = output
        self.probes = ProbeSet(self.ctx)
        self.probes.install()

    def finish(self) -> bytes:
        from autogradviz.engine.trace import codec

        self.probes.remove()
        try:
            self.recorder.finalize()
        except Exception as exc:
            self.ctx.internal_error("finalize", exc)
        self.summ.flush()
        self.probes.contribute()
        self.summ.flush()
        for stage, text in self.recorder.errors + self.ctx.errors:
            self.trace.add_note("internal_error", f"internal: {stage}: {text}", stage=stage, error=text)
        return codec.encode_trace(self.trace)


def child_main(cfg: dict, **spawn_kwds) -> None:
    """Start a spawned child recorded (see the module docstring)."""
    from multiprocessing import spawn

    from autogradviz.engine.worker.children import RELAY_KEY_ENV

    # The relay's key came in the environment (never on the command line):
    # gone from it at once, so neither the script nor its own children see it.
    cfg = dict(cfg, key=os.environ.pop(RELAY_KEY_ENV, None) or cfg.get("key"))
    link = None
    try:
        link = _Link(cfg)
        from autogradviz.engine.worker.child_stream import relay_streams

        sys.stdout, sys.stderr = relay_streams(link.printed_bytes)  # (buffered as python's)
    except Exception:
        link = None
    recording: list = []
    original_fixup = spawn._fixup_main_from_path  # type: ignore[attr-defined]  # (a private of multiprocessing, not in the stubs)
    original_prepare = spawn.prepare

    def start_recording(namespace: dict) -> None:
        if link is None or recording:
            return
        try:
            recording.append(_Recording(cfg, namespace, link.printed))
        except Exception as exc:  # ours: the child runs unrecorded
            link.printed("stderr", f"[autogradviz: this child process is not recorded: {exc!r}]\n")

    def fixup(main_path):
        if os.path.normpath(main_path) == cfg["main"]:
            _import_main(main_path, cfg, start_recording)
        else:
            original_fixup(main_path)

    def prepare(data):
        original_prepare(data)
        main = sys.modules.get("__mp_main__") or sys.modules["__main__"]
        start_recording(main.__dict__)  # (when the main module was not the script's file)

    def send_trace():
        for stream in (sys.stdout, sys.stderr):  # (what the child printed last, before its trace)
            try:
                stream.flush()
            except Exception:
                pass
        if recording and link is not None:
            try:
                link.send(b"T" + recording[0].finish())
            except Exception as exc:
                link.printed("stderr", f"[autogradviz: this child's trace was lost: {exc!r}]\n")

    from autogradviz.engine.worker.child_exit import Once, send_on_sigterm

    send_trace = Once(send_trace)
    send_on_sigterm(send_trace)  # (Pool.terminate() ends its workers with SIGTERM)
    spawn._fixup_main_from_path = fixup  # type: ignore[attr-defined]  # (a private of multiprocessing, not in the stubs)
    spawn.prepare = prepare
    try:
        spawn.spawn_main(**spawn_kwds)
    finally:
        send_trace()
