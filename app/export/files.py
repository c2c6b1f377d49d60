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
from typing import Iterator

from autogradviz.engine.trace import atomic_file


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
    """Fail early, before any rendering work, when `path` cannot be written
    (a symbolic link: its target, which is what gets written)."""
    try:
        target = atomic_file.write_target(path)
    except atomic_file.SpecialFileError as exc:  # (a FIFO would block, a device is not a file)
        raise ExportError(special_file_message(path, exc.kind)) from None
    folder = os.path.dirname(target) or "."
    if not os.path.isdir(folder):
        raise ExportError(tr("cannot write {0}: folder {1} does not exist").format(path, folder))
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ExportError(tr("cannot write {0}: no permission to write in {1}").format(path, folder))
    if os.path.exists(target) and not os.access(target, os.W_OK):
        raise ExportError(tr("cannot write {0}: the file is read-only").format(path))


@contextlib.contextmanager
def atomic_path(path: str) -> Iterator[str]:
    """Yield a temporary path next to `path`'s target (same suffix, so writers
    that look at it are happy); on success it replaces the target, on any
    exception (KeyboardInterrupt included) it is removed and `path` is
    untouched. The one atomic writer (engine/trace/atomic_file.py): a symbolic
    link is written through, the file's permissions are kept, a FIFO or
    device is refused."""
    check_writable(path)
    try:
        with atomic_file.atomic_path(path) as tmp:
            yield tmp
            if not os.path.exists(tmp) or os.path.getsize(tmp) == 0:
                raise ExportError(tr("cannot write {0}: nothing was rendered").format(path))
    except atomic_file.SpecialFileError as exc:
        raise ExportError(special_file_message(path, exc.kind)) from None
    except OSError as exc:
        raise ExportError(tr("cannot write {0}: {1}").format(path, exc.strerror or exc)) from None


def commit_written(tmp: str, path: str) -> None:
    """Put `tmp` (atomic_file.temp_path(path), written in full by another
    process: the worker, for `autogradviz trace -o`) in place of `path`, as
    atomic_path does; ExportError (one line) when that fails, `tmp` removed."""
    try:
        atomic_file.commit(tmp, path)
    except atomic_file.SpecialFileError as exc:
        raise ExportError(special_file_message(path, exc.kind)) from None
    except OSError as exc:
        raise ExportError(tr("cannot write {0}: {1}").format(path, exc.strerror or exc)) from None


def special_file_message(path: str, kind: str) -> str:
    """One line: why `path` (a FIFO, a device...: atomic_file.file_kind) is not written."""
    if kind == "a directory":
        return tr("cannot write {0}: it is a directory").format(path)
    if kind == "a FIFO (named pipe)":
        return tr("cannot write {0}: it is a FIFO (named pipe), not a regular file; left alone").format(path)
    if kind == "a device":
        return tr("cannot write {0}: it is a device, not a regular file; left alone").format(path)
    if kind == "a socket":
        return tr("cannot write {0}: it is a socket, not a regular file; left alone").format(path)
    return tr("cannot write {0}: it is not a regular file; left alone").format(path)
