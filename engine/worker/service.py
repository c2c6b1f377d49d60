"""The worker process: runs user scripts out of the GUI's (and CLI's) process.

`python -m autogradviz.engine.worker` speaks the protocol of
engine/protocol/messages.py (docs/worker-protocol.md): requests on stdin,
messages on stdout. Everything torch, and everything the
user's script does, happens here, so that an infinite loop, a segfault or
`os._exit` only ever takes down this process.

Why the fd juggling at start: native code (torch's C++ warnings, a C extension's
printf, `os.write(1, ...)` in a script) writes to file descriptor 1 directly,
bypassing `sys.stdout`. If fd 1 were the protocol pipe, such bytes would corrupt
the JSON stream. So before importing anything heavy we keep a private duplicate
of the real stdout for the protocol and point fd 1 at stderr; likewise the
protocol's stdin is moved aside and fd 0 reads /dev/null, so a script calling
`input()` gets EOF instead of eating requests.
"""

from __future__ import annotations

import os
import sys

from autogradviz.engine.worker.std_fds import move_std_fds

import faulthandler  # noqa: E402
import gc  # noqa: E402
import inspect  # noqa: E402
import platform  # noqa: E402
import signal  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402
from typing import Any, Optional  # noqa: E402

from autogradviz.engine.protocol.messages import (  # noqa: E402
    OUTPUT_CAP, PROTOCOL_VERSION, CheckGradient, Fetch, GradientCheck, MessageError, Output, Ping,
    Pong, Progress, ProtocolDecodeError, ProtocolErrorMessage, Ready, Request, Run, Shutdown, Started, Values,
    decode_request, encode_message, trace_message)
from autogradviz.engine.protocol.message_types import trace_message_parts  # noqa: E402
from autogradviz.engine.worker.trace_file_out import write_trace_file  # noqa: E402
from autogradviz.engine.trace import codec  # noqa: E402
from autogradviz.engine.trace.model import ErrorInfo, Trace  # noqa: E402

# Output is sent in batches: when this many characters are pending, or
# FLUSH_INTERVAL_S after the first pending character (a background thread
# flushes), whichever comes first.
BATCH_CHARS = 16_384
FLUSH_INTERVAL_S = 0.05
# Up to this many writes per FLUSH_INTERVAL_S are sent at once (so the last
# prints before a crash are not lost); past it, output is batched.
SENDS_PER_INTERVAL = 20
# "1" in the worker's environment: runs in the worker's own process, one after
# the other, as before the zygote (main()); for benchmarks only.
IN_PROCESS_ENV = "AUTOGRADVIZ_WORKER_IN_PROCESS"
# A trace with at least this many nodes is announced (`progress`, code
# "encoding") before it is encoded and sent: the GUI can say what it waits for.
PROGRESS_MIN_NODES = 1000


def truncation_note(total: int, cap: int = OUTPUT_CAP) -> str:
    return (f"\n[output truncated: the script printed {total:,} characters; "
            f"only the first {cap:,} are kept]\n")


class Channel:
    """Writes protocol lines (messages.encode_message) on the private fd.

    Thread-safe: the output flusher thread and the main loop both send.
    """

    def __init__(self, fd: int):
        self._file = os.fdopen(fd, "wb", buffering=1 << 16)
        self._lock = threading.Lock()
        self.broken = False

    def send(self, msg) -> None:
        """Send one typed message (message_types.py)."""
        self.send_line(encode_message(msg))

    def send_line(self, *parts: bytes) -> None:
        """One line, given whole or in parts (a trace's: its 34 MB not copied
        into a line first)."""
        with self._lock:
            if self.broken:
                return
            try:
                for data in parts:
                    self._file.write(data)
                self._file.flush()
            except (BrokenPipeError, OSError, ValueError):
                # The reader went away: nothing sensible left to do but exit.
                self.broken = True
                os._exit(0)

    def close(self) -> None:
        """Flush and close this process's end (nothing is sent afterwards)."""
        with self._lock:
            self.broken = True
            try:
                self._file.close()
            except (OSError, ValueError):
                pass


