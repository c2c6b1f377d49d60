"""The GUI's side of the worker: a QProcess speaking docs/worker-protocol.md.

User code never runs in the GUI process. The worker (`python -m
autogradviz.engine.worker`) imports torch once and then waits ("warm"), so Run
answers fast. Everything here is asynchronous (QProcess signals); the only
potentially slow step, decoding a trace (engine/protocol/messages.py, the
framing both clients share), runs on a private QThread so the GUI never blocks.

Lifecycle rules (from the issue):
- a second Run cancels the first: the busy worker is killed and a fresh one
  started; the new run is sent as soon as it is ready;
- Stop terminates, then kills after a grace period, then starts a fresh worker;
- a worker that exits on its own is reported (`crashed`) and replaced;
- a run longer than `timeout_s` is stopped and reported (`timedOut`, with
  the line it was running: asked of the worker as the CLI does, see
  `_on_timeout`).
"""

from __future__ import annotations

import os
import signal
import sys
from typing import Optional

from PySide6.QtCore import (QCoreApplication, QElapsedTimer, QObject, QProcess,
                            QProcessEnvironment, Qt, QThread, QTimer, Signal, Slot)

from autogradviz.engine.protocol.interpreter import worker_environment
from autogradviz.engine.protocol.messages import (
    DUMP_WAIT_S, STDERR_TAIL_BYTES, ProtocolDecodeError, ProtocolVersionError, check_ready,
    decode_message, encode_message, line_from_dump)
from autogradviz.engine.protocol.process_group import kill_group
from autogradviz.engine.trace import replay
from autogradviz.engine.trace.model import TensorSummary, Trace, gc_paused

STARTING = "starting"
READY = "ready"
RUNNING = "running"
CRASHED = "crashed"
STOPPED = "stopped"   # shut down (app closing)
FAILED = "failed"     # could not start repeatedly; Run retries

KILL_GRACE_MS = 700           # terminate -> kill
LARGE_LINE = 256 * 1024      # protocol lines longer than this are decoded off the GUI thread
MAX_START_FAILURES = 3       # consecutive crashes before a worker ever became ready
_TRACE_PREFIX = b'{"type":"trace"'  # encode_message puts `type` first


class _TraceParser(QObject):
    """Lives on a private QThread: decodes a trace line (or any large line) off
    the GUI thread and builds the stepper tables of the run shown first
    (~50 ms on a 10,000-step run), so the GUI does not stall when a big trace
    arrives. The GC stays paused throughout: a collection here would hold the
    GIL over a million new objects. Requests and results travel as queued signals."""

    decoded = Signal(int, object, str)  # generation, message (trace as Trace) or None, error

    @Slot(int, object)
    def decode(self, generation: int, line) -> None:
        try:
            with gc_paused():
                message = decode_message(bytes(line))
                if message.get("type") == "trace":
                    replay.prepare(message["trace"])
            self.decoded.emit(generation, message, "")
        except Exception as exc:  # a malformed trace must not kill the GUI
            self.decoded.emit(generation, None, f"{type(exc).__name__}: {exc}")


