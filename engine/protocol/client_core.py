"""The worker client's decisions, once, without I/O: a state machine both clients drive.

The CLI's blocking `WorkerClient` (client.py, subprocess + threads) and the
GUI's `WorkerProcess` (app/services/worker_process.py, QProcess + QTimers)
differ only in how they wait. What a run goes through is the same, and is
decided here: a run is sent and its timeout started; the script waiting in
input() pauses the timeout; at the timeout the worker is asked for the
running line (SIGUSR1: its faulthandler dump), DUMP_WAIT_S later it is
terminated, KILL_GRACE_S after that killed, and when it is gone the timeout
is reported with the line from the dump; a worker that dies on its own is a
crash, reported with the same words by both clients.

The core takes events (`process_started`, `received`, `timer_fired`,
`process_exited`, and the client's own `run`, `answer_input`, `stop`,
`shutdown`) and returns actions (`Send`, `StartTimer`, `CancelTimer`,
`AskForLine`, `Terminate`, `Kill`) and reports (`Reported...`) for the
adapter to carry out. It never reads a clock but through the `clock` it is
given, never sleeps, never touches a process: tests/engine/test_client_core.py
drives every transition with a fake clock.
"""

from __future__ import annotations

import enum
import signal
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Union

from autogradviz.engine.protocol.messages import (
    DUMP_WAIT_S, KILL_GRACE_S, InputReply, InputRequest, MessageError, Output, Progress,
    ProtocolErrorMessage, ProtocolVersionError, Ready, Run, Shutdown, Started, TraceMessage, WorkerMessage,
    check_ready, line_from_dump)
from autogradviz.engine.trace.model import ErrorInfo, Trace


class Phase(enum.Enum):
    STARTING = "starting"          # a process was started; waiting for `ready`
    READY = "ready"                # idle, warm
    RUNNING = "running"            # a run was sent; its timeout runs
    INPUT_WANTED = "input wanted"  # the script waits in input(); the timeout is paused
    TIMED_OUT = "timed out"        # asked for the running line; waiting DUMP_WAIT_S for the dump
    KILLING = "killing"            # terminated (then killed); waiting for the process to end
    KILLED = "killed"              # ended on purpose (timeout, stop, cancel, refused, shutdown)
    CRASHED = "crashed"            # ended on its own


# Timer names (the adapter keeps one timer per name).
RUN_TIMER, DUMP_TIMER, KILL_TIMER = "run", "dump", "kill"
LIVE_RUN = (Phase.RUNNING, Phase.INPUT_WANTED)


# -- actions ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Send:
    message: Any  # a typed request (message_types.py)


@dataclass(frozen=True)
class StartTimer:
    name: str
    seconds: float


@dataclass(frozen=True)
class CancelTimer:
    name: str


@dataclass(frozen=True)
class AskForLine:
    """Send SIGUSR1: the worker's faulthandler dumps every stack on stderr."""


@dataclass(frozen=True)
class Terminate:
    pass


@dataclass(frozen=True)
class Kill:
    pass


# -- reports -----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ReportedReady:
    info: Ready


@dataclass(frozen=True)
class ReportedRefused:
    """The worker speaks another protocol version (it is being killed)."""

    message: str


@dataclass(frozen=True)
class ReportedStarted:
    message: Started


@dataclass(frozen=True)
class ReportedOutput:
    stream: str
    text: str


@dataclass(frozen=True)
class ReportedProgress:
    code: str
    params: dict


@dataclass(frozen=True)
class ReportedInputWanted:
    prompt: str


@dataclass(frozen=True)
class ReportedReply:
    """A message outside the run (values, gradient_check, pong, a check's progress)."""

    message: Any


@dataclass(frozen=True)
class RunEnded:
    """The run is over. status: "ok", "error" (the script raised: trace.error),
    "unreadable" / "protocol_error" (the worker's answer was not a trace),
    "timeout", "crashed", "stopped" or "cancelled". `trace` is always set: made
    up here (with the output received so far) when the worker sent none.
    `message`: one line for the CLI; `summary`: the crash in the GUI's words
    (how it ended, then the last lines of the worker's stderr)."""

    status: str
    trace: Trace
    message: Optional[str] = None
    line: Optional[int] = None
    returncode: Optional[int] = None
    seconds: float = 0.0
    trace_json: Optional[bytes] = None
    written: Optional[int] = None  # the trace file's bytes the worker wrote (Run.trace_file)
    summary: str = ""


@dataclass(frozen=True)
class ReportedExit:
    """The process ended outside a run: `crashed` (on its own; `never_ready`
    when it never said `ready`) or on purpose (shutdown, replaced, refused)."""

    crashed: bool
    never_ready: bool
    returncode: Optional[int]
    message: str = ""  # one line: "the worker exited during start-up with exit code 1: ..."
    summary: str = ""  # the GUI's words: "exited with code 1" + the stderr tail