class OutputPump:
    """Batches and caps a run's prints into `output` messages."""

    def __init__(self, channel: Channel, run_id: Any, cap: int = OUTPUT_CAP):
        self.channel = channel
        self.run_id = run_id
        self.cap = cap
        self.total = 0  # every character printed, kept or not
        self.kept = 0
        self.truncated = False
        self._pending: list[list] = []  # [stream, text] runs
        self._pending_chars = 0
        self._first_pending_at = 0.0
        self._window_start = 0.0
        self._window_sends = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._flusher, name="autogradviz-output", daemon=True)
        self._thread.start()

    def write(self, stream: str, text: str) -> None:
        """The runner's on_output callback. Must be cheap and never raise."""
        try:
            if not isinstance(text, str):
                text = str(text)
            n = len(text)
            if not n:
                return
            stream = "stderr" if stream == "stderr" else "stdout"
            flush = False
            with self._lock:
                self.total += n
                if self.truncated:
                    return
                room = self.cap - self.kept
                if n > room:
                    text = text[:room] + truncation_note(self.total, self.cap).rstrip("\n") + "\n"
                    self.truncated = True
                    n = room
                self.kept += n
                if self._pending and self._pending[-1][0] == stream:
                    self._pending[-1][1] += text
                else:
                    self._pending.append([stream, text])
                if not self._pending_chars:
                    self._first_pending_at = time.monotonic()
                self._pending_chars += len(text)
                # Send at once while output is sparse (so the prints right before
                # a crash are not lost); batch when it comes thick and fast.
                now = time.monotonic()
                if now - self._window_start >= FLUSH_INTERVAL_S:
                    self._window_start, self._window_sends = now, 0
                flush = (self._pending_chars >= BATCH_CHARS or self.truncated
                         or self._window_sends < SENDS_PER_INTERVAL)
            if flush:
                self.flush()
        except Exception:  # a print must never fail because of us
            pass

    def flush(self) -> None:
        with self._lock:
            self._window_sends += 1
            batch, self._pending, self._pending_chars = self._pending, [], 0
        for stream, text in batch:
            self.channel.send(Output(id=self.run_id, stream=stream, text=text))

    def _flusher(self) -> None:
        while not self._stop.wait(FLUSH_INTERVAL_S):
            if self._pending_chars and time.monotonic() - self._first_pending_at >= FLUSH_INTERVAL_S:
                self.flush()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=1.0)
        self.flush()


def cap_text(text: str, total_hint: int = 0, cap: int = OUTPUT_CAP) -> str:
    """Keep the head of a long output string, with a note saying so."""
    if len(text) <= cap:
        return text
    return text[:cap] + truncation_note(max(len(text), total_hint), cap)


