"""Children of a forkserver (multiprocessing's forkserver start method, the
default on Linux from Python 3.14), and Pools of every start method, through
the real worker: recorded like spawned and forked children, and the script
behaves as under plain python (prints, exit codes of terminated children).

Expected gradients are computed here with torch, independently of the worker;
the prints are compared with the same text run by plain `python`.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
import torch
from torch_reference import scaled_square_grad

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="no forkserver on Windows")

SCRIPT = '''
import multiprocessing as mp
import torch

def work(i):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (x * (i + 1)).pow(2).sum().backward()
    print(f"child {i} grad {x.grad.tolist()}", flush=True)
    if i == 2:
        raise ValueError("child 2 fails on purpose")

if __name__ == "__main__":
    ctx = mp.get_context("forkserver")
    procs = [ctx.Process(target=work, args=(i,)) for i in range(3)]
    for p in procs:
        p.start()
        p.join()  # one at a time: the prints keep their order
    print("exit codes", [p.exitcode for p in procs])
'''


def test_forkserver_children_are_recorded_and_print_as_under_python(worker, tmp_path):
    script = tmp_path / "forkserver_children.py"
    script.write_text(SCRIPT)
    plain = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path,
                           timeout=120)
    trace = worker.run(SCRIPT, filename="<editor>", timeout=120).trace
    assert trace.error is None, trace.error
    assert trace.stdout == plain.stdout
    assert "exit codes [0, 0, 1]" in trace.stdout
    # the failing child's traceback (multiprocessing prints it) names the user's text and line
    assert 'File "<editor>", line 10, in work' in trace.stderr
    assert "ValueError: child 2 fails on purpose" in trace.stderr
    runs = sorted(trace.backward_runs, key=lambda r: r.rank)
    assert [r.rank for r in runs] == [0, 1, 2]
    assert len({r.pid for r in runs}) == 3 and trace.backward_calls == 3
    for r in runs:
        (grad,) = r.leaf_grads.values()
        assert grad.values == scaled_square_grad([1.0, 2.0, 3.0], r.rank + 1)
        assert r.line == 7 and r.steps  # the child's own backward, stepped
        ops = {n.op for n in trace.graph(r.graph).nodes}
        assert {"PowBackward0", "MulBackward0", "AccumulateGrad"} <= ops


POOL = '''
import multiprocessing as mp
import torch

def grad_of(scale):
    w = torch.tensor([0.5, -1.0], requires_grad=True)
    (w * scale).tanh().sum().backward()
    return w.grad.tolist()

if __name__ == "__main__":
    with mp.get_context("{method}").Pool(2) as pool:  # leaving the block terminates the workers
        print(pool.map(grad_of, [1.0, 2.0, 3.0, 4.0]))
'''


@pytest.mark.parametrize("method", ["fork", "forkserver", "spawn"])
def test_a_pool_records_every_task_although_its_workers_are_terminated(worker, method):
    trace = worker.run(POOL.format(method=method), timeout=120).trace
    assert trace.error is None, trace.error
    want = []
    for scale in (1.0, 2.0, 3.0, 4.0):
        w = torch.tensor([0.5, -1.0], requires_grad=True)
        (w * scale).tanh().sum().backward()
        want.append(w.grad.tolist())
    assert trace.stdout.strip() == repr(want)
    got = sorted(list(r.leaf_grads.values())[0].values for r in trace.backward_runs)
    # (what the run said about its children, should one be missing: its notes, its stderr's end)
    assert got == sorted(want) and trace.backward_calls == 4, (trace.notes, trace.stderr[-2000:])
    assert {r.rank for r in trace.backward_runs} <= {0, 1} and len({r.pid for r in trace.backward_runs}) <= 2


TERMINATED = '''
import multiprocessing as mp
import time

if __name__ == "__main__":
    for method in ("fork", "forkserver", "spawn"):
        p = mp.get_context(method).Process(target=time.sleep, args=(60,))
        p.start()
        time.sleep(0.5)
        p.terminate()
        p.join()
        print(method, p.exitcode)
'''


def test_a_terminated_child_ends_as_under_python(worker, tmp_path):
    script = tmp_path / "terminated.py"
    script.write_text(TERMINATED)
    plain = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path,
                           timeout=120)
    assert plain.stdout.split() == ["fork", "-15", "forkserver", "-15", "spawn", "-15"]
    trace = worker.run(TERMINATED, timeout=120).trace
    assert trace.error is None, trace.error
    assert trace.stdout == plain.stdout
