"""Stop in the GUI ends every process the script started (the worker's process group).

Through the real worker: the script starts a `sleep` with subprocess and a
forked multiprocessing child that ignores SIGTERM; after Stop, neither runs.
"""

from __future__ import annotations

import os
import re

import pytest

RUN_TIMEOUT_MS = 30_000

TREE = """\
import multiprocessing as mp, os, signal, subprocess, time

def stubborn():
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    print("child", os.getpid(), flush=True)
    time.sleep(300)

if __name__ == "__main__":
    sleeper = subprocess.Popen(["sleep", "300"])
    print("sleeper", sleeper.pid, flush=True)
    mp.get_context("fork").Process(target=stubborn).start()
    time.sleep(300)
"""


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc")
def test_stop_ends_the_whole_process_tree(qtbot, shared_worker, wait_until, pid_alive):
    printed = []
    shared_worker.outputReceived.connect(lambda stream, text: printed.append(text))
    try:
        with qtbot.waitSignal(shared_worker.runStarted, timeout=RUN_TIMEOUT_MS):
            shared_worker.run(TREE, "tree.py", "cpu")
        wait_until(lambda: re.search(r"child (\d+)", "".join(printed)) is not None, RUN_TIMEOUT_MS,
                   "the child's print")
        text = "".join(printed)
        pids = [int(re.search(r"sleeper (\d+)", text).group(1)), int(re.search(r"child (\d+)", text).group(1))]
        worker_pid = shared_worker.pid()
        assert all(map(pid_alive, pids))
        with qtbot.waitSignal(shared_worker.runStopped, timeout=5_000):
            assert shared_worker.stop()
        wait_until(lambda: not any(pid_alive(p) for p in [worker_pid, *pids]), 5_000,
                   "the worker, its child and the sleeper to be gone")
    finally:
        shared_worker.outputReceived.disconnect()