class Worker:
    def __init__(self, channel: Channel):
        self.channel = channel
        self.torch: Any = None  # the torch module, once imported
        self.cuda_available = False
        self.cuda_devices: list[str] = []
        self.last_run: Any = None  # runner.ScriptRun of the last run, kept for fetch
        self.reader: Any = None  # the protocol's input, for input() during a run (console_input.py)
        self.pgid = None  # our process group (process_group.py), set by main()
        self.last_script: tuple = (None, "<editor>", None)  # source, filename, random state at its start
        self.last_script_io: dict = {}  # its device and the input() lines it read (for re-runs)
        # In a run's own process (run_child.py): output read from fds 1/2
        # (fd_output.FdOutput) and what python does after the main code.
        self.output_fds = None
        self.at_end = None

    # -- start ---------------------------------------------------------------
    def start(self, cuda_info=None) -> None:
        """Import torch and send `ready`. `cuda_info()` -> (available, device
        names) asks without initialising CUDA here (the zygote forks runs:
        zygote.py); by default torch is asked in this process."""
        import torch

        self.torch = torch
        try:
            if cuda_info is not None:
                self.cuda_available, self.cuda_devices = cuda_info()
            else:
                self.cuda_available = bool(torch.cuda.is_available())
                if self.cuda_available:
                    self.cuda_devices = [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]
        except Exception:
            self.cuda_available = False
            self.cuda_devices = []
        self.channel.send(Ready(
            protocol=PROTOCOL_VERSION, pid=os.getpid(), torch_version=str(torch.__version__),
            cuda_available=self.cuda_available, cuda_devices=list(self.cuda_devices),
            python=platform.python_version(), pgid=self.pgid))

    # -- requests ------------------------------------------------------------
    def handle_line(self, line: bytes) -> bool:
        """Handle one request line; return False to stop the loop. A line
        that is not a valid request is answered by `protocol_error` naming
        the request kind and the field (message_types.MessageError)."""
        text = line.strip()
        if not text:
            return True
        try:
            req = decode_request(text)
        except MessageError as exc:
            self._protocol_error(exc.id, _invalid_request_text(exc))
            return True
        except ProtocolDecodeError as exc:
            self._protocol_error(None, f"not a request: {exc}")
            return True
        return self.handle_request(req)

    def handle_request(self, req: Request) -> bool:
        """Dispatch one decoded request; False for `shutdown`."""
        if isinstance(req, Run):
            self.handle_run(req)
        elif isinstance(req, Fetch):
            self.handle_fetch(req)
        elif isinstance(req, CheckGradient):
            self.handle_check_gradient(req)
        elif isinstance(req, Ping):
            self.channel.send(Pong(id=req.id))
        elif isinstance(req, Shutdown):
            return False
        # (InputReply: a reply that came after its run ended, console_input.py)
        return True

    def _protocol_error(self, rid, message: str) -> None:
        self.channel.send(ProtocolErrorMessage(id=rid if isinstance(rid, int) else None, message=message))

    def handle_run(self, req: Run) -> None:
        rid, source, filename, device = req.id, req.source, req.filename, req.device
        steps, no_checkpoint, values = req.steps, req.no_checkpoint, req.values

        # Drop the previous run (its namespace and graphs) before starting anew
        # (a run in its own process has none).
        if self.last_run is not None:
            self.last_run = None
            gc.collect()
        from autogradviz.engine.worker.working_folder import WorkingFolder

        folder = WorkingFolder(filename)  # the script's folder, or home for unsaved text
        self.last_script = (source, filename, _rng_snapshot())
        # (pid: the process the script runs in, a fork of the worker: zygote.py)
        self.channel.send(Started(id=rid, cwd=folder.folder, pid=os.getpid()))
        t0 = time.perf_counter()

        from autogradviz.engine.worker.runner import device_error

        unusable = device_error(device) if device == "cuda" and not self.cuda_available else None
        if unusable is not None:  # the one source of this error: the runner's
            refused = Trace(script=filename, device=device, torch_version=self.torch.__version__)
            refused.error = unusable
            refused.duration_s = time.perf_counter() - t0
            self.send_trace(rid, refused)
            return

        pump = OutputPump(self.channel, rid)
        from autogradviz.engine.worker.console_input import ConsoleInput

        fds = self.output_fds

        def flush_output():  # (the prompt input() wrote, read from fd 1 first)
            if fds is not None:
                fds.sync()
            pump.flush()
        console = ConsoleInput(rid, self.channel.send, self.reader, flush_output)  # input() asks the client
        self.last_script_io = {"device": device, "inputs": console.answers}
        trace = None
        # As `cd FOLDER && python SCRIPT.py` would (the way the app runs a
        # script: in its folder): argv[0] is the file's name alone, and a
        # script on disk can import the modules next to it.
        saved_argv, saved_path = sys.argv, list(sys.path)
        sys.argv = [os.path.basename(filename) if os.path.isfile(filename) else filename]
        folder.__enter__()
        saved_stdin, sys.stdin = sys.stdin, console
        try:
            from autogradviz.engine.worker.runner import run_script

            extra = {}
            if _accepts(run_script, "on_progress"):
                extra["on_progress"] = self._progress_sender(rid)
            if no_checkpoint:
                extra["no_checkpoint"] = True
            if not values:
                extra["record_values"] = False
            if fds is not None:
                extra["output_fds"] = fds
            if self.at_end is not None:
                extra["at_end"] = self.at_end
            # (the trace is sent and then forgotten: its floats short from the start)
            extra["shorten_floats"] = True
            result = run_script(source, filename=folder.script, device=device,
                                on_output=console.watching(pump.write),
                                record_steps=steps, **extra)
            self.last_run = result
            trace = result.trace
        except BaseException as exc:  # a bug of ours; the script's errors never land here
            if isinstance(exc, KeyboardInterrupt):
                raise
            trace = Trace(script=filename, device=device, torch_version=self.torch.__version__)
            trace.error = ErrorInfo(
                type="InternalError",
                message=f"the visualizer failed while running the script: {type(exc).__name__}: {exc}",
                explanation="This is a bug in Autograd Visualizer, not in your script.",
                traceback=traceback.format_exc(),
            )
        finally:
            pump.close()
            folder.__exit__(None, None, None)
            sys.stdin = saved_stdin
            sys.argv = saved_argv
            sys.path[:] = saved_path
        if trace.duration_s is None:
            trace.duration_s = time.perf_counter() - t0
        _attach_torch_formulas(trace)
        if not trace.device:
            trace.device = device
        trace.source = source  # (a saved trace shows the code it came from)
        trace.script = filename  # as asked (the run itself used the absolute path)
        if pump.truncated:
            # Tell the reader how much was printed in all, now that we know.
            self.channel.send(Output(id=rid, stream="stderr", text=f"[{pump.total:,} characters printed in all]\n"))
            trace.add_note("output_capped", f"The script printed {pump.total:,} characters; only the "
                           f"first {OUTPUT_CAP:,} are kept.", total=pump.total, cap=OUTPUT_CAP)
        trace.stdout = cap_text(trace.stdout or "", pump.total)
        trace.stderr = cap_text(trace.stderr or "", pump.total)
        self.send_trace(rid, trace, req.trace_file)

    def _progress_sender(self, rid):
        """The runner's on_progress(code, params): a `progress` message, e.g.
        code "summarising" with params {"nodes": 10000}. Never raises (it is
        called from inside the recording)."""
        def on_progress(code: str, params: Optional[dict] = None) -> None:
            try:
                self.channel.send(Progress(id=rid, code=str(code), params=dict(params or {})))
            except Exception:
                pass
        return on_progress

    def send_trace(self, rid, trace: Trace, to_file: Optional[str] = None) -> None:
        """Send the run's trace; `to_file` (Run.trace_file): write its bytes
        there and send its outline (trace_file_out.py), or, when that
        cannot be done, send it whole."""
        nodes = sum(len(g.nodes) for g in trace.graphs)
        if nodes >= PROGRESS_MIN_NODES:
            self._progress_sender(rid)("encoding", {"nodes": nodes})
        sent = False
        try:
            # Left in its file form (shortened floats, references): nothing
            # here reads a sent trace again (fetch and check_gradient read
            # the run's TensorStore), and the run forgets it below.
            with codec.encoding(trace, put_back=False) as data:
                if to_file is not None and write_trace_file(to_file, data):
                    self.channel.send_line(trace_message(rid, codec.encode_outline(trace), len(data) + 1))
                else:
                    self.channel.send_line(*trace_message_parts(rid, data))
                sent = True
            if self.last_run is not None and self.last_run.trace is trace:
                self.last_run.trace = None
            return
        except Exception as exc:
            if sent:
                raise
            data = codec.encode_trace(Trace(
                script=trace.script, device=trace.device, torch_version=trace.torch_version,
                error=ErrorInfo(type="InternalError", message=f"the trace could not be serialised: {exc}")))
        self.channel.send_line(trace_message(rid, data))

    def _numel(self, tensor_id: str) -> Optional[int]:
        store = getattr(self.last_run, "_store", None)
        try:
            t = store.get(tensor_id) if store is not None else None
            return int(t.numel()) if t is not None else None
        except Exception:
            return None

    def handle_check_gradient(self, req: CheckGradient) -> None:
        """Finite differences for one leaf (engine/worker/finite_diff.py)."""
        import msgspec

        from autogradviz.engine.protocol.messages import as_dict
        from autogradviz.engine.worker.finite_diff import handle_request

        source, filename, rng = self.last_script
        rid = req.id
        progress = self._progress_sender(rid)
        from autogradviz.engine.worker.working_folder import WorkingFolder

        with WorkingFolder(filename):  # the re-run sees the files the run saw
            reply = handle_request(as_dict(req), self.last_run, source, filename, rng,
                                   on_progress=lambda done, total: progress(
                                       "finite_differences", {"done": done, "total": total}),
                                   device=self.last_script_io.get("device", "cpu"),
                                   inputs=tuple(self.last_script_io.get("inputs", ())))
        try:
            message = msgspec.convert(reply, GradientCheck)
        except msgspec.ValidationError as exc:  # a bug of ours: said, never a broken line
            message = GradientCheck(id=rid, leaf=req.leaf, run=req.run, error="failed",
                                    message=f"the reply did not fit the protocol: {exc}")
        self.channel.send(message)

    def handle_fetch(self, req: Fetch) -> None:
        rid, tensor_id = req.id, req.tensor
        summary = None
        error: Optional[str] = None
        if self.last_run is None:
            error = "no run to fetch from (the last run was dropped or none has finished)"
        else:
            limit = req.max_values
            numel = self._numel(tensor_id)
            if numel is not None and numel > limit:
                error = (f"tensor {tensor_id!r} has {numel:,} elements, more than the {limit:,} "
                         "that can be fetched at once")
        if error is None:
            try:
                s = self.last_run.fetch(tensor_id)
                if s is None:
                    error = f"no tensor {tensor_id!r} in the last run"
                else:
                    summary = s
            except Exception as exc:
                error = f"could not read tensor {tensor_id!r}: {type(exc).__name__}: {exc}"
        self.channel.send(Values(id=rid, tensor=tensor_id, summary=summary, error=error))


