"""How `autogradviz trace` starts and ends its one worker (real worker processes).

The CLI starts its worker before it imports the protocol and the trace model
(worker_config.start_worker; the imports overlap torch's in the worker), writes
the trace file while the worker exits (trace_file's on_outcome after
WorkerClient.request_exit), and a one-run worker forks no spare run child
beyond the one its run takes (engine/worker/zygote.py).
"""

from __future__ import annotations

import os
import sys
import time

import pytest

from autogradviz.engine.protocol.client import READ_BUFFER, WorkerClient, trace_file
from autogradviz.engine.protocol.worker_config import WorkerConfig, start_worker

SCRIPT = "import torch\nx = torch.ones(3, requires_grad=True)\n(x * 2).sum().backward()\nprint(x.grad.tolist())\n"


def _ended(proc, within: float = 10.0) -> bool:
    deadline = time.monotonic() + within
    while proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    return proc.poll() is not None


def test_a_worker_started_early_serves_the_trace_and_is_ended(tmp_path):
    script = tmp_path / "s.py"
    script.write_text(SCRIPT, encoding="utf-8")
    proc = start_worker(None)
    assert proc is not None
    seen = []
    outcome = trace_file(str(script), keep_json=True, process=proc, on_outcome=seen.append)
    assert outcome.exit_code == 0, outcome.message
    assert outcome.trace.stdout == "[2.0, 2.0, 2.0]\n"
    assert outcome.trace_json and b'"backward_runs"' in outcome.trace_json
    assert seen == [outcome]  # (once, with what trace_file returns)
    assert _ended(proc)


def test_an_early_worker_is_ended_when_the_script_cannot_be_read(tmp_path):
    proc = start_worker(None)
    assert proc is not None
    seen = []
    outcome = trace_file(str(tmp_path / "missing.py"), process=proc, on_outcome=seen.append)
    assert outcome.exit_code == 2 and "no such file" in (outcome.message or "")
    assert seen == []  # (no run: nothing to write)
    assert _ended(proc)


def test_start_worker_says_none_for_an_interpreter_that_cannot_start(tmp_path):
    assert start_worker(str(tmp_path / "no-python-here")) is None


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux pipe sizes")
def test_the_worker_stdout_pipe_holds_a_megabyte():
    with open("/proc/sys/fs/pipe-max-size") as f:
        if int(f.read()) < READ_BUFFER:
            pytest.skip("this system caps pipes below 1 MB")
    import fcntl

    client = WorkerClient(config=WorkerConfig(runs_once=True))
    try:
        client.start()
        assert fcntl.fcntl(client._proc.stdout.fileno(), 1032) == READ_BUFFER  # F_GETPIPE_SZ
    finally:
        client.close()


SIBLINGS = """
import os, time


def alive_children(pid):
    with open(f"/proc/{pid}/task/{pid}/children") as f:  # (its live and dead children)
        kids = [int(k) for k in f.read().split()]
    alive = 0
    for k in kids:
        try:
            with open(f"/proc/{k}/stat", "rb") as f:
                alive += f.read().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X")
        except OSError:
            pass
    return alive


# the zygote's loop comes round every 0.5 s at most: a spare it forks after
# taking this run's shows within a few of them
most, deadline = 0, time.monotonic() + 5.0
while most < 2 and time.monotonic() < deadline:
    most = max(most, alive_children(os.getppid()))
    time.sleep(0.05)
print(most)
"""


@pytest.mark.skipif(not os.path.exists(f"/proc/{os.getpid()}/task/{os.getpid()}/children"),
                    reason="Linux's /proc children lists")
@pytest.mark.parametrize("runs_once, children", [(True, 1), (False, 2)])
def test_a_one_run_worker_forks_no_spare_beside_its_run(runs_once, children):
    client = WorkerClient(config=WorkerConfig(runs_once=runs_once))
    try:
        outcome = client.run(SIBLINGS, timeout=60)
    finally:
        client.close()
    assert outcome.status == "ok", outcome.message
    # the run child itself, and for a worker that serves more runs its next spare
    assert outcome.trace.stdout == f"{children}\n"


def test_an_early_worker_given_with_a_warm_client_is_ended(tmp_path):
    script = tmp_path / "s.py"
    script.write_text(SCRIPT, encoding="utf-8")
    proc = start_worker(None)
    assert proc is not None
    with WorkerClient() as warm:
        outcome = trace_file(str(script), client=warm, process=proc)
        assert outcome.exit_code == 0, outcome.message
        assert warm.alive  # (a client passed in is left running)
    assert _ended(proc)
