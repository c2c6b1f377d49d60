"""Every declared feature's marks on the stepper's timeline, with their tooltips.

A feature says where its marks go and what they say (`FeatureSpec.
stepper_marks(trace, run_index) -> [StepMark]`, app/features/); this draws
them all the same way, on a transparent layer the size of the timeline that
lets the mouse through: "above" a triangle over the line (a checkpoint's
recompute), "below" a diamond under it (a DDP all-reduce), "tick" a short
stroke under the line (a frame of a recompute phase). Hovering within 6 px
of marks shows their tooltips.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QPointF, Qt
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QToolTip, QWidget

from autogradviz.app.features import StepMark, stepper_marks
from autogradviz.app.services.text_safety import plain_tip

NEAR_PX = 6


class StepMarks(QObject):
    """The marks of the session's current run over `timeline` (the stepper's)."""

    def __init__(self, timeline, session):
        super().__init__(timeline)
        self.timeline = timeline
        self.session = session
        self.by_feature: dict[str, list[StepMark]] = {}
        self.overlay = _Layer(timeline, self)
        timeline.installEventFilter(self)

    def of(self, feature_id: str) -> list[StepMark]:
        """The marks feature `feature_id` put on the current run."""
        return list(self.by_feature.get(feature_id, ()))

    def all(self) -> list[StepMark]:
        return [m for marks in self.by_feature.values() for m in marks]

    def refresh(self) -> None:
        s = self.session
        self.by_feature = {fid: marks for fid, marks in stepper_marks(s.trace, s.run_index).items() if marks}
        self.overlay.setGeometry(self.timeline.rect())
        self.overlay.setVisible(bool(self.by_feature))
        self.overlay.update()

    def text_near(self, x: float) -> str:
        """The tooltip for a pointer at `x` ("" when no mark with a text is near)."""
        return "\n".join(m.tooltip for m in self.all()
                         if m.tooltip and abs(self.timeline._x(m.position) - x) <= NEAR_PX)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802
        if obj is self.timeline:
            if event.type() == QEvent.Type.Resize:
                self.overlay.setGeometry(self.timeline.rect())
            elif event.type() == QEvent.Type.ToolTip and self.by_feature:
                text = self.text_near(event.pos().x())
                if text:
                    QToolTip.showText(event.globalPos(), plain_tip(text), self.timeline)
                    return True
        return False


class _Layer(QWidget):
    def __init__(self, timeline, marks: StepMarks):
        super().__init__(timeline)
        self.marks = marks
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setGeometry(timeline.rect())
        self.hide()

    def paintEvent(self, event) -> None:  # noqa: N802
        tl = self.marks.timeline
        if tl.n <= 0:
            return
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        for mark in self.marks.all():
            _draw(p, mark, tl._x(mark.position), self.height() / 2 + 2)
        p.end()


def _draw(p: QPainter, mark: StepMark, x: float, mid: float) -> None:
    color = QColor(mark.color)
    if mark.kind == "tick":  # (below the handle)
        p.setPen(QPen(color, 1.4))
        p.drawLine(QPointF(x, mid + 7), QPointF(x, mid + 11))
        return
    p.setPen(QPen(color.darker(140), 1))
    p.setBrush(color)
    if mark.kind == "above":
        y = mid - 10
        p.drawPolygon([QPointF(x - 5, y - 4), QPointF(x + 5, y - 4), QPointF(x, y + 4)])
    else:  # "below"
        y = mid + 10
        p.drawPolygon([QPointF(x, y - 4), QPointF(x + 4, y), QPointF(x, y + 4), QPointF(x - 4, y)])
