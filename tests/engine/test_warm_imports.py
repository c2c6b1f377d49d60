"""After a run that imported torch._dynamo, the zygote imports it for the next runs.

A non-reentrant checkpoint imports torch._dynamo (about 800 modules, ~1 s)
under plain python too; each run in the worker is a fresh fork of the
zygote, so without this every run of a checkpoint lesson paid it again
(engine/worker/warm_imports.py). Checked here with real workers: the next
run finds the module imported, prints and gradients are unchanged, a
worker started for one run (`autogradviz trace`) imports nothing ahead, and
the zygote still has no thread of its own (it forks).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import torch

from autogradviz.engine.protocol.client import WorkerClient
from autogradviz.engine.protocol.worker_config import WorkerConfig

CHECKPOINT = """\
import sys
print("dynamo before:", "torch._dynamo" in sys.modules)
import torch
from torch.utils.checkpoint import checkpoint
torch.manual_seed(0)
lin = torch.nn.Linear(3, 2)
x = torch.randn(4, 3, requires_grad=True)
checkpoint(lin, x, use_reentrant=False).pow(2).sum().backward()
print("grad:", [round(v, 6) for v in x.grad.flatten().tolist()])
"""


def _expected_grad() -> list:
    from torch.utils.checkpoint import checkpoint

    torch.manual_seed(0)
    lin = torch.nn.Linear(3, 2)
    x = torch.randn(4, 3, requires_grad=True)
    checkpoint(lin, x, use_reentrant=False).pow(2).sum().backward()
    return [round(v, 6) for v in x.grad.flatten().tolist()]


def _threads(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/task"))


def _runs(client: WorkerClient, n: int) -> list[str]:
    out = []
    for i in range(n):
        if i:
            time.sleep(1.0)  # (the zygote imports while idle)
        res = client.run(CHECKPOINT, filename="/tmp/warm_checkpoint.py", timeout=120)
        assert res.trace is not None and res.trace.error is None, res.trace and res.trace.error
        assert res.trace.backward_runs
        out.append(res.trace.stdout)
    return out


def test_the_next_run_finds_dynamo_imported_and_prints_the_same(tmp_path):
    script = tmp_path / "warm_checkpoint.py"
    script.write_text(CHECKPOINT)
    plain = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert plain.returncode == 0, plain.stderr
    assert plain.stdout.splitlines()[0] == "dynamo before: False"
    with WorkerClient() as client:
        client.start()
        zygote_threads = _threads(client.pid) if sys.platform.startswith("linux") else None
        first, = _runs(client, 1)
        assert first == plain.stdout  # the first run imported it itself, as python does
        # the zygote imports it once idle (a loaded machine may need a moment)
        for _ in range(5):
            time.sleep(1.0)
            second, = _runs(client, 1)
            if second.splitlines()[0] == "dynamo before: True":
                break
        assert second.splitlines()[0] == "dynamo before: True"
        assert second.splitlines()[1:] == plain.stdout.splitlines()[1:]
        assert second.splitlines()[1] == f"grad: {_expected_grad()}"
        if zygote_threads is not None:
            assert _threads(client.pid) == zygote_threads  # the import started no thread


def test_a_worker_for_one_run_imports_nothing_ahead():
    with WorkerClient(config=WorkerConfig(runs_once=True)) as client:
        client.start()
        first, second = _runs(client, 2)
        env = client.run("import os\nprint(sorted(k for k in os.environ if k.startswith('AUTOGRADVIZ')))\n",
                         filename="/tmp/env.py", timeout=60).trace.stdout
    assert first.splitlines()[0] == second.splitlines()[0] == "dynamo before: False"
    assert env.strip() == "[]"  # (the worker's setting is not in the script's environment)
