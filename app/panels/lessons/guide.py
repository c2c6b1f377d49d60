"""Follows a lesson's "what to look at" item into the app: selects and
flashes the node, goes to the step, or raises the panel it talks about.

Targets are resolved on the trace by `engine.trace.find.locate` (plain data);
a "panel" target names a dock by its registry id. Everything moves through
the TraceSession (run, step, selection), so every panel follows as it does
for a click of the learner's own; the guide only adds the flash, which must
wait for the graph's layout when the target is in another graph.
"""

from __future__ import annotations

from typing import Callable, Optional

from PySide6.QtCore import QEasingCurve, QObject, QRectF, Qt, QVariantAnimation, Signal
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QGraphicsRectItem, QWidget

from autogradviz.engine.trace.find import Location, locate

FLASH_MS = 1400
FLASH_COLOR = QColor(255, 170, 0)


class _WidgetFlash(QWidget):
    """A fading frame drawn over a widget (a dock's contents), ignoring the mouse."""

    def __init__(self, target: QWidget):
        super().__init__(target)
        self.setAttribute(Qt.WA_TransparentForMouseEvents)
        self.setGeometry(target.rect())
        self._alpha = 255
        anim = QVariantAnimation(self)
        anim.setStartValue(255)
        anim.setEndValue(0)
        anim.setDuration(FLASH_MS)
        anim.setEasingCurve(QEasingCurve.InQuad)
        anim.valueChanged.connect(self._set_alpha)
        anim.finished.connect(self.deleteLater)
        self.show()
        self.raise_()
        anim.start()

    def _set_alpha(self, value) -> None:
        self._alpha = int(value)
        self.update()

    def paintEvent(self, _event) -> None:  # noqa: N802
        p = QPainter(self)
        color = QColor(FLASH_COLOR)
        color.setAlpha(self._alpha)
        p.setPen(QPen(color, 4))
        p.drawRect(self.rect().adjusted(2, 2, -2, -2))


class LessonGuide(QObject):
    """`go(target)` moves the app to what a look item points at.

    `panel_dock(id)` returns the dock of a panel id (None if there is none);
    `graph_view` is the window's GraphView."""

    # What was shown: "node", "step", "run" or "panel" (tests and the status bar)
    arrived = Signal(str)
    # The target is not in the current trace (no run yet, or another script)
    missed = Signal()

    def __init__(self, session, graph_view, panel_dock: Callable[[str], Optional[QWidget]], parent=None):
        super().__init__(parent)
        self._session = session
        self._view = graph_view
        self._panel_dock = panel_dock
        self._pending: Optional[str] = None  # node to flash once the layout is done
        self.flashing: list = []  # live flash items (tests look at them)
        graph_view.layoutFinished.connect(self._flash_pending)

    def go(self, target: dict) -> bool:
        panel = target.get("panel")
        if panel:
            dock = self._panel_dock(panel)
            if dock is None:
                self.missed.emit()
                return False
            dock.show()
            dock.raise_()
            self.flashing.append(_WidgetFlash(dock))
            self.arrived.emit("panel")
            return True
        trace = self._session.trace
        where = locate(trace, target) if trace is not None else None
        if where is None:
            self.missed.emit()
            return False
        self._move(where)
        if where.step is not None:
            stepper = self._panel_dock("stepper")
            if stepper is not None:  # (it may share its place with another panel)
                stepper.show()
                stepper.raise_()
        if where.node is not None:
            self._session.select_node(where.node)
            self._flash_node(where.node)
        self.arrived.emit("step" if where.step is not None else "node" if where.node else "run")
        return True

    def _move(self, where: Location) -> None:
        s = self._session
        if where.run is not None:
            s.select_run(where.run)
        elif where.graph != s.graph_id:
            s.select_graph(where.graph)
        if where.step is not None:
            s.set_step(where.step)

    def _flash_node(self, node_id: str) -> None:
        scene = self._view.graph_scene()
        items = scene.node_items.get(node_id)
        if not items:
            self._pending = node_id  # its graph is being laid out
            return
        self._pending = None
        rect: QRectF = items[0].sceneBoundingRect().adjusted(-8, -8, 8, 8)
        self._view.view.centerOn(rect.center())
        frame = QGraphicsRectItem(rect)
        frame.setZValue(1e6)
        frame.setBrush(Qt.NoBrush)
        scene.addItem(frame)
        anim = QVariantAnimation(self)
        anim.setStartValue(255)
        anim.setEndValue(0)
        anim.setDuration(FLASH_MS)
        anim.setEasingCurve(QEasingCurve.InQuad)

        def paint(alpha) -> None:
            color = QColor(FLASH_COLOR)
            color.setAlpha(int(alpha))
            try:
                frame.setPen(QPen(color, 5))
            except RuntimeError:  # deleted with a rebuilt scene
                pass

        def done() -> None:
            if frame in self.flashing:
                self.flashing.remove(frame)
            try:
                if frame.scene() is not None:
                    frame.scene().removeItem(frame)
            except RuntimeError:  # the scene was rebuilt meanwhile (and deleted the frame)
                pass

        paint(255)
        anim.valueChanged.connect(paint)
        anim.finished.connect(done)
        self.flashing.append(frame)
        anim.start(QVariantAnimation.DeleteWhenStopped)

    def _flash_pending(self, *_args) -> None:
        if self._pending is not None:
            self._flash_node(self._pending)
