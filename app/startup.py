"""Start-up work that must happen before the first Qt call in the GUI process.

PySide6 6.12.0 (the current release) on CPython < 3.12 drops a reference to
None on every call of a C++ method that returns void (`setZValue`,
`setToolTip`, `setVisible`, `setChecked`, ...) and a reference to True on
every `Signal.emit()`, without ever having taken them. Measured here (Python
3.11.7): 100 `QWidget.setVisible` calls lower `sys.getrefcount(None)` by 100,
100 emits lower True's by 100, and a few thousand of them abort the
interpreter ("none_dealloc: deallocating None", "bool_dealloc"); a big graph
scene makes that many calls in its first second. PySide6 6.11.3 does not do
this (the same script keeps both counts). `tests/app/test_startup.py`
reproduces it in a fresh process.

The calls are everywhere (every void Qt method, every emit), so there is no
call site to fix. Requiring PySide6 != 6.12.0 would also fix it; until the
project pins that, this stays. From Python
3.12 on these objects are immortal (PEP 683) and the bug is harmless. Until
then the one workaround is to give None/True/False a reference count so large
that the lost references can never bring it to zero (they are static
objects: their count means nothing else). `app/__init__.py` applies it, so
that every Qt path of the app (GUI, command-line export, tests, benchmarks)
has it before its first Qt call; the worker process never imports app/.
"""

from __future__ import annotations

import sys

# 2**40 references: a million lost references a second would take 12 days.
RESERVE = 1 << 40
_applied = False


def needs_refcount_reserve() -> bool:
    """Whether None/True/False can be deallocated here (Python < 3.12)."""
    return sys.version_info < (3, 12) and sys.implementation.name == "cpython"


def keep_none_alive() -> None:
    """Give None/True/False the reserve of references (once; a no-op where
    they are immortal)."""
    global _applied
    if _applied or not needs_refcount_reserve():
        return
    import ctypes

    for obj in (None, True, False):
        ctypes.c_ssize_t.from_address(id(obj)).value += RESERVE
    _applied = True
