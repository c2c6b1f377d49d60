"""WorkerProcess against the REAL worker (python -m autogradviz.engine.worker)."""

from __future__ import annotations

import time

from autogradviz.app.services.worker_process import READY, WorkerProcess
from autogradviz.engine.trace.model import Trace


RUN_TIMEOUT_MS = 30_000
RESTART_TIMEOUT_MS = 60_000
STOP_LIMIT_S = 2.0

SIMPLE = """import torch
x = torch.ones(2, requires_grad=True)
y = (x * 3).sum()
print("hello from the script")
y.backward()
"""


def _wait_ready(worker, wait_until):
    wait_until(lambda: worker.state == READY, RESTART_TIMEOUT_MS, "a fresh worker")


def test_run_returns_trace_and_output(qtbot, shared_worker, wait_until, pid_alive):
    outputs = []
    shared_worker.outputReceived.connect(lambda s, t: outputs.append((s, t)))
    with qtbot.waitSignal(shared_worker.traceReady, timeout=RUN_TIMEOUT_MS) as blocker:
        shared_worker.run(SIMPLE, "simple.py", "cpu")
    trace = blocker.args[0]
    assert isinstance(trace, Trace)
    assert trace.error is None
    text = "".join(t for _, t in outputs) + trace.stdout
    assert "hello from the script" in text
    assert shared_worker.state == READY
    shared_worker.outputReceived.disconnect()


def test_ready_reports_cuda_flag(shared_worker, wait_until, pid_alive):
    assert "cuda_available" in shared_worker.info
    assert isinstance(shared_worker.cuda_available, bool)


def test_stop_ends_endless_loop_within_two_seconds_and_next_run_works(qtbot, shared_worker, wait_until, pid_alive):
    old_pid = shared_worker.pid()
    with qtbot.waitSignal(shared_worker.runStarted, timeout=RUN_TIMEOUT_MS):
        shared_worker.run("while True:\n    pass\n", "loop.py", "cpu")
    qtbot.wait(300)
    t0 = time.monotonic()
    with qtbot.waitSignal(shared_worker.runStopped, timeout=int(STOP_LIMIT_S * 1000)):
        assert shared_worker.stop()
    assert time.monotonic() - t0 < STOP_LIMIT_S
    wait_until(lambda: not pid_alive(old_pid), 2000, "the stopped worker to be gone")
    _wait_ready(shared_worker, wait_until)
    with qtbot.waitSignal(shared_worker.traceReady, timeout=RUN_TIMEOUT_MS) as blocker:
        shared_worker.run(SIMPLE, "simple.py", "cpu")
    assert blocker.args[0].error is None


def test_crash_is_reported_and_next_run_works(qtbot, shared_worker, wait_until, pid_alive):
    with qtbot.waitSignal(shared_worker.crashed, timeout=RUN_TIMEOUT_MS) as blocker:
        shared_worker.run("import os\nos._exit(3)\n", "crash.py", "cpu")
    assert blocker.args[0].startswith("exited with code 3"), blocker.args[0]
    _wait_ready(shared_worker, wait_until)
    with qtbot.waitSignal(shared_worker.traceReady, timeout=RUN_TIMEOUT_MS) as blocker:
        shared_worker.run(SIMPLE, "simple.py", "cpu")
    assert blocker.args[0].error is None


def test_second_run_cancels_the_first(qtbot, shared_worker, wait_until, pid_alive):
    with qtbot.waitSignal(shared_worker.runStarted, timeout=RUN_TIMEOUT_MS):
        shared_worker.run("import time\nwhile True:\n    time.sleep(0.01)\n", "slow.py", "cpu")
    traces = []
    shared_worker.traceReady.connect(traces.append)
    with qtbot.waitSignal(shared_worker.runCancelled, timeout=1000):
        shared_worker.run("print('second')\n", "second.py", "cpu")
    wait_until(lambda: traces, RESTART_TIMEOUT_MS, "the second run's trace")
    qtbot.wait(200)  # a stale trace of the cancelled run would arrive about now
    shared_worker.traceReady.disconnect(traces.append)
    assert len(traces) == 1, [t.script for t in traces]
    assert traces[0].script == "second.py" and traces[0].error is None
    assert traces[0].stdout == "second\n"


def test_timeout_stops_the_run_and_names_the_running_line(qtbot, shared_worker, wait_until, pid_alive):
    shared_worker.timeout_s = 1.5
    old_pid = shared_worker.pid()
    try:
        with qtbot.waitSignal(shared_worker.timedOut, timeout=RUN_TIMEOUT_MS) as blocker:
            shared_worker.run("x = 0\nwhile True:\n    x += 1\n", "loop.py", "cpu")
    finally:
        shared_worker.timeout_s = 60
    seconds, line = blocker.args
    assert 1.4 <= seconds < 10
    assert line in (2, 3), "the line the loop was running, from the worker's stack dump"
    wait_until(lambda: not pid_alive(old_pid), 5000, "the timed-out worker to be gone")
    _wait_ready(shared_worker, wait_until)


def test_progress_is_reported_for_a_big_graph(qtbot, shared_worker, wait_until, pid_alive):
    from autogradviz.engine.worker.service import PROGRESS_MIN_NODES

    seen = []
    shared_worker.progress.connect(lambda code, params: seen.append((code, params)))
    source = ("import torch\nx = torch.ones(2, requires_grad=True)\ny = x\n"
              f"for i in range({PROGRESS_MIN_NODES}):\n    y = y * 1.001\ny.sum().backward()\n")
    with qtbot.waitSignal(shared_worker.traceReady, timeout=RUN_TIMEOUT_MS) as blocker:
        shared_worker.run(source, "chain.py", "cpu")
    shared_worker.progress.disconnect()
    nodes = sum(len(g.nodes) for g in blocker.args[0].graphs)
    assert ("encoding", {"nodes": nodes}) in seen, seen
    assert all(isinstance(code, str) and isinstance(params, dict) for code, params in seen)


