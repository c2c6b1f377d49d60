"""Writing a file the learner owns so that it is never left half-written.

A plain `open(path, "w").write(text)` truncates the file first: when the
disk fills up (or the process is killed) half-way, a 1,821-byte script is
left as a 4,096-byte fragment and the original is gone. Every file the app
and the CLI write (the script on File > Save, the autosave, kept lesson
edits, saved and exported traces, images) goes through `atomic_path`
instead:

- the new content goes to a temporary file in the *same folder* as the
  target (so the final rename never crosses file systems), is flushed and
  fsync'ed, and only then renamed over the target: the target holds the old
  content or the new one, never a mix - also after a power cut;
- the target's permission bits (and owner, where we may set it) are kept,
  so an executable or private script stays so;
- a symbolic link is followed: its target file is written and the link
  stays a link (as an editor writing "through" it would);
- a FIFO, a device, a socket or a directory is never replaced or written
  into: `SpecialFileError` (one clear reason) before anything is written -
  `-o /dev/sda` or a FIFO must not turn into a regular file or block.

On any failure (ENOSPC, EFBIG, EACCES, Ctrl+C) the temporary file is
removed and the original is untouched. Standard library only: the GUI and
the CLI both use it (neither torch nor Qt here).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from typing import Iterator, Union


class SpecialFileError(OSError):
    """The destination exists and is not a regular file (`kind` says what it is)."""

    def __init__(self, path: str, kind: str):
        super().__init__(f"{path} is {kind}, not a regular file; it is left alone")
        self.path = path
        self.kind = kind


def file_kind(mode: int) -> str:
    """'a directory', 'a FIFO (named pipe)', 'a device', 'a socket'... for `mode`."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a special file"


def write_target(path: Union[str, os.PathLike]) -> str:
    """The file that writing `path` really writes: symbolic links followed.
    Raises SpecialFileError when that exists and is not a regular file."""
    real = os.path.realpath(os.fspath(path))
    try:
        st = os.stat(real)
    except FileNotFoundError:
        return real  # (a new file, or a dangling link: its target is created)
    except OSError:
        return real  # (the write itself says why: permission, a loop...)
    if not stat.S_ISREG(st.st_mode):
        raise SpecialFileError(os.fspath(path), file_kind(st.st_mode))
    return real


@contextlib.contextmanager
def atomic_path(path: Union[str, os.PathLike]) -> Iterator[str]:
    """Yield a temporary path beside `path`'s target (same suffix, so writers
    that look at it are happy); write the whole content there. On success
    it replaces the target (see the module docstring); on any exception,
    KeyboardInterrupt included, it is removed and the target is untouched."""
    target = write_target(path)
    folder, prefix, suffix = _temp_parts(target)
    fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=suffix, dir=folder)
    os.close(fd)
    try:
        yield tmp
        _replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_folder(folder)


def temp_path(path: Union[str, os.PathLike]) -> str:
    """A new temporary name beside `path`'s target (as atomic_path's), where
    no file is yet, for another process to create and write (the worker
    writing `autogradviz trace -o FILE`: engine/worker/trace_file_out.py);
    `commit(tmp, path)` then puts it in place. SpecialFileError as atomic_path."""
    import secrets

    folder, prefix, suffix = _temp_parts(write_target(path))
    return os.path.abspath(os.path.join(folder, prefix + secrets.token_hex(6) + suffix))


def commit(tmp: str, path: Union[str, os.PathLike]) -> None:
    """Replace `path`'s target by `tmp` (a temp_path another process has
    written in full), as atomic_path does when its block ends; on failure
    `tmp` is removed and the target untouched (the OSError is raised)."""
    target = write_target(path)
    try:
        _replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_folder(os.path.dirname(target) or ".")


def _temp_parts(target: str) -> tuple[str, str, str]:
    """(folder, prefix, suffix) of the temporary files beside `target`."""
    suffix = os.path.splitext(target)[1]
    return os.path.dirname(target) or ".", "." + os.path.basename(target) + ".", ".tmp" + suffix


def _replace(tmp: str, target: str) -> None:
    """`tmp` on disk, with the target's permissions, renamed over it."""
    _fsync_file(tmp)
    _copy_owner_and_mode(target, tmp)
    os.replace(tmp, target)


def write_atomic(path: Union[str, os.PathLike], data: Union[bytes, str], encoding: str = "utf-8") -> None:
    """Write `data` (bytes, or text encoded with `encoding`, no newline
    translation) to `path` atomically (see `atomic_path`)."""
    if isinstance(data, str):
        data = data.encode(encoding)
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as f:
            f.write(data)


def _copy_owner_and_mode(target: str, tmp: str) -> None:
    """The new file gets the old one's permission bits (and owner and group
    when we may set them); a new file the usual 0o666 less the umask
    (mkstemp makes it 0o600)."""
    try:
        st = os.stat(target)
    except OSError:
        with contextlib.suppress(OSError):
            os.chmod(tmp, 0o666 & ~_UMASK)
        return
    if hasattr(os, "chown"):
        with contextlib.suppress(OSError):
            mine = os.stat(tmp)
            if (mine.st_uid, mine.st_gid) != (st.st_uid, st.st_gid):
                os.chown(tmp, st.st_uid, st.st_gid)
    with contextlib.suppress(OSError):
        os.chmod(tmp, stat.S_IMODE(st.st_mode))


def _fsync_file(path: str) -> None:
    """Data on disk before the rename: after a power cut the target holds the
    old file or the new one, never an empty one. A failing fsync is a
    failing write (some file systems report a full disk only here)."""
    fd = os.open(path, os.O_RDONLY if os.name == "posix" else os.O_RDWR)  # (Windows: write access)
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.ENOTSUP):  # (a file system without fsync)
            raise
    finally:
        os.close(fd)


def _fsync_folder(folder: str) -> None:
    """The rename itself on disk (best effort: not every system allows it)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _umask() -> int:
    m = os.umask(0)
    os.umask(m)
    return m


_UMASK = _umask()  # read once: os.umask is process-wide, not thread-safe
