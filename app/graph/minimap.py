"""An overview of the whole graph with the visible area outlined.

Shown when the graph is larger than the view; click or drag in it to move the
main view there. The picture is rendered into a cached pixmap (after a new
layout, and shortly after the step changes), so scrolling the main view only
repaints the frame - never the thousands of items of a big graph. Big graphs
are drawn from the scene's bulk overview item.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt, QTimer
from PySide6.QtGui import QColor, QPainter, QPen, QPixmap
from PySide6.QtWidgets import QFrame


class Minimap(QFrame):
    SIZE = (180, 130)

    def __init__(self, main_view, owner=None):
        super().__init__(main_view)
        self.main_view = main_view
        self.setFrameShape(QFrame.Box)
        self.setFixedSize(*self.SIZE)
        self.setCursor(Qt.CrossCursor)
        self.setToolTip(self.tr("Overview of the whole graph: the frame is what the main view shows. "
                                "Click or drag to move there."))
        self._pix: QPixmap | None = None
        self._src = QRectF()
        self._scale = 1.0
        self._offset = QPointF()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(250)
        self._timer.timeout.connect(self._render)
        self.hide()

    # compatibility with callers that treat it like a view
    def viewport(self):
        return self

    def scene(self):
        return self.main_view.scene()

    def refresh(self) -> None:
        """The graph changed: re-render now."""
        self._timer.stop()
        self._render()
        self.place()

    def clear(self) -> None:
        """The graph is being cleared or replaced: forget the old picture now
        (the map never shows a graph that is no longer in the view)."""
        self._timer.stop()
        self._pix = None
        self._src = QRectF()
        self.hide()

    def refresh_later(self) -> None:
        """The step changed: re-render soon (debounced while playing)."""
        if self.isVisible():
            self._timer.start()

    def _render(self) -> None:
        sc = self.scene()
        overview = getattr(sc, "overview", None)
        layout = getattr(sc, "layout", None)
        if layout is None or not (layout.width > 0 and layout.height > 0):
            # no graph (cleared, or not laid out yet): nothing to map
            self._pix = None
            self._src = QRectF()
            self.update()
            return
        src = QRectF(0, 0, layout.width, layout.height).adjusted(-10, -10, 10, 10)
        # the map takes the graph's shape (within limits): a tall chain gets a
        # tall narrow map instead of a thin line in a wide box
        ratio = src.height() / max(src.width(), 1.0)
        if ratio >= 1:
            mh = 220
            mw = int(min(180, max(60, mh / ratio)))
        else:
            mw = 200
            mh = int(min(180, max(60, mw * ratio)))
        if (mw, mh) != (self.width(), self.height()):
            self.setFixedSize(mw, mh)
        w, h = self.width() - 4, self.height() - 4
        scale = min(w / src.width(), h / src.height())
        self._scale = scale
        self._src = src
        self._offset = QPointF(2 + (w - src.width() * scale) / 2, 2 + (h - src.height() * scale) / 2)
        pix = QPixmap(self.width(), self.height())
        pix.fill(sc.backgroundBrush().color())
        p = QPainter(pix)
        p.translate(self._offset)
        p.scale(scale, scale)
        p.translate(-src.topLeft())
        if overview is None or scale < 0.05:
            # boxes drawn as a bulk overview (outlines at least a pixel wide):
            # rendered as items, a long graph's boxes would be specks under a pixel
            if overview is None:
                from autogradviz.app.graph.items import OverviewItem
                overview = OverviewItem(layout, sc.style)
                state = getattr(sc, "state", None)
                if state is not None:
                    overview.set_status(state.status, ())
            overview.paint(p, None, None)
        else:
            p.setRenderHint(QPainter.RenderHint.Antialiasing)
            sc.render(p, src, src)
        p.end()
        self._pix = pix
        self.update()

    def place(self) -> None:
        vp = self.main_view.viewport()
        fw = self.main_view.frameWidth()
        self.move(vp.width() - self.width() - 8 + fw, vp.height() - self.height() - 8 + fw)
        visible = self.main_view.mapToScene(vp.rect()).boundingRect()
        rect = self._src
        big = self._pix is not None and not rect.isEmpty() and (
            rect.width() > visible.width() * 1.05 or rect.height() > visible.height() * 1.05)
        self.setVisible(big)
        if big:
            self.raise_()
            self.update()

    def _to_map(self, pt: QPointF) -> QPointF:
        return QPointF((pt.x() - self._src.left()) * self._scale + self._offset.x(),
                       (pt.y() - self._src.top()) * self._scale + self._offset.y())

    def _to_scene(self, pt: QPointF) -> QPointF:
        s = self._scale or 1.0
        return QPointF((pt.x() - self._offset.x()) / s + self._src.left(),
                       (pt.y() - self._offset.y()) / s + self._src.top())

    def paintEvent(self, event) -> None:
        p = QPainter(self)
        if self._pix is not None:
            p.drawPixmap(0, 0, self._pix)
        vp = self.main_view.viewport()
        visible = self.main_view.mapToScene(vp.rect()).boundingRect()
        a, b = self._to_map(visible.topLeft()), self._to_map(visible.bottomRight())
        st = getattr(self.scene(), "style", None)
        accent = QColor(st.selected if st is not None else QColor("#1565c0"))
        fill = QColor(accent)
        fill.setAlpha(45)
        p.setPen(QPen(accent, 1.5))
        p.setBrush(fill)
        r = QRectF(a, b)
        # never smaller than a few pixels, or "where am I" is a dot
        c = r.center()
        r.setWidth(max(r.width(), 10.0))
        r.setHeight(max(r.height(), 8.0))
        r.moveCenter(c)
        p.drawRect(r.intersected(QRectF(0, 0, self.width(), self.height())))
        p.end()
        super().paintEvent(event)

    def _goto(self, pos) -> None:
        self.main_view.centerOn(self._to_scene(QPointF(pos)))
        if hasattr(self.main_view, "userMoved"):
            self.main_view.userMoved.emit()
        self.update()

    def mousePressEvent(self, event) -> None:
        self._goto(event.position())
        event.accept()

    def mouseMoveEvent(self, event) -> None:
        if event.buttons() & Qt.MouseButton.LeftButton:
            self._goto(event.position())
        event.accept()

    def wheelEvent(self, event) -> None:
        event.accept()
