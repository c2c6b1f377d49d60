"""A child process's checkpoint calls, GradScaler calls and memory timeline
are recorded and merged like its backward runs, whatever started it:
multiprocessing's fork, forkserver and spawn, or a plain os.fork(). The
parent's own records are not repeated by a forked child (a fork copies them).

Every number is compared with torch, computed here in the test; the prints
with the same script under plain python.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
import torch
from torch.utils.checkpoint import checkpoint

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="fork start methods")

SCRIPT = '''
import multiprocessing as mp
import os
import torch
from torch.utils.checkpoint import checkpoint

def block(x, w):
    return torch.tanh(x @ w).sin()

def train(tag, scale):
    torch.manual_seed(0)
    w = torch.randn(4, 4, requires_grad=True)
    x = torch.randn(3, 4)
    opt = torch.optim.SGD([w], lr=0.1)
    scaler = torch.amp.GradScaler("cpu", init_scale=scale)
    loss = checkpoint(block, x, w, use_reentrant=False).sum()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    print(tag, scaler.get_scale(), [round(v, 6) for v in w[0].tolist()], flush=True)

if __name__ == "__main__":
    train("parent", 1024.0)
    if "{method}" == "os.fork":
        pid = os.fork()
        if pid == 0:
            train("child", 256.0)
            os._exit(0)
        os.waitpid(pid, 0)
    else:
        p = mp.get_context("{method}").Process(target=train, args=("child", 256.0))
        p.start()
        p.join()
'''


def reference(scale: float) -> tuple[list[float], float]:
    """The scaled gradient of w and the scale after update(), by torch here."""
    torch.manual_seed(0)
    w = torch.randn(4, 4, requires_grad=True)
    x = torch.randn(3, 4)
    opt = torch.optim.SGD([w], lr=0.1)
    scaler = torch.amp.GradScaler("cpu", init_scale=scale)
    loss = checkpoint(lambda a, b: torch.tanh(a @ b).sin(), x, w, use_reentrant=False).sum()
    scaler.scale(loss).backward()
    grad = w.grad.flatten().tolist()
    scaler.step(opt)
    scaler.update()
    return grad, scaler.get_scale()


@pytest.mark.parametrize("method", ["fork", "forkserver", "spawn", "os.fork"])
def test_a_childs_checkpoint_scaler_and_memory_records_are_merged(worker, tmp_path, method):
    text = SCRIPT.replace("{method}", method)
    script = tmp_path / "child_records.py"
    script.write_text(text)
    plain = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path,
                           timeout=120)
    assert plain.returncode == 0, plain.stderr
    trace = worker.run(text, filename=str(script), timeout=120).trace
    assert trace.error is None, trace.error
    assert trace.stdout == plain.stdout

    main_pid = worker.run_pid  # (the run's own process, a fork of the worker)
    parent_run, child_run = sorted(trace.backward_runs, key=lambda r: r.pid != main_pid)
    assert parent_run.pid == main_pid and child_run.pid != main_pid and child_run.rank == 0
    for run, scale in ((parent_run, 1024.0), (child_run, 256.0)):
        grad, scale_after = reference(scale)
        (recorded,) = run.leaf_grads.values()
        assert recorded.values == pytest.approx(grad, rel=1e-6, abs=1e-7)

        # its own checkpoint call, re-run once during its own backward
        mine = [c for c in trace.checkpoints if c.graph == run.graph]
        assert len(mine) == 1 and mine[0].kind == "non_reentrant"
        (rerun,) = mine[0].recomputations
        assert trace.backward_runs[rerun.run] is run
        assert "aten.mm.default" in rerun.ops

        # its own GradScaler: the scale() its backward started from, then step and update
        scaled = trace.scaler_events[run.scaled_by]
        assert scaled.call == "scale" and scaled.scale_before == scale
        events = [e for e in trace.scaler_events if e.scaler == scaled.scaler]
        assert [e.call for e in events] == ["scale", "step", "update"]
        assert events[-1].scale_after == scale_after

        # its memory timeline and the segment checkpoint did not store
        (timeline,) = [m for m in trace.memory.runs if m.run == run.index]
        assert timeline.graph == run.graph and timeline.points
        (segment,) = [s for s in trace.memory.segments if s.checkpoint == mine[0].id]
        assert segment.not_stored > 0
    # nothing of the parent's recorded twice by its copy in the child
    assert len(trace.checkpoints) == 2 and len(trace.scaler_events) == 6 and len(trace.memory.runs) == 2
    assert len(trace.memory.segments) == 2
