"""One owner of the worker's configuration (engine/protocol/worker_config.py):
every worker the app starts goes through it, the Memory panel's "run without
checkpoint" comparison included.

The other interpreter is a real one: a wrapper script that writes its process
id to a marker file and `exec`s this Python (so the worker keeps that pid), as
Preferences would choose any interpreter path. The comparison run, made from
the run request the app keeps (its `config` is the main worker's), must run in
a worker whose pid the wrapper wrote; after a change back to the app's own
Python its next worker is not the wrapper's.
"""

from __future__ import annotations

import os
import sys

import pytest

from autogradviz.app.panels.memory.comparison_run import ComparisonRun
from autogradviz.app.services.worker_process import READY, WorkerProcess
from autogradviz.engine.protocol.worker_config import WorkerConfig

WAIT_MS = 90_000
CHECKPOINTED = """import torch
from torch.utils.checkpoint import checkpoint
x = torch.ones(3, requires_grad=True)
y = checkpoint(lambda t: (t * 2).sin(), x, use_reentrant=False)
y.sum().backward()
print("ran")
"""


@pytest.fixture
def wrapper(tmp_path):
    marker = tmp_path / "started.txt"
    script = tmp_path / "python-wrapper"
    script.write_text(f'#!/bin/sh\necho $$ >> "{marker}"\nexec "{sys.executable}" "$@"\n')
    script.chmod(0o755)
    return str(script), marker


def _pids(marker) -> set[int]:
    return {int(line) for line in marker.read_text().split()} if marker.exists() else set()


@pytest.mark.skipif(os.name == "nt", reason="a shell script as interpreter")
def test_the_comparison_runs_in_the_interpreter_chosen_for_the_app(qtbot, qapp, wrapper, wait_until, pid_alive):
    python, marker = wrapper
    main = WorkerProcess(timeout_s=60)  # the app's worker: Preferences calls its set_python
    runner = ComparisonRun()
    try:
        main.set_python(python)
        assert main.config.python == python and main.python == python
        request = {"source": CHECKPOINTED, "filename": "ckpt.py", "device": "cpu", "config": main.config}
        with qtbot.waitSignal(runner.finished, timeout=WAIT_MS) as blocker:
            runner.start(request)
        trace = blocker.args[0]
        assert trace.error is None and trace.stdout == "ran\n"
        assert runner.worker.python == python
        assert runner.worker.info["pid"] in _pids(marker), "the comparison's worker is the wrapper's process"
        assert runner.worker.timeout_s == 60, "and it has the app's run timeout"

        # Back to the app's own Python: the comparison's warm worker follows.
        old = runner.worker.info["pid"]
        main.set_python(None)
        wait_until(lambda: runner.worker.state == READY and runner.worker.info.get("pid") not in (None, old),
                   WAIT_MS, "the comparison's worker in the app's own Python")
        assert runner.worker.python == sys.executable
        assert runner.worker.info["pid"] not in _pids(marker)
        with qtbot.waitSignal(runner.finished, timeout=WAIT_MS) as blocker:
            runner.start(dict(request))
        assert blocker.args[0].error is None
        wait_until(lambda: not pid_alive(old), 5000, "the wrapper's worker to be gone")
    finally:
        runner.shutdown()
        main.shutdown()
        main.deleteLater()


def test_a_request_without_configuration_uses_the_apps_own_python():
    runner = ComparisonRun()
    try:
        assert runner.config.interpreter == sys.executable
        w = runner._worker(runner.config)
        assert w.config is runner.config and w.python == sys.executable
    finally:
        runner.shutdown()


def test_the_configuration_is_one_object_its_clients_follow():
    config = WorkerConfig(timeout_s=30)
    seen = []
    config.subscribe(lambda c, name: seen.append(name))
    config.python = sys.executable  # the app's own: stored as None, no change
    assert config.python is None and seen == []
    config.python = "/opt/py/bin/python"
    config.timeout_s = 30
    config.timeout_s = 5
    config.device = "cuda"
    assert seen == ["python", "timeout_s", "device"]
    assert config.command() == ["/opt/py/bin/python", "-u", "-m", "autogradviz.engine.worker"]
    env = config.environment({"PATH": "/bin"})
    assert env["PYTHONUNBUFFERED"] == "1" and env["PYTHONIOENCODING"] == "utf-8"
    assert env["PYTHONPATH"], "another interpreter finds this app's engine"
    with pytest.raises(ValueError):
        config.device = "tpu"


@pytest.mark.skipif(os.name == "nt", reason="a shell script as interpreter")
def test_in_the_window_preferences_reach_the_memory_panels_comparison(qtbot, main_window, wrapper, wait_until):
    """The whole path: Preferences' choice (EnvironmentController.set_python),
    Run, the Memory panel's "Compare without checkpoint": both workers are
    the wrapper's processes."""
    python, marker = wrapper
    w = main_window
    try:
        w.environments.set_python(python)
        wait_until(lambda: w.worker.state == READY and w.worker.info.get("pid") in _pids(marker),
                   WAIT_MS, "the main worker in the chosen interpreter")
        w.editor.setPlainText(CHECKPOINTED)
        with qtbot.waitSignal(w.runFinished, timeout=WAIT_MS):
            w.run_script()
        assert w.session.trace is not None and w.session.trace.error is None
        assert w.session.run_request["config"] is w.worker.config
        panel = w.panels.widget("memory")
        assert panel.can_compare()
        panel.compare()
        wait_until(lambda: panel.other is not None, WAIT_MS, "the comparison's trace")
        assert panel.runner.worker.config is w.worker.config
        assert panel.runner.worker.info["pid"] in _pids(marker), "the comparison ran in the chosen interpreter"
        assert len(_pids(marker)) == 2
    finally:
        w.panels.widget("memory").runner.shutdown()
        w.environments.set_python("")
        wait_until(lambda: w.worker.state == READY and w.worker.python == sys.executable, WAIT_MS,
                   "the shared worker back in the app's own Python")


def test_the_windows_device_choice_is_the_configurations(main_window):
    w = main_window
    combo = w.runs._combo
    try:
        w.runs._device_chosen(combo.findData("cuda"))
        assert w.worker.config.device == "cuda" == w.runs.device
    finally:
        w.runs._device_chosen(combo.findData("cpu"))
    assert w.worker.config.device == "cpu" == w.runs.device
