"""File > Save, the autosave and kept lesson edits on a disk that fills up
half-way: the original file survives whole, the learner is told so in one
clear message, and the editor keeps the text.

The disk really fills: each case runs the real FileController with a real
editor in a subprocess (tests/app/save_on_full_disk.py), either with
RLIMIT_FSIZE (every write past 4,096 bytes fails with EFBIG, as `ulimit -f`
does; any POSIX system) or on a 64 KB tmpfs filled to the last block
(ENOSPC; mounted in a user namespace, where the system allows one).
Before atomic writes, Save left a 4,096-byte fragment of a 1,821-byte script.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HELPER = Path(__file__).with_name("save_on_full_disk.py")
posix_only = pytest.mark.skipif(os.name != "posix", reason="RLIMIT_FSIZE, tmpfs")


def _user_namespace_tmpfs() -> bool:
    """Whether `unshare` may mount a tmpfs here (no root needed where user namespaces are on)."""
    if shutil.which("unshare") is None:
        return False
    try:
        return subprocess.run(["unshare", "--user", "--map-root-user", "--mount", "sh", "-c",
                               "mount -t tmpfs -o size=64k tmpfs /mnt"],
                              capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def _save_on_a_full_disk(folder: Path, mode: str) -> dict:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    cmd = [sys.executable, str(HELPER), str(folder), mode]
    if mode == "tmpfs":
        cmd = ["unshare", "--user", "--map-root-user", "--mount", "sh", "-c",
               f'mount -t tmpfs -o size=64k tmpfs "$0" && exec "$@"', str(folder), *cmd]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=180, env=env)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    assert proc.returncode == 0 and lines, f"helper failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    return json.loads(lines[-1])


@posix_only
@pytest.mark.parametrize("mode", ["fsize", "tmpfs"])
def test_save_on_a_full_disk_keeps_the_original_and_says_so(tmp_path, mode):
    if mode == "tmpfs" and not _user_namespace_tmpfs():
        pytest.skip("no user namespaces here to mount a small tmpfs (the fsize case still runs)")
    result = _save_on_a_full_disk(tmp_path, mode)
    assert result["saved"] is False
    # the 1,821-byte script is whole (it was a 4,096-byte fragment)
    assert result["original_kept"], result
    assert result["size_on_disk"] == 1821
    assert result["leftovers"] == []  # (no temporary file left beside it)
    # one clear message: why, and that nothing was lost
    (message,) = result["messages"]
    reason = "the disk is full" if mode == "tmpfs" else "larger than this system allows"
    assert reason in message and "unchanged" in message and "still in the editor" in message
    assert "Errno" not in message
    assert result["editor_kept_text"] and result["modified"]
    # the autosave and the kept lesson edits: the earlier copy whole, no temporary files
    assert result["autosave_raised"] is None and result["autosave_kept"]
    assert result["autosave_files"] == ["editor.json", "editor.py"]
    assert result["edits_kept"] is False and result["edits_original"]
    assert result["edits_files"] == ["01_lesson.py"]
