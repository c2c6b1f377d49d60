"""`--python PATH` for `autogradviz trace` and `autogradviz export`: run the
script with another Python interpreter (a venv or conda env with its own
torch), as the app's Preferences do.

The interpreter is checked first (engine/protocol/interpreter.py: Python and
torch versions, the worker's packages), so that a Python without torch is
refused with one line naming what is missing and the command that installs
it, instead of a worker dying during start-up.
"""

from __future__ import annotations

import argparse
import os
from typing import Optional


def add_python_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--python", metavar="PATH", default=None,
                        help="run the script with this Python interpreter (a venv or conda env that "
                             "has torch; default: the one running autogradviz)")


def checked_python(path: Optional[str]) -> tuple[Optional[str], Optional[str]]:
    """(interpreter to use or None for this one, one-line problem or None)."""
    if not path:
        return None, None
    from autogradviz.engine.protocol.interpreter import check_interpreter, describe, same_interpreter

    python = os.path.abspath(os.path.expanduser(path)) if os.sep in path or path.startswith(".") else path
    if os.sep not in python:  # a bare name such as python3: look it up on PATH
        import shutil

        found = shutil.which(python)
        if found is None:
            return None, f"--python {path}: no such interpreter on PATH"
        python = found
    if same_interpreter(python):
        return None, None
    report = check_interpreter(python, full=False)  # the worker's start imports torch
    if not report.ok:
        return None, f"--python {describe(report)}"
    return python, None
