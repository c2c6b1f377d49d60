"""Scripts with several processes and threads, through the real worker.

The DDP script (tests/data/ddp_two_ranks.py, two gloo ranks on CPU) runs
once per module under plain `python` in its own subprocess, then in the
worker: the gradients each rank prints, and the ones
the trace recorded for each rank's backward runs, must equal plain python's
bit for bit (printed with repr, compared as floats).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from torch_aborts import until_torch_keeps_its_ranks

DDP_SCRIPT = Path(__file__).resolve().parents[1] / "data" / "ddp_two_ranks.py"
GRAD_LINE = re.compile(r"rank (\d) step (\d) (\S+)\.grad (\[[^\]]*\])")


def grads_printed(text: str) -> dict:
    """{(rank, step, param name): [values]} from the script's prints."""
    return {(int(r), int(s), name): eval(vals) for r, s, name, vals in GRAD_LINE.findall(text)}


def _plain_ddp() -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(DDP_SCRIPT)], capture_output=True, text=True,
                          cwd=str(DDP_SCRIPT.parent), timeout=240)


@pytest.fixture(scope="module")
def ddp(worker):
    """(worker's RunOutcome, plain python's stdout, the worker's pid).

    Plain python first, then the worker: two gloo groups at once on a 2-core
    machine only add load. A run in which torch itself aborted a rank is made
    again (tests/engine/torch_aborts.py); any other failure fails.
    """
    plain = until_torch_keeps_its_ranks(_plain_ddp, lambda p: p.stderr)
    outcome = until_torch_keeps_its_ranks(
        lambda: worker.run(DDP_SCRIPT.read_text(), filename=str(DDP_SCRIPT), timeout=240),
        lambda o: str(o.trace.error or ""))
    assert plain.returncode == 0, f"stdout:\n{plain.stdout}\nstderr:\n{plain.stderr}"
    return outcome, plain.stdout, worker.pid


def test_ddp_both_ranks_print_and_match_plain_python(ddp):
    outcome, plain_out, _ = ddp
    trace = outcome.trace
    assert trace.error is None, trace.error
    ours, theirs = grads_printed(trace.stdout), grads_printed(plain_out)
    assert len(theirs) == 16  # 2 ranks x 2 steps x 4 parameters
    assert ours == theirs
    assert "both ranks finished" in trace.stdout


def test_ddp_runs_tagged_and_gradients_recorded(ddp):
    outcome, plain_out, worker_pid = ddp
    trace, plain = outcome.trace, grads_printed(plain_out)
    runs = trace.backward_runs
    assert sorted(r.rank for r in runs) == [0, 0, 1, 1]
    pids = {r.rank: r.pid for r in runs}
    assert pids[0] != pids[1] and worker_pid not in pids.values()
    for rank in (0, 1):
        mine = [r for r in runs if r.rank == rank]
        for step, run in enumerate(mine, start=1):
            labels = {n.id: n.label for n in trace.graph(run.graph).nodes}
            assert len(run.steps) > 0 and run.thread == "MainThread"
            got = {labels[k].split("module.")[-1]: v.values for k, v in run.leaf_grads.items()}
            want = {name: vals for (r, s, name), vals in plain.items() if r == rank and s == step}
            assert got == want


def test_ddp_allreduce_events_fire_during_backward(ddp):
    outcome, plain_out, _ = ddp
    trace, plain = outcome.trace, grads_printed(plain_out)
    for rank in (0, 1):
        first, second = [r for r in trace.backward_runs if r.rank == rank]
        # step 1: one bucket with everything, after the last gradient
        (ev,) = [e for e in first.events if e.kind == "allreduce"]
        assert ev.bucket == 0 and len(ev.params) == 4 and ev.step == len(first.steps) - 1
        # step 2: buckets rebuilt per bucket_cap_mb, fired while backward still runs
        evs = [e for e in second.events if e.kind == "allreduce"]
        assert [e.bucket for e in evs] == [0, 1, 2]
        assert evs[0].step < len(second.steps) - 1
        for e in evs:
            step_node = second.steps[e.step].node
            assert e.node == step_node  # the AccumulateGrad whose gradient completed the bucket
            if len(e.params) == 1:  # the averaged bucket is that parameter's final .grad
                name = e.params[0].split("module.")[-1]
                assert e.returned.values == plain[(rank, 2, name)]
                assert e.received.values != e.returned.values  # this rank's own, before averaging


SPAWN_SCRIPT = '''
import torch
import torch.multiprocessing as mp

def work(index, scale):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (x * scale * (index + 1)).sum().backward()
    print(f"child {index} grad {x.grad.tolist()}", flush=True)
    if index == 1:
        print(undefined_name)

if __name__ == "__main__":
    print("main file", __file__)
    try:
        mp.spawn(work, args=(3.0,), nprocs=2)
    except Exception as exc:
        print("parent saw", type(exc).__name__, exc)
'''


def test_unsaved_text_spawns_children_that_import_it(worker):
    outcome = worker.run(SPAWN_SCRIPT, filename="<editor>", timeout=120)
    trace = outcome.trace
    assert trace.error is None, trace.error
    assert "child 0 grad [3.0, 3.0]" in trace.stdout and "child 1 grad [6.0, 6.0]" in trace.stdout
    assert "parent saw ProcessRaisedException" in trace.stdout
    # the child's traceback names the user's text and line, not a temporary file
    assert 'File "<editor>", line 10, in work' in trace.stdout + trace.stderr
    copy = re.search(r"main file (\S+)", trace.stdout).group(1)  # (the script printed its __file__)
    assert copy not in (trace.stdout + trace.stderr).replace(f"main file {copy}", "")
    runs = sorted(trace.backward_runs, key=lambda r: r.rank)
    assert [r.rank for r in runs] == [0, 1]
    for r in runs:
        assert list(r.leaf_grads.values())[0].values == [3.0 * (r.rank + 1)] * 2
        assert r.line == 7
    # the temporary copy children imported the text from is gone after the run
    assert Path(copy).name.startswith("autogradviz_main_") and not Path(copy).exists()


