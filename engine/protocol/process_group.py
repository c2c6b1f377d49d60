"""The worker and everything the script starts form one process group, ended together.

A script may start processes (DDP ranks, DataLoader workers, `subprocess`):
Stop, a timeout or the app closing must end all of them, not only the worker
- under a terminal, Ctrl-C reaches the whole foreground group the same way.
So the worker makes itself the leader of a new process group at start
(`lead_own_group`; children inherit the group) and says so in its `ready`
message (`pgid`, docs/worker-protocol.md); a client ending a worker (or
seeing it end) kills that group (`kill_group`). A group id stays valid while
any member lives, even after the leader died, so killing it after the
worker was reaped still reaches orphaned children. Standard library only
(both clients use it; the GUI imports no torch).
"""

from __future__ import annotations

import os
import signal
from typing import Optional


def lead_own_group() -> Optional[int]:
    """Make this process the leader of a new process group; its id, or None."""
    if not hasattr(os, "setpgid"):
        return None
    try:
        if os.getpgid(0) != os.getpid():
            os.setpgid(0, 0)
        return os.getpgid(0)
    except OSError:
        return None


def kill_group(pgid) -> bool:
    """SIGKILL every process in group `pgid` (never our own group). True if sent."""
    if not isinstance(pgid, int) or pgid <= 1 or not hasattr(os, "killpg"):
        return False
    try:
        if pgid == os.getpgid(0):
            return False
        os.killpg(pgid, signal.SIGKILL)
        return True
    except OSError:  # no such group (all gone already), or not ours
        return False
