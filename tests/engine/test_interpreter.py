"""Scripts run with another Python interpreter, and a missing module explained
with the command that installs it there: through the real CLI and worker.

The environments are venvs made in tmp_path (tests/venv_factory.py): one sees
this interpreter's torch after its own packages, one has nothing. The package
"installed" is a wheel written by the test, installed offline.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
import torch

from autogradviz.engine.protocol.interpreter import (MISSING_PACKAGES, NOT_FOUND, NOT_RUNNABLE,
                                                     check_interpreter, describe, worker_environment)
from autogradviz.engine.trace.model import Trace
from autogradviz.engine.worker.missing_module import distribution_for
from venv_factory import make_venv, make_wheel, offline_pip_env

SCRIPT = """\
import sys
import torch
w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
(w.tanh() * w).sum().backward()
print("python", sys.executable)
print("grad", w.grad.tolist())
"""

USES_DEMO = """\
import sys
import torch
import agvz_demo_summary
print("summary says", agvz_demo_summary.summary())
w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
(w.tanh() * w).sum().backward()
print("python", sys.executable)
print("grad", w.grad.tolist())
"""


@pytest.fixture(scope="module")
def envs(tmp_path_factory):
    root = tmp_path_factory.mktemp("envs")
    wheels = root / "wheels"
    make_wheel(wheels, "agvz-demo-summary", "agvz_demo_summary", "def summary():\n    return 42\n")
    return {"torch": make_venv(root / "torchenv", with_this_sites=True),
            "bare": make_venv(root / "bare", with_this_sites=False),
            "wheels": wheels}


def _one_line(stderr: str) -> str:
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, f"expected one line on stderr, got: {stderr!r}"
    return lines[0]


def test_interpreter_without_torch_is_refused(tmp_path, cli, envs):
    script = tmp_path / "s.py"
    script.write_text(SCRIPT)
    for command in (("trace", script), ("export", script, "-o", tmp_path / "g.svg")):
        r = cli(*command, "--python", envs["bare"], timeout=60)
        assert r.returncode == 2
        line = _one_line(r.stderr)
        assert "lacks torch, msgspec" in line and f"{envs['bare']} -m pip install torch msgspec" in line
    assert not (tmp_path / "g.svg").exists()
    r = cli("trace", script, "--python", tmp_path / "no-such-python")
    assert r.returncode == 2 and "no such file" in _one_line(r.stderr)


def test_check_reports_torch_and_what_is_missing(envs, tmp_path):
    good = check_interpreter(envs["torch"])
    assert good.ok, describe(good)
    assert good.torch_version == torch.__version__
    assert good.cuda_available == torch.cuda.is_available()
    assert good.python_version == "%d.%d.%d" % sys.version_info[:3]
    bare = check_interpreter(envs["bare"])
    assert bare.problem == MISSING_PACKAGES and bare.missing == ["torch", "msgspec"]
    assert check_interpreter(str(tmp_path / "nothing")).problem == NOT_FOUND
    text_file = tmp_path / "python"
    text_file.write_text("not python")
    assert check_interpreter(str(text_file)).problem == NOT_RUNNABLE
    # The engine folder on the other interpreter's path holds the engine alone:
    # not this app's site-packages (whose torch would shadow that env's own).
    folder = worker_environment(envs["torch"])["PYTHONPATH"].split(os.pathsep)[0]
    assert sorted(os.listdir(os.path.join(folder, "autogradviz"))) == ["__init__.py", "engine"]


def test_another_interpreter_missing_module_installed_with_the_given_command(tmp_path, cli, envs):
    """`trace --python`: the script runs in that interpreter; a module it lacks
    is explained with the command for it, which installs it there."""
    script = tmp_path / "uses_demo.py"
    script.write_text(USES_DEMO)
    out = tmp_path / "t.json"
    r = cli("trace", script, "-o", out, "--python", envs["torch"])
    assert r.returncode == 1
    command = f"{envs['torch']} -m pip install agvz_demo_summary"
    assert _one_line(r.stderr).endswith(f"No module named 'agvz_demo_summary'; install it into the "
                                        f"worker's Python with: {command}")
    error = Trace.from_json(out.read_text()).error
    assert error.type == "ModuleNotFoundError" and error.code == "missing_module"
    assert error.params == {"module": "agvz_demo_summary", "distribution": "agvz_demo_summary",
                            "python": envs["torch"], "command": command, "pip": True}
    assert command in error.explanation
    # The command, exactly as given, installs into the worker's interpreter
    # (pip normalises _ and -), and the script then runs.
    done = subprocess.run(command, shell=True, capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, **offline_pip_env(envs["wheels"])))
    assert done.returncode == 0, done.stderr
    r = cli("trace", script, "-o", out, "--python", envs["torch"])
    assert r.returncode == 0, r.stderr
    trace = Trace.from_json(out.read_text())
    assert "summary says 42" in trace.stdout
    assert f"python {envs['torch']}\n" in trace.stdout  # the script ran in that interpreter
    w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    (w.tanh() * w).sum().backward()
    assert f"grad {w.grad.tolist()}" in trace.stdout
    leaf = trace.backward_runs[0].leaf_grads
    assert list(leaf.values())[0].values == pytest.approx(w.grad.tolist())
    # ... and not into this project's environment
    assert subprocess.run([sys.executable, "-c", "import agvz_demo_summary"],
                          capture_output=True).returncode != 0


def test_submodule_and_import_names():
    from autogradviz.engine.worker.runner import run_script

    error = run_script("import torch.no_such_module\n").trace.error
    assert error.code == "missing_submodule"
    assert error.params == {"module": "torch.no_such_module", "top": "torch"}
    assert "pip install" not in error.explanation
    assert [distribution_for(m) for m in ("cv2", "PIL.Image", "sklearn.linear_model", "yaml", "torchsummary")] \
        == ["opencv-python", "pillow", "scikit-learn", "pyyaml", "torchsummary"]


def test_import_errors_that_are_not_a_missing_package():
    from autogradviz.engine.worker.runner import run_script

    error = run_script("from torch import no_such_name\n").trace.error
    # explained (a code the app translates), but nothing to install
    assert error.type == "ImportError" and error.code == "import_name"
    assert "a name could not be imported" in error.explanation
    # a native library failing to load says so itself: no misleading advice
    error = run_script("raise ImportError('libfoo.so.1: cannot open shared object file')\n").trace.error
    assert error.explanation is None and error.code is None


def test_an_interpreter_that_cannot_start_or_never_answers_is_one_line(tmp_path, cli):
    """A file marked executable that the system cannot execute (exec format error)
    and a "python" that hangs: one line and exit 2, never a traceback (the timeout
    and OSError branches of the check once used a report they never made)."""
    from autogradviz.engine.protocol.interpreter import TIMED_OUT, check_interpreter, describe

    script = tmp_path / "s.py"
    script.write_text(SCRIPT)
    garbage = tmp_path / "garbage-python"
    garbage.write_bytes(b"\x7fELF\x00not really a program")
    garbage.chmod(0o755)
    r = cli("trace", script, "--python", garbage, timeout=60)
    assert r.returncode == 2, r.stderr
    line = _one_line(r.stderr)
    assert str(garbage) in line and "Traceback" not in r.stderr

    hanging = tmp_path / "hanging-python"
    hanging.write_text("#!/bin/sh\nexec sleep 60\n")
    hanging.chmod(0o755)
    report = check_interpreter(str(hanging), timeout=1.0, full=False)
    assert report.problem == TIMED_OUT
    assert describe(report).endswith("did not answer within 1 s")
