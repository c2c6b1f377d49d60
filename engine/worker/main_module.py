"""The script runs as a real `__main__` module, as under `python script.py`.

Why a module object and not a bare dict: pickle finds a function by
`sys.modules[fn.__module__]`, so `torch.multiprocessing.spawn(run)`, a
spawn-method DataLoader worker or `multiprocessing.Pool.map(f, ...)` need the
script's functions reachable as attributes of `sys.modules["__main__"]`. A
spawned child re-imports the main module by its `__file__` (as `__mp_main__`,
multiprocessing.spawn), so the module needs a file on disk: the script's own
file, or - for unsaved editor text - a temporary copy written before the run
and deleted after it. The code is still compiled under the name the user
sees ("<editor>" or the script's path): tracebacks and recorded lines point
at the user's text, never at the temporary copy.

`MainModule` is used as a context manager around the script's exec: it puts
the module in `sys.modules["__main__"]` and restores the worker's own
`__main__` afterwards (the worker lives on for the next run).
"""

from __future__ import annotations

import builtins
import os
import sys
import tempfile
import types
from typing import Literal, Optional


# Temporary copies are named autogradviz_main_<worker pid>_<random>.py: a
# worker killed mid-run (Stop, timeout) cannot delete its copy, so the next
# one deletes copies whose worker is gone.
_PREFIX = "autogradviz_main_"


def _sweep_stale() -> None:
    try:
        folder = tempfile.gettempdir()
        names = [n for n in os.listdir(folder) if n.startswith(_PREFIX) and n.endswith(".py")]
    except OSError:
        return
    for name in names:
        pid = name[len(_PREFIX):].split("_", 1)[0]
        if not pid.isdigit() or _alive(int(pid)):
            continue
        try:
            os.unlink(os.path.join(folder, name))
        except OSError:
            pass


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def is_real_file(filename: str) -> bool:
    """Not a placeholder name such as "<editor>"."""
    return not (filename.startswith("<") and filename.endswith(">"))


class MainModule:
    """The script's `__main__` module; `namespace` is its `__dict__`."""

    def __init__(self, source: str, filename: str, device: str):
        self.source = source
        self.filename = filename
        self.module = types.ModuleType("__main__")
        self.namespace: dict = self.module.__dict__
        self.namespace["__builtins__"] = builtins
        self.namespace["device"] = device
        # (ModuleType sets __spec__ = None: multiprocessing then re-imports the
        # main module in a child by path, as for `python script.py`.)
        self.temp_path: Optional[str] = None
        if is_real_file(filename):
            self.namespace["__file__"] = filename
        self._saved: dict = {}

    @property
    def file(self) -> Optional[str]:
        """The file a child process imports the script from (None: none)."""
        return self.namespace.get("__file__") or self.temp_path

    def __enter__(self) -> "MainModule":
        if not is_real_file(self.filename) or not os.path.isfile(self.filename):
            self._write_temp()
        for name in ("__main__", "__mp_main__"):
            self._saved[name] = sys.modules.get(name)
        sys.modules["__main__"] = self.module
        return self

    def _write_temp(self) -> None:
        """Unsaved text: a temporary file children can import it from."""
        _sweep_stale()
        try:
            fd, path = tempfile.mkstemp(prefix=f"{_PREFIX}{os.getpid()}_", suffix=".py")
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(self.source)
        except OSError:
            return  # (children then fail to import it, as they would under python -c)
        self.temp_path = path
        self.namespace["__file__"] = path

    def __exit__(self, *exc) -> Literal[False]:
        for name, mod in self._saved.items():
            if mod is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = mod
        if self.temp_path is not None:
            try:
                os.unlink(self.temp_path)
            except OSError:
                pass
        return False
