"""What a checkpoint did not store, drawn so it reads at a glance, and the op re-running now.

A learner should see on the graph itself what gradient checkpointing trades:
each activation the segment dropped is a *ghost* of the missing tensor - a
dashed box with its saved name and the words "not stored" - beside the node
that will need it. During the recomputation the ghosts fill in (solid, amber,
"recomputed") as the op that makes them again re-runs, and empty again
("used, freed") once backward has read them (`recompute_frames.fill_states`).
The re-running op's node gets an amber glow (`RerunItem`), so the animation
happens in the segment, not in a side list.

Qt only; the overlay (checkpoint_regions.py) places and updates these items.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import QGraphicsItem

from autogradviz.app.services.text_safety import plain_tip

RECOMPUTE_COLOR = "#d08a1e"  # the stepper's recompute marks (panels/checkpoint/recompute_marks.py)
GHOST_H = 17.0
GHOST_GAP = 3.0


def tr(text: str) -> str:
    return QCoreApplication.translate("RecomputeItems", text)


def ghost_text(name: str, fill: str) -> str:
    """The ghost's one line for a fill state ("empty", "filled", "used")."""
    if fill == "filled":
        return tr("{0} · recomputed").format(name)
    if fill == "used":
        return tr("{0} · used, freed").format(name)
    return tr("{0} · not stored").format(name)


def ghost_width(style, name: str) -> float:
    """Wide enough for the longest of its texts, so it never jumps while filling."""
    fm = QFontMetricsF(style.small_font(bold=True))
    return max(fm.horizontalAdvance(ghost_text(name, f)) for f in ("empty", "filled", "used")) + 12


def ghost_spot(box: QRectF, w: float, h: float, taken: list[QRectF], frames: list[QRectF]) -> QRectF:
    """Where a stack of ghosts (w×h) goes beside `box`: on its right, or its
    left; where both would cross a module frame's border (the frames are
    drawn tight around their boxes), just outside the frames around the box,
    innermost first. A spot covers no box of `taken` (but `box`) and is
    wholly inside or outside each frame of `frames`; failing that, the first
    clear of the boxes."""
    top = box.center().y() - h / 2
    spots = [QRectF(box.right() + 6, top, w, h), QRectF(box.left() - 6 - w, top, w, h)]
    for f in sorted((f for f in frames if f.contains(box)), key=lambda f: f.width() * f.height()):
        spots += [QRectF(f.right() + 6, top, w, h), QRectF(f.left() - 6 - w, top, w, h)]

    def free(r: QRectF) -> bool:
        return not any(r.intersects(o) for o in taken if o != box)

    def crosses(r: QRectF) -> bool:
        r = r.adjusted(-3, -3, 3, 3)
        return any(f.intersects(r) and not f.contains(r) for f in frames)

    return (next((r for r in spots if free(r) and not crosses(r)), None)
            or next((r for r in spots if free(r)), spots[0]))


class PlaceholderItem(QGraphicsItem):
    """One activation the checkpoint did not store: a ghost of the tensor.

    `owner` is the node whose saved tensor it is (for reentrant checkpoint a
    node of the re-run's inner graph), `fill` its state now."""

    def __init__(self, rect: QRectF, name: str, owner_op: str, style, owner: str = ""):
        super().__init__()
        self._rect = QRectF(rect)
        self.name = name
        self.owner_op = owner_op
        self.owner = owner
        self.style = style
        self.fill = "empty"
        self.setZValue(3)
        self.setToolTip(plain_tip(tr("Not stored: {0} (saved for {1}). The checkpoint dropped it after the "
                                     "forward; backward makes it again by re-running the segment, reads it, "
                                     "and frees it.").format(name, owner_op)))

    def text(self) -> str:
        return ghost_text(self.name, self.fill)

    def set_fill(self, fill: str) -> None:
        if fill != self.fill:
            self.fill = fill
            self.update()

    def boundingRect(self) -> QRectF:
        return self._rect.adjusted(-1.5, -1.5, 1.5, 1.5)

    def paint(self, painter: QPainter, option, widget=None) -> None:
        st = self.style
        text = QColor(st.text)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        if self.fill == "filled":
            amber = QColor(RECOMPUTE_COLOR)
            fill = QColor(amber)
            fill.setAlpha(70)
            painter.setBrush(QBrush(fill))
            painter.setPen(QPen(amber, 1.6))
        else:
            ghost = QColor(text)
            ghost.setAlpha(140 if self.fill == "empty" else 90)
            back = QColor(st.background)
            back.setAlpha(215)
            painter.setBrush(QBrush(back))
            painter.setPen(QPen(ghost, 1.2, Qt.PenStyle.DashLine))
            text = ghost
        painter.drawRoundedRect(self._rect, 3, 3)
        font = st.small_font(bold=self.fill == "filled")
        font.setItalic(self.fill != "filled")
        painter.setFont(font)
        painter.setPen(text)
        painter.drawText(self._rect.adjusted(6, 0, -4, 0), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, self.text())


class RerunItem(QGraphicsItem):
    """The node whose tensors the op re-running now makes again: an amber glow."""

    def __init__(self, rect: QRectF, style, node_id: str):
        super().__init__()
        self._rect = rect.adjusted(-4, -4, 4, 4)
        self.style = style
        self.node_id = node_id
        self.setZValue(5)
        self.setToolTip(tr("Re-running now: this node's operation runs again inside backward, "
                           "making the tensors the checkpoint did not store."))

    def boundingRect(self) -> QRectF:
        return self._rect.adjusted(-6, -6, 6, 6)

    def paint(self, painter: QPainter, option, widget=None) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        amber = QColor(RECOMPUTE_COLOR)
        glow = QColor(amber)
        glow.setAlpha(80)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(QPen(glow, 9))
        painter.drawRoundedRect(self._rect, 6, 6)
        painter.setPen(QPen(amber, 2.6))
        painter.drawRoundedRect(self._rect, 6, 6)
