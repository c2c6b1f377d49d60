"""Children of a plain `os.fork()`, through the real worker: they end as under
python (their own exit status, their prints, their traceback) instead of
returning into the worker, and their backward calls are recorded.

Each script runs under plain `python` too; outputs and exit statuses must be
equal. Expected gradients are computed here with torch.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from torch_reference import scaled_square_grad

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork on this platform")

ENDINGS = '''
import os, sys, subprocess, torch

def child(how, scale):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (x * scale).pow(2).sum().backward()
    print(how, "grad", x.grad.tolist(), flush=True)
    if how == "os._exit":
        os._exit(7)
    if how == "sys.exit":
        sys.exit(3)
    if how == "raise":
        raise ValueError("the child fails")
    # "return": runs on into the rest of the script, as a fork does

for scale, how in enumerate(["os._exit", "sys.exit", "raise", "return"], start=1):
    pid = os.fork()
    if pid == 0:
        child(how, float(scale))
        print("child ran on after its work", flush=True)
        break
    _, status = os.waitpid(pid, 0)
    print(how, "exit status", os.waitstatus_to_exitcode(status), flush=True)
else:
    # a preexec_fn makes the child re-enter python briefly: still one process, nothing recorded
    out = subprocess.run(["echo", "exec'd"], preexec_fn=lambda: None, capture_output=True, text=True).stdout
    print("subprocess said", out.strip())
    print("parent done")
'''


def test_os_fork_children_end_as_under_python_and_are_recorded(worker, tmp_path):
    script = tmp_path / "forks.py"
    script.write_text(ENDINGS)
    plain = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path,
                           timeout=120)
    assert plain.returncode == 0, plain.stderr
    assert "os._exit exit status 7" in plain.stdout and "raise exit status 1" in plain.stdout
    trace = worker.run(ENDINGS, filename="<editor>", timeout=120).trace
    assert trace.error is None, trace.error
    assert trace.stdout == plain.stdout
    # the failing child's traceback, as python prints it (naming the user's text)
    assert 'File "<editor>", line 13, in child' in trace.stderr
    assert trace.stderr == plain.stderr.replace(str(script), "<editor>")
    runs = sorted(trace.backward_runs, key=lambda r: r.rank)
    assert [r.rank for r in runs] == [0, 1, 2, 3] and trace.backward_calls == 4
    assert len({r.pid for r in runs}) == 4 and all(r.steps for r in runs)
    for r in runs:
        (grad,) = r.leaf_grads.values()
        assert grad.values == scaled_square_grad([1.0, 2.0], float(r.rank + 1))
    # the worker is still the worker: it serves the next run
    assert worker.run("print('next')\n").trace.stdout == "next\n"
