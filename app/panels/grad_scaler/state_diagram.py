"""One optimizer's GradScaler stage machine, drawn: READY, UNSCALED, STEPPED.

Arrows carry the calls that move between stages (unscale_, step, step that
unscales itself, update); the stage after the current call is lit, and the
transition the call took is animated as a dot travelling along its arrow. A call
torch refused (unscale_ twice, step twice, unscale_ after step) is drawn as a red
dashed arrow out of the stage it was refused in, with torch's message beneath.
The widget only draws what the recorded `ScalerEvent` says.
"""

from __future__ import annotations

import math
from typing import Optional

from PySide6.QtCore import QCoreApplication, QPointF, QRectF, QSize, Qt, QVariantAnimation
from PySide6.QtGui import QColor, QFont, QPainter, QPainterPath, QPalette, QPen, QPolygonF
from PySide6.QtWidgets import QSizePolicy, QWidget

from autogradviz.app.services.text_safety import plain_tip

STAGES = ("READY", "UNSCALED", "STEPPED")
# (from, to, call label id): every legal transition of one optimizer's stage.
ARROWS = (
    ("READY", "UNSCALED", "unscale_"),
    ("UNSCALED", "STEPPED", "step"),
    ("READY", "STEPPED", "step_implicit"),
    ("STEPPED", "READY", "update"),
)


# the widget's height: the stages' row, the update() arc and its label below it,
# then a refused call's words (REFUSED_Y) and torch's message on the last line
HEIGHT = 232
REFUSED_Y = 176.0


def tr(text: str) -> str:
    return QCoreApplication.translate("ScalerStateDiagram", text)


def arrow_label(kind: str) -> str:
    return {
        "unscale_": tr("unscale_()"),
        "step": tr("step()"),
        "step_implicit": tr("step() — unscales first"),
        "update": tr("update()"),
    }[kind]


