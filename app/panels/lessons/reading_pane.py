"""The lesson's reading pane: a lesson whose text does not fit its column
opens with the whole text over the canvas, wide enough that nothing scrolls.

The code column (~400 px at 1280×800) cannot hold a long lesson and ten lines
of code; widening the column would take the canvas below half the window
once the graph is there. So the text opens on a card over the canvas, the
way a tutorial's page opens before its exercise: the graph lays out beneath
it (the lesson runs as it opens), and "Show the graph" (or Esc, or Run, or a
step key, or a "what to look at" link) puts the card away. The text stays in
the Lesson tab under the code, and its "Read in a pane" link opens the card
again.
"""

from __future__ import annotations

from typing import Callable, cast

from PySide6.QtCore import QEvent, QObject, QRect, Qt, QUrl, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (QFrame, QHBoxLayout, QLayout, QLabel, QPushButton, QTextBrowser, QVBoxLayout,
                               QWidget)

MARGIN = 16       # between the card and the canvas's edges
MIN_WIDTH = 520   # the card's narrowest (a ~60-character line)
READ_WIDTH = 680  # the width it takes when the text fits there (~80 characters a line)


class LessonReadingPane(QFrame):
    """A card over `canvas` (a widget inside `host`, its parent) showing the
    markdown `show()` is given. `linkClicked` forwards the text's links;
    `closed` when the learner puts it away."""

    linkClicked = Signal(QUrl)
    closed = Signal()

    def __init__(self, host: QWidget, canvas: Callable[[], QWidget]):
        super().__init__(host)
        self.setObjectName("lessonReadingPane")
        self._canvas = canvas
        self._siblings: list[QWidget] = []
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        self.text = QTextBrowser(self)
        self.text.setObjectName("lessonReadingText")
        self.text.setOpenLinks(False)
        self.text.setFrameShape(QFrame.Shape.NoFrame)
        self.text.document().setIndentWidth(16)
        self.text.document().setDocumentMargin(8)
        self.text.anchorClicked.connect(self.linkClicked)
        self.hint = QLabel(self)
        self.hint.setObjectName("lessonReadingHint")
        self.hint.setWordWrap(True)
        self.close_button = QPushButton(self)
        self.close_button.setObjectName("lessonReadingClose")
        self.close_button.setDefault(True)
        self.close_button.clicked.connect(self.put_away)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.hint, 1)
        row.addWidget(self.close_button, 0, Qt.AlignmentFlag.AlignBottom)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(10, 8, 10, 10)
        lay.setSpacing(6)
        lay.addWidget(self.text, 1)
        lay.addLayout(row)
        QShortcut(QKeySequence(Qt.Key.Key_Escape), self, self.put_away,
                  context=Qt.ShortcutContext.WidgetWithChildrenShortcut)
        host.installEventFilter(self)
        self.retranslate()
        self.hide()

    # -- showing ----------------------------------------------------------------------
    def show_text(self, markdown: str, fix_margins: Callable[[QTextBrowser], None] | None = None) -> None:
        """Open the card with `markdown` (`fix_margins` evens out its paragraph
        spacing as the Lesson tab's is)."""
        self.text.setMarkdown(markdown)
        if fix_margins is not None:
            fix_margins(self.text)
        self.show()
        self.raise_()
        self.place()

    def put_away(self) -> None:
        if self.isVisible():
            self.hide()
            self.closed.emit()

    def place(self) -> None:
        """Size the card so that the whole text shows: `READ_WIDTH` wide, wider
        (up to the canvas's width) when the text is too tall for the canvas
        at that width; placed at the canvas's top left."""
        if not self.isVisible():
            return
        canvas = self._canvas()
        parent = cast(QWidget, self.parentWidget())  # (a card over the canvas: it has one)
        lay = cast(QLayout, self.layout())  # (set up in __init__)
        area = QRect(canvas.mapTo(parent, canvas.rect().topLeft()), canvas.size())
        area = area.adjusted(MARGIN, MARGIN, -MARGIN, -MARGIN)
        width = min(max(READ_WIDTH, MIN_WIDTH), area.width())
        height = area.height()
        for _ in range(12):  # (each try lays the text out at the card's real width)
            self.setGeometry(area.x(), area.y(), max(width, 1), max(height, 1))
            lay.activate()
            doc, viewport = self.text.document(), self.text.viewport()
            doc.setTextWidth(viewport.width())
            needed = int(doc.size().height()) + 1 + self.height() - viewport.height()
            if needed <= area.height() or width >= area.width():
                height = min(needed, area.height())
                break
            width = min(width + 80, area.width())
        self.setGeometry(area.x(), area.y(), max(width, 1), max(height, 1))
        lay.activate()

    def fits(self) -> bool:
        """The whole text in view, nothing to scroll."""
        return self.text.verticalScrollBar().maximum() == 0

    def keep_above(self, sibling: QWidget) -> None:
        """Stay above `sibling` (another overlay of the canvas) when it shows."""
        self._siblings.append(sibling)
        sibling.installEventFilter(self)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802
        if obj is self.parentWidget() and event.type() in (QEvent.Type.Resize, QEvent.Type.LayoutRequest):
            self.place()
        elif obj in self._siblings and event.type() == QEvent.Type.Show and self.isVisible():
            self.raise_()
        return False

    def retranslate(self) -> None:
        self.close_button.setText(self.tr("Show the graph"))
        self.close_button.setToolTip(self.tr("Put the text away (Esc, Run or a step key do too); "
                                             "it stays in the Lesson tab under the code"))
        self.hint.setText(self.tr("The lesson's graph is drawn under this page. The text stays in the Lesson "
                                  "tab; “Read in a pane” there brings this page back."))

    def changeEvent(self, event) -> None:  # noqa: N802
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)
