"""The trace file written by the worker itself (`autogradviz trace -o FILE`).

Why: the CLI would otherwise receive the whole trace through the protocol
pipe (34 MB for a 50,000-node chain), copy it and write it: about 0.07 s
more than writing it here, of a run measured against `python script.py`
(benchmarks/bench_trace_cli.py). The CLI chooses the path (a temporary name
beside FILE: engine/trace/atomic_file.py `temp_path`), and after the run
syncs and renames the file (`commit`), so FILE is still replaced atomically.

The file is created exclusively (never one that exists, never through a
symbolic link) and private (0600; the CLI gives it FILE's permissions).
Any failure - a full disk, a file-size limit the script set (the run child
is the script's process: RLIMIT_FSIZE), a folder the script removed - removes
what was written and answers False: the worker then sends the trace as
usual, and the CLI writes it itself or says in one line why it cannot.
"""

from __future__ import annotations

import os

try:
    import resource
except ImportError:  # (Windows)
    resource = None  # type: ignore[assignment]

_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
# Taken when the worker starts, before any script runs: the file is written
# by the script's process after the script, which may have replaced
# `open`, `os.write` or `os.open` (a test's mock left in place) - ours are
# still the real ones.
_open, _write, _close, _unlink = os.open, os.write, os.close, os.unlink
_fchmod = getattr(os, "fchmod", None)
_isabs = os.path.isabs
_getrlimit = resource.getrlimit if resource is not None else None


def write_trace_file(path: str, data: bytes) -> bool:
    """`data` and a newline into a new file at `path`; True when all of it was written."""
    if not _isabs(path) or not _size_allowed(len(data) + 1):
        return False
    try:
        fd = _open(path, _FLAGS, 0o600)
    except OSError:
        return False
    try:
        try:
            if _fchmod is not None:  # (0600 whatever umask the script set: the CLI must read it back)
                _fchmod(fd, 0o600)
            _write_all(fd, data)
            _write_all(fd, b"\n")
        finally:
            _close(fd)
        return True
    except OSError:
        try:
            _unlink(path)
        except OSError:
            pass
        return False


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[_write(fd, view):]


def _size_allowed(size: int) -> bool:
    """False when the process may not write a file of `size` bytes (a limit
    the script set: the write would fail part-way, or SIGXFSZ end us)."""
    if _getrlimit is None or resource is None:
        return True
    try:
        soft = _getrlimit(resource.RLIMIT_FSIZE)[0]
    except (OSError, ValueError):
        return True
    return soft == resource.RLIM_INFINITY or soft >= size
