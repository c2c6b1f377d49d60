"""An overview of the whole graph with the visible area outlined.

Shown for graphs larger than the view; click or drag in it to move the main
view there. It renders the same scene (cheap: QGraphicsView caches), so it
always matches.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QFrame, QGraphicsView


class Minimap(QGraphicsView):
    SIZE = (180, 130)

    def __init__(self, main_view: QGraphicsView, owner=None):
        super().__init__(main_view.scene(), main_view)
        self.main_view = main_view
        self.setInteractive(False)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.setRenderHints(QPainter.Antialiasing)
        self.setFrameShape(QFrame.Box)
        self.setFixedSize(*self.SIZE)
        self.setCursor(Qt.CrossCursor)
        self.setToolTip(self.tr("Overview of the whole graph: the frame is what the main view shows. "
                                "Click or drag to move there."))
        self.hide()

    def refresh(self) -> None:
        rect = self.scene().itemsBoundingRect()
        if rect.isEmpty():
            self.hide()
            return
        self.fitInView(rect, Qt.KeepAspectRatio)
        self.place()

    def place(self) -> None:
        vp = self.main_view.viewport()
        self.move(vp.width() - self.width() - 8 + self.main_view.frameWidth(),
                  vp.height() - self.height() - 8 + self.main_view.frameWidth())
        visible = self.main_view.mapToScene(vp.rect()).boundingRect()
        rect = self.scene().itemsBoundingRect()
        big = not rect.isEmpty() and (rect.width() > visible.width() * 1.05 or
                                      rect.height() > visible.height() * 1.05)
        self.setVisible(big)
        if big:
            self.raise_()

    def drawForeground(self, painter: QPainter, rect: QRectF) -> None:
        vp = self.main_view.viewport()
        visible = self.main_view.mapToScene(vp.rect()).boundingRect()
        painter.setPen(QPen(QColor("#e6007a"), 0))
        fill = QColor("#e6007a")
        fill.setAlpha(30)
        painter.setBrush(fill)
        painter.drawRect(visible)

    def _goto(self, pos) -> None:
        self.main_view.centerOn(self.mapToScene(pos))
        self.viewport().update()

    def mousePressEvent(self, event) -> None:
        self._goto(event.position().toPoint())
        event.accept()

    def mouseMoveEvent(self, event) -> None:
        if event.buttons() & Qt.LeftButton:
            self._goto(event.position().toPoint())
        event.accept()

    def wheelEvent(self, event) -> None:
        event.accept()
