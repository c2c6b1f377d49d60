"""The folder a script runs in, as `cd folder && python script.py` would.

A script from a file runs with its own folder as the working directory and
first on `sys.path`, so `open("data.csv")` and `import helper` find the files
next to it, whichever folder the app or the CLI was started from (Thonny does
the same). Text that was never saved has no folder: it runs in the user's home
folder. The worker's own folder and `sys.path` come back after the run, so the
next run (and `fetch`) start from where the worker was.
"""

from __future__ import annotations

import os
import sys
from typing import Optional


def is_file(filename: str) -> bool:
    """`filename` names a script on disk (not "<editor>", text never saved)."""
    return bool(filename) and not (filename.startswith("<") and filename.endswith(">")) \
        and os.path.isfile(filename)


def folder_for(filename: str) -> str:
    """The working folder for a run of `filename` (a path, or a name such as
    "<editor>" for text that was never saved)."""
    if is_file(filename):
        return os.path.dirname(os.path.abspath(filename))
    return os.path.expanduser("~")


class WorkingFolder:
    """`with WorkingFolder(filename):` the run's folder is the working
    directory and sys.path[0]; both are put back afterwards."""

    def __init__(self, filename: str):
        self.folder = folder_for(filename)
        # The name the script runs under: absolute for a file, as python (3.9+)
        # makes `__file__` of a script, so that paths built from __file__ still
        # work once the working folder has changed.
        self.script = os.path.abspath(filename) if is_file(filename) else filename
        self._old_cwd: Optional[str] = None
        self._old_path: list[str] = []

    def __enter__(self) -> "WorkingFolder":
        self._old_path = list(sys.path)
        try:
            self._old_cwd = os.getcwd()
        except OSError:  # the worker's folder was removed meanwhile
            self._old_cwd = None
        try:
            os.chdir(self.folder)
        except OSError:
            self.folder = self._old_cwd or self.folder
        sys.path.insert(0, self.folder)
        return self

    def __exit__(self, *exc) -> None:
        sys.path[:] = self._old_path
        if self._old_cwd is not None:
            try:
                os.chdir(self._old_cwd)
            except OSError:
                pass