class StateDiagram(QWidget):
    """Three stages and their arrows for one optimizer (`title`, e.g. "o1")."""

    def __init__(self, title: str, parent=None):
        super().__init__(parent)
        self.title = title
        self.stage = "READY"
        self.taken: Optional[tuple[str, str, str]] = None  # the arrow of the current call
        self.refused: Optional[tuple[str, str]] = None  # (stage, call) torch refused
        self.message = ""
        self.progress = 1.0
        self._anim = QVariantAnimation(self)
        self._anim.setStartValue(0.0)
        self._anim.setEndValue(1.0)
        self._anim.setDuration(450)
        self._anim.valueChanged.connect(self._on_anim)
        self.colors: Optional[dict] = None
        self.setMinimumSize(360, HEIGHT)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def sizeHint(self) -> QSize:
        return QSize(460, HEIGHT)

    def text_rects(self) -> dict[str, QRectF]:
        """Where each caption is painted: every arrow's label ("arrow:KIND"),
        the refusal under its stage ("refused") and torch's message on the
        bottom line ("message"). A refusal goes below the update() arc and its
        label, so no two captions overlap (tests check it)."""
        fm = self.fontMetrics()

        def around(x: float, y: float, text: str) -> QRectF:  # as wide as its words
            w = fm.horizontalAdvance(text) + 6
            return QRectF(x - w / 2, y, w, 18)

        out = {}
        for a, b, kind in ARROWS:
            at = self._path(a, b, kind).pointAtPercent(0.5)
            off = -8 if kind != "update" else 14
            out["arrow:" + kind] = around(at.x(), at.y() + off - 10, arrow_label(kind))
        if self.refused is not None:
            c = self._centres()[self.refused[0]]
            out["refused"] = around(c.x(), REFUSED_Y, self.refused_text())
        if self.message:
            out["message"] = QRectF(8, self.height() - 20, self.width() - 16, 18)
        return out

    def refused_text(self) -> str:
        return tr("{0} refused").format(self.refused[1] + "()") if self.refused is not None else ""

    def set_colors(self, c: dict) -> None:
        """The theme's colours (app.theme.colors); the palette is the fallback."""
        self.colors = c
        self.update()

    # -- state ---------------------------------------------------------------
    def show_event(self, stage: str, taken: Optional[tuple[str, str, str]] = None,
                   refused: Optional[tuple[str, str]] = None, message: str = "",
                   animate: bool = True) -> None:
        """Light `stage`; animate along `taken` (from, to, kind) when given."""
        self.stage = stage
        self.taken = taken
        self.refused = refused
        self.message = message
        self._anim.stop()
        if taken is not None and animate:
            self.progress = 0.0
            self._anim.start()
        else:
            self.progress = 1.0
        self.setToolTip(plain_tip(message))
        self.update()

    def _on_anim(self, value) -> None:
        self.progress = float(value)
        self.update()

    # -- drawing -------------------------------------------------------------
    def _centres(self) -> dict[str, QPointF]:
        w = self.width()
        y = 88.0
        step = (w - 120) / 2
        return {s: QPointF(60 + i * step, y) for i, s in enumerate(STAGES)}

    def _path(self, a: str, b: str, kind: str) -> QPainterPath:
        c = self._centres()
        p0, p1 = c[a], c[b]
        path = QPainterPath()
        r = 34.0
        if kind == "step_implicit":  # over the top
            start, end = p0 + QPointF(14, -r + 6), p1 + QPointF(-14, -r + 6)
            path.moveTo(start)
            mid_y = p0.y() - 72
            path.cubicTo(QPointF(start.x() + 40, mid_y), QPointF(end.x() - 40, mid_y), end)
        elif kind == "update":  # back underneath
            start, end = p0 + QPointF(-14, r - 6), p1 + QPointF(14, r - 6)
            path.moveTo(start)
            mid_y = p0.y() + 64
            path.cubicTo(QPointF(start.x() - 40, mid_y), QPointF(end.x() + 40, mid_y), end)
        else:
            path.moveTo(p0 + QPointF(r + 12, 0))
            path.lineTo(p1 - QPointF(r + 12, 0))
        return path

    def paintEvent(self, event) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        pal = self.palette()
        c = self.colors
        text = QColor(c["text"]) if c else pal.color(QPalette.ColorRole.WindowText)
        muted = QColor(c["muted"]) if c else pal.color(QPalette.ColorRole.PlaceholderText)
        lit = QColor(c["highlight"]) if c else pal.color(QPalette.ColorRole.Highlight)
        red = QColor(c["error"]) if c else pal.color(QPalette.ColorRole.BrightText)
        font = QFont(self.font())
        p.setFont(font)
        p.setPen(text)
        p.drawText(QRectF(8, 2, self.width() - 16, 18), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                   tr("Optimizer {0}").format(self.title))
        for a, b, kind in ARROWS:
            path = self._path(a, b, kind)
            active = self.taken is not None and self.taken[2] == kind
            p.setPen(QPen(lit if active else muted, 2.4 if active else 1.3))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawPath(path)
            self._arrow_head(p, path, lit if active else muted)
            p.setPen(lit if active else text)
            p.drawText(self.text_rects()["arrow:" + kind], Qt.AlignmentFlag.AlignCenter, arrow_label(kind))
            if active and self.progress < 1.0:
                dot = path.pointAtPercent(self.progress)
                p.setPen(Qt.PenStyle.NoPen)
                p.setBrush(lit)
                p.drawEllipse(dot, 6, 6)
        if self.refused is not None:
            stage, call = self.refused
            centre = self._centres()[stage]
            path = QPainterPath()
            path.moveTo(centre + QPointF(20, 28))
            path.cubicTo(centre + QPointF(60, 70), centre + QPointF(-60, 70), centre + QPointF(-20, 28))
            pen = QPen(red, 2.2, Qt.PenStyle.DashLine)
            p.setPen(pen)
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawPath(path)
            self._arrow_head(p, path, red)
            p.drawText(self.text_rects()["refused"], Qt.AlignmentFlag.AlignCenter, self.refused_text())
        c = self._centres()
        for s in STAGES:
            on = s == self.stage and (self.taken is None or self.progress >= 1.0)
            rect = QRectF(c[s].x() - 46, c[s].y() - 22, 92, 44)
            p.setPen(QPen(red if (self.refused and self.refused[0] == s) else (lit if on else muted),
                          2.4 if on else 1.3))
            fill = QColor(lit)
            fill.setAlpha(60 if on else 0)
            p.setBrush(fill)
            p.drawRoundedRect(rect, 10, 10)
            p.setPen(text)
            bold = QFont(font)
            bold.setBold(on)
            p.setFont(bold)
            p.drawText(rect, Qt.AlignmentFlag.AlignCenter, s)
            p.setFont(font)
        if self.message:
            p.setPen(red)
            p.drawText(self.text_rects()["message"], Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter | Qt.TextFlag.TextSingleLine,
                       self.fontMetrics().elidedText(self.message, Qt.TextElideMode.ElideRight, self.width() - 16))
        p.end()

    @staticmethod
    def _arrow_head(p: QPainter, path: QPainterPath, color: QColor) -> None:
        tip = path.pointAtPercent(1.0)
        before = path.pointAtPercent(0.97)
        angle = math.atan2(tip.y() - before.y(), tip.x() - before.x())
        size = 8.0
        a = QPointF(tip.x() - size * math.cos(angle - 0.4), tip.y() - size * math.sin(angle - 0.4))
        b = QPointF(tip.x() - size * math.cos(angle + 0.4), tip.y() - size * math.sin(angle + 0.4))
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(color)
        p.drawPolygon(QPolygonF([tip, a, b]))
