"""Fixtures for engine tests that need real worker processes.

Starting a worker costs an interpreter plus `import torch` (seconds), so one
warm worker is shared by a whole test module; tests that kill their worker
(timeouts, crashes) use their own client.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from autogradviz.engine.protocol.client import WorkerClient


@pytest.fixture(scope="module")
def worker():
    """A started WorkerClient shared by the tests of one module."""
    client = WorkerClient()
    client.start()
    yield client
    pid = client.pid
    client.close()
    if pid is not None:
        assert_gone(pid)


@pytest.fixture
def gone():
    """assert_gone(pid) as a fixture (test modules import no helpers)."""
    return assert_gone


@pytest.fixture
def cli():
    """run_cli(*args) as a fixture."""
    return run_cli


def assert_gone(pid: int, wait: float = 5.0) -> None:
    """The process `pid` no longer exists (exited *and* reaped)."""
    deadline = time.monotonic() + wait
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        except PermissionError:  # pid reused by someone else's process
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"process {pid} is still there")
        time.sleep(0.05)


def run_cli(*args, timeout: float = 120.0, cwd=None, env=None) -> subprocess.CompletedProcess:
    """`python -m autogradviz ARGS` as a real subprocess."""
    return subprocess.run([sys.executable, "-m", "autogradviz", *map(str, args)],
                          capture_output=True, text=True, timeout=timeout, cwd=cwd, env=env)
