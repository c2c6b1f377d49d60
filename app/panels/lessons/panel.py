"""The Lessons dock: the course by chapter, with progress, search, the
selected lesson's text, its "what to look at" links and "try this" ideas.

Selecting a lesson shows its text; a click (or Enter, or "Open") asks the
window to load it into the editor and run it. A "what to look at" link asks
the window's LessonGuide to show its target (`lookRequested`); "Reset lesson"
asks to restore the original script (`resetRequested`). The text follows the
UI language; search matches both languages.
"""

from __future__ import annotations

from typing import cast

from PySide6.QtCore import QElapsedTimer, QEvent, Qt, QUrl, Signal
from PySide6.QtGui import QFont, QTextCursor
from PySide6.QtWidgets import (QHBoxLayout, QLabel, QLineEdit, QPushButton, QSplitter, QTextBrowser,
                               QToolButton, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget)

from autogradviz.app import i18n
from autogradviz.app.panels.lessons import catalog, edits, progress
from autogradviz.app.panels.lessons.catalog import LessonInfo
from autogradviz.app.panels.lessons.reading_pane import LessonReadingPane
from autogradviz.app.resources_loader import Lesson, icon
from autogradviz.app.services.text_safety import plain

_LESSON_ROLE = Qt.ItemDataRole.UserRole + 1
# Progress level (0-3) -> the mark before a lesson's title
_MARKS = ["", "•", "▶", "✓"]


def _chapters(tree: QTreeWidget) -> list[QTreeWidgetItem]:
    """The tree's chapter items (Qt types its item getters Optional: in range, none is None)."""
    return [cast(QTreeWidgetItem, tree.topLevelItem(i)) for i in range(tree.topLevelItemCount())]


def _lessons_of(chapter: QTreeWidgetItem) -> list[QTreeWidgetItem]:
    """A chapter's lesson items."""
    return [cast(QTreeWidgetItem, chapter.child(j)) for j in range(chapter.childCount())]


def even_margins(browser: QTextBrowser) -> None:
    """Paragraphs 4 px apart (Qt's markdown puts 6 px above and below each):
    the text stays readable and more of it fits."""
    block = browser.document().begin()
    while block.isValid():
        fmt = block.blockFormat()
        if fmt.topMargin() > 4 or fmt.bottomMargin() > 4:
            fmt.setTopMargin(min(fmt.topMargin(), 4))
            fmt.setBottomMargin(min(fmt.bottomMargin(), 4))
            QTextCursor(block).setBlockFormat(fmt)
        block = block.next()


def chapter_share(levels: list[int]) -> int:
    """How far a chapter got, in percent: each lesson counts a third when opened,
    two thirds when run and whole when stepped through (the three marks)."""
    return round(100 * sum(levels) / (3 * len(levels))) if levels else 0


