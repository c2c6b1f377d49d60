"""Writing files safely, without rendering anything (no QtGui): the one
atomic file writer of the app.

Every exported file, and the trace `autogradviz trace -o` writes, is written
to a temporary file in the destination folder and `os.replace`d over the
target only when complete: an error, a crash in a renderer or Ctrl+C never
leaves a half-written file, and the temporary is removed. An unwritable
destination fails *before* any rendering work, with one clear line naming the
path. Used by the exporter, by the DOT path of `autogradviz export` and by
`autogradviz trace`, which need no GUI libraries: Qt is imported only to
translate a message, and not at all where PySide6 is missing.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from typing import Iterator


def tr(text: str) -> str:
    try:
        from PySide6.QtCore import QCoreApplication
    except ImportError:  # `autogradviz trace` without PySide6: English it is
        return text
    return QCoreApplication.translate("Export", text)


class ExportError(Exception):
    """A clear, one-line reason why nothing was written."""


class ExportCancelled(ExportError):
    pass


def check_writable(path: str) -> None:
    """Fail early, before any rendering work, when `path` cannot be written."""
    folder = os.path.dirname(os.path.abspath(path)) or "."
    if os.path.isdir(path):
        raise ExportError(tr("cannot write {0}: it is a directory").format(path))
    if not os.path.isdir(folder):
        raise ExportError(tr("cannot write {0}: folder {1} does not exist").format(path, folder))
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ExportError(tr("cannot write {0}: no permission to write in {1}").format(path, folder))
    if os.path.exists(path) and not os.access(path, os.W_OK):
        raise ExportError(tr("cannot write {0}: the file is read-only").format(path))


@contextlib.contextmanager
def atomic_path(path: str) -> Iterator[str]:
    """Yield a temporary path next to `path` (same suffix, so writers that
    look at it are happy); on success it replaces `path`, on any exception
    (KeyboardInterrupt included) it is removed and `path` is untouched."""
    check_writable(path)
    folder = os.path.dirname(os.path.abspath(path)) or "."
    suffix = os.path.splitext(path)[1]
    try:
        fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp" + suffix,
                                   dir=folder)
    except OSError as exc:
        raise ExportError(tr("cannot write {0}: {1}").format(path, exc.strerror or exc)) from None
    os.close(fd)
    try:
        yield tmp
        if not os.path.exists(tmp) or os.path.getsize(tmp) == 0:
            raise ExportError(tr("cannot write {0}: nothing was rendered").format(path))
        _fsync(tmp)
        try:
            mode = 0o666 & ~_UMASK
            os.chmod(tmp, mode)
        except OSError:
            pass
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _fsync(path: str) -> None:
    """Data on disk before the rename: after a power cut the target holds the
    old file or the new one, never an empty one."""
    try:
        fd = os.open(path, os.O_RDONLY)
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
