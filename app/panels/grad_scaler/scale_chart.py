"""The loss scale over iterations (log2 axis), with growth, backoff and skipped steps marked.

pyqtgraph draws it (pure Python on PySide6-Essentials; QtCharts would need the
445 MB PySide6-Addons). The y values are log2(scale), labelled 2^k, because a
GradScaler's scale only ever moves by powers of its factors (x2 growth, x0.5
backoff by default): on a log2 axis each move is one even step.
"""

from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QColor

from autogradviz.app.theme import style_plot


def tr(text: str) -> str:
    return QCoreApplication.translate("ScaleChart", text)


class _Log2Axis(pg.AxisItem):
    """Ticks at whole powers of two, written 2^k (and the plain number when small)."""

    def tickStrings(self, values, scale, spacing):
        out = []
        for v in values:
            k = round(v)
            out.append(f"2^{k}" if abs(v - k) < 1e-6 else "")
        return out

    def tickValues(self, minVal, maxVal, size):
        lo, hi = math.floor(minVal), math.ceil(maxVal)
        step = max(1, (hi - lo) // 6)
        return [(step, list(range(lo, hi + 1, step)))]


class _IterationAxis(pg.AxisItem):
    """Whole iterations only: there is no iteration 0.5."""

    def tickValues(self, minVal, maxVal, size):
        lo, hi = math.ceil(minVal), math.floor(maxVal)
        if hi < lo:
            return []
        step = max(1, math.ceil((hi - lo + 1) / 10))
        return [(step, list(range(lo, hi + 1, step)))]

    def tickStrings(self, values, scale, spacing):
        return [str(int(round(v))) for v in values]


class ScaleChart(pg.PlotWidget):
    """scale_series -> a step line; markers for growth (▲), backoff (▼), skipped steps (×)."""

    def __init__(self, parent=None):
        super().__init__(parent=parent, axisItems={"left": _Log2Axis(orientation="left"),
                                                      "bottom": _IterationAxis(orientation="bottom")})
        self.setMinimumHeight(150)
        self.setMenuEnabled(False)
        self.setMouseEnabled(x=False, y=False)
        self.hideButtons()
        self.points: list[tuple[int, float, str]] = []
        self.skipped: list[int] = []
        self._cursor = pg.InfiniteLine(angle=90, movable=False)
        self.set_theme("light")
        self.retranslate()

    def retranslate(self) -> None:
        self.setLabel("left", tr("loss scale"))
        self.setLabel("bottom", tr("iteration (update() calls)"))

    def set_theme(self, name: str) -> None:
        self._c = style_plot(self, self._cursor, name)
        self._draw()

    def set_data(self, initial: float, points: list[tuple[int, float, str]], skipped: list[int]) -> None:
        """`initial`: the scale before the first update; `points` from
        engine.trace.scaler_replay.scale_series; `skipped`: iterations with a skipped step."""
        self.initial = initial
        self.points = points
        self.skipped = skipped
        self._draw()

    def set_cursor(self, iteration: float) -> None:
        self._cursor.setValue(iteration)

    def _draw(self) -> None:
        self.clear()
        if not self.points and not getattr(self, "initial", None):
            return
        c = self._c
        xs = [0]
        ys = [math.log2(self.initial)] if self.initial and self.initial > 0 else [0.0]
        for it, scale, _ in self.points:
            xs.append(it + 1)
            ys.append(math.log2(scale) if scale > 0 else float("nan"))
        # the scale holds between updates: draw steps, not slopes
        sx, sy = [xs[0]], [ys[0]]
        for x, y in zip(xs[1:], ys[1:]):
            sx += [x, x]
            sy += [sy[-1], y]
        self.plot(sx, sy, pen=pg.mkPen(QColor(c["link"]), width=2))
        self.plot(xs, ys, pen=None,
                  symbol="o", symbolSize=5, symbolBrush=QColor(c["link"]), symbolPen=None)
        for kind, symbol, color in (("growth", "t1", c["ok"]), ("backoff", "t", c["error"])):
            pts = [(it + 1, math.log2(s)) for it, s, k in self.points if k == kind and s > 0]
            if pts:
                self.plot([p[0] for p in pts], [p[1] for p in pts], pen=None, symbol=symbol,
                          symbolSize=13, symbolBrush=QColor(color), symbolPen=None)
        # x = i is the scale iteration i ran with (x = 0: the initial scale)
        sk = [(it, ys[it]) for it in self.skipped if 0 <= it < len(ys)]
        if sk:
            self.plot([p[0] for p in sk], [p[1] for p in sk], pen=None, symbol="x", symbolSize=13,
                      symbolBrush=QColor(c["error"]), symbolPen=pg.mkPen(QColor(c["error"]), width=2))
        self.addItem(self._cursor)
