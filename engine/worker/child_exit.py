"""A recorded child's trace also leaves when the child is terminated.

`Pool.terminate()` (what leaving a `with Pool(...)` block does) and
`Process.terminate()` end children with SIGTERM: under python they just
die. A recorded child sends its trace to the parent when it ends
(engine/worker/child_main.py, fork_child.py); killed, it would send nothing
and the backward calls it made would be missing from the trace. So while
the script leaves SIGTERM at its default action, a recorded child first
sends its trace and then dies by the same signal, with the same exit status
the parent sees under python. A script that sets its own SIGTERM handler
keeps it (and then ends however that handler decides).
"""

from __future__ import annotations

import os
import signal
import threading
from typing import Callable, Optional

# True once SIGTERM arrived: sends then wait for a lock at most briefly (the
# handler runs in the main thread, which may be in the middle of a send).
terminating = False


class Once:
    """`send`, called at most once, from the child's end or from the signal.

    SIGTERM often arrives while the child is already sending at its normal
    end (a Pool's workers finish their loop just as the pool terminates
    them): the handler then runs inside that send, in the same thread, and
    must let it finish (`kill_after`) instead of waiting for it."""

    def __init__(self, send: Callable[[], None]):
        self._send = send
        self._lock = threading.Lock()
        self._done = False
        self._sending_in: Optional[int] = None  # the thread sending now
        self.kill_after = False

    def busy_here(self) -> bool:
        return self._sending_in == threading.get_ident()

    def __call__(self) -> None:
        if self.busy_here():
            return
        if not self._lock.acquire(timeout=5.0):
            return  # (another thread is stuck sending: give up on the trace)
        try:
            if not self._done:
                self._done = True
                self._sending_in = threading.get_ident()
                try:
                    self._send()
                finally:
                    self._sending_in = None
        finally:
            self._lock.release()
            if self.kill_after:
                _die()


def _die() -> None:
    """The default SIGTERM action, now: as under python."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGTERM)


def send_on_sigterm(send: Once) -> None:
    """Before the default SIGTERM action, `send()` (see the module docstring).
    Call from the child's main thread; elsewhere it does nothing."""
    sigterm = getattr(signal, "SIGTERM", None)
    if sigterm is None or os.name != "posix":
        return
    try:
        current = signal.getsignal(sigterm)
        if current is not signal.SIG_DFL and not getattr(current, "autogradviz_worker", False):
            return  # (someone chose otherwise: left as it is; the worker's own, in a fork of it, acts as the default)

        def on_sigterm(signum, frame):
            global terminating
            terminating = True
            signal.signal(sigterm, signal.SIG_DFL)
            if send.busy_here():  # interrupted the send itself: it finishes, then the child dies
                send.kill_after = True
                return
            try:
                send()
            finally:
                _die()

        signal.signal(sigterm, on_sigterm)
    except (ValueError, OSError):  # (not the main thread)
        pass
