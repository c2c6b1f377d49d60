"""Who runs the learner's scripts: one owner of the worker's configuration.

The interpreter (Tools ▸ Preferences, `--python`), the device (the toolbar's
CPU/CUDA choice, `--device`) and the run timeout (Run ▸ Run Timeout,
`--timeout`) used to live on each worker client, so a second client (the
Memory panel's "run without checkpoint") started with the app's own Python
whatever Preferences said. Every worker the app or the CLI starts now goes
through one `WorkerConfig`: its command line and environment come from here,
and clients that share the object follow its changes (`subscribe`). Qt-free:
the GUI's WorkerProcess and the CLI's WorkerClient both take one.
"""

from __future__ import annotations

import sys
from typing import Callable, Mapping, Optional

from autogradviz.engine.protocol.run_limits import DEFAULT_RUN_TIMEOUT_S

WORKER_MODULE = "autogradviz.engine.worker"
# "1" in the environment of a worker that serves one run and exits (a CLI
# command's): it imports nothing ahead for later runs (engine/worker/warm_imports.py).
RUNS_ONCE_ENV = "AUTOGRADVIZ_RUNS_ONCE"
Listener = Callable[["WorkerConfig", str], None]


class WorkerConfig:
    """The interpreter, device and timeout every worker of one app (or one
    CLI command) runs with. `python` None: this interpreter. Listeners are
    called as `listener(config, name)` after `name` ("python", "device",
    "timeout_s") changed. `runs_once`: the worker serves one run (a CLI
    command) and no request about it follows its trace (no fetch, no
    gradient check), so it prepares nothing for a next one and its run
    child lets go of the client's pipes once the trace is sent."""

    def __init__(self, python: Optional[str] = None, device: str = "cpu",
                 timeout_s: float = DEFAULT_RUN_TIMEOUT_S, runs_once: bool = False):
        self._python = python or None
        self.runs_once = runs_once
        self._device = device
        self._timeout_s = float(timeout_s)
        self._listeners: list[Listener] = []

    # -- the three settings --------------------------------------------------------------------
    @property
    def python(self) -> Optional[str]:
        """The chosen interpreter, or None for the app's own."""
        return self._python

    @python.setter
    def python(self, python: Optional[str]) -> None:
        python = python or None
        if python == sys.executable:
            python = None
        if python != self._python:
            self._python = python
            self._changed("python")

    @property
    def interpreter(self) -> str:
        """The path of the Python that runs the worker."""
        return self._python or sys.executable

    @property
    def device(self) -> str:
        return self._device

    @device.setter
    def device(self, device: str) -> None:
        if device not in ("cpu", "cuda"):
            raise ValueError(f"device must be 'cpu' or 'cuda', not {device!r}")
        if device != self._device:
            self._device = device
            self._changed("device")

    @property
    def timeout_s(self) -> float:
        """Seconds a run may take (0: no limit)."""
        return self._timeout_s

    @timeout_s.setter
    def timeout_s(self, seconds: float) -> None:
        seconds = float(seconds)
        if seconds != self._timeout_s:
            self._timeout_s = seconds
            self._changed("timeout_s")

    # -- what a client starts -----------------------------------------------------------------
    def command(self) -> list[str]:
        """The worker's command line: `PYTHON -u -m autogradviz.engine.worker`."""
        return [self.interpreter, "-u", "-m", WORKER_MODULE]

    def environment(self, base: Mapping[str, str]) -> dict:
        """`base` with what the worker needs: unbuffered UTF-8 pipes, and for
        another interpreter this app's engine on PYTHONPATH (interpreter.py)."""
        if self._python is None:  # this interpreter: nothing to add (and interpreter.py not imported)
            env = dict(base)
        else:
            from autogradviz.engine.protocol.interpreter import worker_environment

            env = worker_environment(self.interpreter, dict(base))
        env.setdefault("PYTHONUNBUFFERED", "1")
        env.setdefault("PYTHONIOENCODING", "utf-8")
        if self.runs_once:
            env[RUNS_ONCE_ENV] = "1"
        else:
            env.pop(RUNS_ONCE_ENV, None)
        return env

    def spawn(self, base: Mapping[str, str]):
        """Start a worker process (`subprocess.Popen`, pipes on its stdin,
        stdout and stderr) with this configuration and `base` as the
        environment: the one place the CLI's workers are started. A
        `WorkerClient` drives it (given as its `process`, or started by it)."""
        import subprocess

        return subprocess.Popen(self.command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=self.environment(base), close_fds=True)

    # -- listeners -------------------------------------------------------------------------------
    def subscribe(self, listener: Listener) -> None:
        if listener not in self._listeners:
            self._listeners.append(listener)

    def unsubscribe(self, listener: Listener) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    def _changed(self, name: str) -> None:
        for listener in list(self._listeners):
            listener(self, name)


def start_worker(python: Optional[str] = None):
    """A one-run worker (`WorkerConfig(python, runs_once=True)`) started now,
    in this process's environment, or None when it cannot start (the client
    that would take it starts its own and reports why). For a CLI command
    that can start its worker before it imports the protocol's messages and
    the trace model: torch's import in the worker overlaps that import."""
    import os

    try:
        return WorkerConfig(python=python, runs_once=True).spawn(os.environ)
    except (OSError, ValueError):
        return None