def test_script_error_comes_back_in_the_trace(qtbot, shared_worker, wait_until, pid_alive):
    with qtbot.waitSignal(shared_worker.traceReady, timeout=RUN_TIMEOUT_MS) as blocker:
        shared_worker.run("x = 1\ny = x + 'a'\n", "err.py", "cpu")
    trace = blocker.args[0]
    assert trace.error is not None and trace.error.type == "TypeError"
    assert trace.error.line == 2


def test_fetch_without_worker_answers_with_an_error(qtbot, qapp, wait_until, pid_alive):
    worker = WorkerProcess()  # never started
    with qtbot.waitSignal(worker.valuesArrived, timeout=1000) as blocker:
        worker.fetch("t1")
    assert blocker.args[0] == "t1" and blocker.args[1] is None and blocker.args[2]
    worker.shutdown()
    worker.deleteLater()


def test_shutdown_leaves_no_process(qtbot, qapp, wait_until, pid_alive):
    worker = WorkerProcess()
    worker.start()
    wait_until(lambda: worker.state == READY, RESTART_TIMEOUT_MS, "worker ready")
    pid = worker.pid()
    worker.shutdown()
    worker.deleteLater()
    wait_until(lambda: not pid_alive(pid), 3000, "worker exit")


def test_fetch_returns_all_values_of_a_large_tensor(qtbot, shared_worker, wait_until, pid_alive):
    source = "import torch\nx = torch.arange(100.0, requires_grad=True)\ny = (x * 2).sum()\ny.backward()\n"
    with qtbot.waitSignal(shared_worker.traceReady, timeout=RUN_TIMEOUT_MS) as blocker:
        shared_worker.run(source, "big.py", "cpu")
    trace = blocker.args[0]
    big = [n.tensor for g in trace.graphs for n in g.nodes
           if n.tensor is not None and n.tensor.numel == 100 and n.tensor.id]
    assert big, "no fetchable 100-element tensor in the trace"
    summary = big[0]
    assert summary.truncated
    with qtbot.waitSignal(shared_worker.valuesArrived, timeout=RUN_TIMEOUT_MS) as blocker:
        shared_worker.fetch(summary.id)
    tensor_id, full, error = blocker.args
    assert tensor_id == summary.id and error is None
    assert len(full.values) == 100 and not full.truncated


def test_large_trace_is_decoded_off_the_gui_thread(qtbot, shared_worker, wait_until, pid_alive):
    from autogradviz.app.services import worker_process

    source = ("import torch\nx = torch.ones(3, requires_grad=True)\ny = x\n"
              "for i in range(600):\n    y = y * 1.001\ny.sum().backward()\n")
    before = shared_worker.large_lines_decoded
    with qtbot.waitSignal(shared_worker.traceReady, timeout=RUN_TIMEOUT_MS) as blocker:
        shared_worker.run(source, "big.py", "cpu")
    trace = blocker.args[0]
    assert shared_worker.large_lines_decoded > before, f"expected a line over {worker_process.LARGE_LINE} bytes"
    assert len(trace.graphs[0].nodes) > 600
    assert len(trace.backward_runs[0].steps) > 600
    # The stepper's tables of the run shown first were built on the parser
    # thread too, not by the GUI when the trace arrives.
    from autogradviz.engine.trace import replay

    assert replay.is_prepared(trace, 0)
    # The worker answers normally afterwards.
    with qtbot.waitSignal(shared_worker.traceReady, timeout=RUN_TIMEOUT_MS) as blocker:
        shared_worker.run(SIMPLE, "simple.py", "cpu")
    assert blocker.args[0].error is None


def test_a_worker_that_cannot_start_gives_up_after_three_tries(qtbot, qapp, wait_until, pid_alive):
    from autogradviz.app.services.worker_process import FAILED, MAX_START_FAILURES

    worker = WorkerProcess(arguments=["-c", "import sys; sys.stderr.write('no torch here'); sys.exit(1)"])
    messages = []
    worker.crashed.connect(messages.append)
    worker.start()
    wait_until(lambda: worker.state == FAILED, RESTART_TIMEOUT_MS, "the worker to give up")
    assert len(messages) == MAX_START_FAILURES
    assert "code 1" in messages[0] and "no torch here" in messages[0]
    worker.shutdown()
    worker.deleteLater()


def test_a_worker_of_another_protocol_version_is_refused(qtbot, qapp, wait_until, pid_alive):
    from autogradviz.app.services.worker_process import FAILED
    from autogradviz.engine.protocol.messages import PROTOCOL_VERSION

    code = ("import autogradviz.engine.protocol.messages as m; m.PROTOCOL_VERSION = 99; "
            "import runpy; runpy.run_module('autogradviz.engine.worker', run_name='__main__')")
    worker = WorkerProcess(arguments=["-c", code])
    pids = []
    worker.readyInfo.connect(lambda info: pids.append(info["pid"]))
    with qtbot.waitSignal(worker.crashed, timeout=RESTART_TIMEOUT_MS) as blocker:
        worker.start()
    assert f"protocol version 99, this client version {PROTOCOL_VERSION}" in blocker.args[0]
    assert worker.state == FAILED and not pids, "a refused worker is never ready"
    qtbot.wait(500)
    assert worker.state == FAILED, "a refused worker is not restarted"
    worker.shutdown()
    worker.deleteLater()
