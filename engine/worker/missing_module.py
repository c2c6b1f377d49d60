"""A script imported a module this worker's Python does not have: say which,
which pip distribution provides it, and the exact command that installs it
into *this* interpreter (the one running the script, `sys.executable`).

Thonny's package manager is the model: the learner should not have to know
which Python the app uses nor that `import cv2` is installed as
`opencv-python`. The error crosses to the app as a code and parameters
(`ErrorInfo.code` = "missing_module", `ErrorInfo.params`) so the app can
explain it in the learner's language and offer to run the install itself; the
English text goes with it for the CLI and other readers of the trace.
The import-name mapping lives in engine/protocol/distributions.py, because
the app derives the package it offers from the module name itself (a trace's
`distribution` and `command` are data, never what it runs); a name that is
not an import name (a script may raise ModuleNotFoundError with any `name`)
gets no code at all.

Runs in the worker (it looks at the worker's own interpreter); never imports
torch or Qt.
"""

from __future__ import annotations

import importlib.util
import os
import shlex
import sys
from typing import Any, Optional

from autogradviz.engine.protocol.distributions import distribution_for, install_target  # noqa: F401
from autogradviz.engine.protocol.interpreter import pip_install_command

MISSING_MODULE = "missing_module"
MISSING_SUBMODULE = "missing_submodule"

ENGLISH_MISSING = (
    "The module {module!r} is not installed in the Python that runs your scripts ({python}). "
    "Install the package {distribution!r} into it, in a terminal:\n    {command}\n"
    "then run the script again. (If {module!r} is a file of your own, put it in the script's folder.)"
)
ENGLISH_NO_PIP = (
    " This Python has no pip: first run {python_q} -m ensurepip, or install the package with "
    "your environment's own tool (conda install)."
)
ENGLISH_SUBMODULE = (
    "The package {top!r} is installed, but it has no module {module!r}: check the spelling, or "
    "whether your version of {top!r} has it (it may be newer or older than the code expects)."
)
ENGLISH_IMPORT_NAME = (
    "The module was found, but a name could not be imported from it: check the spelling, or "
    "whether the installed version provides it."
)


def missing_module_error(exc: BaseException) -> Optional[tuple[str, dict[str, Any], str]]:
    """(code, params, English explanation) for a ModuleNotFoundError, else None.

    code "missing_module", params {module, distribution, python, command,
    pip}: the top-level module is absent, installing `distribution` helps.
    code "missing_submodule", params {module, top}: the package is there, a
    module inside it is not (no install offered: it would not help).
    """
    if not isinstance(exc, ModuleNotFoundError):
        return None
    name = exc.name or _name_from_message(str(exc))
    distribution = install_target(name) if name else None
    if not name or distribution is None:  # not an import name (a script can raise anything)
        return None
    top = name.split(".", 1)[0]
    if top != name and _importable(top):
        return (MISSING_SUBMODULE, {"module": name, "top": top},
                ENGLISH_SUBMODULE.format(module=name, top=top))
    python = sys.executable or "python"
    command = pip_install_command(python, [distribution])
    has_pip = _importable("pip")
    params = {"module": top, "distribution": distribution, "python": python, "command": command,
              "pip": has_pip}
    text = ENGLISH_MISSING.format(module=top, distribution=distribution, python=python, command=command)
    if not has_pip:
        text += ENGLISH_NO_PIP.format(python_q=shlex.quote(python) if os.name != "nt" else python)
    return MISSING_MODULE, params, text


def _importable(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _name_from_message(message: str) -> Optional[str]:
    """"No module named 'x.y'" -> "x.y" (a ModuleNotFoundError raised by hand
    may lack `.name`)."""
    marker = "No module named "
    if marker not in message:
        return None
    rest = message.split(marker, 1)[1].strip()
    return rest.strip("'\"") or None
