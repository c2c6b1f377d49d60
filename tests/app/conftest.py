"""Shared setup for the Qt tests: offscreen, isolated settings and data folders,
and a real worker process shared per test module (torch imports once)."""

from __future__ import annotations

import os
from pathlib import Path
import sys
import tempfile
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Settings and autosave go to a private folder, never the user's.
_TMP = tempfile.mkdtemp(prefix="autogradviz-tests-")
os.environ["XDG_DATA_HOME"] = os.path.join(_TMP, "data")
os.environ["XDG_CONFIG_HOME"] = os.path.join(_TMP, "config")

import pytest  # noqa: E402

# PySide6 6.12 on Python < 3.12 drops references to None/True/False (see
# app/startup.py); long test sessions would otherwise crash.
from autogradviz.app.startup import keep_none_alive  # noqa: E402

keep_none_alive()

WORKER_READY_TIMEOUT_MS = 60_000


def _wait_until(predicate, timeout_ms: int, what: str = "condition") -> None:
    """Process Qt events until predicate() is true (for module-scoped fixtures)."""
    from PySide6.QtCore import QCoreApplication, QEventLoop, QThread

    deadline = time.monotonic() + timeout_ms / 1000
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_ms} ms waiting for {what}")
        QCoreApplication.processEvents(QEventLoop.AllEvents, 50)
        QThread.msleep(5)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie still answers kill(0); check its state.
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


@pytest.fixture(scope="session", autouse=True)
def _isolated_settings(qapp):
    from PySide6.QtCore import QCoreApplication, QSettings

    QCoreApplication.setOrganizationName("autogradviz-tests")
    QCoreApplication.setApplicationName("autogradviz-tests")
    QSettings.setPath(QSettings.IniFormat, QSettings.UserScope, os.path.join(_TMP, "settings"))
    yield


@pytest.fixture(scope="module")
def shared_worker(qapp):
    """One warm real worker for the whole module; checked for leaks at the end."""
    from autogradviz.app.services.worker_process import READY, WorkerProcess

    worker = WorkerProcess(timeout_s=60)
    pids: list[int] = []  # every worker process started, as each says in `ready`
    worker.readyInfo.connect(lambda info: pids.append(info["pid"]))
    worker.start()
    _wait_until(lambda: worker.state == READY, WORKER_READY_TIMEOUT_MS, "the worker's ready message")
    yield worker
    worker.shutdown()
    assert not worker._parse_thread.isRunning(), "trace parser thread left running"
    worker.deleteLater()
    _wait_until(lambda: not any(_pid_alive(p) for p in pids), 5000, "worker processes to exit")


def python_exe() -> str:
    return sys.executable


@pytest.fixture
def wait_until():
    """wait_for(predicate, timeout_ms, what): process events until true."""
    return _wait_until


@pytest.fixture
def pid_alive():
    """alive(pid) -> bool."""
    return _pid_alive


def _children() -> set[int]:
    """Live (non-zombie) child processes of this test process."""
    kids: set[int] = set()
    try:
        for tid in os.listdir(f"/proc/{os.getpid()}/task"):
            try:
                with open(f"/proc/{os.getpid()}/task/{tid}/children") as f:
                    kids.update(int(p) for p in f.read().split())
            except OSError:
                pass
    except OSError:
        return kids
    return {p for p in kids if _pid_alive(p)}


@pytest.fixture
def no_leftovers(shared_worker):
    """After the test: no thread-pool work running and no child process the test
    started still alive, except the module's shared worker. (Children alive before
    the test are not its own: with the suite spread over processes, another
    module's session-wide fixture may hold one.)"""
    before = _children()
    yield
    from PySide6.QtCore import QThreadPool

    assert QThreadPool.globalInstance().waitForDone(10_000), "thread pool still busy"
    keep = ({shared_worker.pid()} - {None}) | before
    _wait_until(lambda: not (_children() - keep), 5_000, "stray child processes to exit")


@pytest.fixture
def main_window(qtbot, shared_worker):
    """A shown MainWindow on the shared worker (no worker start, no autosave),
    closed at the end without asking about unsaved text."""
    from autogradviz.app.theme import ThemeManager
    from autogradviz.app.window.main_window import MainWindow

    theme = ThemeManager()
    w = MainWindow(theme_manager=theme, worker=shared_worker, start_worker=False, restore_autosave=False)
    qtbot.addWidget(w)
    w.show()
    yield w
    w.ask_unsaved = lambda: "discard"
    w.close()
    theme.deleteLater()


@pytest.fixture(scope="module")
def lesson_window(qapp, shared_worker):
    """One shown MainWindow for a module of lesson tests (closed at its end),
    with no kept lesson edits from other tests' typing."""
    import shutil

    from autogradviz.app.panels.lessons.edits import edits_dir
    from autogradviz.app.theme import ThemeManager
    from autogradviz.app.window.main_window import MainWindow

    shutil.rmtree(edits_dir(), ignore_errors=True)
    theme = ThemeManager()
    w = MainWindow(theme_manager=theme, worker=shared_worker, start_worker=False, restore_autosave=False)
    w.ask_unsaved = lambda: "discard"
    w.show()
    yield w
    w.close()
    w.deleteLater()
    theme.deleteLater()


LESSONS_DIR = Path(__file__).resolve().parents[2] / "resources" / "lessons"
# The DDP lesson spawns processes (its graph is drawn like any other's).
DRAWN_LESSONS = [p for p in sorted(LESSONS_DIR.glob("*.py"))
                 if "." not in p.stem and not p.stem.startswith("_") and p.stem != "41_ddp_two_processes"]


@pytest.fixture(scope="session")
def lesson_traces() -> dict:
    """{lesson name: its trace} for every lesson with a backward run, from one
    real worker, once per test session (the overlap count and the export
    comparison both walk every lesson; recording them twice cost ~25 s).
    Read-only: a test that adds traces copies the dict first."""
    from autogradviz.engine.protocol.client import WorkerClient

    client = WorkerClient()
    client.start()
    out = {}
    try:
        for path in DRAWN_LESSONS:
            res = client.run(path.read_text(encoding="utf-8"), filename=str(path), timeout=120)
            if res.trace is not None and res.trace.backward_runs:
                out[path.stem] = res.trace
    finally:
        client.close()
    return out
