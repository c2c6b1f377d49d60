"""The relay's socket folders (engine/worker/children.py), also after a crash.

Each relay listens on a socket in a folder of its own in the temporary
folder, named FOLDER_PREFIX<pid of the process that made it>_<random>, and
removes it when the run ends. A worker killed mid-run (SIGKILL, the machine
out of memory) never gets there: the next relay, and the next worker at its
start, remove the folders whose process is gone. Standard library only and
cheap (one scan of the temporary folder, well under a millisecond).
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from typing import Optional

FOLDER_PREFIX = "autogradviz_relay_"


def remove_stale_relay_folders(base: Optional[str] = None) -> None:
    """Remove the relay folders of processes that are gone (a worker killed
    mid-run never closed its relay). Only this user's folders; a folder
    whose process still runs (another worker's live run) is left alone."""
    if os.name != "posix":
        return  # (no relay folders there: the relay listens on a named pipe)
    base = base or tempfile.gettempdir()
    try:
        entries = list(os.scandir(base))
    except OSError:
        return
    uid = os.getuid() if hasattr(os, "getuid") else None
    for entry in entries:
        if not entry.name.startswith(FOLDER_PREFIX):
            continue
        pid = entry.name[len(FOLDER_PREFIX):].split("_", 1)[0]
        if not pid.isdigit():
            continue  # (an older folder without its owner's pid)
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if not stat.S_ISDIR(st.st_mode) or (uid is not None and st.st_uid != uid):
            continue
        if not _process_gone(int(pid)):
            continue
        shutil.rmtree(entry.path, ignore_errors=True)


def _process_gone(pid: int) -> bool:
    """True when no process `pid` runs (a zombie waiting to be reaped counts as gone)."""
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OSError):
        return False  # (another user's process has this pid now)
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] in (b"Z", b"X")
    except (OSError, IndexError):
        return False
