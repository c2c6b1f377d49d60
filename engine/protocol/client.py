"""Talk to the worker process from a plain Python program (CLI, exporter, tests).

`WorkerClient` starts `python -m autogradviz.engine.worker` as a subprocess and
speaks docs/worker-protocol.md to it. The GUI has its own QProcess client; this
one blocks, with threads only to read the pipes, so that a hung or dead worker
can always be detected: every wait has a deadline, and a closed stdout means
the process died (reported with its exit code or signal, never a hang).

`trace_file` is the one code path behind `autogradviz trace` and
`autogradviz export`: it reads the file (with clear errors for everything that
is not a readable UTF-8 Python file), runs it and maps the outcome to exit
codes 0 (ran), 1 (script raised, timed out or killed the worker; the trace
still holds `error`) and 2 (unusable input or environment).
"""

from __future__ import annotations

import collections
import io
import os
import queue
import signal
import subprocess
import sys
import threading
import time
import tokenize
from dataclasses import dataclass
from typing import Any, Callable, Optional

from autogradviz.engine.protocol.client_core import (  # noqa: F401 - describe_exit: re-exported
    AskForLine, CancelTimer, ClientCore, Kill, ReportedExit, ReportedInputWanted, ReportedOutput,
    ReportedProgress, ReportedReady, ReportedRefused, ReportedStarted, RunEnded, Send, StartTimer, Terminate,
    describe_exit)
from autogradviz.engine.protocol.distributions import install_target
from autogradviz.engine.protocol.interpreter import pip_install_command
from autogradviz.engine.protocol.messages import (
    DEFAULT_RUN_TIMEOUT_S, KILL_GRACE_S, START_TIMEOUT_S, STDERR_TAIL_BYTES, CheckGradient, Fetch,
    GradientCheck, MessageError, Ping, Pong, ProtocolDecodeError, ProtocolErrorMessage, Ready, Run, Shutdown,
    Values, as_dict, decode_worker_message, encode_message)
from autogradviz.engine.protocol.process_group import kill_group
from autogradviz.engine.protocol.worker_config import WorkerConfig
from autogradviz.engine.trace.model import ErrorInfo, TensorSummary, Trace

OutputCallback = Callable[[str, str], None]
ProgressCallback = Callable[[str, dict], None]

DEFAULT_TIMEOUT = DEFAULT_RUN_TIMEOUT_S
START_TIMEOUT = START_TIMEOUT_S
# The buffer the worker's stdout is read through (see _read_stdout).
READ_BUFFER = 1 << 20
# Linux's fcntl to size a pipe (F_SETPIPE_SZ; not in Python's fcntl before 3.10 on every build)
_F_SETPIPE_SZ = 1031


def _widen_pipe(pipe) -> None:
    """The worker's stdout pipe holds READ_BUFFER bytes instead of 64 KB (Linux;
    an unprivileged process may go up to /proc/sys/fs/pipe-max-size, 1 MB by
    default): a 34 MB trace then crosses in 34 writes and reads, not 500 of
    each (0.065 s -> 0.03 s). Elsewhere, or when refused, the pipe stays."""
    if pipe is None or not sys.platform.startswith("linux"):
        return
    try:
        import fcntl

        fcntl.fcntl(pipe.fileno(), _F_SETPIPE_SZ, READ_BUFFER)
    except (OSError, ValueError, ImportError):
        pass


class WorkerError(Exception):
    """The worker could not be started or stopped answering outside a run."""


class FetchError(LookupError):
    """The worker could not provide a tensor's values (message says why)."""


@dataclass
class RunOutcome:
    """What happened to one run request.

    `trace` is always set: for a timeout or a crash it is made up here, with
    the output received so far and `error` describing what happened.
    status: "ok" (ran to the end), "error" (the script raised; trace.error),
    "timeout" (killed after the timeout) or "crashed" (the worker died).
    """

    trace: Trace
    status: str
    message: Optional[str] = None  # one line for the user when status != "ok"
    returncode: Optional[int] = None  # the dead worker's exit code (negative: signal)
    # The trace exactly as the worker encoded it (the trace file's bytes), when
    # the run asked for it (`keep_json`); None for made-up traces.
    trace_json: Optional[bytes] = None
    # The bytes the worker wrote to the run's `trace_file` (then `trace_json`
    # holds the outline only); None when it wrote none.
    written: Optional[int] = None