THREADS_SCRIPT = '''
import threading
import torch
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
start = threading.Barrier(4)
def work():
    start.wait()
    y = x * 2
    for _ in range(200):  # long enough for the threads' backward calls to overlap
        y = y * 1.0
    y.sum().backward()
threads = [threading.Thread(target=work, name=f"worker-{i}") for i in range(4)]
for t in threads: t.start()
for t in threads: t.join()
print(x.grad.tolist())
'''


def test_four_threads_four_runs(worker):
    trace = worker.run(THREADS_SCRIPT, timeout=60).trace
    assert trace.error is None, trace.error
    assert trace.stdout.strip() == "[8.0, 8.0, 8.0]"
    assert trace.backward_calls == 4
    runs = trace.backward_runs
    assert sorted(r.thread for r in runs) == [f"worker-{i}" for i in range(4)]
    assert len({r.thread_id for r in runs}) == 4 and all(r.rank is None for r in runs)
    # each call's leaf .grad right after it: 2, 4, 6, 8 (the calls took turns)
    assert sorted(list(r.leaf_grads.values())[0].values[0] for r in runs) == [2.0, 4.0, 6.0, 8.0]


HANG_SCRIPT = '''
import multiprocessing as mp, os, subprocess, time

def child():
    sleeper = subprocess.Popen(["sleep", "300"])
    print("pids", os.getpid(), sleeper.pid, flush=True)
    time.sleep(300)

if __name__ == "__main__":
    mp.get_context("spawn").Process(target=child).start()
    time.sleep(300)
'''


def _running(pid: int) -> bool:
    """Alive and not a zombie (a zombie has ended; only its exit status waits)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc")
def test_timeout_ends_every_process_the_script_started():
    from autogradviz.engine.protocol.client import WorkerClient

    printed = []
    with WorkerClient() as client:
        client.start()
        worker_pid = client.pid
        outcome = client.run(HANG_SCRIPT, filename="<editor>", timeout=10,
                             on_output=lambda stream, text: printed.append(text))
    assert outcome.trace.error is not None and outcome.trace.error.type == "Timeout"
    found = re.search(r"pids (\d+) (\d+)", "".join(printed))
    assert found, "".join(printed)
    pids = [worker_pid, client.run_pid, *map(int, found.groups())]
    deadline = time.monotonic() + 5
    while any(map(_running, pids)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [p for p in pids if _running(p)]


FORK_SCRIPT = '''
import multiprocessing as mp
import torch

def work(i):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (x * (i + 2)).sum().backward()
    print(f"forked {i} grad {x.grad.tolist()}", flush=True)

if __name__ == "__main__":
    w = torch.ones(2, requires_grad=True)
    (w * 5).sum().backward()
    children = [mp.get_context("fork").Process(target=work, args=(i,)) for i in range(2)]
    for p in children: p.start()
    for p in children: p.join()
    print("parent", w.grad.tolist())
'''


def test_forked_children_recorded(worker):
    trace = worker.run(FORK_SCRIPT, timeout=60).trace
    assert trace.error is None, trace.error
    for text in ("forked 0 grad [2.0, 2.0]", "forked 1 grad [3.0, 3.0]", "parent [5.0, 5.0]"):
        assert text in trace.stdout
    main, *children = trace.backward_runs
    assert main.rank is None and main.pid == worker.run_pid  # (the run's own process)
    assert [r.rank for r in children] == [0, 1] and worker.run_pid not in {r.pid for r in children}
    for r in children:
        assert list(r.leaf_grads.values())[0].values == [r.rank + 2.0] * 2
        assert trace.graph(r.graph).id.startswith(f"p{r.pid}.")
    assert trace.backward_calls == 3


def test_copies_left_by_killed_workers_are_swept(tmp_path, monkeypatch):
    import tempfile

    from autogradviz.engine.worker.main_module import MainModule

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    gone = subprocess.Popen(["true"])
    gone.wait()
    stale = tmp_path / f"autogradviz_main_{gone.pid}_x.py"
    live = tmp_path / f"autogradviz_main_{os.getpid()}_y.py"
    stale.write_text("")
    live.write_text("")
    with MainModule("x = 1\n", "<editor>", "cpu") as main:
        assert Path(main.file).read_text() == "x = 1\n"
        assert sys.modules["__main__"] is main.module
    assert not stale.exists() and live.exists() and not Path(main.file).exists()


FORKSERVER_SCRIPT = '''
import multiprocessing as mp
from multiprocessing import forkserver
def f(x): return x * 2
if __name__ == "__main__":
    with mp.get_context("forkserver").Pool(2) as pool:
        print(pool.map(f, [1, 2, 3]))
    print("forkserver", forkserver._forkserver._forkserver_pid)
'''


def test_a_forkserver_ends_with_its_run(worker):
    """Under python the forkserver ends with the interpreter; in the worker
    it ends with the run (the next run starts its own)."""
    for _ in range(2):
        trace = worker.run(FORKSERVER_SCRIPT, timeout=60).trace
        assert trace.error is None, trace.error
        assert trace.stdout.splitlines()[0] == "[2, 4, 6]"
        pid = int(re.search(r"forkserver (\d+)", trace.stdout).group(1))
        deadline = time.monotonic() + 5
        while _running(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _running(pid)
