"""Connects the lesson browser to the window in one call (so the main window
gets one line): look-at links to the LessonGuide, Reset to the file
controller, progress marks to runs and steps, and the editor's lesson text
to the UI language."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent, QObject

from autogradviz.app import i18n
from autogradviz.app.panels.lessons.guide import LessonGuide
from autogradviz.app.panels.lessons.progress import ProgressTracker


class _LanguageFollower(QObject):
    """Reloads an unedited lesson's script with the new language's comments."""

    def __init__(self, window):
        super().__init__(window)
        self._window = window
        self._language = i18n.current_language()
        window.installEventFilter(self)

    def eventFilter(self, obj, event):  # noqa: N802
        if obj is self._window and event.type() == QEvent.LanguageChange:
            language = i18n.current_language()
            files = self._window.files
            lesson = files.lesson
            if (language != self._language and lesson is not None
                    and not self._window.editor.document().isModified()):
                files.open_lesson(lesson, run=False)  # same code, comments in `language`
            self._language = language
        return False


def connect_lesson_browser(window) -> LessonGuide:
    panel, files, session = window.lessons_panel, window.files, window.session
    docks = window.panels

    def dock(panel_id: str):
        return docks.dock(panel_id) if panel_id in docks.ids() else None

    guide = LessonGuide(session, window.graph_view, dock, window)
    panel.lookRequested.connect(guide.go)
    guide.missed.connect(lambda: window.status.show_message(QCoreApplication.translate(
        "LessonsPanel", "Run the lesson first: that item is in its trace."), 4000))
    panel.resetRequested.connect(files.reset_lesson)
    panel.resetRequested.connect(lambda _lesson: panel.progress.changed.emit(_lesson.name))
    ProgressTracker(panel.progress, files, session, window.runs.runFinished, window)
    _LanguageFollower(window)
    return guide
