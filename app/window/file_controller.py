"""File handling for the main window: lessons, new/open/save, recent files,
unsaved-changes prompts and restoring the autosave.

A mixin of `MainWindow`. Strings use the "MainWindow" translation context
explicitly (QCoreApplication.translate) so they stay in one context for
translators and at run time (Qt looks them up by the window's class name).
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QFileDialog, QMessageBox

from autogradviz.app.services import settings
from autogradviz.app.resources_loader import Lesson

APP_NAME = "Autograd Visualizer"


class FileActionsMixin:
    """Opening, saving and restoring scripts for `MainWindow`."""

    def open_lesson(self, lesson: Lesson, run: bool = True) -> bool:
        if not self._maybe_save():
            return False
        self._set_text(lesson.source)
        self._path = None
        self._lesson = lesson
        self.lessons_panel.select(lesson.name)
        self.autosave.mark_clean()
        self._update_title()
        if run:
            self.run_script()
        return True

    def new_file(self) -> None:
        if not self._maybe_save():
            return
        self._set_text("import torch\n\n")
        self._path = None
        self._lesson = None
        self.autosave.mark_clean()
        cursor = self.editor.textCursor()
        cursor.movePosition(cursor.MoveOperation.End)
        self.editor.setTextCursor(cursor)
        self._update_title()

    def open_file_dialog(self) -> None:
        start = os.path.dirname(self._path) if self._path else str(Path.home())
        path, _ = QFileDialog.getOpenFileName(self, QCoreApplication.translate("MainWindow", "Open a script"), start,
                                              QCoreApplication.translate("MainWindow", "Python scripts (*.py);;All files (*)"))
        if path:
            self.open_file(path)

    def open_file(self, path: str, ask: bool = True) -> bool:
        """Load `path` into the editor. It is not run: only Run executes code."""
        if ask and not self._maybe_save():
            return False
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            QMessageBox.warning(self, APP_NAME, QCoreApplication.translate("MainWindow", "Could not open {path}:\n{error}").format(
                path=path, error=exc))
            return False
        self._set_text(text)
        self._path = os.path.abspath(path)
        self._lesson = None
        settings.add_recent_file(self._path)
        self.autosave.mark_clean()
        self._update_title()
        self.output.clear()
        self.output.append_info(QCoreApplication.translate("MainWindow", "Opened {path}. Press Run (Ctrl+Enter) to run it.").format(path=path))
        return True

    def save(self) -> bool:
        if not self._path:
            return self.save_as()
        return self._write(self._path)

    def save_as(self) -> bool:
        suggested = self._path or (os.path.join(str(Path.home()), self._lesson.path.name)
                                   if self._lesson else os.path.join(str(Path.home()), "script.py"))
        path, _ = QFileDialog.getSaveFileName(self, QCoreApplication.translate("MainWindow", "Save the script"), suggested,
                                              QCoreApplication.translate("MainWindow", "Python scripts (*.py);;All files (*)"))
        if not path:
            return False
        return self._write(path)

    def _write(self, path: str) -> bool:
        try:
            Path(path).write_text(self.editor.toPlainText(), encoding="utf-8")
        except OSError as exc:
            QMessageBox.warning(self, APP_NAME, QCoreApplication.translate("MainWindow", "Could not save {path}:\n{error}").format(
                path=path, error=exc))
            return False
        self._path = os.path.abspath(path)
        self._lesson = None
        self.editor.document().setModified(False)
        settings.add_recent_file(self._path)
        self.autosave.mark_clean()
        self._update_title()
        self.statusBar().showMessage(QCoreApplication.translate("MainWindow", "Saved {path}").format(path=path), 3000)
        return True

    def _set_text(self, text: str) -> None:
        self.autosave.set_enabled(False)
        self.editor.setPlainText(text)
        self.editor.clear_error()
        self.editor.document().setModified(False)
        self.autosave.set_enabled(True)

    def _fill_recent_menu(self) -> None:
        self.recent_menu.clear()
        files = settings.recent_files()
        for path in files:
            act = self.recent_menu.addAction(os.path.basename(path))
            act.setToolTip(path)
            act.setStatusTip(path)
            act.triggered.connect(lambda _=False, p=path: self.open_file(p))
        if not files:
            empty = self.recent_menu.addAction(QCoreApplication.translate("MainWindow", "(no recent files)"))
            empty.setEnabled(False)
        else:
            self.recent_menu.addSeparator()
            clear = self.recent_menu.addAction(QCoreApplication.translate("MainWindow", "Clear Recent Files"))
            clear.triggered.connect(settings.clear_recent_files)

    def _ask_unsaved(self) -> str:
        """'save', 'discard' or 'cancel' for unsaved changes."""
        box = QMessageBox(QMessageBox.Warning, APP_NAME,
                          QCoreApplication.translate("MainWindow", "The script has unsaved changes. Save them first?"),
                          QMessageBox.Save | QMessageBox.Discard | QMessageBox.Cancel, self)
        box.setDefaultButton(QMessageBox.Save)
        answer = box.exec()
        return {QMessageBox.Save: "save", QMessageBox.Discard: "discard"}.get(answer, "cancel")

    def _maybe_save(self) -> bool:
        """True when it is fine to replace the editor's text."""
        if not self.editor.document().isModified():
            return True
        answer = self.ask_unsaved()
        if answer == "save":
            return self.save()
        return answer == "discard"

    def _restore_autosave(self) -> bool:
        pending = self.autosave.pending()
        if pending is None:
            return False
        text, path = pending
        self._set_text(text)
        self._path = path if path and os.path.exists(path) else None
        self._lesson = None
        self.editor.document().setModified(True)
        self._update_title()
        self.output.append_info(QCoreApplication.translate("MainWindow", 
            "Restored the text you were editing when the app last closed unexpectedly. "
            "Press Run (Ctrl+Enter) to run it, or pick a lesson."))
        return True
