"""Follows a lesson's "what to look at" item into the app: selects and
flashes the node, goes to the step, flashes a checkpoint's region or opens
its recompute phase in the stepper, or raises the panel it talks about.

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
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setGeometry(target.rect())
        self._alpha = 255
        anim = QVariantAnimation(self)
        anim.setStartValue(255)
        anim.setEndValue(0)
        anim.setDuration(FLASH_MS)
        anim.setEasingCurve(QEasingCurve.Type.InQuad)
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

    # What was shown: "node", "step", "run", "checkpoint", "recompute" or "panel"
    # (tests and the status bar)
    arrived = Signal(str)
    # The target is not in the current trace (no run yet, or another script)
    missed = Signal()

    def __init__(self, session, graph_view, panel_dock: Callable[[str], Optional[QWidget]], parent=None):
        super().__init__(parent)
        self._session = session
        self._view = graph_view
        self._panel_dock = panel_dock
        # what to flash once the layout is done: a node id, or ("checkpoint", id)
        self._pending = None
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
        if where.recompute:
            # the position before the trigger runs, then the phase's first frame
            self._session.recompute.enter(where.step)
        if where.step is not None:
            stepper = self._panel_dock("stepper")
            if stepper is not None:  # (it may share its place with another panel)
                stepper.show()
                stepper.raise_()
        if where.node is not None:
            self._session.select_node(where.node)
        if where.checkpoint is not None and not where.recompute:
            self._flash(("checkpoint", where.checkpoint))
        elif where.node is not None:
            self._flash(where.node)
        kind = ("recompute" if where.recompute else "step" if where.step is not None
                else "checkpoint" if where.checkpoint else "node" if where.node else "run")
        self.arrived.emit(kind)
        return True

    def _move(self, where: Location) -> None:
        s = self._session
        if where.run is not None:
            s.select_run(where.run)
        elif where.graph != s.graph_id:
            s.select_graph(where.graph)
        if where.step is not None:
            s.set_step(where.step)

    def _flash_rect(self, what) -> Optional[QRectF]:
        """The scene rect of `what` (a node id or ("checkpoint", id)), None
        while it is not drawn (its graph is being laid out)."""
        scene = self._view.graph_scene()
        if isinstance(what, tuple):
            region = scene.checkpoint_overlay.regions.get(what[1])
            return region.sceneBoundingRect().adjusted(-4, -4, 4, 4) if region is not None else None
        items = scene.node_items.get(what)
        return items[0].sceneBoundingRect().adjusted(-8, -8, 8, 8) if items else None

    def _flash(self, what) -> None:
        scene = self._view.graph_scene()
        rect = self._flash_rect(what)
        if rect is None:
            self._pending = what  # its graph is being laid out
            return
        self._pending = None
        self._view.show_rect(rect)
        frame = QGraphicsRectItem(rect)
        frame.setZValue(1e6)
        frame.setBrush(Qt.BrushStyle.NoBrush)
        scene.addItem(frame)
        anim = QVariantAnimation(self)
        anim.setStartValue(255)
        anim.setEndValue(0)
        anim.setDuration(FLASH_MS)
        anim.setEasingCurve(QEasingCurve.Type.InQuad)

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
        anim.start(QVariantAnimation.DeletionPolicy.DeleteWhenStopped)

    def _flash_pending(self, *_args) -> None:
        if self._pending is not None:
            self._flash(self._pending)
