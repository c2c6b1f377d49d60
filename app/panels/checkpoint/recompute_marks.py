"""Amber triangles on the stepper's timeline where a checkpoint re-ran its forward.

The recompute happens inside one backward step (between session steps
`step` and `step + 1`, see app/graph/recompute_frames.py), so a learner
scrubbing the timeline would not know where to look: each recomputation of
the shown run gets a mark half-way between those two ticks, with a tooltip
naming the checkpoint and how many ops it re-ran. Between the two ticks,
one amber sub-tick per frame of the recompute phase (the handle walks them).
Pure overlay: it reads `Trace.checkpoints` and draws nothing when the run
had no recompute.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent, QObject, QPointF
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QToolTip

from autogradviz.app.graph.checkpoint_regions import kind_text
from autogradviz.app.panels.timeline_overlay import TimelineOverlay
from autogradviz.app.services.text_safety import plain_tip

RECOMPUTE_COLOR = "#d08a1e"


def tr(text: str) -> str:
    return QCoreApplication.translate("RecomputeMarks", text)


def recompute_positions(trace, run_index: int) -> dict[float, list[tuple[int, object, object]]]:
    """{timeline position (step + 0.5): [(checkpoint number, checkpoint, recomputation)]}
    for every recomputation torch made during backward run `run_index`."""
    out: dict[float, list] = {}
    for number, c in enumerate(getattr(trace, "checkpoints", None) or [], 1):
        for r in c.recomputations:
            if r.run == run_index and r.step is not None:
                out.setdefault(r.step + 0.5, []).append((number, c, r))
    return out


def mark_text(number: int, checkpoint, recomputation) -> str:
    text = tr("Checkpoint {0} ({1}) re-ran its forward here: {2} op(s)").format(
        number, kind_text(checkpoint.kind), len(recomputation.ops))
    if recomputation.early_stopped:
        text += " " + tr("(stopped early: every tensor it needed was back)")
    return text


class RecomputeMarks(QObject):
    """The marks of the session's current run over `timeline` (the stepper's)."""

    def __init__(self, timeline, session):
        super().__init__(timeline)
        self.timeline = timeline
        self.session = session
        self.positions: dict[float, list] = {}
        self.overlay = _Overlay(timeline, self)
        timeline.installEventFilter(self)

    def refresh(self) -> None:
        t = self.session.trace
        self.positions = recompute_positions(t, self.session.run_index) if t is not None else {}
        self.overlay.setGeometry(self.timeline.rect())
        self.overlay.setVisible(bool(self.positions))
        self.overlay.update()

    def text_near(self, x: float) -> str:
        """The tooltip for a pointer at `x` ("" when no mark is within 6 px)."""
        return "\n".join(mark_text(*m) for pos, marks in self.positions.items()
                         if abs(self.timeline._x(pos) - x) <= 6 for m in marks)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802
        if obj is self.timeline:
            if event.type() == QEvent.Type.Resize:
                self.overlay.setGeometry(self.timeline.rect())
            elif event.type() == QEvent.Type.ToolTip and self.positions:
                text = self.text_near(event.pos().x())
                if text:
                    QToolTip.showText(event.globalPos(), plain_tip(text), self.timeline)
                    return True
        return False


class _Overlay(TimelineOverlay):
    def draw(self, p: QPainter, tl) -> None:
        color = QColor(RECOMPUTE_COLOR)
        p.setPen(QPen(color.darker(140), 1))
        p.setBrush(color)
        y = self.height() / 2 - 8
        for pos in self.marks.positions:
            x = tl._x(pos)
            p.drawPolygon([QPointF(x - 5, y - 4), QPointF(x + 5, y - 4), QPointF(x, y + 4)])
        # a sub-tick per recompute frame between the trigger step's tick and
        # the next: the handle walks them (RecomputePhase.fraction)
        mid = self.height() / 2 + 2
        phase = self.marks.session.recompute
        p.setPen(QPen(color, 1.4))
        for step in phase.phase_steps():
            frames = phase.frames_at(step)
            for i in range(len(frames)):
                x = tl._x(step + (i + 1) / (len(frames) + 1))
                p.drawLine(QPointF(x, mid + 7), QPointF(x, mid + 11))  # (below the handle)
