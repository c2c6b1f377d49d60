"""The four parts of training memory as stacked bars: end of forward, after
backward, after the optimizer step (a MemoryRun's MemoryParts, drawn as recorded)."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, QEvent
from PySide6.QtGui import QColor

from autogradviz.app.panels.memory.activation_chart import refresh_axes
from autogradviz.app.panels.memory.curve_data import byte_ticks, human_bytes
from autogradviz.app.theme import colors


def tr(text: str) -> str:
    return QCoreApplication.translate("PartsChart", text)


# (MemoryParts field, colour per theme)
PARTS = (("parameters", ("#4c78a8", "#6f9fd8")), ("gradients", ("#f58518", "#f7a54a")),
         ("optimizer_states", ("#54a24b", "#7cc873")), ("activations", ("#b279a2", "#d39bc4")))
MOMENTS = ("end_of_forward", "after_backward", "after_step")


def part_name(field: str) -> str:
    return {"parameters": tr("parameters"), "gradients": tr("gradients"),
            "optimizer_states": tr("optimizer states"), "activations": tr("activations")}[field]


def moment_name(field: str) -> str:
    return {"end_of_forward": tr("end of forward"), "after_backward": tr("after backward"),
            "after_step": tr("after step")}[field]


def missing_text(moment: str) -> str:
    """What an empty place in the chart means."""
    return tr("no optimizer step") if moment == "after_step" else tr("not measured")


class _MomentAxis(pg.AxisItem):
    def tickValues(self, minVal, maxVal, size):
        return [(1, [0, 1, 2])]

    def tickStrings(self, values, scale, spacing):
        return [moment_name(MOMENTS[int(v)]) if 0 <= int(v) < 3 else "" for v in values]


class _BytesAxis(pg.AxisItem):
    def tickValues(self, minVal, maxVal, size):
        return [(1.0, byte_ticks(minVal, maxVal))]

    def tickStrings(self, values, scale, spacing):
        return [human_bytes(v) if v >= 0 else "" for v in values]


class PartsChart(pg.PlotWidget):
    def __init__(self, parent=None):
        super().__init__(parent=parent, axisItems={"left": _BytesAxis(orientation="left"),
                                                      "bottom": _MomentAxis(orientation="bottom")})
        self.setMinimumHeight(160)
        self.setMenuEnabled(False)
        self.setMouseEnabled(x=False, y=False)
        self.hideButtons()
        self.run = None
        self.bars: list = []
        self.notes: list = []  # (moment, TextItem) where nothing was measured
        self.set_theme("light")

    def changeEvent(self, event) -> None:
        """A live language switch: the moments' names and the notes anew."""
        if event.type() == QEvent.Type.LanguageChange:
            refresh_axes(self)
            self._draw()
        super().changeEvent(event)

    def set_theme(self, name: str) -> None:
        c = colors(name)
        self._c = c
        self._dark = name == "dark"
        self.setBackground(QColor(c["base"]))
        for axis in ("left", "bottom"):
            ax = self.getAxis(axis)
            ax.setPen(QColor(c["muted"]))
            ax.setTextPen(QColor(c["text"]))
        self._draw()

    def set_run(self, run) -> None:
        """`run`: a MemoryRun (or None)."""
        self.run = run
        self._draw()

    def color(self, field: str) -> str:
        light, dark = dict(PARTS)[field]
        return dark if self._dark else light

    def values(self) -> dict[str, dict[str, int]]:
        """{moment: {part: bytes}} as drawn (missing moments left out)."""
        out = {}
        for m in MOMENTS:
            parts = getattr(self.run, m, None) if self.run is not None else None
            if parts is not None:
                out[m] = {f: getattr(parts, f) for f, _ in PARTS}
        return out

    def _draw(self) -> None:
        self.clear()
        self.bars = []
        self.notes = []
        vals = self.values()
        if not vals:
            return
        xs = [MOMENTS.index(m) for m in vals]
        bottom = [0.0] * len(xs)
        for field, (light, dark) in PARTS:
            heights = [float(vals[m][field]) for m in vals]
            color = QColor(dark if self._dark else light)
            bar = pg.BarGraphItem(x=xs, height=heights, y0=list(bottom), width=0.55, brush=color,
                                  pen=pg.mkPen(QColor(self._c["base"]), width=1), name=part_name(field))
            self.addItem(bar)
            self.bars.append((field, bar))
            bottom = [b + h for b, h in zip(bottom, heights)]
        top = max(bottom + [1.0])
        for m in MOMENTS:  # a moment that did not happen says so instead of an empty place
            if m not in vals:
                note = pg.TextItem(missing_text(m), color=QColor(self._c["muted"]), anchor=(0.5, 1.0))
                note.setPos(MOMENTS.index(m), top * 0.08)
                self.addItem(note)
                self.notes.append((m, note))
        self.setXRange(-0.6, 2.6, padding=0)
        self.setYRange(0, top * 1.15, padding=0)
