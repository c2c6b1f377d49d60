"""The real main window for a GUI benchmark, and waiting on it.

A benchmark that measures the app as a learner uses it opens the real window
with its real worker and then waits for conditions (the worker ready, a run
done, a layout finished) while Qt's events keep being processed. Both are the
same in every such benchmark, so they live here.
"""

from __future__ import annotations

import time


def wait_until(app, predicate, timeout: float = 120.0, what: str = "a condition") -> None:
    """Process Qt's events until `predicate()` holds; TimeoutError after `timeout` s."""
    from PySide6.QtCore import QEventLoop

    end = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > end:
            raise TimeoutError(f"gave up waiting for {what}")
        app.processEvents(QEventLoop.AllEvents, 20)


def open_window(start_worker: bool = True, apply_theme: bool = False, size=None):
    """The main window, shown, never asking about unsaved text (a QApplication must exist)."""
    from autogradviz.app.theme import ThemeManager
    from autogradviz.app.window.main_window import MainWindow

    theme = ThemeManager()
    if apply_theme:
        theme.apply(force=True)
    w = MainWindow(theme_manager=theme, start_worker=start_worker, restore_autosave=False)
    w.ask_unsaved = lambda: "discard"
    if size is not None:
        w.resize(*size)
    w.show()
    return w
