"""The client core (engine/protocol/client_core.py) without Qt and without a process.

Both clients (the CLI's WorkerClient, the GUI's WorkerProcess) drive this one
state machine; here every transition is driven by hand with a fake clock, and
the actions and reports it returns are checked: the run, input() pausing the
timeout, timeout -> ask for the running line -> terminate -> kill -> the
timeout reported with the line, crashes (during a run, idle, at start-up),
stop and cancel, the version check, late messages of an ended run.
(The same paths against real workers: test_worker.py, tests/app/test_worker_process.py.)
"""

from __future__ import annotations

import pytest

from autogradviz.engine.protocol import client_core as cc
from autogradviz.engine.protocol.client_core import ClientCore, Phase
from autogradviz.engine.protocol.messages import (
    PROTOCOL_VERSION, GradientCheck, InputReply, InputRequest, MessageError, Output, Progress,
    ProtocolErrorMessage, Ready, Run, Shutdown, Started, TraceMessage, Values)
from autogradviz.engine.trace.model import ErrorInfo, Trace

DUMP = 'Fatal Python error\nThread 0x1 (most recent call first):\n  File "loop.py", line 3 in <module>\n'


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _ready(version=PROTOCOL_VERSION) -> Ready:
    return Ready(protocol=version, pid=42, torch_version="2.x", cuda_available=False, python="3.12", pgid=42)


def _of(actions, cls):
    return [a for a in actions if isinstance(a, cls)]


def _one(actions, cls):
    found = _of(actions, cls)
    assert len(found) == 1, actions
    return found[0]


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def ready_core(clock):
    core = ClientCore(clock=clock, kill_grace_s=0.7, dump_wait_s=0.2)
    assert core.process_started() == [] and core.phase is Phase.STARTING
    reports = core.received(_ready())
    assert _one(reports, cc.ReportedReady).info.pid == 42
    assert core.phase is Phase.READY
    return core


def _start_run(core, timeout=5.0, filename="loop.py") -> Run:
    run = Run(id=core.next_id(), source="while True: pass", filename=filename)
    actions = core.run(run, timeout)
    assert _one(actions, cc.Send).message == run
    if timeout:
        assert _one(actions, cc.StartTimer) == cc.StartTimer(cc.RUN_TIMER, timeout)
    else:
        assert not _of(actions, cc.StartTimer)
    assert core.phase is Phase.RUNNING and core.run_id == run.id
    return run


# -- start-up ---------------------------------------------------------------------------------------
def test_a_worker_of_another_version_is_killed_and_refused(clock):
    core = ClientCore(clock=clock)
    core.process_started()
    actions = core.received(_ready(version=99))
    assert _of(actions, cc.Kill) and core.phase is Phase.KILLING
    assert f"protocol version 99, this client version {PROTOCOL_VERSION}" in _one(actions, cc.ReportedRefused).message
    exit_report = _one(core.process_exited(-9), cc.ReportedExit)
    assert not exit_report.crashed and core.phase is Phase.KILLED


def test_a_worker_that_dies_during_start_up_is_a_crash_never_ready(clock):
    core = ClientCore(clock=clock)
    core.process_started()
    report = _one(core.process_exited(1, "Traceback ...\nModuleNotFoundError: No module named 'torch'\n"), cc.ReportedExit)
    assert report.crashed and report.never_ready and core.phase is Phase.CRASHED
    assert report.message == ("the worker exited during start-up with exit code 1: "
                              "ModuleNotFoundError: No module named 'torch'")
    assert report.summary.startswith("exited with code 1\n") and "No module named 'torch'" in report.summary


def test_a_run_needs_a_ready_worker(clock):
    core = ClientCore(clock=clock)
    core.process_started()
    with pytest.raises(RuntimeError):
        core.run(Run(id=1, source=""), 5.0)


# -- a run ---------------------------------------------------------------------------------------------
def test_a_run_reports_its_messages_and_ends_with_its_trace(ready_core, clock):
    run = _start_run(ready_core)
    assert _one(ready_core.received(Started(id=run.id, cwd="/tmp", pid=7)), cc.ReportedStarted).message.pid == 7
    assert ready_core.received(Output(id=run.id, stream="stdout", text="hi\n")) == [cc.ReportedOutput("stdout", "hi\n")]
    assert ready_core.received(Progress(id=run.id, code="encoding", params={"nodes": 3})) == [
        cc.ReportedProgress("encoding", {"nodes": 3})]
    clock.now += 1.5
    trace = Trace(script="loop.py")
    actions = ready_core.received(TraceMessage(id=run.id, trace=trace, trace_json=b"{}"))
    assert cc.CancelTimer(cc.RUN_TIMER) in actions
    ended = _one(actions, cc.RunEnded)
    assert (ended.status, ended.trace, ended.trace_json, ended.seconds) == ("ok", trace, b"{}", 1.5)
    assert ready_core.phase is Phase.READY and ready_core.run_id is None