Action = Union[Send, StartTimer, CancelTimer, AskForLine, Terminate, Kill, ReportedReady, ReportedRefused,
               ReportedStarted, ReportedOutput, ReportedProgress, ReportedInputWanted, ReportedReply,
               RunEnded, ReportedExit]


# -- the words for a process that ended ----------------------------------------------------------------
def describe_exit(returncode: Optional[int]) -> str:
    """`exit code 3`, `signal 11 (SIGSEGV)` (negative: a signal, as subprocess says)."""
    if returncode is None:
        return "an unknown status"
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = "unknown signal"
        return f"signal {-returncode} ({name})"
    return f"exit code {returncode}"


def exit_phrase(returncode: Optional[int]) -> str:
    """How the worker ended, as the end of "It ...": the GUI's crash report."""
    if returncode is not None and returncode < 0:
        return (f"was killed by {describe_exit(returncode)} (a segmentation fault, running out of memory, "
                "or killed from outside)")
    if returncode is None:
        return "ended with an unknown status"
    return f"exited with code {returncode}"


def crash_summary(returncode: Optional[int], stderr_tail: str, lines: int = 8) -> str:
    """exit_phrase, then the last lines the worker wrote on stderr."""
    tail = stderr_tail.strip()
    text = exit_phrase(returncode)
    return text + ("\n" + "\n".join(tail.splitlines()[-lines:]) if tail else "")


@dataclass
class _RunState:
    request: Run
    started_at: float
    timeout_s: Optional[float]
    timer_left: Optional[float] = None  # seconds of the timeout left while input() waits
    timer_set_at: float = 0.0
    timer_length: Optional[float] = None
    out: dict = field(default_factory=lambda: {"stdout": [], "stderr": []})
    timed_out_after: float = 0.0


