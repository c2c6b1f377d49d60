"""The GUI's side of the worker: a QProcess speaking docs/worker-protocol.md.

User code never runs in the GUI process. The worker (`python -m
autogradviz.engine.worker`) imports torch once and then waits ("warm"), so Run
answers fast. Everything here is asynchronous (QProcess signals); the only
potentially slow step, decoding a trace (engine/protocol/message_types.py,
the typed messages both clients share), runs on a private QThread so the GUI
never blocks.

This is the Qt adapter of the client core (engine/protocol/client_core.py):
the core decides what a run goes through (timeout -> ask for the running
line -> terminate -> kill, input() pausing the timeout, the crash text), this
class carries its actions out with QTimers and the QProcess and turns its
reports into signals. What is the GUI's own stays here:
- a second Run cancels the first: the busy worker is killed and a fresh one
  started; the new run is sent as soon as it is ready;
- Stop terminates, then kills after a grace period, then starts a fresh worker;
- a worker that exits on its own is reported (`crashed`) and replaced, up to
  MAX_START_FAILURES times in a row before it ever became ready;
- which interpreter runs the worker and the run timeout come from the
  `WorkerConfig` it is given (engine/protocol/worker_config.py), shared with
  every other worker the app starts.
"""

from __future__ import annotations

import os
import signal
from typing import Optional

from PySide6.QtCore import (QCoreApplication, QElapsedTimer, QObject, QProcess,
                            QProcessEnvironment, Qt, QThread, QTimer, Signal, Slot)

from autogradviz.engine.protocol import client_core as core
from autogradviz.engine.protocol.client_core import ClientCore, Phase
from autogradviz.engine.protocol.messages import (
    STDERR_TAIL_BYTES, CheckGradient, Fetch, GradientCheck, MessageError, Ping, Progress, ProtocolDecodeError,
    ProtocolErrorMessage, Run, Shutdown, TraceMessage, Values, as_dict, decode_worker_message, encode_message)
from autogradviz.engine.protocol.process_group import kill_group
from autogradviz.engine.protocol.worker_config import WorkerConfig
from autogradviz.engine.trace import replay
from autogradviz.engine.trace.model import Trace, gc_paused

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
_RUN_PHASES = (Phase.RUNNING, Phase.INPUT_WANTED, Phase.TIMED_OUT)


class _TraceParser(QObject):
    """Lives on a private QThread: decodes a trace line (or any large line) off
    the GUI thread and builds the stepper tables of the run shown first
    (~50 ms on a 10,000-step run), so the GUI does not stall when a big trace
    arrives. The GC stays paused throughout: a collection here would hold the
    GIL over a million new objects. Requests and results travel as queued signals."""

    decoded = Signal(int, object, str)  # generation, typed message or None, error

    @Slot(int, object)
    def decode(self, generation: int, line) -> None:
        try:
            with gc_paused():
                message = decode_worker_message(bytes(line))
                if isinstance(message, TraceMessage):
                    replay.prepare(message.trace)
            self.decoded.emit(generation, message, "")
        except Exception as exc:  # a malformed trace must not kill the GUI
            self.decoded.emit(generation, None, f"{type(exc).__name__}: {exc}")