class WorkerProcess(QObject):
    """One warm worker process at a time; see the module docstring."""

    stateChanged = Signal(str)
    readyInfo = Signal(dict)             # the worker's `ready` message
    runStarted = Signal(int)             # run id (the worker said `started`)
    workingFolder = Signal(str)          # the folder the run started in (`started`'s cwd)
    # The script waits in input() (the prompt it printed); answer with send_input.
    # The run timeout is paused meanwhile: a learner thinking is not a hung script.
    inputRequested = Signal(str)
    outputReceived = Signal(str, str)    # stream, text
    # A long capture or finalize: code ("summarising", "encoding", ...) and
    # params ({"nodes": 10000}) for the app to turn into tr() text.
    progress = Signal(str, dict)
    traceReady = Signal(object)          # Trace
    traceFailed = Signal(str)            # the trace could not be read
    crashed = Signal(str)                # the worker died on its own (message)
    # Seconds the run had been going, and the line of the script it was
    # running when stopped (int, from the worker's faulthandler dump), or None.
    timedOut = Signal(float, object)
    runStopped = Signal()                # Stop ended a run
    runCancelled = Signal()              # a second Run replaced a busy one
    valuesArrived = Signal(str, object, object)  # tensor id, TensorSummary|None, error|None
    gradientChecked = Signal(dict)  # a `gradient_check` reply (or one made up: error "failed")
    _decode_requested = Signal(int, object)  # (generation, bytes) to the parser thread

    def __init__(self, parent: Optional[QObject] = None, program: Optional[str] = None,
                 arguments: Optional[list[str]] = None, timeout_s: float = 60.0):
        super().__init__(parent)
        self._program = program or sys.executable
        self._arguments = arguments or ["-u", "-m", "autogradviz.engine.worker"]
        self.timeout_s = float(timeout_s)
        self._proc: Optional[QProcess] = None
        self._state = STOPPED
        self._buffer = b""
        self._stderr_tail = b""
        self._next_id = 0
        self._current_run: Optional[int] = None
        self._run_filename = "<editor>"
        self._pending: Optional[dict] = None
        self._fetches: dict[int, str] = {}
        self._checks: dict[int, dict] = {}  # check_gradient requests waiting for their reply
        self._expected_exit: Optional[str] = None  # "stop", "cancel", "timeout", "shutdown"
        self._start_failures = 0
        self._closing = False
        self.info: dict = {}
        self._elapsed = QElapsedTimer()
        self._timeout_timer = QTimer(self)
        self._timeout_timer.setSingleShot(True)
        self._timeout_timer.timeout.connect(self._on_timeout)
        self._kill_timer = QTimer(self)
        self._kill_timer.setSingleShot(True)
        self._kill_timer.timeout.connect(self._kill_now)
        self._dump_timer = QTimer(self)  # at a timeout: wait for the worker's stack dump
        self._dump_timer.setSingleShot(True)
        self._dump_timer.timeout.connect(self._finish_timeout)
        self._timeout_seconds = 0.0
        self._input_left_ms: Optional[int] = None  # waiting for input: what was left of the timeout
        self._parse_thread = QThread(self)
        self._parse_thread.setObjectName("trace-parser")
        self._parser = _TraceParser()
        self._parser.moveToThread(self._parse_thread)
        self._decode_requested.connect(self._parser.decode, Qt.ConnectionType.QueuedConnection)
        self._parser.decoded.connect(self._on_decoded, Qt.ConnectionType.QueuedConnection)
        self._generation = 0     # bumped per worker process: stale results are dropped
        self._decoding = False   # a line is being decoded on the parser thread; later lines wait
        self.large_lines_decoded = 0  # for tests and benchmarks
        self._parse_thread.finished.connect(self._parser.deleteLater)
        app = QCoreApplication.instance()
        if app is not None:  # never leave a running QThread behind at exit
            app.aboutToQuit.connect(self._stop_parser)

    # -- public API --------------------------------------------------------------
    @property
    def state(self) -> str:
        return self._state

    @property
    def cuda_available(self) -> bool:
        return bool(self.info.get("cuda_available"))

    def is_busy(self) -> bool:
        return self._state == RUNNING or (self._state == STARTING and self._pending is not None)

    def running_seconds(self) -> float:
        """Seconds the current run has been going (0 when idle)."""
        if self._current_run is None and self._pending is None:
            return 0.0
        return self._elapsed.elapsed() / 1000.0 if self._elapsed.isValid() else 0.0

    def pid(self) -> Optional[int]:
        if self._proc is not None and self._proc.state() != QProcess.ProcessState.NotRunning:
            return int(self._proc.processId())
        return None

    def start(self) -> None:
        """Start a fresh worker (no-op if one is alive)."""
        if self._closing:
            return
        if self._proc is not None and self._proc.state() != QProcess.ProcessState.NotRunning:
            return
        proc = QProcess(self)
        env = QProcessEnvironment.systemEnvironment()
        env.insert("PYTHONUNBUFFERED", "1")
        env.insert("PYTHONIOENCODING", "utf-8")
        # another interpreter (Preferences) finds this app's engine on PYTHONPATH
        base = {"PYTHONPATH": env.value("PYTHONPATH")} if env.contains("PYTHONPATH") else {}
        for key, value in worker_environment(self._program, base).items():
            env.insert(key, value)
        proc.setProcessEnvironment(env)
        proc.setProgram(self._program)
        proc.setArguments(self._arguments)
        proc.readyReadStandardOutput.connect(self._on_stdout)
        proc.readyReadStandardError.connect(self._on_stderr)
        # Bound methods (not lambdas holding `proc`/`self`): Qt drops these
        # connections by itself when either side is destroyed.
        proc.finished.connect(self._on_proc_finished)
        proc.errorOccurred.connect(self._on_proc_error)
        self._proc = proc
        self._generation += 1
        self._decoding = False
        self._buffer = b""
        self._stderr_tail = b""
        self.info = {}
        self._expected_exit = None
        self._set_state(STARTING)
        proc.start()

    @property
    def python(self) -> str:
        """The interpreter that runs the worker (and so the learner's scripts)."""
        return self._program

    def set_python(self, python: Optional[str]) -> None:
        """Run scripts with `python` (None: this app's own interpreter). A live
        worker is replaced now by one in that interpreter (a run going is stopped)."""
        program = python or sys.executable
        if program == self._program:
            return
        self._program = program
        self.info = {}
        if self._proc is not None and self._proc.state() != QProcess.ProcessState.NotRunning:
            if self._state == RUNNING:
                self.stop()  # reported as stopped; a fresh worker follows, in `program`
            else:
                self._replace()
        elif self._state in (CRASHED, FAILED):
            self._start_failures = 0
            self.start()

    def restart(self) -> None:
        """A fresh worker now, unless a run is going (e.g. after pip installed a
        package: the warm worker's import system has the old listing cached)."""
        if self._state != RUNNING and self._proc is not None and self._proc.state() != QProcess.ProcessState.NotRunning:
            self._replace()

    def _replace(self) -> None:
        """End the idle worker; a fresh one starts when it is gone. Until then
        the state is STARTING, so a Run waits for the fresh one."""
        self._end_process("cancel")
        self._set_state(STARTING)

    def run(self, source: str, filename: str = "<editor>", device: str = "cpu",
            no_checkpoint: bool = False) -> None:
        """Run `source` in the worker. A run already going is cancelled first.
        no_checkpoint: checkpoint(fn, ...) runs as fn(...) (docs/worker-protocol.md)."""
        request = {"type": "run", "source": source, "filename": filename, "device": device}
        if no_checkpoint:
            request["no_checkpoint"] = True
        self._elapsed.start()
        if self._state == READY and self._proc is not None:
            self._send_run(request)
            return
        self._pending = request
        if self._state == RUNNING:
            self._current_run = None
            self._fail_fetches("a new run replaced the values")
            self.runCancelled.emit()
            self._end_process("cancel")
        elif self._state in (CRASHED, FAILED, STOPPED):
            self._start_failures = 0
            self.start()
        # STARTING: the request is sent when `ready` arrives.

    def stop(self) -> bool:
        """Stop the current run (terminate, then kill). Returns False when idle."""
        if self._state == STARTING and self._pending is not None:
            self._pending = None
            self._current_run = None
            self.runStopped.emit()
            self._set_state(STARTING)
            return True
        if self._state != RUNNING:
            return False
        self._current_run = None
        self._pending = None
        self._timeout_timer.stop()
        self._fail_fetches("the run was stopped")
        self._end_process("stop")
        return True

    def fetch(self, tensor_id: str) -> None:
        """Ask for a tensor's full values; answered by `valuesArrived`."""
        if self._state != READY or self._proc is None:
            why = "the worker is busy" if self._state == RUNNING else "the worker is not available"
            QTimer.singleShot(0, lambda: self.valuesArrived.emit(tensor_id, None, why))
            return
        self._next_id += 1
        self._fetches[self._next_id] = tensor_id
        self._write({"type": "fetch", "id": self._next_id, "tensor": tensor_id})

    def waiting_for_input(self) -> bool:
        return self._input_left_ms is not None

    def send_input(self, text: Optional[str]) -> None:
        """Answer the script's input(): a line (without newline), or None for
        end of input (the script gets EOFError). The run timeout resumes."""
        if self._input_left_ms is None or self._current_run is None or self._state != RUNNING:
            return
        left, self._input_left_ms = self._input_left_ms, None
        reply = {"eof": True} if text is None else {"text": str(text)}
        self._write({"type": "input_reply", "id": self._current_run, **reply})
        if self.timeout_s > 0:
            self._timeout_timer.start(max(left, 1))

    def check_gradient(self, request: dict) -> None:
        """Ask for finite differences (docs/worker-protocol.md); answered by `gradientChecked`."""
        if self._state != READY or self._proc is None:
            why = "the worker is busy" if self._state == RUNNING else "the worker is not available"
            QTimer.singleShot(0, lambda: self.gradientChecked.emit({**request, "error": "failed", "message": why}))
            return
        self._next_id += 1
        self._checks[self._next_id] = dict(request)
        self._write({"type": "check_gradient", "id": self._next_id, **request})

    def ping(self) -> None:
        if self._proc is not None and self._state in (READY, RUNNING):
            self._next_id += 1
            self._write({"type": "ping", "id": self._next_id})

    def shutdown(self, wait_ms: int = 2000) -> None:
        """Stop the worker for good (app closing). Blocks at most about `wait_ms`."""
        self._closing = True
        self._pending = None
        self._current_run = None
        self._timeout_timer.stop()
        self._kill_timer.stop()
        self._dump_timer.stop()
        proc = self._proc
        if proc is not None and proc.state() != QProcess.ProcessState.NotRunning:
            self._expected_exit = "shutdown"
            if self._state == READY:
                self._write({"type": "shutdown"})
                proc.closeWriteChannel()
                if not proc.waitForFinished(min(wait_ms, 1500)):
                    proc.kill()
                    proc.waitForFinished(1000)
            else:
                proc.kill()
                proc.waitForFinished(1000)
            kill_group(proc.property("agv_pgid"))
        self._stop_parser(wait_ms)
        self._set_state(STOPPED)

    def _stop_parser(self, wait_ms: int = 2000) -> None:
        if self._parse_thread is not None and self._parse_thread.isRunning():
            self._parse_thread.quit()
            self._parse_thread.wait(wait_ms)

    # -- internals ---------------------------------------------------------------
    def _set_state(self, state: str) -> None:
        if state != self._state:
            self._state = state
            self.stateChanged.emit(state)

    def _write(self, message: dict) -> None:
        if self._proc is None or self._proc.state() == QProcess.ProcessState.NotRunning:
            return
        self._proc.write(encode_message(message))

    def _send_run(self, request: dict) -> None:
        self._input_left_ms = None
        self._next_id += 1
        self._current_run = self._next_id
        self._pending = None
        self._fail_fetches("a new run replaced the values")
        self._elapsed.start()  # the run's own time (not the wait for a fresh worker)
        self._run_filename = request.get("filename") or "<editor>"
        self._write(dict(request, id=self._next_id))
        self._set_state(RUNNING)
        if self.timeout_s > 0:
            self._timeout_timer.start(int(self.timeout_s * 1000))

    def _fail_fetches(self, why: str) -> None:
        pending, self._fetches = self._fetches, {}
        for tensor_id in pending.values():
            self.valuesArrived.emit(tensor_id, None, why)
        checks, self._checks = self._checks, {}
        for req in checks.values():
            self.gradientChecked.emit({**req, "error": "failed", "message": why})

    def _end_process(self, reason: str) -> None:
        """Terminate the current worker, kill it if needed; a fresh one follows."""
        self._input_left_ms = None
        proc = self._proc
        if proc is None or proc.state() == QProcess.ProcessState.NotRunning:
            self._restart_after(reason)
            return
        self._expected_exit = reason
        proc.terminate()
        self._kill_timer.start(KILL_GRACE_MS)

    def _kill_now(self) -> None:
        if self._proc is not None and self._proc.state() != QProcess.ProcessState.NotRunning:
            self._proc.kill()

    def _on_timeout(self) -> None:
        """Ask the worker where the script is, as the CLI does: SIGUSR1 makes
        its faulthandler dump every stack on stderr; DUMP_WAIT_S later
        (`_finish_timeout`) the dump names the line, then the worker is ended."""
        if self._state != RUNNING or self._proc is None:
            return
        self._timeout_seconds = self.running_seconds()
        self._current_run = None
        self._fail_fetches("the run timed out")
        pid = self.pid()
        if pid is not None and hasattr(signal, "SIGUSR1"):
            try:
                os.kill(pid, signal.SIGUSR1)
            except OSError:
                pass
        self._dump_timer.start(int(DUMP_WAIT_S * 1000))

    def _finish_timeout(self) -> None:
        if self._state != RUNNING or self._expected_exit is not None or self._proc is None:
            return  # Stop, a new Run or an exit came first
        self._read_stderr(self._proc)
        line = line_from_dump(self._stderr_tail.decode("utf-8", "replace"), self._run_filename)
        self.timedOut.emit(self._timeout_seconds, line)
        self._end_process("timeout")

    def _on_stdout(self) -> None:
        proc = self.sender()
        if proc is not self._proc:
            return
        self._buffer += bytes(proc.readAllStandardOutput())
        self._drain()

    def _drain(self) -> None:
        """Handle complete lines in order. A large line (a big trace) is decoded on
        the parser thread; the lines after it wait until it is back."""
        while not self._decoding and b"\n" in self._buffer:
            line, self._buffer = self._buffer.split(b"\n", 1)
            line = line.strip()
            if not line:
                continue
            if len(line) > LARGE_LINE or line.startswith(_TRACE_PREFIX):
                self._decoding = True
                self._ensure_parser()
                self._decode_requested.emit(self._generation, line)
                return
            try:
                message = decode_message(line)
            except ProtocolDecodeError:
                # Not protocol: show it rather than lose it.
                self.outputReceived.emit("stderr", line.decode("utf-8", "replace") + "\n")
                continue
            except ValueError as exc:  # a `values` summary that does not fit
                message = {"type": "values", "id": None, "summary": None, "error": str(exc)}
            self._handle(message)

    def _on_decoded(self, generation: int, message, error: str) -> None:
        if generation != self._generation or self._closing:
            return
        self._decoding = False
        self.large_lines_decoded += 1
        if message is None:
            self._trace_failed(error)
        elif isinstance(message, dict):
            self._handle(message)
        self._drain()

    def _trace_failed(self, error: str) -> None:
        """An unreadable trace line ends the current run like a trace would."""
        if self._current_run is not None:
            self._current_run = None
            self._timeout_timer.stop()
            self._set_state(READY)
        self.traceFailed.emit(error)

    def _ensure_parser(self) -> None:
        if not self._parse_thread.isRunning():
            self._parse_thread.start()  # started on first use

    def _on_stderr(self) -> None:
        proc = self.sender()
        if proc is not self._proc:
            return
        self._read_stderr(proc)

    def _read_stderr(self, proc: QProcess) -> None:
        self._stderr_tail = (self._stderr_tail + bytes(proc.readAllStandardError()))[-STDERR_TAIL_BYTES:]

    def _handle(self, message: dict) -> None:  # noqa: C901 - over the cap before it was set; to be split (issue 22)
        kind = message.get("type")
        msg_id = message.get("id")
        if kind == "ready":
            try:
                check_ready(message)
            except ProtocolVersionError as exc:
                self._refuse(str(exc))
                return
            self.info = message
            if self._proc is not None:  # its group: the script's processes (process_group.py)
                self._proc.setProperty("agv_pgid", message.get("pgid"))
            self._start_failures = 0
            self._set_state(READY)
            self.readyInfo.emit(message)
            if self._pending is not None:
                self._send_run(self._pending)
        elif kind == "started":
            if msg_id == self._current_run:
                self.runStarted.emit(msg_id)
                if isinstance(message.get("cwd"), str):
                    self.workingFolder.emit(message["cwd"])
        elif kind == "output":
            if msg_id == self._current_run:
                self.outputReceived.emit(message.get("stream", "stdout"), message.get("text", ""))
        elif kind == "input_request":
            if msg_id == self._current_run and self._state == RUNNING:
                left = self._timeout_timer.remainingTime() if self._timeout_timer.isActive() else 0
                self._timeout_timer.stop()
                self._input_left_ms = max(left, 0)
                self.inputRequested.emit(str(message.get("prompt") or ""))
        elif kind == "progress":  # (of the run, or of a finite-differences check)
            if msg_id == self._current_run or msg_id in self._checks:
                params = message.get("params")
                self.progress.emit(str(message.get("code", "")), params if isinstance(params, dict) else {})
        elif kind == "trace":
            if msg_id == self._current_run:
                self._input_left_ms = None
                self._timeout_timer.stop()
                self._current_run = None
                self._set_state(READY)
                self._on_parsed(message["trace"])
        elif kind == "values":
            tensor_id = self._fetches.pop(msg_id, message.get("tensor", ""))
            summary = message.get("summary")
            error = message.get("error")
            if not isinstance(summary, TensorSummary):
                summary = None
            self.valuesArrived.emit(tensor_id, summary, error if summary is None else None)
        elif kind == "gradient_check":
            if self._checks.pop(msg_id, None) is not None:
                self.gradientChecked.emit(message)
        elif kind == "protocol_error":
            if msg_id in self._checks:
                self.gradientChecked.emit({**self._checks.pop(msg_id), "error": "failed",
                                           "message": message.get("message", "")})
            elif msg_id in self._fetches:
                self.valuesArrived.emit(self._fetches.pop(msg_id), None, message.get("message", ""))
            elif msg_id is not None and msg_id == self._current_run:
                self._current_run = None
                self._timeout_timer.stop()
                self._set_state(READY)
                self.traceFailed.emit(message.get("message", "protocol error"))

    def _on_parsed(self, trace: Trace) -> None:
        if self._closing or self._pending is not None:
            return  # closing, or a newer run is waiting for a fresh worker
        self.traceReady.emit(trace)

    def _refuse(self, message: str) -> None:
        """A worker of another protocol version: say so and do not restart it
        (it would only be refused again); Run tries once more."""
        self._pending = None
        self._current_run = None
        self._start_failures = MAX_START_FAILURES
        self._expected_exit = "refused"
        if self._proc is not None:
            self._proc.kill()
        self._set_state(FAILED)
        self.crashed.emit(message)

    def _on_proc_finished(self, code: int, status) -> None:
        proc = self.sender()
        if isinstance(proc, QProcess):
            self._on_finished(proc, code, status)

    def _on_proc_error(self, error) -> None:
        proc = self.sender()
        if isinstance(proc, QProcess):
            self._on_error(proc, error)

    def _on_error(self, proc: QProcess, error) -> None:
        if proc is not self._proc:
            return
        if error == QProcess.ProcessError.FailedToStart:
            self._proc = None
            self._start_failures += 1
            self._set_state(FAILED)
            self.crashed.emit(f"could not start {self._program}: {proc.errorString()}")

    def _on_finished(self, proc: QProcess, code: int, status) -> None:
        kill_group(proc.property("agv_pgid"))  # nothing the script started outlives its worker
        if proc is not self._proc:
            proc.deleteLater()
            return
        self._kill_timer.stop()
        self._timeout_timer.stop()
        # Drain anything left (a final trace may arrive just before exit).
        try:
            self._read_stderr(proc)
        except RuntimeError:
            pass
        reason = self._expected_exit
        self._proc = None
        proc.deleteLater()
        if self._closing or reason == "shutdown":
            self._set_state(STOPPED)
            return
        if reason == "refused":
            self._expected_exit = None
            return
        if reason in ("stop", "cancel", "timeout"):
            if reason == "stop":
                self.runStopped.emit()
            self._restart_after(reason)
            return
        # The worker died on its own.
        self._input_left_ms = None
        never_ready = not self.info
        self._current_run = None
        self._fail_fetches("the worker stopped")
        if status == QProcess.ExitStatus.CrashExit:
            how = "was killed by a signal (a segmentation fault, running out of memory, or killed from outside)"
        else:
            how = f"exited with code {code}"
        tail = self._stderr_tail.decode("utf-8", "replace").strip()
        message = how
        if tail:
            message += "\n" + "\n".join(tail.splitlines()[-8:])
        if never_ready:
            self._start_failures += 1
        giving_up = self._start_failures >= MAX_START_FAILURES
        self._set_state(FAILED if giving_up else CRASHED)
        self.crashed.emit(message)
        if giving_up:
            self._pending = None
            return
        QTimer.singleShot(0, self.start)

    def _restart_after(self, reason: str) -> None:
        self._expected_exit = None
        if not self._closing:
            self.start()