class ClientCore:
    """One worker process's protocol state; see the module docstring.

    `kill_grace_s`: terminate -> kill (the CLI 2 s, the GUI 0.7 s).
    `keep_output`: keep the run's output for a made-up trace (the CLI's)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, kill_grace_s: float = KILL_GRACE_S,
                 dump_wait_s: float = DUMP_WAIT_S):
        self.clock = clock
        self.kill_grace_s = kill_grace_s
        self.dump_wait_s = dump_wait_s
        self.phase = Phase.KILLED  # no process yet
        self.info: Optional[Ready] = None
        self.run_state: Optional[_RunState] = None
        self.ending: Optional[str] = None  # why we end the process: "timeout", "stop", "cancel", ...
        self.last_run_id = 0

    # -- queries ------------------------------------------------------------------------------
    @property
    def run_id(self) -> Optional[int]:
        """The id of the run whose messages are awaited (None when none is)."""
        return self.run_state.request.id if self.run_state is not None and self.phase in LIVE_RUN else None

    def running_seconds(self) -> float:
        return self.clock() - self.run_state.started_at if self.run_state is not None else 0.0

    def next_id(self) -> int:
        self.last_run_id += 1
        return self.last_run_id

    # -- events ---------------------------------------------------------------------------------
    def process_started(self) -> list:
        self.phase, self.info, self.run_state, self.ending = Phase.STARTING, None, None, None
        return []

    def run(self, request: Run, timeout_s: Optional[float]) -> list:
        """Send `request` (only when READY: a busy or absent worker is the
        adapter's to replace first). timeout_s None or <= 0: no timeout."""
        if self.phase is not Phase.READY:
            raise RuntimeError(f"a run needs a ready worker, not one that is {self.phase.value}")
        limit = timeout_s if timeout_s is not None and timeout_s > 0 else None
        self.run_state = _RunState(request, self.clock(), limit)
        self.phase = Phase.RUNNING
        actions: list = [Send(request)]
        if limit is not None:
            actions.append(self._start_run_timer(limit))
        return actions

    def answer_input(self, line: Optional[str]) -> list:
        """The learner's line for a waiting input() (None: end of input); the timeout resumes."""
        state = self.run_state
        if self.phase is not Phase.INPUT_WANTED or state is None:
            return []
        self.phase = Phase.RUNNING
        reply = InputReply(id=state.request.id, eof=True) if line is None else InputReply(
            id=state.request.id, text=str(line))
        actions: list = [Send(reply)]
        if state.timer_left is not None:
            actions.append(self._start_run_timer(max(state.timer_left, 0.001)))
            state.timer_left = None
        return actions

    def received(self, message: WorkerMessage) -> list:
        """One decoded message from the worker."""
        if isinstance(message, Ready):
            return self._on_ready(message)
        rid = getattr(message, "id", None)
        state = self.run_state
        if state is None or self.phase not in LIVE_RUN or rid != state.request.id:
            if isinstance(message, (Started, Output, InputRequest, TraceMessage, ProtocolErrorMessage)) and (
                    state is not None and rid == state.request.id):
                return []  # a run that timed out or is being stopped: its late words are dropped
            return [ReportedReply(message)]
        return self._on_run_message(message, state)

    def unreadable(self, error: MessageError) -> list:
        """A line of the current run the client could not decode (its trace)."""
        state = self.run_state
        if state is None or self.phase not in LIVE_RUN or error.id not in (None, state.request.id):
            return []
        trace = self._made_up_trace(ErrorInfo(
            type="ProtocolError", message=f"the worker's trace could not be read: {error}",
            explanation="A bug in Autograd Visualizer, not in your script."))
        return self._end_run("unreadable", trace, f"unreadable trace from the worker: {error}")

    def timer_fired(self, name: str) -> list:
        if name == RUN_TIMER and self.phase is Phase.RUNNING and self.run_state is not None:
            self.run_state.timed_out_after = self.running_seconds()
            self.phase = Phase.TIMED_OUT
            return [AskForLine(), StartTimer(DUMP_TIMER, self.dump_wait_s)]
        if name == DUMP_TIMER and self.phase is Phase.TIMED_OUT:
            return self._end_process("timeout")
        if name == KILL_TIMER and self.phase is Phase.KILLING:
            return [Kill()]
        return []

    def stop(self, reason: str = "stop") -> list:
        """End the process on purpose: "stop" (the user), "cancel" (a new run
        replaces this one), "replace" (an idle worker, e.g. another interpreter)."""
        if self.phase in (Phase.KILLING, Phase.KILLED, Phase.CRASHED):
            return []
        return self._end_process(reason)

    def shutdown(self) -> list:
        """The client is closing: ask an idle worker to exit, kill a busy one."""
        if self.phase in (Phase.KILLED, Phase.CRASHED):
            return []
        idle = self.phase is Phase.READY
        self.ending = "shutdown"
        self.phase = Phase.KILLING
        cancel = [CancelTimer(RUN_TIMER), CancelTimer(DUMP_TIMER)]
        if idle:
            return cancel + [Send(Shutdown()), StartTimer(KILL_TIMER, self.kill_grace_s)]
        return cancel + [Kill()]

    def process_exited(self, returncode: Optional[int], stderr_tail: str = "") -> list:
        """The process is gone (`returncode` as subprocess gives it: negative for a signal)."""
        phase, ending, state = self.phase, self.ending, self.run_state
        self.phase = Phase.CRASHED if ending is None else Phase.KILLED
        self.run_state = None
        actions: list = [CancelTimer(RUN_TIMER), CancelTimer(DUMP_TIMER), CancelTimer(KILL_TIMER)]
        if phase in (Phase.KILLED, Phase.CRASHED):
            return actions
        filename = state.request.filename if state is not None else "<editor>"
        line = line_from_dump(stderr_tail, filename)
        if ending == "timeout" and state is not None:
            return actions + [self._timed_out(state, line, returncode)]
        if ending in ("stop", "cancel") and state is not None:
            status = "stopped" if ending == "stop" else "cancelled"
            trace = self._made_up_trace(ErrorInfo(type="Stopped", message=f"the run was {status}"), state)
            return actions + [RunEnded(status, trace, f"the run was {status}", returncode=returncode,
                                       seconds=self.clock() - state.started_at)]
        if ending is not None:
            return actions + [ReportedExit(False, phase is Phase.STARTING, returncode)]
        if state is not None and phase in LIVE_RUN + (Phase.TIMED_OUT,):
            return actions + [self._crashed(state, line, returncode, stderr_tail)]
        never_ready = phase is Phase.STARTING
        detail = stderr_tail.strip().splitlines()
        last = f": {detail[-1]}" if detail else ""
        when = "during start-up" if never_ready else "while idle"
        return actions + [ReportedExit(True, never_ready, returncode,
                                       f"the worker exited {when} with {describe_exit(returncode)}{last}",
                                       crash_summary(returncode, stderr_tail))]

    # -- internals ------------------------------------------------------------------------------
    def _on_ready(self, message: Ready) -> list:
        if self.phase is not Phase.STARTING:
            return []
        try:
            check_ready(message)
        except ProtocolVersionError as exc:
            self.ending = "refused"
            self.phase = Phase.KILLING
            return [Kill(), ReportedRefused(str(exc))]
        self.info = message
        self.phase = Phase.READY
        return [ReportedReady(message)]

    def _on_run_message(self, message: WorkerMessage, state: _RunState) -> list:
        if isinstance(message, Started):
            return [ReportedStarted(message)]
        if isinstance(message, Output):
            state.out.setdefault(message.stream, []).append(message.text)
            return [ReportedOutput(message.stream, message.text)]
        if isinstance(message, Progress):
            return [ReportedProgress(message.code, dict(message.params))]
        if isinstance(message, InputRequest):
            return self._on_input_request(message, state)
        if isinstance(message, TraceMessage):
            trace = message.trace
            status = "ok" if trace.error is None else "error"
            return self._end_run(status, trace, None, message.trace_json, message.written)
        if isinstance(message, ProtocolErrorMessage):
            trace = self._made_up_trace(ErrorInfo(
                type="ProtocolError", message=message.message or "protocol error",
                explanation="The worker did not understand the request (a bug in Autograd Visualizer)."))
            return self._end_run("protocol_error", trace, f"worker protocol error: {message.message}")
        return [ReportedReply(message)]

    def _on_input_request(self, message: InputRequest, state: _RunState) -> list:
        if self.phase is not Phase.RUNNING:
            return []
        self.phase = Phase.INPUT_WANTED
        actions: list = []
        if state.timer_length is not None:  # a learner thinking is not a hung script
            state.timer_left = state.timer_length - (self.clock() - state.timer_set_at)
            actions.append(CancelTimer(RUN_TIMER))
        return actions + [ReportedInputWanted(message.prompt)]

    def _start_run_timer(self, seconds: float) -> StartTimer:
        state = self.run_state
        if state is not None:
            state.timer_set_at, state.timer_length = self.clock(), seconds
        return StartTimer(RUN_TIMER, seconds)

    def _end_run(self, status: str, trace: Trace, message: Optional[str],
                 trace_json: Optional[bytes] = None, written: Optional[int] = None) -> list:
        state = self.run_state
        seconds = self.clock() - state.started_at if state is not None else 0.0
        self.phase = Phase.READY
        self.run_state = None
        return [CancelTimer(RUN_TIMER), RunEnded(status, trace, message, seconds=seconds, trace_json=trace_json,
                                                 written=written)]

    def _end_process(self, reason: str) -> list:
        self.ending = reason
        self.phase = Phase.KILLING
        return [CancelTimer(RUN_TIMER), CancelTimer(DUMP_TIMER), Terminate(),
                StartTimer(KILL_TIMER, self.kill_grace_s)]

    def _made_up_trace(self, error: ErrorInfo, state: Optional[_RunState] = None) -> Trace:
        state = state or self.run_state
        request = state.request if state is not None else None
        out = state.out if state is not None else {}
        return Trace(script=request.filename if request else "<editor>",
                     device=request.device if request else "cpu",
                     torch_version=self.info.torch_version if self.info is not None else None,
                     stdout="".join(out.get("stdout", [])), stderr="".join(out.get("stderr", [])),
                     error=error)

    def _timed_out(self, state: _RunState, line: Optional[int], returncode: Optional[int]) -> RunEnded:
        limit = state.timeout_s or 0.0
        where = f" (it was at line {line})" if line else ""
        message = (f"the script did not finish within {limit:g} s and was stopped{where}; "
                   "an infinite loop? raise the limit with --timeout")
        trace = self._made_up_trace(ErrorInfo(
            type="Timeout", message=f"the script did not finish within {limit:g} s and was stopped", line=line,
            explanation=("The worker running the script was terminated after the time limit. "
                         "Check for a loop that never ends, or allow more time.")), state)
        return RunEnded("timeout", trace, message, line, returncode, state.timed_out_after)

    def _crashed(self, state: _RunState, line: Optional[int], returncode: Optional[int],
                 stderr_tail: str) -> RunEnded:
        where = f" at line {line}" if line else ""
        how = describe_exit(returncode)
        if returncode is not None and returncode < 0:
            message = f"the worker process crashed with {how}{where} while running the script"
            explanation = ("The process running the script died from a signal, e.g. a segmentation "
                           "fault in native code (ctypes, a C extension) or running out of memory.")
        else:
            message = f"the worker process exited with {how}{where} before the script finished"
            explanation = ("The process running the script ended without finishing, e.g. the script "
                           "called os._exit() or a native library aborted.")
        trace = self._made_up_trace(ErrorInfo(type="WorkerCrashed", message=message, line=line,
                                              explanation=explanation), state)
        return RunEnded("crashed", trace, message, line, returncode, self.clock() - state.started_at,
                        summary=crash_summary(returncode, stderr_tail))
