"""The Lessons dock: the starter lessons and the explanation of the one selected.

Selecting a lesson shows its explanation; "Open in editor" (or a double-click)
asks the window to load its script. The explanation follows the UI language.
"""

from __future__ import annotations

from PySide6.QtCore import QElapsedTimer, QEvent, Qt, Signal
from PySide6.QtWidgets import (QHBoxLayout, QListWidget, QListWidgetItem, QPushButton,
                               QTextBrowser, QVBoxLayout, QWidget)

from autogradviz.app import i18n
from autogradviz.app.resources_loader import Lesson, icon, lessons


class LessonsPanel(QWidget):
    lessonActivated = Signal(object)  # Lesson to open in the editor

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("lessonsPanel")
        self._lessons: list[Lesson] = lessons()
        self._last_open = ""
        self._open_clock = QElapsedTimer()
        self.list = QListWidget(self)
        self.list.setObjectName("lessonList")
        self.list.setWordWrap(True)
        self.text = QTextBrowser(self)
        self.text.setObjectName("lessonText")
        self.text.setOpenExternalLinks(True)
        self.open_button = QPushButton(self)
        self.open_button.setIcon(icon("open"))
        self.open_button.clicked.connect(self._open_current)
        self.list.currentRowChanged.connect(self._show)
        # A click opens the lesson (the window asks first if the editor has unsaved edits);
        # moving with the arrow keys only previews the explanation, Enter opens.
        self.list.itemClicked.connect(lambda _item: self._open_current())
        self.list.itemActivated.connect(lambda _item: self._open_current())

        self.list.setVerticalScrollBarPolicy(Qt.ScrollBarAsNeeded)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.list.setTextElideMode(Qt.ElideNone)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(4, 4, 4, 4)
        outer.setSpacing(4)
        outer.addWidget(self.list)
        outer.addWidget(self.text, 1)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.open_button)
        outer.addLayout(row)
        self._fill()
        self.retranslate()

    @property
    def lessons(self) -> list[Lesson]:
        return list(self._lessons)

    def current(self) -> Lesson | None:
        row = self.list.currentRow()
        return self._lessons[row] if 0 <= row < len(self._lessons) else None

    def select(self, name: str) -> None:
        for i, lesson in enumerate(self._lessons):
            if lesson.name == name:
                self.list.setCurrentRow(i)
                return

    def _fill(self) -> None:
        row = max(0, self.list.currentRow())
        self.list.blockSignals(True)
        self.list.clear()
        lang = i18n.current_language()
        for lesson in self._lessons:
            item = QListWidgetItem(lesson.title(lang))
            item.setToolTip(lesson.path.name)
            self.list.addItem(item)
        self.list.blockSignals(False)
        if self._lessons:
            self.list.setCurrentRow(min(row, len(self._lessons) - 1))
            self._show(self.list.currentRow())
        self._fit_list()

    def _fit_list(self) -> None:
        """Show every lesson without a scroll bar (there are only a few)."""
        rows = sum(max(self.list.sizeHintForRow(i), 18) for i in range(self.list.count()))
        self.list.setFixedHeight(rows + 2 * self.list.frameWidth() + 6)

    def resizeEvent(self, event):  # noqa: N802
        super().resizeEvent(event)
        self._fit_list()

    def _show(self, row: int) -> None:
        if 0 <= row < len(self._lessons):
            md = self._lessons[row].explanation(i18n.current_language())
            # The title is already in the list; show the body only.
            lines = md.splitlines()
            if lines and lines[0].startswith("#"):
                lines = lines[1:]
            self.text.setMarkdown("\n".join(lines).strip())

    def _open_current(self) -> None:
        lesson = self.current()
        if lesson is None:
            return
        # A click can also count as an activation (style-dependent): open once.
        if self._last_open == lesson.name and self._open_clock.isValid() and self._open_clock.elapsed() < 600:
            return
        self._last_open = lesson.name
        self._open_clock.start()
        self.lessonActivated.emit(lesson)

    def retranslate(self) -> None:
        self.open_button.setText(self.tr("Open in editor"))
        self.open_button.setToolTip(self.tr("Load this lesson's script into the editor and run it"))
        self.list.setToolTip(self.tr("Click a lesson to load and run it"))
        self._fill()

    def changeEvent(self, event):  # noqa: N802
        if event.type() == QEvent.LanguageChange:
            self.retranslate()
        super().changeEvent(event)
