"""Every run starts as fresh as `python script.py` (issue 24): what one run
changes in its process never reaches the next run in the same worker.

Each test makes two runs in ONE real worker (WorkerClient): the first
changes something, the second shows it as a new python process would - and
where the value depends on the machine, the same script under a plain
`python` subprocess says what that is.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from autogradviz.engine.protocol.client import FetchError

FIXED_TORCH_SEED = 67280421310721  # torch's default seed where it is not random per process


def plain_python(source: str, cwd) -> str:
    """stdout of `python script.py` for `source` (a new process: the reference)."""
    path = os.path.join(str(cwd), "reference.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(source)
    r = subprocess.run([sys.executable, path], capture_output=True, text=True, cwd=str(cwd), timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout


def two_runs(worker, first: str, second: str, filename: str = "<editor>", timeout: float = 60):
    a = worker.run(first, filename=filename, timeout=timeout)
    assert a.status == "ok", a.message
    b = worker.run(second, filename=filename, timeout=timeout)
    return b


def test_an_edited_helper_module_is_imported_again(worker, tmp_path):
    helper = tmp_path / "helper.py"
    script = tmp_path / "main.py"
    source = "import helper\nprint(helper.VALUE)\n"
    script.write_text(source)
    helper.write_text("VALUE = 1\n")
    a = worker.run(source, filename=str(script), timeout=60)
    assert a.status == "ok", a.message
    assert a.trace.stdout == "1\n"
    helper.write_text("VALUE = 222\n")  # (another size: python's own .pyc check)
    b = worker.run(source, filename=str(script), timeout=60)
    assert b.status == "ok", b.message
    assert b.trace.stdout == "222\n"


# (what the first run changes, what the second run prints under python): each a fresh process
LEFT_OVERS = [
    pytest.param("import signal\nsignal.alarm(1)\n",
                 "import time\ntime.sleep(2.5)\nprint('still here')\n", "still here\n",
                 id="an alarm set by a run does not kill the next"),
    pytest.param("import resource\nresource.setrlimit(resource.RLIMIT_NOFILE, (12, 12))\n",
                 "files = [open(__file__ if '__file__' in dir() else '/dev/null') for _ in range(40)]\n"
                 "print(len(files))\n", "40\n",
                 id="a lowered file limit does not reach the next run"),
    pytest.param("import os\nos.environ['AGV_FRESH_TEST'] = 'left over'\n",
                 "import os\nprint(os.environ.get('AGV_FRESH_TEST'))\n", "None\n",
                 id="environment variables do not persist"),
    pytest.param("import torch\ntorch.add = lambda *a, **k: 'patched'\n",
                 "import torch\nprint(torch.add(torch.ones(2), 1))\n", "tensor([2., 2.])\n",
                 id="a monkeypatched torch function is torch's again"),
    pytest.param("import threading, time, sys\n"
                 "def chatter():\n"
                 "    while True:\n"
                 "        print('LEAK', flush=True)\n"
                 "        time.sleep(0.05)\n"
                 "threading.Thread(target=chatter, daemon=True).start()\n"
                 "time.sleep(0.2)\n",
                 "import time\ntime.sleep(0.6)\nprint('second run')\n", "second run\n",
                 id="a thread left running prints into no later run"),
]


@pytest.mark.parametrize("first, second, printed", LEFT_OVERS)
def test_what_a_run_changes_does_not_reach_the_next(worker, first, second, printed):
    b = two_runs(worker, first, second)
    assert b.status == "ok", b.message
    assert b.trace.stdout == printed


def test_torch_global_settings_start_as_in_a_new_process(worker, tmp_path):
    report = ("import torch, warnings\n"
              "print(torch.get_num_threads(), torch.are_deterministic_algorithms_enabled())\n"
              "print(torch.tensor([1.23456789]))\n"
              "warnings.warn('just a warning')\n"
              "print('after the warning')\n")
    expected = plain_python(report, tmp_path)
    threads = int(expected.split()[0])
    b = two_runs(worker,
                 "import torch, warnings\n"
                 f"torch.set_num_threads({threads + 1})\n"
                 "torch.use_deterministic_algorithms(True)\n"
                 "torch.set_printoptions(precision=1)\n"
                 "warnings.simplefilter('error')\n",
                 report)
    assert b.status == "ok", b.message
    assert b.trace.stdout == expected
    assert "UserWarning: just a warning" in b.trace.stderr


def test_follow_up_requests_reach_the_run_that_made_the_tensors(worker):
    """fetch and check_gradient need the run's live tensors: the run's process
    answers them until the next run ends it."""
    out = worker.run("import torch\nw = torch.tensor([1.0, 2.0], requires_grad=True)\n"
                     "a = torch.arange(1200.0).requires_grad_()\n"
                     "loss = (w * w).sum() + a.sum()\nloss.backward()\n", timeout=60)
    assert out.status == "ok", out.message
    leaf = next(n for g in out.trace.graphs for n in g.nodes if n.label == "a")
    assert leaf.tensor.truncated and leaf.tensor.id
    assert worker.ping()
    assert worker.fetch(leaf.tensor.id).values == [float(i) for i in range(1200)]
    reply = worker.check_gradient("w", 0)
    assert "error" not in reply, reply
    assert [round(v, 4) for v in reply["fd"]] == [2.0, 4.0]
    nxt = worker.run("print('next')\n", timeout=60)
    assert nxt.status == "ok" and nxt.trace.stdout == "next\n"
    with pytest.raises(FetchError):  # that run, and its tensors, are gone
        worker.fetch(leaf.tensor.id)


def test_python_and_numpy_random_numbers_differ_from_run_to_run(worker):
    """Each new python process seeds `random`, NumPy's global generator and
    (this torch) torch's default generator afresh: two runs forked from the
    same worker must not repeat them."""
    pytest.importorskip("numpy")
    src = ("import random, torch\nimport numpy as np\n"
           "print(random.random(), np.random.rand(), torch.rand(1).item(), torch.initial_seed())\n")
    a = worker.run(src, timeout=60)
    b = worker.run(src, timeout=60)
    assert a.status == b.status == "ok", (a.message, b.message)
    first, second = a.trace.stdout.split(), b.trace.stdout.split()
    assert first[0] != second[0] and first[1] != second[1]
    import torch
    if torch.initial_seed() != FIXED_TORCH_SEED:  # (a torch that seeds every process afresh)
        assert first[2:] != second[2:]