class LessonsPanel(QWidget):
    lessonActivated = Signal(object)  # Lesson to open in the editor (and run)
    lookRequested = Signal(dict)      # a "what to look at" target
    resetRequested = Signal(object)   # Lesson whose original text to restore

    def __init__(self, parent=None, lesson_progress: progress.LessonProgress | None = None):
        super().__init__(parent)
        self.setObjectName("lessonsPanel")
        self.progress = lesson_progress or progress.LessonProgress(self)
        self.progress.changed.connect(lambda _name: self._refresh_marks())
        self._course = catalog.course()
        self._infos: dict[str, LessonInfo] = {i.name: i for _, infos in self._course for i in infos}
        self._current: str = ""
        self._last_open = ""
        self._open_clock = QElapsedTimer()

        self.search = QLineEdit(self)
        self.search.setObjectName("lessonSearch")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self._filter)
        self.tree = QTreeWidget(self)
        self.tree.setObjectName("lessonTree")
        self.tree.setHeaderHidden(True)
        self.tree.setRootIsDecorated(True)
        self.tree.setWordWrap(True)
        self.tree.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.tree.currentItemChanged.connect(lambda item, _prev: self._show(item))
        # A click opens the lesson (the window asks first if the editor has unsaved
        # edits); the arrow keys only preview its text, Enter opens.
        self.tree.itemClicked.connect(lambda item, _col: self._open_item(item))
        self.tree.itemActivated.connect(lambda item, _col: self._open_item(item))
        self.text = QTextBrowser(self)
        self.text.setObjectName("lessonText")
        self.text.setOpenLinks(False)
        self.text.anchorClicked.connect(self._on_link)
        # lists indented by a little, not Qt's 40 px: in a ~370 px column
        # that is a tenth of the width, and two or three lines more per lesson
        self.text.document().setIndentWidth(16)
        self.open_button = QPushButton(self)
        self.open_button.setIcon(icon("open"))
        self.open_button.clicked.connect(self._open_current)
        self.reset_button = QPushButton(self)
        self.reset_button.clicked.connect(self._reset_current)
        # The course list folds away while a lesson is open, so that its text
        # gets the whole panel (a reading pane, not 3 lines behind a scrollbar).
        self.catalog_button = QToolButton(self)
        self.catalog_button.setObjectName("lessonCatalogButton")
        self.catalog_button.setCheckable(True)
        self.catalog_button.setChecked(True)
        self.catalog_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.catalog_button.toggled.connect(self.set_catalog_shown)
        # Said above the text when the editor holds the learner's own script.
        self.own_note = plain(QLabel(self))  # it names the learner's file: plain text
        self.own_note.setObjectName("lessonOwnScriptNote")
        self.own_note.setWordWrap(True)
        self.own_note.setStyleSheet("QLabel { padding: 4px 6px; border-left: 4px solid #1f7a99; }")
        self.own_note.hide()
        self._own_name = ""
        self.reading_pane: LessonReadingPane | None = None  # (the window gives it one: attach_pane)

        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(self.tree)
        split.addWidget(self.text)
        split.setStretchFactor(0, 2)
        split.setStretchFactor(1, 3)
        split.setChildrenCollapsible(False)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(4, 4, 4, 4)
        outer.setSpacing(4)
        outer.addWidget(self.search)
        outer.addWidget(self.own_note)
        outer.addWidget(split, 1)
        # The buttons under the catalog. While a lesson is read (the catalog
        # folded away) they give their row to the text: the text ends with
        # the same commands as links ("All lessons · Reset lesson").
        self.buttons = QWidget(self)
        row = QHBoxLayout(self.buttons)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.catalog_button)
        row.addWidget(self.reset_button)
        row.addStretch(1)
        row.addWidget(self.open_button)
        outer.addWidget(self.buttons)
        self.retranslate()

    # -- queries ------------------------------------------------------------------------
    @property
    def lessons(self) -> list[Lesson]:
        """Every lesson, in the browser's (chapter) order."""
        return [i.lesson for _, infos in self._course for i in infos]

    def info(self, name: str) -> LessonInfo | None:
        return self._infos.get(name)

    def current(self) -> Lesson | None:
        info = self._infos.get(self._current)
        return info.lesson if info else None

    def item_for(self, name: str) -> QTreeWidgetItem | None:
        for chapter in _chapters(self.tree):
            for item in _lessons_of(chapter):
                if item.data(0, _LESSON_ROLE) == name:
                    return item
        return None

    def visible_lessons(self) -> list[str]:
        out = []
        for chapter in _chapters(self.tree):
            out += [item.data(0, _LESSON_ROLE) for item in _lessons_of(chapter)
                    if not item.isHidden() and not chapter.isHidden()]
        return out

    # -- commands -------------------------------------------------------------------------
    def select(self, name: str) -> None:
        item = self.item_for(name)
        if item is not None:
            self.tree.setCurrentItem(item)

    def open_reading(self, name: str) -> None:
        """A lesson was opened in the editor: its text, with the course list folded away."""
        self.select(name)
        self.set_own_script(False)
        self.set_catalog_shown(False)

    def set_catalog_shown(self, on: bool) -> None:
        """Show the course list (and its search) above the text, or fold it away."""
        if self.catalog_button.isChecked() != on:
            self.catalog_button.setChecked(on)  # (toggled calls back with the same value)
            return
        self.search.setVisible(on)
        self.tree.setVisible(on)
        self.buttons.setVisible(on)
        self.catalog_button.setArrowType(Qt.ArrowType.DownArrow if on else Qt.ArrowType.RightArrow)
        info = self._infos.get(self._current)
        if info is not None:
            self._set_text(info)  # (the commands as links while reading)

    def catalog_shown(self) -> bool:
        return self.catalog_button.isChecked()

    def set_own_script(self, own: bool, name: str = "") -> None:
        """The editor holds the learner's own script (`name`), not a lesson:
        say so above the text instead of showing the last lesson as current."""
        self._own_name = name if own else ""
        self.own_note.setVisible(own)
        if own and self.reading_pane is not None:
            self.reading_pane.put_away()
        self._retranslate_own_note()

    def _retranslate_own_note(self) -> None:
        info = self._infos.get(self._current)
        title = info.title(i18n.current_language()) if info else ""
        self.own_note.setText(self.tr("You are running your own script ({0}), not a lesson. The text below is "
                                      "lesson “{1}”, for reference; open a lesson to follow it again.")
                              .format(self._own_name or self.tr("unsaved"), title))

    def attach_pane(self, pane: LessonReadingPane) -> None:
        """The reading pane that shows a long lesson's whole text (over the canvas)."""
        self.reading_pane = pane
        pane.linkClicked.connect(self._on_link)

    def open_pane(self) -> bool:
        """Show the current lesson's whole text in the reading pane."""
        info = self._infos.get(self._current)
        if self.reading_pane is None or info is None:
            return False
        self.reading_pane.show_text(self._markdown(info, in_pane=True), even_margins)
        return True

    def text_fits(self) -> bool:
        """The Lesson tab shows its whole text (nothing to scroll)."""
        return self.text.verticalScrollBar().maximum() == 0

    def look(self, index: int) -> None:
        """Follow the current lesson's "what to look at" item `index`."""
        info = self._infos.get(self._current)
        if info is not None and 0 <= index < len(info.look):
            self.lookRequested.emit(dict(info.look[index].target))

    # -- filling ------------------------------------------------------------------------------
    def _fill(self) -> None:
        lang = i18n.current_language()
        keep = self._current
        self.tree.blockSignals(True)
        self.tree.clear()
        bold = QFont(self.font())
        bold.setBold(True)
        for chapter_id, infos in self._course:
            chapter = QTreeWidgetItem(self.tree)
            chapter.setData(0, Qt.ItemDataRole.UserRole, chapter_id)
            chapter.setFont(0, bold)
            chapter.setFlags(Qt.ItemFlag.ItemIsEnabled)
            for info in infos:
                item = QTreeWidgetItem(chapter)
                item.setData(0, _LESSON_ROLE, info.name)
                item.setData(0, Qt.ItemDataRole.UserRole, info.title(lang))
            chapter.setExpanded(True)
        self.tree.blockSignals(False)
        self._refresh_marks()
        self._filter(self.search.text())
        self.select(keep or (self.lessons[0].name if self.lessons else ""))

    def _refresh_marks(self) -> None:
        for chapter in _chapters(self.tree):
            levels = []
            for item in _lessons_of(chapter):
                name = item.data(0, _LESSON_ROLE)
                lvl = progress.level(name)
                levels.append(lvl)
                mark = _MARKS[lvl]
                title = item.data(0, Qt.ItemDataRole.UserRole)
                item.setText(0, f"{title}  {mark}" if mark else title)  # (after: the numbers stay aligned)
                item.setToolTip(0, self._progress_words(name))
            share = chapter_share(levels)
            chapter.setText(0, f"{catalog.chapter_title(chapter.data(0, Qt.ItemDataRole.UserRole))}  {share} %")
            chapter.setToolTip(0, self.tr("{total} lessons: {stepped} stepped through, {run} run, {opened} opened")
                               .format(total=len(levels), stepped=levels.count(3), run=levels.count(2),
                                       opened=levels.count(1)))

    def _progress_words(self, name: str) -> str:
        lvl = progress.level(name)
        words = [self.tr("Not opened yet"), self.tr("Opened"), self.tr("Run"), self.tr("Stepped through")][lvl]
        if edits.has_edits(name):
            words += " · " + self.tr("your edits are kept (Reset lesson restores the original)")
        return words

    def _filter(self, query: str) -> None:
        for chapter in _chapters(self.tree):
            shown = 0
            for item in _lessons_of(chapter):
                ok = self._infos[item.data(0, _LESSON_ROLE)].matches(query)
                item.setHidden(not ok)
                shown += ok
            chapter.setHidden(shown == 0)

    # -- the text --------------------------------------------------------------------------------
    def _show(self, item: QTreeWidgetItem | None) -> None:
        name = item.data(0, _LESSON_ROLE) if item is not None else None
        if not name:
            return
        self._current = name
        self._set_text(self._infos[name])
        if self._own_name:
            self._retranslate_own_note()
        self.reset_button.setEnabled(True)

    def _set_text(self, info: LessonInfo) -> None:
        """Show `info`'s text, paragraphs evenly spaced (`even_margins`); an open
        reading pane follows (another lesson, the language)."""
        self.text.setMarkdown(self._markdown(info))
        even_margins(self.text)
        if self.reading_pane is not None and self.reading_pane.isVisible():
            self.open_pane()

    def _markdown(self, info: LessonInfo, in_pane: bool = False) -> str:
        lang = i18n.current_language()
        parts = [f"### {info.title(lang)}", info.body(lang)]
        if info.look:
            parts.append("#### " + self.tr("What to look at"))
            parts.append("\n".join(f"- [{item.text(lang)}](look:{k})" for k, item in enumerate(info.look)))
            parts.append("*" + self.tr("Run the lesson first, then click an item: the app shows it.") + "*")
        if info.tries:
            parts.append("#### " + self.tr("Try this"))
            parts.append("\n".join(f"- {item.text(lang)}" for item in info.tries))
        if in_pane:
            parts.append(f"[{self.tr('All lessons')}](cmd:catalog) · [{self.tr('Reset lesson')}](cmd:reset)")
        elif not self.catalog_button.isChecked():
            parts.append(f"[{self.tr('All lessons')}](cmd:catalog) · [{self.tr('Reset lesson')}](cmd:reset) · "
                         f"[{self.tr('Read in a pane')}](cmd:read)")
        return "\n\n".join(parts)

    def _on_link(self, url: QUrl) -> None:
        pane = self.reading_pane
        if pane is not None and url.scheme() in ("look", "cmd") and url.path() != "read":
            pane.put_away()  # (what the link shows is under the pane or in the Lesson tab)
        if url.scheme() == "cmd":
            if url.path() == "read":
                self.open_pane()
            elif url.path() == "catalog":
                self.set_catalog_shown(True)
            elif url.path() == "reset":
                self._reset_current()
            return
        if url.scheme() == "look":
            try:
                self.look(int(url.path()))
            except ValueError:
                pass

    # -- opening / reset ------------------------------------------------------------------------
    def _open_item(self, item: QTreeWidgetItem) -> None:
        if item is not None and item.data(0, _LESSON_ROLE):
            self._open_current()

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

    def _reset_current(self) -> None:
        lesson = self.current()
        if lesson is not None:
            self.resetRequested.emit(lesson)

    def retranslate(self) -> None:
        self.search.setPlaceholderText(self.tr("Search lessons (English or 中文)…"))
        self.search.setToolTip(self.tr("Search titles and texts in both languages"))
        self.open_button.setText(self.tr("Open in editor"))
        self.open_button.setToolTip(self.tr("Load this lesson's script into the editor and run it"))
        self.reset_button.setText(self.tr("Reset lesson"))
        self.reset_button.setToolTip(self.tr("Throw away your edits to this lesson and load its original script"))
        self.tree.setToolTip(self.tr("Click a lesson to load and run it. • opened  ▶ run  ✓ stepped through"))
        self.catalog_button.setText(self.tr("All lessons"))
        self.catalog_button.setToolTip(self.tr("Show or fold away the list of lessons above the text"))
        self._fill()
        self._retranslate_own_note()

    def changeEvent(self, event):  # noqa: N802
        if event.type() == QEvent.LanguageChange:
            self.retranslate()
        super().changeEvent(event)
