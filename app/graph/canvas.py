"""The canvas under the graph: a QGraphicsView that zooms (wheel, pinch, +/-),
pans (drag) and centres (double-click).

It only moves the picture and says so (`zoomed`, `userMoved`,
`backgroundClicked`); what to show and when to fit is the GraphView's job.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QGraphicsView


class GraphCanvas(QGraphicsView):
    """QGraphicsView with wheel zoom, drag pan, pinch and double-click centring."""

    zoomed = Signal()
    userMoved = Signal()  # the user zoomed or panned by hand

    def __init__(self, scene, parent=None):
        super().__init__(scene, parent)
        self.setRenderHints(QPainter.Antialiasing | QPainter.TextAntialiasing)
        self.setDragMode(QGraphicsView.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.AnchorViewCenter)
        self.setViewportUpdateMode(QGraphicsView.MinimalViewportUpdate)
        # no scrollbars: pan by dragging, the minimap shows where you are
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.viewport().grabGesture(Qt.GestureType.PinchGesture)
        self.setFocusPolicy(Qt.StrongFocus)

    def zoom_by(self, factor: float) -> None:
        cur = self.transform().m11()
        new = min(max(cur * factor, 0.002), 8.0)
        f = new / cur if cur else 1.0
        self.scale(f, f)
        self.zoomed.emit()

    def wheelEvent(self, event) -> None:
        delta = event.angleDelta().y()
        if delta == 0:
            return super().wheelEvent(event)
        self.zoom_by(1.0015 ** delta)
        self.userMoved.emit()
        event.accept()

    def viewportEvent(self, event) -> bool:
        if event.type() == QEvent.Type.Gesture:
            pinch = event.gesture(Qt.GestureType.PinchGesture)
            if pinch is not None:
                self.zoom_by(pinch.scaleFactor())
                self.userMoved.emit()
                return True
        return super().viewportEvent(event)

    def mouseDoubleClickEvent(self, event) -> None:
        self.centerOn(self.mapToScene(event.position().toPoint()))
        self.zoomed.emit()
        self.userMoved.emit()
        event.accept()

    backgroundClicked = Signal()

    def mousePressEvent(self, event) -> None:
        self._press = event.position().toPoint()
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event) -> None:
        if event.buttons() & Qt.MouseButton.LeftButton:
            self.userMoved.emit()  # dragging pans
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event) -> None:
        super().mouseReleaseEvent(event)
        press = getattr(self, "_press", None)
        pos = event.position().toPoint()
        if press is not None and (pos - press).manhattanLength() < 4 and event.button() == Qt.MouseButton.LeftButton:
            item = self.itemAt(pos)
            if item is None or not item.acceptHoverEvents():
                self.backgroundClicked.emit()  # a click on empty space, not a pan

    def scrollContentsBy(self, dx: int, dy: int) -> None:
        super().scrollContentsBy(dx, dy)
        self.zoomed.emit()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.zoomed.emit()