def _invalid_request_text(exc: MessageError) -> str:
    """The protocol_error text of a request that does not fit."""
    if exc.field == "type" and exc.kind is not None:
        return f"unknown request type {exc.kind!r}"
    return f"invalid request: {exc}"


def _rng_snapshot():
    """The random state a run starts from, so a gradient check can run it again alike."""
    try:
        from autogradviz.engine.worker.finite_diff import rng_snapshot

        return rng_snapshot()
    except Exception:
        return None


def _attach_torch_formulas(trace: Trace) -> None:
    """torch's formula for every op in the trace, from its derivatives.yaml (never fails a run)."""
    try:
        from autogradviz.engine.worker.derivatives_yaml import attach

        attach(trace)
    except Exception:
        trace.torch_formulas_missing = "unreadable"


def _accepts(func, name: str) -> bool:
    """`func` takes keyword `name` (the runner gains arguments over time)."""
    try:
        params = inspect.signature(func).parameters
    except (TypeError, ValueError):
        return False
    return name in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


def _watch_parent(interval: float = 0.5) -> None:
    """Exit when the process that started us is gone (killed GUI or CLI), even
    while a script is stuck in a loop: the pipes alone would only tell us once
    the script returns to reading requests."""
    parent = os.getppid()
    if parent <= 1:
        return

    def watch():
        while True:
            time.sleep(interval)
            if os.getppid() != parent:
                _end_group()
                os._exit(0)

    threading.Thread(target=watch, name="autogradviz-parent-watch", daemon=True).start()


