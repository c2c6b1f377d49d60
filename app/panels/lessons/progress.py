"""How far the learner got with each lesson, kept between launches.

Three marks per lesson: opened, run (a run finished without an error while
the lesson was in the editor) and stepped (the stepper reached the end of a
backward run of it). Stored in the app's settings under
`lessons/progress/<name>` as a list of marks (UI state: nothing the worker
or a trace needs).
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from autogradviz.app.services import settings

MARKS = ("opened", "run", "stepped")
_KEY = "lessons/progress/{}"


def marks(name: str) -> set[str]:
    value = settings.get(_KEY.format(name), [])
    if isinstance(value, str):
        value = [value]
    return {str(v) for v in (value or []) if str(v) in MARKS}


def level(name: str) -> int:
    """0 nothing, 1 opened, 2 run, 3 stepped through."""
    got = marks(name)
    return max([MARKS.index(m) + 1 for m in got], default=0)


class LessonProgress(QObject):
    """Records marks and tells the browser (`changed(name)`)."""

    changed = Signal(str)

    def mark(self, name: str, what: str) -> None:
        if what not in MARKS or not name:
            return
        got = marks(name)
        if what in got:
            return
        got.add(what)
        settings.put(_KEY.format(name), sorted(got, key=MARKS.index))
        self.changed.emit(name)

    def reset(self, name: str) -> None:
        settings.put(_KEY.format(name), [])
        self.changed.emit(name)


class ProgressTracker(QObject):
    """Watches the window's document, runs and stepper, and marks the lesson
    in the editor: opened on open, run on a run without error, stepped when
    the stepper reaches the last step of a run."""

    def __init__(self, progress: LessonProgress, files, session, run_finished, parent=None):
        super().__init__(parent)
        self._progress = progress
        self._files = files
        self._session = session
        files.lessonOpened.connect(lambda name: progress.mark(name, "opened"))
        run_finished.connect(self._on_run_finished)
        session.stepChanged.connect(self._on_step)

    def _lesson_name(self) -> str:
        lesson = self._files.lesson
        return lesson.name if lesson is not None else ""

    def _on_run_finished(self, trace) -> None:
        if trace is not None and getattr(trace, "error", None) is None:
            self._progress.mark(self._lesson_name(), "run")

    def _on_step(self, k: int) -> None:
        n = self._session.step_count
        if n and k == n:
            self._progress.mark(self._lesson_name(), "stepped")
