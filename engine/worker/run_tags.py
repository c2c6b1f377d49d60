"""Who made a backward call (process, rank, thread), and one recorded call at a time.

Threads: the recorder keeps one "call being recorded" (`Recorder.active`) and
puts its own post-hook on every node of the call's graph under one key, so
two threads recording at once would mix their steps and overwrite each
other's hooks. Before, a call made while another thread's call was being
recorded was mistaken for a nested call and went unrecorded (four threads
calling backward() on one leaf gave three runs). Now calls from different
threads take turns (`Turns`); the user's backward calls still all run, with
the same arguments, and each gets its own run tagged with its thread.
A nested call (a reentrant checkpoint's backward inside the outer one, which
on CUDA runs on the engine's device thread) is told apart by torch's
current graph task (`in_backward`) and never waits for a turn: that would
deadlock on the outer call.

If a call waits for its turn longer than TURN_WAIT_S (another thread's
backward blocks on this thread, say), it runs unrecorded rather than hang;
the runner notes how many did.
"""

from __future__ import annotations

import os
import threading
from contextlib import contextmanager
from typing import Optional

import torch

# How long a backward call waits while another thread's call is recorded.
TURN_WAIT_S = 30.0


def in_backward() -> bool:
    """True inside a running backward pass (on any of the engine's threads)."""
    try:
        return torch._C._current_graph_task_id() != -1
    except Exception:
        return False


def dist_rank() -> Optional[int]:
    """torch.distributed's rank in the default group, when one is initialised."""
    try:
        dist = torch.distributed
        if dist.is_available() and dist.is_initialized():
            return int(dist.get_rank())
    except Exception:
        pass
    return None


def tag_run(run, default_rank: Optional[int]) -> None:
    """Fill a BackwardRun's rank, pid and thread (trace-format.md, "Processes and threads")."""
    rank = dist_rank()
    run.rank = rank if rank is not None else default_rank
    run.pid = os.getpid()
    t = threading.current_thread()
    run.thread = t.name
    run.thread_id = t.ident


class Turns:
    """A lock for recorded calls, with a bounded wait."""

    def __init__(self, wait_s: float = TURN_WAIT_S):
        self._lock = threading.Lock()
        self.wait_s = wait_s
        self.missed = 0  # calls that ran unrecorded after waiting too long

    @contextmanager
    def take(self):
        got = self._lock.acquire(timeout=self.wait_s)
        try:
            yield got
        finally:
            if got:
                self._lock.release()