def _lead_group():
    """Lead our own process group (the script's processes join it); on
    SIGTERM (Stop) end the whole group, ourselves included."""
    from autogradviz.engine.protocol.process_group import lead_own_group

    pgid = lead_own_group()
    if pgid is not None and hasattr(signal, "SIGTERM"):
        me = os.getpid()

        def on_term(signum, frame):
            if os.getpid() != me:  # a fork of ours (the script's): SIGTERM as under python
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                os.kill(os.getpid(), signal.SIGTERM)
                return
            _end_group()
            os._exit(1)
        on_term.autogradviz_worker = True  # (child_exit: a fork's own default, in effect)
        try:
            signal.signal(signal.SIGTERM, on_term)
        except (ValueError, OSError):
            pass
    return pgid


def _end_group() -> None:
    """SIGKILL the script's processes (our group, when we lead it). Where
    /proc cannot list them, the whole group goes, ourselves included."""
    if not hasattr(os, "killpg") or os.getpgid(0) != os.getpid():
        return
    if not os.path.isdir("/proc"):
        os.killpg(os.getpid(), signal.SIGKILL)
    for pid in _group_members():
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def _group_members() -> list:
    """Other live processes of our group (Linux /proc; empty elsewhere)."""
    me = os.getpid()
    found: list = []
    try:
        names = os.listdir("/proc")
    except OSError:
        return found
    for name in names:
        if name.isdigit() and int(name) != me:
            try:
                if os.getpgid(int(name)) == me:
                    found.append(int(name))
            except OSError:
                pass
    return found


def main(proto_fds=None) -> int:
    if proto_fds is None:
        proto_fds = move_std_fds()
    proto_in, proto_out = proto_fds
    # A segfault prints the Python stack (with the user's line) on stderr.
    # On SIGUSR1 (sent by the client just before it stops a run that timed
    # out) the stacks are dumped too, so the message can name the line.
    try:
        faulthandler.enable(file=sys.__stderr__, all_threads=True)  # type: ignore[arg-type]  # (a worker has one; a failure is caught)
        if hasattr(signal, "SIGUSR1"):
            faulthandler.register(signal.SIGUSR1, file=sys.__stderr__, all_threads=True)  # type: ignore[arg-type]
    except Exception:
        pass
    pgid = _lead_group()
    channel = Channel(proto_out)
    worker = Worker(channel)
    worker.pgid = pgid
    # Every run is a fork of this process, as fresh as `python script.py`
    # (zygote.py): torch and the engine imported once, CUDA never initialised here.
    # Without fork (Windows), or with IN_PROCESS_ENV set (benchmarks/bench_run_start.py
    # measures the two side by side), every run runs in this one process.
    in_process = os.environ.pop(IN_PROCESS_ENV, None) == "1" or not hasattr(os, "fork")
    from autogradviz.engine.worker import warm_imports

    warm_imports.take_settings()
    if not in_process:
        from autogradviz.engine.worker.zygote import Zygote, cuda_info, preload

        worker.start(cuda_info=cuda_info)
        preload()
        Zygote(worker, proto_in).serve()  # (exits the process: shutdown, end of input)
        os._exit(0)
    _watch_parent()
    worker.start()
    reader = os.fdopen(proto_in, "rb", buffering=1 << 16)
    worker.reader = reader
    for line in reader:
        if not worker.handle_line(line):
            break
    # Don't wait on threads a script may have left running.
    try:
        sys.stderr.flush()
    except Exception:
        pass
    os._exit(0)