class WorkerProcess(QObject):
    """One warm worker process at a time; see the module docstring."""

    stateChanged = Signal(str)
    readyInfo = Signal(dict)             # the worker's `ready` message (the wire's object)
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
                 arguments: Optional[list[str]] = None, timeout_s: Optional[float] = None,
                 config: Optional[WorkerConfig] = None):
        super().__init__(parent)
        if config is None:
            config = WorkerConfig(python=program, timeout_s=60.0 if timeout_s is None else timeout_s)
        self.config = config
        config.subscribe(self._on_config_changed)
        self._arguments = arguments  # (tests: another command line for the same interpreter)
        self._core = ClientCore(kill_grace_s=KILL_GRACE_MS / 1000)
        self._proc: Optional[QProcess] = None
        self._state = STOPPED
        self._buffer = b""
        self._stderr_tail = b""
        self._pending: Optional[dict] = None
        self._fetches: dict[int, str] = {}
        self._checks: dict[int, dict] = {}  # check_gradient requests waiting for their reply
        self._start_failures = 0
        self._closing = False
        self.info: dict = {}
        self._elapsed = QElapsedTimer()
        self._timers: dict[str, QTimer] = {}
        for name in (core.RUN_TIMER, core.DUMP_TIMER, core.KILL_TIMER):
            timer = QTimer(self)
            timer.setSingleShot(True)
            timer.timeout.connect(lambda name=name: self._apply(self._core.timer_fired(name)))
            self._timers[name] = timer
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
    def timeout_s(self) -> float:
        """The run timeout (the shared WorkerConfig's)."""
        return self.config.timeout_s

    @timeout_s.setter
    def timeout_s(self, seconds: float) -> None:
        self.config.timeout_s = seconds

    @property
    def cuda_available(self) -> bool:
        return bool(self.info.get("cuda_available"))

    def is_busy(self) -> bool:
        return self._state == RUNNING or (self._state == STARTING and self._pending is not None)

    def running_seconds(self) -> float:
        """Seconds the current run has been going (0 when idle)."""
        if self._core.run_id is None and self._pending is None:
            return 0.0
        return self._elapsed.elapsed() / 1000.0 if self._elapsed.isValid() else 0.0

    def pid(self) -> Optional[int]:
        if self._live():
            return int(self._proc.processId())  # type: ignore[union-attr]
        return None

    def _live(self) -> bool:
        return self._proc is not None and self._proc.state() != QProcess.ProcessState.NotRunning

    def start(self) -> None:
        """Start a fresh worker (no-op if one is alive)."""
        if self._closing or self._live():
            return
        proc = QProcess(self)
        env = QProcessEnvironment.systemEnvironment()
        # another interpreter (Preferences) finds this app's engine on PYTHONPATH
        base = {"PYTHONPATH": env.value("PYTHONPATH")} if env.contains("PYTHONPATH") else {}
        for key, value in self.config.environment(base).items():
            env.insert(key, value)
        proc.setProcessEnvironment(env)
        command = self.config.command()
        proc.setProgram(command[0])
        proc.setArguments(self._arguments if self._arguments is not None else command[1:])
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
        self._core.process_started()
        self._set_state(STARTING)
        proc.start()

    @property
    def python(self) -> str:
        """The interpreter that runs the worker (and so the learner's scripts)."""
        return self.config.interpreter

    def set_python(self, python: Optional[str]) -> None:
        """Run scripts with `python` (None: this app's own interpreter), in
        every worker sharing this one's WorkerConfig. A live worker is
        replaced now by one in that interpreter (a run going is stopped)."""
        self.config.python = python

    def _on_config_changed(self, _config: WorkerConfig, name: str) -> None:
        if name != "python" or self._closing:
            return
        try:
            self._interpreter_changed()
        except RuntimeError:  # this QObject was deleted without shutdown()
            _config.unsubscribe(self._on_config_changed)

    def _interpreter_changed(self) -> None:
        self.info = {}
        if self._live():
            if self._state == RUNNING:
                self.stop()  # reported as stopped; a fresh worker follows, in the new interpreter
            else:
                self._replace()
        elif self._state in (CRASHED, FAILED):
            self._start_failures = 0
            self.start()

    def restart(self) -> None:
        """A fresh worker now, unless a run is going (e.g. after pip installed a
        package: the warm worker's import system has the old listing cached)."""
        if self._state != RUNNING and self._live():
            self._replace()

    def _replace(self) -> None:
        """End the idle worker; a fresh one starts when it is gone. Until then
        the state is STARTING, so a Run waits for the fresh one."""
        self._end_process("replace")
        self._set_state(STARTING)

    def run(self, source: str, filename: str = "<editor>", device: Optional[str] = None,
            no_checkpoint: bool = False) -> None:
        """Run `source` in the worker (device None: the WorkerConfig's). A run
        already going is cancelled first. no_checkpoint: checkpoint(fn, ...)
        runs as fn(...) (docs/worker-protocol.md)."""
        request = {"source": source, "filename": filename or "<editor>",
                   "device": device or self.config.device, "no_checkpoint": no_checkpoint}
        self._elapsed.start()
        if self._state == READY and self._proc is not None:
            self._send_run(request)
            return
        self._pending = request
        if self._state == RUNNING:
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
            self.runStopped.emit()
            self._set_state(STARTING)
            return True
        if self._state != RUNNING or self._core.phase not in _RUN_PHASES:
            return False
        self._pending = None
        self._fail_fetches("the run was stopped")
        self._end_process("stop")
        return True

    def fetch(self, tensor_id: str) -> None:
        """Ask for a tensor's full values; answered by `valuesArrived`."""
        if self._state != READY or self._proc is None:
            why = "the worker is busy" if self._state == RUNNING else "the worker is not available"
            QTimer.singleShot(0, lambda: self.valuesArrived.emit(tensor_id, None, why))
            return
        rid = self._core.next_id()
        self._fetches[rid] = tensor_id
        self._write(Fetch(id=rid, tensor=tensor_id))

    def waiting_for_input(self) -> bool:
        return self._core.phase is Phase.INPUT_WANTED

    def send_input(self, text: Optional[str]) -> None:
        """Answer the script's input(): a line (without newline), or None for
        end of input (the script gets EOFError). The run timeout resumes."""
        self._apply(self._core.answer_input(text))

    def check_gradient(self, request: dict) -> None:
        """Ask for finite differences (docs/worker-protocol.md); answered by `gradientChecked`."""
        if self._state != READY or self._proc is None:
            why = "the worker is busy" if self._state == RUNNING else "the worker is not available"
            QTimer.singleShot(0, lambda: self.gradientChecked.emit({**request, "error": "failed", "message": why}))
            return
        rid = self._core.next_id()
        self._checks[rid] = dict(request)
        fields = {k: request[k] for k in ("leaf", "run", "grad_tensor", "max_elements") if k in request}
        try:
            message = CheckGradient(id=rid, **fields)
        except TypeError as exc:  # (a request of the app's own that does not fit: said, never sent)
            self._checks.pop(rid, None)
            self.gradientChecked.emit({**request, "error": "failed", "message": str(exc)})
            return
        self._write(message)

    def ping(self) -> None:
        if self._proc is not None and self._state in (READY, RUNNING):
            self._write(Ping(id=self._core.next_id()))

    def shutdown(self, wait_ms: int = 2000) -> None:
        """Stop the worker for good (app closing). Blocks at most about `wait_ms`."""
        self._closing = True
        self._pending = None
        self.config.unsubscribe(self._on_config_changed)
        for timer in self._timers.values():
            timer.stop()
        proc = self._proc
        if proc is not None and proc.state() != QProcess.ProcessState.NotRunning:
            idle = self._core.phase is Phase.READY
            self._core.shutdown()  # (its actions are done here, waiting: the app is closing)
            if idle:
                self._write(Shutdown())
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

    # -- the core's actions --------------------------------------------------------
    def _apply(self, actions: list) -> None:
        """Carry out what the client core decided; its reports become signals."""
        for action in actions:
            if isinstance(action, core.Send):
                self._write(action.message)
            elif isinstance(action, core.StartTimer):
                self._timers[action.name].start(max(1, int(action.seconds * 1000)))
            elif isinstance(action, core.CancelTimer):
                self._timers[action.name].stop()
            elif isinstance(action, core.AskForLine):
                self._ask_for_line()
            elif isinstance(action, core.Terminate):
                if self._live():
                    self._proc.terminate()  # type: ignore[union-attr]
            elif isinstance(action, core.Kill):
                if self._live():
                    self._proc.kill()  # type: ignore[union-attr]
            else:
                self._report(action)

    def _ask_for_line(self) -> None:
        """SIGUSR1: the worker's faulthandler dumps every stack (the running line) on stderr."""
        pid = self.pid()
        if pid is not None and hasattr(signal, "SIGUSR1"):
            try:
                os.kill(pid, signal.SIGUSR1)
            except OSError:
                pass

    def _report(self, report) -> None:  # noqa: C901 - one branch per report of the core
        if isinstance(report, core.ReportedReady):
            self._on_ready(report.info)
        elif isinstance(report, core.ReportedRefused):
            self._refuse(report.message)
        elif isinstance(report, core.ReportedStarted):
            self.runStarted.emit(report.message.id)
            if report.message.cwd:
                self.workingFolder.emit(report.message.cwd)
        elif isinstance(report, core.ReportedOutput):
            self.outputReceived.emit(report.stream, report.text)
        elif isinstance(report, core.ReportedProgress):
            self.progress.emit(report.code, report.params)
        elif isinstance(report, core.ReportedInputWanted):
            self.inputRequested.emit(report.prompt)
        elif isinstance(report, core.ReportedReply):
            self._on_reply(report.message)
        elif isinstance(report, core.RunEnded):
            self._on_run_ended(report)
        elif isinstance(report, core.ReportedExit):
            self._on_exit(report)

    def _on_ready(self, info) -> None:
        self.info = as_dict(info)
        if self._proc is not None:  # its group: the script's processes (process_group.py)
            self._proc.setProperty("agv_pgid", info.pgid)
        self._start_failures = 0
        self._set_state(READY)
        self.readyInfo.emit(self.info)
        if self._pending is not None:
            self._send_run(self._pending)

    def _on_reply(self, message) -> None:
        """Messages outside the run: fetched values, gradient checks and their progress."""
        rid = getattr(message, "id", None)
        if isinstance(message, Values):
            tensor_id = self._fetches.pop(rid, message.tensor)  # type: ignore[arg-type]
            summary = message.summary
            self.valuesArrived.emit(tensor_id, summary, message.error if summary is None else None)
        elif isinstance(message, GradientCheck):
            if self._checks.pop(rid, None) is not None:  # type: ignore[arg-type]
                self.gradientChecked.emit(as_dict(message))
        elif isinstance(message, Progress):
            if rid in self._checks:
                self.progress.emit(message.code, dict(message.params))
        elif isinstance(message, ProtocolErrorMessage):
            if rid in self._checks:
                self.gradientChecked.emit({**self._checks.pop(rid), "error": "failed",  # type: ignore[arg-type]
                                           "message": message.message})
            elif rid in self._fetches:
                self.valuesArrived.emit(self._fetches.pop(rid), None, message.message)  # type: ignore[arg-type]

    def _on_run_ended(self, ended: core.RunEnded) -> None:
        if ended.status in ("ok", "error"):
            self._set_state(READY)
            self._on_parsed(ended.trace)
        elif ended.status in ("unreadable", "protocol_error"):
            self._set_state(READY)
            error = ended.trace.error
            self.traceFailed.emit(error.message if error is not None and ended.status == "protocol_error"
                                  else (ended.message or "protocol error"))
        elif ended.status == "timeout":
            self.timedOut.emit(ended.seconds, ended.line)
            self._restart_after()
        elif ended.status in ("stopped", "cancelled"):
            if ended.status == "stopped":
                self.runStopped.emit()
            self._restart_after()
        else:  # crashed
            self._fail_fetches("the worker stopped")
            self._crashed(ended.summary, never_ready=False)

    def _on_exit(self, report: core.ReportedExit) -> None:
        if self._closing or self._core.ending == "shutdown":
            self._set_state(STOPPED)
        elif self._core.ending == "refused":
            return
        elif report.crashed:
            self._fail_fetches("the worker stopped")
            self._crashed(report.summary, never_ready=report.never_ready)
        else:
            self._restart_after()

    def _crashed(self, message: str, never_ready: bool) -> None:
        """The worker died on its own: say so, start a fresh one (or give up)."""
        if never_ready:
            self._start_failures += 1
        giving_up = self._start_failures >= MAX_START_FAILURES
        self._set_state(FAILED if giving_up else CRASHED)
        self.crashed.emit(message)
        if giving_up:
            self._pending = None
            return
        QTimer.singleShot(0, self.start)

    # -- internals ---------------------------------------------------------------
    def _set_state(self, state: str) -> None:
        if state != self._state:
            self._state = state
            self.stateChanged.emit(state)

    def _write(self, message) -> None:
        if not self._live():
            return
        self._proc.write(encode_message(message))  # type: ignore[union-attr]

    def _send_run(self, request: dict) -> None:
        self._pending = None
        self._fail_fetches("a new run replaced the values")
        self._elapsed.start()  # the run's own time (not the wait for a fresh worker)
        run = Run(id=self._core.next_id(), source=request["source"], filename=request["filename"],
                  device=request["device"], no_checkpoint=bool(request.get("no_checkpoint")))
        self._set_state(RUNNING)
        self._apply(self._core.run(run, self.config.timeout_s))

    def _fail_fetches(self, why: str) -> None:
        pending, self._fetches = self._fetches, {}
        for tensor_id in pending.values():
            self.valuesArrived.emit(tensor_id, None, why)
        checks, self._checks = self._checks, {}
        for req in checks.values():
            self.gradientChecked.emit({**req, "error": "failed", "message": why})

    def _end_process(self, reason: str) -> None:
        """Terminate the current worker, kill it if needed; a fresh one follows."""
        if not self._live():
            self._restart_after()
            return
        self._apply(self._core.stop(reason))

    def _on_stdout(self) -> None:
        proc = self.sender()
        if proc is not self._proc:
            return
        self._buffer += bytes(proc.readAllStandardOutput().data())  # type: ignore[attr-defined]
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
                message = decode_worker_message(line)
            except MessageError as exc:
                if exc.kind == "values":  # a summary that does not fit: the fetch's answer says so
                    message = Values(id=exc.id, summary=None, error=str(exc))
                else:
                    self._not_protocol(line)
                    continue
            except ProtocolDecodeError:
                self._not_protocol(line)
                continue
            self._apply(self._core.received(message))

    def _not_protocol(self, line: bytes) -> None:
        """A line that is not a message: shown rather than lost."""
        self.outputReceived.emit("stderr", line.decode("utf-8", "replace") + "\n")

    def _on_decoded(self, generation: int, message, error: str) -> None:
        if generation != self._generation or self._closing:
            return
        self._decoding = False
        self.large_lines_decoded += 1
        if message is None:
            actions = self._core.unreadable(MessageError("trace", "trace", error))
            if actions:
                self._apply(actions)
            else:  # (not the run's: said all the same)
                self.traceFailed.emit(error)
        else:
            self._apply(self._core.received(message))
        self._drain()

    def _ensure_parser(self) -> None:
        if not self._parse_thread.isRunning():
            self._parse_thread.start()  # started on first use

    def _on_stderr(self) -> None:
        proc = self.sender()
        if proc is not self._proc:
            return
        self._read_stderr(proc)  # type: ignore[arg-type]

    def _read_stderr(self, proc: QProcess) -> None:
        self._stderr_tail = (self._stderr_tail + bytes(proc.readAllStandardError().data()))[-STDERR_TAIL_BYTES:]

    def _on_parsed(self, trace: Trace) -> None:
        if self._closing or self._pending is not None:
            return  # closing, or a newer run is waiting for a fresh worker
        self.traceReady.emit(trace)

    def _refuse(self, message: str) -> None:
        """A worker of another protocol version: say so and do not restart it
        (it would only be refused again); Run tries once more."""
        self._pending = None
        self._start_failures = MAX_START_FAILURES
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
            self._core.process_exited(None)  # (no process: nothing for the core to report)
            self._start_failures += 1
            self._set_state(FAILED)
            self.crashed.emit(f"could not start {self.python}: {proc.errorString()}")

    def _on_finished(self, proc: QProcess, code: int, status) -> None:
        kill_group(proc.property("agv_pgid"))  # nothing the script started outlives its worker
        if proc is not self._proc:
            proc.deleteLater()
            return
        # Drain anything left (the stack dump of a timeout, the last words of a crash).
        try:
            self._read_stderr(proc)
        except RuntimeError:
            pass
        self._proc = None
        proc.deleteLater()
        # (Qt's exit code of a crash is the signal's number; the core speaks subprocess's -N)
        returncode = -code if status == QProcess.ExitStatus.CrashExit else code
        self._apply(self._core.process_exited(returncode, self._stderr_tail.decode("utf-8", "replace")))

    def _restart_after(self) -> None:
        if not self._closing:
            self.start()