def test_a_script_error_ends_the_run_as_error(ready_core):
    run = _start_run(ready_core)
    trace = Trace(script="loop.py", error=ErrorInfo(type="ZeroDivisionError", message="division by zero"))
    assert _one(ready_core.received(TraceMessage(id=run.id, trace=trace)), cc.RunEnded).status == "error"


def test_messages_of_another_id_are_replies_not_the_runs(ready_core):
    run = _start_run(ready_core)
    values = Values(id=run.id + 100, tensor="t1")
    check = GradientCheck(id=run.id + 101, error="no_run", message="no run")
    progress = Progress(id=run.id + 101, code="finite_differences", params={"done": 1, "total": 2})
    for message in (values, check, progress):
        assert ready_core.received(message) == [cc.ReportedReply(message)]
    assert ready_core.phase is Phase.RUNNING


def test_protocol_error_for_the_run_makes_a_trace(ready_core):
    run = _start_run(ready_core)
    ready_core.received(Output(id=run.id, text="so far\n"))
    ended = _one(ready_core.received(ProtocolErrorMessage(id=run.id, message="run: bad")), cc.RunEnded)
    assert ended.status == "protocol_error" and ended.trace.error.type == "ProtocolError"
    assert ended.trace.stdout == "so far\n" and ended.message == "worker protocol error: run: bad"


def test_an_unreadable_trace_ends_the_run(ready_core):
    run = _start_run(ready_core)
    ended = _one(ready_core.unreadable(MessageError("trace", "trace", "not a readable trace", run.id)), cc.RunEnded)
    assert ended.status == "unreadable" and ended.trace.error.type == "ProtocolError"
    assert ready_core.phase is Phase.READY
    assert ready_core.unreadable(MessageError("trace", "trace", "again", run.id)) == [], "no run: nothing to end"


# -- input() ------------------------------------------------------------------------------------------
def test_input_pauses_the_timeout_and_the_answer_resumes_what_was_left(ready_core, clock):
    run = _start_run(ready_core, timeout=5.0)
    clock.now += 2.0
    actions = ready_core.received(InputRequest(id=run.id, prompt="name? "))
    assert actions == [cc.CancelTimer(cc.RUN_TIMER), cc.ReportedInputWanted("name? ")]
    assert ready_core.phase is Phase.INPUT_WANTED
    clock.now += 600  # the learner thinks: not the script's time
    assert ready_core.timer_fired(cc.RUN_TIMER) == [], "a stale timer does not time the run out"
    actions = ready_core.answer_input("Ada")
    assert actions[0] == cc.Send(InputReply(id=run.id, text="Ada"))
    assert actions[1].name == cc.RUN_TIMER and actions[1].seconds == pytest.approx(3.0)
    assert ready_core.phase is Phase.RUNNING
    ready_core.received(InputRequest(id=run.id, prompt=""))
    assert ready_core.answer_input(None)[0] == cc.Send(InputReply(id=run.id, eof=True))
    assert ready_core.answer_input("late") == [], "no input wanted: nothing sent"


def test_input_without_a_timeout_starts_no_timer(ready_core):
    run = _start_run(ready_core, timeout=None)
    assert ready_core.received(InputRequest(id=run.id)) == [cc.ReportedInputWanted("")]
    assert ready_core.answer_input("x") == [cc.Send(InputReply(id=run.id, text="x"))]


# -- timeout -> ask for the line -> kill ----------------------------------------------------------------
def test_timeout_asks_for_the_line_then_terminates_kills_and_reports_the_line(ready_core, clock):
    run = _start_run(ready_core, timeout=5.0)
    ready_core.received(Output(id=run.id, text="looping\n"))
    clock.now += 5.0
    assert ready_core.timer_fired(cc.RUN_TIMER) == [cc.AskForLine(), cc.StartTimer(cc.DUMP_TIMER, 0.2)]
    assert ready_core.phase is Phase.TIMED_OUT and ready_core.run_id is None
    # what the run says meanwhile is dropped (it is being stopped)
    assert ready_core.received(Output(id=run.id, text="late\n")) == []
    assert ready_core.received(TraceMessage(id=run.id, trace=Trace())) == []
    actions = ready_core.timer_fired(cc.DUMP_TIMER)
    assert cc.Terminate() in actions and cc.StartTimer(cc.KILL_TIMER, 0.7) in actions
    assert ready_core.phase is Phase.KILLING
    assert ready_core.timer_fired(cc.KILL_TIMER) == [cc.Kill()]
    ended = _one(ready_core.process_exited(-9, DUMP), cc.RunEnded)
    assert ended.status == "timeout" and ended.line == 3 and ended.seconds == pytest.approx(5.0)
    assert ended.message == ("the script did not finish within 5 s and was stopped (it was at line 3); "
                             "an infinite loop? raise the limit with --timeout")
    assert ended.trace.error.type == "Timeout" and ended.trace.error.line == 3
    assert ended.trace.stdout == "looping\n" and ended.returncode == -9
    assert ready_core.phase is Phase.KILLED


