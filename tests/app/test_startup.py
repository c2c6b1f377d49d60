"""The start-up workaround for PySide6 6.12's lost references (app/startup.py):
needed where it is applied, and effective. Each check runs in a fresh Python,
because the workaround, once applied, cannot be taken back."""

from __future__ import annotations

import os
import subprocess
import sys

from autogradviz.app.startup import needs_refcount_reserve

# `calls` void calls and emits: a 10,000-node scene makes about 100,000
PROBE = r"""
import sys
{setup}
from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QApplication, QGraphicsRectItem
app = QApplication.instance() or QApplication([])
class O(QObject):
    s = Signal()
o, item = O(), QGraphicsRectItem()
none0, true0 = sys.getrefcount(None), sys.getrefcount(True)
for i in range({calls}):
    item.setZValue(i)
    o.s.emit()
print(none0 - sys.getrefcount(None), true0 - sys.getrefcount(True), flush=True)
"""


def _probe(setup: str, calls: int) -> subprocess.CompletedProcess:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    return subprocess.run([sys.executable, "-c", PROBE.format(setup=setup, calls=calls)],
                          capture_output=True, text=True, timeout=120, env=env)


def test_plain_pyside6_loses_references_where_the_workaround_is_applied():
    """Without the workaround, each void call loses a reference to None and
    each emit one to True, and 100,000 of them kill the interpreter. If this
    fails on Python < 3.12, PySide6 no longer has the bug: delete
    app/startup.py."""
    few = _probe("", 200)  # (it may die at exit, its count printed)
    lost_none, lost_true = map(int, few.stdout.split())
    many = _probe("", 100_000)
    if needs_refcount_reserve():
        assert lost_none >= 190 and lost_true >= 190, (lost_none, lost_true)
        assert many.returncode != 0 and "dealloc" in many.stderr, (many.returncode, many.stderr[-500:])
    else:  # immortal objects (Python >= 3.12): nothing lost that matters, nothing applied
        assert many.returncode == 0, many.stderr[-2000:]


def test_importing_the_app_first_keeps_the_interpreter_alive():
    """`import autogradviz.app` applies the workaround: the same 100,000 calls
    run to the end."""
    proc = _probe("import autogradviz.app", 100_000)
    assert proc.returncode == 0, proc.stderr[-2000:]
    lost_none, lost_true = map(int, proc.stdout.split())
    if needs_refcount_reserve():
        assert lost_none >= 99_000 and lost_true >= 99_000  # the bug is still there; survived it
