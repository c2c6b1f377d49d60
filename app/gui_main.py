"""`autogradviz gui` / `autogradviz FILE.py`: start the desktop app.

Order matters for the first paint: QApplication, language, theme, then the
window (shown at once); the worker process is started by the window and
imports torch in the background, so the window appears before torch is ready.
"""

from __future__ import annotations

import sys
from typing import cast


def run_gui(argv: list[str] | None = None, open_path: str | None = None) -> int:
    # (importing autogradviz.app applied app/startup.py's workaround before any Qt call)
    from PySide6.QtCore import QCoreApplication
    from PySide6.QtWidgets import QApplication

    from autogradviz.app import i18n
    from autogradviz.app.services import settings
    from autogradviz.app.resources_loader import icon

    QCoreApplication.setOrganizationName(settings.ORGANIZATION)
    QCoreApplication.setApplicationName(settings.APPLICATION)
    app = cast(QApplication, QApplication.instance() or QApplication(list(argv) if argv else [sys.argv[0]]))
    app.setApplicationDisplayName("Autograd Visualizer")
    app.setWindowIcon(icon("app"))
    i18n.set_language(i18n.saved_language(), save=False)

    from autogradviz.app.window.main_window import MainWindow
    from autogradviz.app.theme import ThemeManager

    theme = ThemeManager(app)
    theme.apply(force=True)
    window = MainWindow(theme_manager=theme, start_worker=True, restore_autosave=True,
                        open_path=open_path)
    window.show()
    window.raise_()
    _quit_on_signals(app, window)
    _quit_after_open(app, window)
    code = app.exec()
    window.shutdown()
    return code


# `AUTOGRADVIZ_QUIT_AFTER_OPEN=REPORT.json autogradviz TRACE.json`: once the
# trace is on screen (or could not be opened), what the app loaded goes to
# REPORT.json and the app quits. For tests of whatever starts the app on a
# trace in a process of its own (`run.open()` of the Python API), which
# cannot reach into that process otherwise.
QUIT_AFTER_OPEN = "AUTOGRADVIZ_QUIT_AFTER_OPEN"


def _quit_after_open(app, window) -> None:
    import os

    report = os.environ.get(QUIT_AFTER_OPEN)
    if not report:
        return

    def done(info: dict, code: int) -> None:
        import json

        with open(report, "w", encoding="utf-8") as f:
            json.dump(info, f)
        app.exit(code)

    def opened(path: str) -> None:
        trace = window.session.trace
        graphs = trace.graphs if trace is not None else []
        runs = trace.backward_runs if trace is not None else []
        done({"opened": os.path.abspath(path), "script": trace.script if trace is not None else None,
              "nodes": [[n.id for n in g.nodes] for g in graphs],
              "steps": [[s.node for s in r.steps] for r in runs]}, 0)

    window.trace_files.traceOpened.connect(opened)
    window.trace_files.failed.connect(lambda text: done({"failed": text}, 1))


def _quit_on_signals(app, window) -> None:
    """Ctrl+C in the terminal or SIGTERM: stop the worker and quit, keeping the
    autosaved text (the user did not choose to discard anything)."""
    import signal

    from PySide6.QtCore import QTimer

    def handler(_signum, _frame):
        window.files.autosave.save_now()
        window.shutdown(keep_autosave=True)
        app.quit()

    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            signal.signal(sig, handler)
        except (ValueError, OSError):  # not the main thread / unsupported
            pass
    # Python only runs signal handlers between bytecodes: wake it up regularly.
    timer = QTimer(app)
    timer.timeout.connect(lambda: None)
    timer.start(300)


if __name__ == "__main__":
    raise SystemExit(run_gui(sys.argv, sys.argv[1] if len(sys.argv) > 1 else None))
