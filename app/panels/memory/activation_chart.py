"""The activation curve: bytes held for backward over forward and backward, with
the re-run bumps, the session's position and (after a comparison) the same
script without checkpoint, dashed, on the same axes (x: curve_data's progress
axis). Clicking the curve asks for the step there (`stepClicked`).
"""

from __future__ import annotations

from typing import Optional

import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, QEvent, Qt, Signal
from PySide6.QtGui import QColor

from autogradviz.app.panels.memory.curve_data import Curve, byte_ticks, human_bytes, stairs
from autogradviz.app.theme import style_plot

LEGEND_ROOM = 1.6  # y headroom over the highest curve for the comparison legend (one row)


def tr(text: str) -> str:
    return QCoreApplication.translate("ActivationChart", text)


class _BytesAxis(pg.AxisItem):
    def tickValues(self, minVal, maxVal, size):
        return [(1.0, byte_ticks(minVal, maxVal))]

    def tickStrings(self, values, scale, spacing):
        return [human_bytes(v) if v >= 0 else "" for v in values]


class _PhaseAxis(pg.AxisItem):
    """0: start, 0 to 1: the forward ops, 1: backward() called, 1 to 2: its steps, 2: its end."""

    def tickValues(self, minVal, maxVal, size):
        return [(1.0, [0.0, 1.0, 2.0]), (0.5, [0.5, 1.5])]

    def tickStrings(self, values, scale, spacing):
        names = {0.0: tr("start"), 0.5: tr("forward ops"), 1.0: tr("backward() called"),
                 1.5: tr("backward steps"), 2.0: tr("end")}
        return [names.get(round(v * 2) / 2, "") for v in values]


def refresh_axes(plot) -> None:
    """Draw a pyqtgraph plot's axes' tick labels anew (an AxisItem keeps its
    picture, and with it the words of the language it was drawn in)."""
    for name in ("left", "bottom"):
        ax = plot.getAxis(name)
        ax.picture = None
        ax.update()


class ActivationChart(pg.PlotWidget):
    stepClicked = Signal(float)  # the x clicked

    def __init__(self, parent=None):
        super().__init__(parent=parent, axisItems={"left": _BytesAxis(orientation="left"),
                                                      "bottom": _PhaseAxis(orientation="bottom")})
        self.setMinimumHeight(160)
        self.setMenuEnabled(False)
        self.setMouseEnabled(x=False, y=False)
        self.hideButtons()
        self.main: Optional[Curve] = None
        self.other: Optional[Curve] = None
        self.cursor = pg.InfiniteLine(angle=90, movable=False)
        self.marker = pg.ScatterPlotItem(size=10)
        self.cursor_x = 0.0
        self.cursor_y: Optional[float] = None
        self.legend = None
        self.scene().sigMouseClicked.connect(self._clicked)
        self.set_theme("light")

    def changeEvent(self, event) -> None:
        """A live language switch: tick labels and the comparison legend's names anew."""
        if event.type() == QEvent.Type.LanguageChange:
            refresh_axes(self)
            self._draw()
            self.set_cursor(self.cursor_x, self.cursor_y)
        super().changeEvent(event)

    def set_theme(self, name: str) -> None:
        self._c = style_plot(self, self.cursor, name)
        self._draw()

    def set_curves(self, main: Optional[Curve], other: Optional[Curve] = None) -> None:
        self.main, self.other = main, other
        self._draw()

    def set_cursor(self, x: float, y: Optional[float]) -> None:
        self.cursor_x, self.cursor_y = x, y
        self.cursor.setValue(x)
        self.marker.setData([x] if y is not None else [], [y] if y is not None else [])

    def _draw(self) -> None:
        self.clear()
        if self.legend is not None:
            self.legend.scene().removeItem(self.legend) if self.legend.scene() else None
            self.legend = None
        if self.main is None:
            return
        c = self._c
        if self.other is not None:
            # an opaque box over headroom (LEGEND_ROOM): the curves never run through its text
            back = QColor(c["base"])
            back.setAlpha(225)
            self.legend = self.addLegend(offset=(-10, 4), colCount=3, labelTextColor=QColor(c["text"]), brush=back,
                                         pen=pg.mkPen(QColor(c["border"])))
        fill = QColor(c["link"])
        fill.setAlpha(50)
        sx, sy = stairs(self.main.xs, self.main.ys)
        self.plot(sx, sy, pen=pg.mkPen(QColor(c["link"]), width=2), fillLevel=0, brush=fill,
                  name=tr("with checkpoint") if self.other is not None else None)
        if self.other is not None:
            ox, oy = stairs(self.other.xs, self.other.ys)
            self.plot(ox, oy, pen=pg.mkPen(QColor(c["stderr"]), width=2, style=Qt.PenStyle.DashLine),
                      name=tr("without checkpoint"))
        if self.main.recomputes:
            self.plot([r[0] for r in self.main.recomputes], [r[1] for r in self.main.recomputes], pen=None,
                      symbol="t1", symbolSize=12, symbolBrush=QColor(c["error"]), symbolPen=None,
                      name=tr("re-run peak") if self.other is not None else None)
        top = max(self.main.ys + (self.other.ys if self.other is not None else []) + [1.0])
        self.setXRange(0, 2, padding=0.02)
        self.setYRange(0, top * (LEGEND_ROOM if self.legend is not None else 1.1), padding=0)
        self.addItem(self.cursor)
        self.marker.setBrush(QColor(c["highlight"]))
        self.marker.setPen(None)
        self.addItem(self.marker)

    def _clicked(self, event) -> None:
        if self.main is None or event.button() != Qt.MouseButton.LeftButton:
            return
        vb = self.getPlotItem().getViewBox()
        if not vb.sceneBoundingRect().contains(event.scenePos()):
            return
        self.stepClicked.emit(vb.mapSceneToView(event.scenePos()).x())