def test_timeout_without_a_dump_names_no_line(ready_core):
    _start_run(ready_core, timeout=1.0)
    ready_core.timer_fired(cc.RUN_TIMER)
    ready_core.timer_fired(cc.DUMP_TIMER)
    ended = _one(ready_core.process_exited(-15, "nothing useful"), cc.RunEnded)
    assert ended.status == "timeout" and ended.line is None and "(it was at line" not in ended.message


def test_timers_out_of_their_phase_do_nothing(ready_core):
    for name in (cc.RUN_TIMER, cc.DUMP_TIMER, cc.KILL_TIMER):
        assert ready_core.timer_fired(name) == []
    _start_run(ready_core)
    assert ready_core.timer_fired(cc.DUMP_TIMER) == [] and ready_core.timer_fired(cc.KILL_TIMER) == []


# -- crashes ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("returncode,words,summary", [
    (7, "the worker process exited with exit code 7 before the script finished", "exited with code 7"),
    (-11, "the worker process crashed with signal 11 (SIGSEGV) at line 3 while running the script",
     "was killed by signal 11 (SIGSEGV)"),
])
def test_a_worker_dying_during_a_run_is_a_crash(ready_core, returncode, words, summary):
    run = _start_run(ready_core)
    ready_core.received(Output(id=run.id, text="bye\n"))
    dump = DUMP if returncode < 0 else ""
    actions = ready_core.process_exited(returncode, dump)
    ended = _one(actions, cc.RunEnded)
    assert ended.status == "crashed" and ended.message == words and ended.returncode == returncode
    assert ended.trace.error.type == "WorkerCrashed" and ended.trace.stdout == "bye\n"
    assert ended.summary.startswith(summary)
    assert {cc.CancelTimer(cc.RUN_TIMER), cc.CancelTimer(cc.DUMP_TIMER), cc.CancelTimer(cc.KILL_TIMER)} <= set(_of(actions, cc.CancelTimer))
    assert ready_core.phase is Phase.CRASHED


def test_a_worker_dying_while_waiting_for_input_or_the_dump_is_a_crash(ready_core):
    run = _start_run(ready_core)
    ready_core.received(InputRequest(id=run.id))
    assert _one(ready_core.process_exited(1), cc.RunEnded).status == "crashed"


def test_an_idle_worker_dying_is_a_crash_outside_a_run(ready_core):
    report = _one(ready_core.process_exited(-9, ""), cc.ReportedExit)
    assert report.crashed and not report.never_ready and report.summary.startswith("was killed by signal 9 (SIGKILL)")
    assert ready_core.process_exited(-9) == [cc.CancelTimer(cc.RUN_TIMER), cc.CancelTimer(cc.DUMP_TIMER),
                                             cc.CancelTimer(cc.KILL_TIMER)], "reported once"


# -- ending on purpose -------------------------------------------------------------------------------------
@pytest.mark.parametrize("reason,status", [("stop", "stopped"), ("cancel", "cancelled")])
def test_stop_and_cancel_terminate_then_kill_and_report_no_crash(ready_core, reason, status):
    _start_run(ready_core)
    actions = ready_core.stop(reason)
    assert cc.Terminate() in actions and cc.StartTimer(cc.KILL_TIMER, 0.7) in actions
    assert cc.CancelTimer(cc.RUN_TIMER) in actions
    assert ready_core.stop(reason) == [], "once"
    assert ready_core.timer_fired(cc.KILL_TIMER) == [cc.Kill()]
    assert _one(ready_core.process_exited(-9), cc.RunEnded).status == status
    assert ready_core.phase is Phase.KILLED


def test_stop_during_the_dump_wait_is_a_stop(ready_core):
    _start_run(ready_core)
    ready_core.timer_fired(cc.RUN_TIMER)
    ready_core.stop("stop")
    assert _one(ready_core.process_exited(-15, DUMP), cc.RunEnded).status == "stopped"


def test_replacing_an_idle_worker_is_no_crash(ready_core):
    assert cc.Terminate() in ready_core.stop("replace")
    report = _one(ready_core.process_exited(-15), cc.ReportedExit)
    assert not report.crashed


def test_shutdown_asks_an_idle_worker_and_kills_a_busy_one(clock, ready_core):
    actions = ready_core.shutdown()
    assert cc.Send(Shutdown()) in actions and cc.StartTimer(cc.KILL_TIMER, ready_core.kill_grace_s) in actions
    assert not _one(ready_core.process_exited(0), cc.ReportedExit).crashed
    busy = ClientCore(clock=clock)
    busy.process_started()
    busy.received(_ready())
    _start_run(busy)
    assert cc.Kill() in busy.shutdown()
    assert not _one(busy.process_exited(-9), cc.ReportedExit).crashed


def test_the_crash_words(ready_core):
    assert cc.describe_exit(3) == "exit code 3" and cc.describe_exit(-11) == "signal 11 (SIGSEGV)"
    assert cc.describe_exit(None) == "an unknown status"
    assert cc.crash_summary(3, "a\nb\n" + "\n".join(f"l{i}" for i in range(20))).splitlines() == (
        ["exited with code 3"] + [f"l{i}" for i in range(12, 20)])
