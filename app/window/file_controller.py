"""The script in the editor and where it comes from: lessons, new/open/save,
recent files, the unsaved-changes prompt and the autosave.

It owns the current path (or lesson) and the autosave; the window asks it for
the title and the file a run belongs to. Opening a file never runs it: only Run
executes code, and a lesson runs only when the caller asks for it
(`runRequested`).
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Callable, Optional

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QFileDialog, QMenu, QMessageBox, QWidget

from autogradviz.app import i18n
from autogradviz.app.panels.editor import CodeEditor
from autogradviz.app.panels.lessons import edits as lesson_edits
from autogradviz.app.panels.output import OutputPane
from autogradviz.app.resources_loader import Lesson
from autogradviz.app.services import settings
from autogradviz.app.services.autosave import Autosave
from autogradviz.app.services.text_safety import plain_tip, warn
from autogradviz.engine.trace.atomic_file import SpecialFileError, write_atomic

APP_NAME = "Autograd Visualizer"
NEW_SCRIPT = "import torch\n\n"


class FileController(QObject):
    """Opening, saving and restoring the editor's script."""

    documentChanged = Signal()       # the path or lesson changed (the title follows)
    lessonOpened = Signal(str)       # lesson name
    runRequested = Signal()          # a lesson was opened with run=True
    statusMessage = Signal(str, int)  # text, milliseconds

    def __init__(self, window: QWidget, editor: CodeEditor, output: OutputPane):
        super().__init__(window)
        self._window = window
        self._editor = editor
        self._output = output
        self._path: Optional[str] = None
        self._lesson: Optional[Lesson] = None
        self.autosave = Autosave(editor, lambda: self._path, self)
        # "save", "discard" or "cancel" for unsaved changes; a modal dialog unless replaced
        self.ask_unsaved: Callable[[], str] = self._ask_unsaved
        self.open_trace: Optional[Callable[[str], None]] = None  # opens a saved trace (Open Recent)

    @property
    def path(self) -> Optional[str]:
        return self._path

    @property
    def lesson(self) -> Optional[Lesson]:
        return self._lesson

    def display_name(self) -> str:
        """The file name the title shows."""
        if self._path:
            return os.path.basename(self._path)
        if self._lesson is not None:
            return self._lesson.path.name
        return self.tr("untitled.py")

    def run_file(self) -> str:
        """The file a run of the editor's text belongs to ("" for an untitled script)."""
        if self._path:
            return self._path
        if self._lesson is not None:
            return str(self._lesson.path)
        return ""

    # -- commands -------------------------------------------------------------------
    def open_lesson(self, lesson: Lesson, run: bool = True) -> bool:
        if not self.maybe_save():
            return False
        # The learner's kept edits, else the script with comments in the UI language.
        self._set_text(lesson_edits.kept(lesson.name) or lesson.source_for(i18n.current_language()))
        self._set_document(None, lesson)
        self.lessonOpened.emit(lesson.name)
        if run:
            self.runRequested.emit()
        return True

    def new_file(self) -> None:
        if not self.maybe_save():
            return
        self._set_text(NEW_SCRIPT)
        self._set_document(None, None)
        cursor = self._editor.textCursor()
        cursor.movePosition(cursor.MoveOperation.End)
        self._editor.setTextCursor(cursor)

    def open_file_dialog(self) -> None:
        start = os.path.dirname(self._path) if self._path else str(Path.home())
        path, _ = QFileDialog.getOpenFileName(self._window, self.tr("Open a script"), start,
                                              self.tr("Python scripts (*.py);;All files (*)"))
        if path:
            self.open_file(path)

    def open_file(self, path: str, ask: bool = True) -> bool:
        """Load `path` into the editor. It is not run: only Run executes code."""
        if ask and not self.maybe_save():
            return False
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            warn(self._window, APP_NAME, self.tr("Could not open {path}:\n{error}").format(path=path, error=exc))
            return False
        self._set_text(text)
        self._set_document(os.path.abspath(path), None)
        settings.add_recent_file(os.path.abspath(path))
        self._output.clear()
        self._output.append_info(self.tr("Opened {path}. Press Run (Ctrl+Enter) to run it.").format(path=path))
        return True

    def show_recorded_source(self, source: str, script: str) -> bool:
        """Put the code a saved trace was recorded from into the editor (after
        the unsaved-changes question; False when the learner keeps their
        text). It belongs to `script` when that file still holds this text,
        else it is a new, untitled script. It is not run."""
        if self._editor.toPlainText() == source:
            return True
        if not self.maybe_save():
            return False
        path = None
        try:
            if script and os.path.isfile(script) and Path(script).read_text(encoding="utf-8") == source:
                path = os.path.abspath(script)
        except (OSError, UnicodeDecodeError):
            path = None
        self._set_text(source)
        self._set_document(path, None)
        return True

    def save(self) -> bool:
        if not self._path:
            return self.save_as()
        return self._write(self._path)

    def save_as(self) -> bool:
        home = str(Path.home())
        suggested = self._path or os.path.join(home, self._lesson.path.name if self._lesson else "script.py")
        path, _ = QFileDialog.getSaveFileName(self._window, self.tr("Save the script"), suggested,
                                              self.tr("Python scripts (*.py);;All files (*)"))
        if not path:
            return False
        return self._write(path)

    def fill_recent_menu(self, menu: QMenu) -> None:
        menu.clear()
        files = settings.recent_files()
        for path in files:
            act = menu.addAction(os.path.basename(path))
            act.setToolTip(plain_tip(path))
            act.setStatusTip(path)  # (the status bar shows plain text)
            if self.open_trace is not None and path.lower().endswith(".json"):  # a saved trace
                act.triggered.connect(lambda _=False, p=path: self.open_trace(p))
            else:
                act.triggered.connect(lambda _=False, p=path: self.open_file(p))
        if not files:
            menu.addAction(self.tr("(no recent files)")).setEnabled(False)
        else:
            menu.addSeparator()
            menu.addAction(self.tr("Clear Recent Files")).triggered.connect(settings.clear_recent_files)

    def reset_lesson(self, lesson: Lesson) -> None:
        """Forget the learner's edits to `lesson`; reload it if it is in the editor."""
        lesson_edits.forget(lesson.name)
        if self._lesson is not None and self._lesson.name == lesson.name:
            self._set_text(lesson.source_for(i18n.current_language()))
            self._set_document(None, lesson)

    def maybe_save(self) -> bool:
        """True when it is fine to replace the editor's text."""
        if not self._editor.document().isModified():
            return True
        if self._lesson is not None and lesson_edits.keep(self._lesson.name, self._editor.toPlainText()):
            # A lesson's edits are kept until "Reset lesson" (panels/lessons/edits.py): no question.
            self._editor.document().setModified(False)
            return True
        answer = self.ask_unsaved()
        if answer == "save":
            return self.save()
        return answer == "discard"

    def restore_autosave(self) -> bool:
        """Put back the text a session that ended abnormally left; False if there is none."""
        pending = self.autosave.pending()
        if pending is None:
            return False
        text, path = pending
        self._set_text(text)
        self._path = path if path and os.path.exists(path) else None
        self._lesson = None
        self._editor.document().setModified(True)
        self.documentChanged.emit()
        self._output.append_info(self.tr(
            "Restored the text you were editing when the app last closed unexpectedly. "
            "Press Run (Ctrl+Enter) to run it, or pick a lesson."))
        return True

    # -- helpers ----------------------------------------------------------------------
    def _write(self, path: str) -> bool:
        # Atomically (a temporary file beside it, fsync, rename): a full disk
        # or a crash half-way leaves the file as it was, never a fragment; a
        # symbolic link is written through, the file's permissions are kept.
        try:
            write_atomic(path, self._editor.toPlainText())
        except OSError as exc:
            warn(self._window, APP_NAME, self.tr(
                "Could not save {path}: {error}.\nThe file on disk is unchanged, and your text is still "
                "in the editor.").format(path=path, error=self._write_error(exc)))
            return False
        self._editor.document().setModified(False)
        self._set_document(os.path.abspath(path), None)
        settings.add_recent_file(os.path.abspath(path))
        self.statusMessage.emit(self.tr("Saved {path}").format(path=path), 3000)
        return True

    def _write_error(self, exc: OSError) -> str:
        """Why a save failed, in the learner's words."""
        if isinstance(exc, SpecialFileError):
            return self.tr("it is not a regular file (a folder, a FIFO or a device)")
        reasons = {errno.ENOSPC: self.tr("the disk is full"),
                   getattr(errno, "EDQUOT", errno.ENOSPC): self.tr("the disk is full"),
                   errno.EFBIG: self.tr("the file is larger than this system allows"),
                   errno.EACCES: self.tr("no permission to write there"),
                   errno.EPERM: self.tr("no permission to write there"),
                   errno.EROFS: self.tr("the disk is read-only")}
        return reasons.get(exc.errno, exc.strerror or str(exc))

    def _set_document(self, path: Optional[str], lesson: Optional[Lesson]) -> None:
        """The text now matches `path` or `lesson` (or a new script): nothing to autosave."""
        self._path = path
        self._lesson = lesson
        self.autosave.mark_clean()
        self.documentChanged.emit()

    def _set_text(self, text: str) -> None:
        self.autosave.set_enabled(False)
        self._editor.setPlainText(text)
        self._editor.clear_error()
        self._editor.clear_stopped_line()
        self._editor.document().setModified(False)
        self.autosave.set_enabled(True)

    def _ask_unsaved(self) -> str:
        box = QMessageBox(QMessageBox.Icon.Warning, APP_NAME,
                          self.tr("The script has unsaved changes. Save them first?"),
                          QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel, self._window)
        box.setDefaultButton(QMessageBox.StandardButton.Save)
        answer = box.exec()
        answers: dict[int, str] = {QMessageBox.StandardButton.Save: "save", QMessageBox.StandardButton.Discard: "discard"}
        return answers.get(answer, "cancel")