@dataclass
class TraceOutcome:
    trace: Optional[Trace]
    exit_code: int  # 0 ran, 1 raised/timeout/crash, 2 unusable input/environment
    message: Optional[str] = None
    # The trace file's bytes as the worker encoded them (with keep_json), so
    # that the CLI writes them without encoding the trace a second time.
    trace_json: Optional[bytes] = None
    # The file the worker wrote the whole trace file to (trace_file's
    # `write_to`, when it could): `trace_json` is then the outline only.
    written_to: Optional[str] = None


class WorkerClient:
    """A worker subprocess and the blocking protocol calls on it.

    The blocking adapter of the client core (client_core.py): it starts the
    process, reads its pipes on two threads, waits on the stdout queue until
    the core's earliest timer, and carries out what the core decides (send,
    ask for the running line, terminate, kill). A timeout or crash leaves the
    client without a process; the next `run` starts a fresh worker. Use as a
    context manager or call `close()`.
    """

    def __init__(self, python: Optional[str] = None, env: Optional[dict] = None,
                 start_timeout: float = START_TIMEOUT, config: Optional[WorkerConfig] = None,
                 process: Optional[subprocess.Popen] = None):
        """`process`: a worker already started with `config.spawn(...)` (the
        CLI starts it before importing this module: torch's import in the
        worker then overlaps the CLI's own); the first `start` takes it."""
        self.config = config if config is not None else WorkerConfig(python=python)
        self._spawned = process
        self._exit_requested = False  # `shutdown` sent to the running process
        self.env = env
        self.start_timeout = start_timeout
        self.ready_info: Optional[dict] = None  # the `ready` message as the wire's object
        self._core = ClientCore(kill_grace_s=KILL_GRACE_S)
        self._timers: dict[str, float] = {}  # the core's timers: name -> deadline (monotonic)
        self._proc: Optional[subprocess.Popen] = None
        self._queue: queue.Queue = queue.Queue()
        self._stderr_tail: collections.deque = collections.deque()
        self._stderr_len = 0
        self._stderr_lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._eof = False
        self._keep_trace_json = False  # read by the stdout thread: set per run
        self._trace_outline = False  # (likewise)
        # The process the last run's script ran in (`started`'s pid: each run
        # is a fork of the worker, engine/worker/zygote.py).
        self.run_pid: Optional[int] = None

    @property
    def python(self) -> str:
        return self.config.interpreter

    # -- lifecycle -------------------------------------------------------------
    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def pid(self) -> Optional[int]:
        return self._proc.pid if self._proc is not None else None

    def start(self) -> dict:
        """Start the worker (if not running) and wait for `ready`."""
        if self.alive and self.ready_info is not None:
            return self.ready_info
        self._discard()
        self._queue = queue.Queue()
        self._stderr_tail = collections.deque()
        self._stderr_len = 0
        self._eof = False
        self._timers = {}
        spawned, self._spawned = self._spawned, None
        try:
            self._proc = spawned or self.config.spawn(os.environ if self.env is None else self.env)
            self._exit_requested = False
        except OSError as exc:
            self._proc = None
            raise WorkerError(f"could not start the worker ({self.python}): {exc}") from exc
        proc = self._proc
        _widen_pipe(proc.stdout)
        self._threads = [
            threading.Thread(target=self._read_stdout, args=(proc, self._queue), daemon=True,
                             name="autogradviz-worker-stdout"),
            threading.Thread(target=self._read_stderr, args=(proc,), daemon=True,
                             name="autogradviz-worker-stderr"),
        ]
        for t in self._threads:
            t.start()
        self._core.process_started()
        deadline = time.monotonic() + self.start_timeout
        while True:
            try:
                msg = self._next(deadline)
            except queue.Empty:
                self._reap()
                raise WorkerError(f"the worker did not start within {self.start_timeout:g} s") from None
            if msg is None:
                for report in self._perform(self._core.process_exited(self._reap(), self.stderr_tail())):
                    if isinstance(report, ReportedExit):
                        raise WorkerError(report.message or "the worker exited during start-up")
                raise WorkerError("the worker exited during start-up")
            if not isinstance(msg, Ready):
                continue
            for report in self._perform(self._core.received(msg)):
                if isinstance(report, ReportedRefused):
                    self._reap()
                    raise WorkerError(report.message)
                if isinstance(report, ReportedReady):
                    self.ready_info = as_dict(report.info)
                    return self.ready_info

    def request_exit(self) -> None:
        """Ask the worker to exit (`shutdown`) without waiting: `close` then
        only waits for it (what the caller does meanwhile overlaps its end)."""
        proc = self._proc
        if proc is not None and proc.poll() is None and not self._exit_requested:
            self._exit_requested = True
            try:
                self._send(Shutdown())
            except WorkerError:
                pass

    def close(self, timeout: float = 3.0) -> None:
        """Ask the worker to exit; terminate, then kill, if it does not."""
        if self._spawned is not None:  # started for us, never used (the script was unreadable)
            self._proc, self._spawned = self._spawned, None
        proc = self._proc
        if proc is None:
            return
        if proc.poll() is None:
            self.request_exit()
            try:
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                pass
        self._reap()

    def __enter__(self) -> "WorkerClient":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):  # last resort: never leave a worker behind
        for proc in (getattr(self, "_proc", None), getattr(self, "_spawned", None)):
            try:
                if proc is not None and proc.poll() is None:
                    proc.kill()
                    proc.wait(timeout=1)
            except Exception:
                pass

    # -- requests -------------------------------------------------------------
    def ping(self, timeout: float = 10.0) -> bool:
        self.start()
        rid = self._core.next_id()
        self._send(Ping(id=rid))
        try:
            self._reply(rid, (Pong,), timeout)
        except FetchError:
            return False
        return True

    def send_raw(self, line: str) -> None:
        """Write one raw line to the worker (tests of protocol robustness)."""
        self.start()
        self._write((line.rstrip("\n") + "\n").encode("utf-8", "surrogatepass"))

    def next_message(self, timeout: float = 10.0) -> Optional[dict]:
        """The next message from the worker as the wire's object, or None on
        timeout/EOF (tests)."""
        try:
            msg = self._next(time.monotonic() + timeout)
        except queue.Empty:
            return None
        return as_dict(msg) if msg is not None and not isinstance(msg, MessageError) else None

    def run(self, source: str, filename: str = "<editor>", device: str = "cpu",
            timeout: Optional[float] = DEFAULT_TIMEOUT,
            on_output: Optional[OutputCallback] = None, steps: bool = True,
            on_progress: Optional[ProgressCallback] = None, keep_json: bool = False,
            on_input: Optional[Callable[[str], Optional[str]]] = None,
            no_checkpoint: bool = False, values: bool = True, outline: bool = False,
            trace_file: Optional[str] = None) -> RunOutcome:
        """Run `source` in the worker and wait for its trace.

        steps=False: the worker records graphs but no backward steps (smaller
        trace, less recording work; for drawing the plain graph).
        values=False: tensor summaries carry shape and dtype only and saved
        values are not read (the plain graph's picture: less work, no
        activations held beyond the script's own).

        on_output(stream, text) and on_progress(code, params) are called (in
        this thread) as the script prints and as the worker reports progress.
        keep_json: also return the trace's bytes as the worker sent them
        (`RunOutcome.trace_json`, the trace file's content).
        outline (with keep_json): `RunOutcome.trace` holds only the trace's
        top-level facts (output, error, notes; no graphs or runs), for a caller
        that writes the bytes and reports the end (`autogradviz trace`: a
        50,000-node trace then costs 0.1 s to read instead of 0.8 s).
        on_input(prompt): the line a waiting `input()` gets (without its
        newline), or None for end of input (EOFError); without it every
        `input()` gets end of input (a traced script has no console).
        no_checkpoint: checkpoint(fn, ...) runs as fn(...) (docs/worker-protocol.md).
        trace_file: an absolute path where no file is, for the worker to
        write the trace file to (Run.trace_file; `RunOutcome.written` says
        whether it did).
        Raises WorkerError only when no worker could be started.
        """
        self.start()
        request = Run(id=self._core.next_id(), source=source, filename=filename, device=device,  # type: ignore[arg-type]
                      steps=steps, values=values, no_checkpoint=no_checkpoint, trace_file=trace_file)
        self._keep_trace_json = keep_json
        self._trace_outline = outline
        pending = collections.deque(self._core.run(request, timeout))
        while True:
            if not pending:
                pending.extend(self._wait_event())
                continue
            report = self._perform_one(pending.popleft())
            if report is None:
                continue
            if isinstance(report, RunEnded):
                return self._outcome(report, filename)
            pending.extend(self._report(report, on_output, on_progress, on_input))

    def _report(self, report, on_output, on_progress, on_input) -> list:
        """Hand one report of the running run to the caller's callbacks;
        the core's answer (the input reply) when there is one."""
        if isinstance(report, ReportedStarted):
            self.run_pid = report.message.pid
        elif isinstance(report, ReportedOutput) and on_output is not None:
            on_output(report.stream, report.text)
        elif isinstance(report, ReportedProgress) and on_progress is not None:
            on_progress(report.code, report.params)
        elif isinstance(report, ReportedInputWanted):
            line = on_input(report.prompt) if on_input is not None else None
            return self._core.answer_input(line)
        return []

    def _wait_event(self) -> list:
        """Block until the next message, the end of stdout or the core's
        earliest timer; the core's actions for it."""
        deadline = min(self._timers.values()) if self._timers else None
        try:
            msg = self._next(deadline)
        except queue.Empty:
            name = min(self._timers, key=self._timers.__getitem__)
            del self._timers[name]
            return self._core.timer_fired(name)
        if msg is None:
            return self._core.process_exited(self._reap(), self.stderr_tail())
        if isinstance(msg, MessageError):
            return self._core.unreadable(msg)
        return self._core.received(msg)

    def _outcome(self, ended: RunEnded, filename: str) -> RunOutcome:
        if ended.status in ("ok", "error") and ended.trace.error is not None:
            message = describe_error(ended.trace.error, filename, self.python)
            return RunOutcome(ended.trace, "error", message, trace_json=ended.trace_json, written=ended.written)
        if ended.status in ("unreadable", "protocol_error"):
            return RunOutcome(ended.trace, "error", ended.message)
        return RunOutcome(ended.trace, ended.status, ended.message, ended.returncode, ended.trace_json,
                          ended.written)

    def _perform(self, actions: list) -> list:
        """Carry out the core's actions; the reports among them, in order."""
        return [r for r in map(self._perform_one, actions) if r is not None]

    def _perform_one(self, action):
        """Carry out one action of the core; a report is returned for the caller."""
        if isinstance(action, Send):
            try:
                self._send(action.message)
            except WorkerError:
                pass  # the process is gone; the end of stdout says how
        elif isinstance(action, StartTimer):
            self._timers[action.name] = time.monotonic() + action.seconds
        elif isinstance(action, CancelTimer):
            self._timers.pop(action.name, None)
        elif isinstance(action, (AskForLine, Terminate, Kill)):
            self._signal(action)
        else:
            return action
        return None

    def _signal(self, action) -> None:
        proc = self._proc
        if proc is None or proc.poll() is not None:
            return
        try:
            if isinstance(action, AskForLine):
                if hasattr(signal, "SIGUSR1"):
                    proc.send_signal(signal.SIGUSR1)
            elif isinstance(action, Terminate):
                proc.terminate()
            else:
                proc.kill()
        except OSError:
            pass

    def fetch(self, tensor_id: str, timeout: float = 60.0,
              max_values: Optional[int] = None) -> TensorSummary:
        """Full values of a tensor from the last run. Raises FetchError (also
        for tensors with more than `max_values` elements; default: the
        worker's limit, 4,000,000)."""
        if not self.alive:
            raise FetchError("no worker is running (the last run ended with a crash or timeout)")
        rid = self._core.next_id()
        try:
            if max_values is not None:
                self._send(Fetch(id=rid, tensor=tensor_id, max_values=int(max_values)))
            else:
                self._send(Fetch(id=rid, tensor=tensor_id))
        except WorkerError as exc:
            raise FetchError(str(exc)) from exc
        msg = self._reply(rid, (Values, ProtocolErrorMessage), timeout)
        if isinstance(msg, ProtocolErrorMessage):
            raise FetchError(msg.message or "protocol error")
        if msg.summary is None:
            raise FetchError(msg.error or f"no values for {tensor_id!r}")
        return msg.summary

    def _reply(self, rid: int, types: tuple, timeout: float):
        """The message of a class in `types` answering request `rid` (others are
        skipped); FetchError when the worker dies or does not answer in time."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                msg = self._next(deadline)
            except queue.Empty:
                raise FetchError(f"the worker did not answer within {timeout:g} s") from None
            if msg is None:
                raise FetchError(f"the worker died with {describe_exit(self._reap())}")
            if isinstance(msg, types) and getattr(msg, "id", None) == rid:
                return msg

    def check_gradient(self, leaf: str, run: int = 0, grad_tensor: Optional[str] = None,
                       timeout: float = 120.0) -> dict:
        """Finite differences for the leaf named `leaf` in backward run `run` of
        the last run: the worker's `gradient_check` reply as the wire's object
        (docs/worker-protocol.md). Raises FetchError when the worker does not answer."""
        if not self.alive:
            raise FetchError("no worker is running")
        rid = self._core.next_id()
        self._send(CheckGradient(id=rid, leaf=leaf, run=run, grad_tensor=grad_tensor))
        return as_dict(self._reply(rid, (GradientCheck, ProtocolErrorMessage), timeout))

    def stderr_tail(self) -> str:
        """The last bytes the worker wrote on stderr (native output, crash dumps)."""
        with self._stderr_lock:
            data = b"".join(self._stderr_tail)
        return data.decode("utf-8", "replace")

    # -- plumbing ----------------------------------------------------------------
    def _send(self, msg) -> None:
        self._write(encode_message(msg))

    def _write(self, data: bytes) -> None:
        proc = self._proc
        if proc is None or proc.stdin is None:
            raise WorkerError("the worker is not running")
        try:
            proc.stdin.write(data)
            proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError) as exc:
            raise WorkerError(f"the worker is not accepting requests: {exc}") from exc

    def _next(self, deadline: Optional[float]):
        """Next message (a typed message, or the MessageError of a trace that
        could not be read); None when the worker's stdout closed; raises
        queue.Empty when the deadline passes."""
        if self._eof:
            return None
        timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
        msg = self._queue.get(timeout=timeout)
        if msg is None:
            self._eof = True
        return msg

    def _read_stdout(self, proc: subprocess.Popen, q: queue.Queue) -> None:
        assert proc.stdout is not None  # (started with stdout=PIPE)
        msg: Any
        try:
            # Read in 1 MB pieces, not Popen's 8 KB: a 50,000-node trace is
            # one line of 34 MB (4,000 reads and their joins: 30 ms more).
            stdout = open(proc.stdout.fileno(), "rb", buffering=READ_BUFFER, closefd=False)
            for line in stdout:
                try:
                    msg = decode_worker_message(line, keep_trace_json=self._keep_trace_json,
                                                trace_outline=self._trace_outline)
                except MessageError as exc:
                    if exc.kind != "trace":
                        continue  # cannot happen with our worker; never trust it blindly
                    msg = exc  # the waiting run still gets its answer
                except ProtocolDecodeError:
                    continue
                q.put(msg)
        except (OSError, ValueError):
            pass
        finally:
            q.put(None)

    def _read_stderr(self, proc: subprocess.Popen) -> None:
        assert proc.stderr is not None  # (started with stderr=PIPE)
        try:
            while True:
                chunk = proc.stderr.read1(65536) if hasattr(proc.stderr, "read1") else proc.stderr.read(4096)
                if not chunk:
                    break
                with self._stderr_lock:
                    self._stderr_tail.append(chunk)
                    self._stderr_len += len(chunk)
                    while self._stderr_len > STDERR_TAIL_BYTES and len(self._stderr_tail) > 1:
                        self._stderr_len -= len(self._stderr_tail.popleft())
        except (OSError, ValueError):
            pass

    def _reap(self) -> Optional[int]:
        """Make sure the process is gone (terminate, then kill) and reaped."""
        proc = self._proc
        if proc is None:
            return None
        if proc.poll() is None:
            try:
                proc.terminate()
                proc.wait(timeout=KILL_GRACE_S)
            except subprocess.TimeoutExpired:
                proc.kill()
            except OSError:
                pass
        try:
            rc = proc.wait(timeout=5.0)
        except subprocess.TimeoutExpired:  # pragma: no cover - kill cannot be ignored
            rc = None
        kill_group((self.ready_info or {}).get("pgid"))  # what the script started (process_group.py)
        for t in self._threads:
            t.join(timeout=2.0)
        for f in (proc.stdin, proc.stdout, proc.stderr):
            try:
                if f is not None:
                    f.close()
            except OSError:
                pass
        self._proc = None
        self.ready_info = None
        self._timers = {}
        return rc

    def _discard(self) -> None:
        if self._proc is not None:
            self._reap()


def describe_error(error: ErrorInfo, filename: str, python: Optional[str] = None) -> str:
    """One line: `file, line N: Type: first line of the message`.

    A missing module of a run in `python` adds the install command, made here
    from the module name alone (never the trace's own `command` or
    `distribution`: a trace is data); without `python` (a saved trace) none."""
    first = (error.message or "").strip().splitlines()
    text = f"{error.type}: {first[0]}" if first else error.type
    where = f"{filename}, line {error.line}" if error.line else filename
    target = install_target((getattr(error, "params", None) or {}).get("module"))
    if getattr(error, "code", None) == "missing_module" and python and target:
        text += f"; install it into the worker's Python with: {pip_install_command(python, [target])}"
    return f"{where}: {text}"


def read_script(path: str) -> tuple[Optional[str], Optional[str]]:
    """(source, None) or (None, one-line error) for a script path.

    Honours a PEP 263 coding declaration; without one the file must be UTF-8
    (a BOM is fine).
    """
    if not os.path.exists(path):
        return None, f"{path}: no such file"
    if os.path.isdir(path):
        return None, f"{path}: is a directory, not a Python script"
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        return None, f"{path}: cannot read the file: {exc.strerror or exc}"
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:
        encoding = "utf-8"
    try:
        text = data.decode(encoding)
    except (UnicodeDecodeError, LookupError) as exc:
        if isinstance(exc, UnicodeDecodeError):
            return None, (f"{path}: not a UTF-8 text file (byte 0x{data[exc.start]:02x} at offset "
                          f"{exc.start}); save it as UTF-8")
        return None, f"{path}: unknown source encoding {encoding!r}"
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\x00" in text:
        return None, f"{path}: contains NUL bytes; not a Python source file"
    return text, None


class _sigint_ignored:
    """SIGINT ignored inside (in the main thread; elsewhere nothing changes)."""

    def __enter__(self):
        self._old = None
        if threading.current_thread() is threading.main_thread():
            try:
                self._old = signal.signal(signal.SIGINT, signal.SIG_IGN)
            except (ValueError, OSError):
                self._old = None

    def __exit__(self, *exc):
        if self._old is not None:
            signal.signal(signal.SIGINT, self._old)


def trace_file(path: str, device: str = "cpu", timeout: Optional[float] = DEFAULT_TIMEOUT,
               on_output: Optional[OutputCallback] = None,
               client: Optional[WorkerClient] = None, steps: bool = True,
               keep_json: bool = False, python: Optional[str] = None,
               on_input: Optional[Callable[[str], Optional[str]]] = None,
               no_checkpoint: bool = False, values: bool = True, outline: bool = False,
               process: Optional[subprocess.Popen] = None,
               on_outcome: Optional[Callable[[TraceOutcome], None]] = None,
               write_to: Optional[str] = None) -> TraceOutcome:
    """Run the script at `path` in a worker and return its trace and exit code.

    exit 0: the script ran to the end. 1: it raised, timed out or killed the
    worker (the trace holds `error`). 2: the file is missing, a directory,
    unreadable or not UTF-8, the device is unavailable, or no worker could be
    started. `message` is one line for stderr when exit_code != 0.
    Pass `client` to reuse a warm worker (it is left running); otherwise a
    worker is started and closed here, with `python` (default: this
    interpreter; see engine/protocol/interpreter.py for another one).
    outline (with keep_json): the outcome's trace has the top-level facts only
    (WorkerClient.run). `process` (without `client`): the worker, already
    started by worker_config.start_worker(python); ended here whatever happens.
    `on_outcome(outcome)`: called with the outcome once the run has ended
    and the worker was asked to exit, before waiting for it to be gone (the
    CLI writes the trace file meanwhile: the end of the run's process, which
    frees its memory, overlaps the write). `write_to`: an absolute path where
    no file is, for the worker to write the trace file to itself
    (`TraceOutcome.written_to` says whether it did: message_types.Run.trace_file).
    """
    own = client is None
    if client is None:
        client = WorkerClient(config=WorkerConfig(python=python, runs_once=True), process=process)
    elif process is not None:  # (a warm client runs it: the early worker is not needed)
        WorkerClient(process=process).close(timeout=0)
    source, problem = read_script(path)
    if source is None:
        if own:
            client.close(timeout=0)  # (an early worker that will not be used)
        return TraceOutcome(None, 2, problem)
    try:
        try:
            outcome = client.run(source, filename=path, device=device, timeout=timeout,
                                 on_output=on_output, steps=steps, keep_json=keep_json,
                                 on_input=on_input, no_checkpoint=no_checkpoint, values=values,
                                 outline=outline, trace_file=write_to)
        except WorkerError as exc:
            return TraceOutcome(None, 2, str(exc))
        except KeyboardInterrupt:
            # Ctrl+C: the worker (in a process group of its own, which the
            # terminal's SIGINT does not reach) and what the script started end
            # now - not after a `shutdown` it cannot answer mid-script.
            if own:
                with _sigint_ignored():  # (a second Ctrl+C must not cut this short)
                    client.close(timeout=0)
            raise
        result = _trace_outcome(outcome, path)
        if outcome.written is not None and write_to is not None:
            result.written_to = write_to
        if own:
            client.request_exit()
        if on_outcome is not None:
            on_outcome(result)
        return result
    finally:
        if own:
            client.close()


def _trace_outcome(outcome: RunOutcome, path: str) -> TraceOutcome:
    """trace_file's answer for a run that ended (exit code, one-line message)."""
    trace, raw = outcome.trace, outcome.trace_json
    if outcome.status == "ok":
        return TraceOutcome(trace, 0, None, raw)
    if trace.error is not None and trace.error.type == "CUDAUnavailable":
        return TraceOutcome(trace, 2, trace.error.message, raw)
    if outcome.status == "error":
        return TraceOutcome(trace, 1, outcome.message, raw)
    return TraceOutcome(trace, 1, f"{path}: {outcome.message}", raw)
