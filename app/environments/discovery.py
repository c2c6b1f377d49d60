"""Python interpreters a learner probably means: the environments found in the
usual places, offered in Preferences' list (as Thonny's interpreter page
lists the venvs and conda envs it finds), so that choosing "my conda env with
CUDA torch" needs no typing. Only looks at files; starts nothing (the chosen
one is checked afterwards). No Qt here.
"""

from __future__ import annotations

import glob
import os
import shutil
import sys
from typing import Optional

_BIN = os.path.join("Scripts", "python.exe") if os.name == "nt" else os.path.join("bin", "python")
_CONDA_ROOTS = ("miniconda3", "anaconda3", "miniforge3", "mambaforge", "micromamba", ".conda",
                os.path.join(".local", "share", "mamba"))
_VENV_FOLDERS = (".virtualenvs", "venvs", ".venvs", os.path.join(".local", "share", "virtualenvs"))


def _env_python(prefix: str) -> str:
    """The interpreter of an environment folder (conda on Windows keeps it at the top)."""
    if os.name == "nt" and os.path.isfile(os.path.join(prefix, "python.exe")):
        return os.path.join(prefix, "python.exe")
    return os.path.join(prefix, _BIN)


def find_interpreters(home: Optional[str] = None, environ: Optional[dict] = None) -> list[str]:
    """Existing Python executables of the environments in the usual places,
    the active ones first, without the app's own; each path once."""
    home = home or os.path.expanduser("~")
    env = os.environ if environ is None else environ
    candidates: list[str] = []
    for key in ("VIRTUAL_ENV", "CONDA_PREFIX"):
        if env.get(key):
            candidates.append(_env_python(env[key]))
    for root in _CONDA_ROOTS:
        base = os.path.join(home, root)
        candidates.append(_env_python(base))
        candidates.extend(_env_python(p) for p in sorted(glob.glob(os.path.join(base, "envs", "*"))))
    for folder in _VENV_FOLDERS:
        candidates.extend(_env_python(p) for p in sorted(glob.glob(os.path.join(home, folder, "*"))))
    candidates.append(_env_python(os.path.join(home, ".venv")))
    for name in ("python3", "python"):
        found = shutil.which(name, path=env.get("PATH"))
        if found:
            candidates.append(found)
    seen = {os.path.normcase(os.path.abspath(sys.executable))}
    result = []
    for path in candidates:
        key = os.path.normcase(os.path.abspath(path))
        if key in seen or not os.path.isfile(path) or not os.access(path, os.X_OK):
            continue
        seen.add(key)
        result.append(path)
    return result
