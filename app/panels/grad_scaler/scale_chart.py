"""The loss scale over iterations (log2 axis), with growth, backoff and skipped steps marked.

x = i is iteration i (the iteration column of the panel's table), drawn at the
scale it ran with. update() ends an iteration: the line changes level at
i + 0.5, where its ▲/▼ sits, so a skipped step (× at x = i) and the backoff
that iteration's update() made (▼ at i + 0.5) are side by side, and the axis
title says where the update marks are.

pyqtgraph draws it (pure Python on PySide6-Essentials; QtCharts would need the
445 MB PySide6-Addons). The y values are log2(scale), labelled 2^k, because a
GradScaler's scale only ever moves by powers of its factors (x2 growth, x0.5
backoff by default): on a log2 axis each move is one even step.
"""

from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, QEvent
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
        self.setLabel("bottom", tr("iteration (▲/▼: its update(), at the iteration's end)"))

    def changeEvent(self, event) -> None:
        """A live language switch: the axis titles again (their tick labels are numbers)."""
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

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

    def marks(self) -> dict[str, list[tuple[float, float]]]:
        """Where each kind of mark is drawn, (x, log2 scale): "skipped" (×),
        "backoff" (▼), "growth" (▲); tests and the drawing use the same places."""
        ran = self._ran_with()
        out: dict[str, list[tuple[float, float]]] = {"skipped": [], "backoff": [], "growth": []}
        for it, scale, kind in self.points:
            if kind in out and scale > 0:
                out[kind].append((it + 0.5, math.log2(scale)))
        for it in self.skipped:
            if it in ran:
                out["skipped"].append((float(it), ran[it]))
        return out

    def _ran_with(self) -> dict[int, float]:
        """{iteration: log2 of the scale it ran with}, for every iteration drawn."""
        level = math.log2(self.initial) if getattr(self, "initial", None) and self.initial > 0 else 0.0
        out, it = {}, 0
        last = max([p[0] for p in self.points] + list(self.skipped) + [0])
        updates = {p[0]: p[1] for p in self.points}
        for it in range(0, last + 2):
            out[it] = level
            if it in updates:
                s = updates[it]
                level = math.log2(s) if s > 0 else float("nan")
        return out

    def _draw(self) -> None:
        self.clear()
        if not self.points and not getattr(self, "initial", None):
            return
        c = self._c
        ran = self._ran_with()
        last = max(ran)
        # the scale holds during an iteration and changes at its update(): steps, not slopes
        sx, sy = [-0.5], [ran[0]]
        for it in range(0, last + 1):
            sx += [it + 0.5, it + 0.5]
            sy += [sy[-1], ran.get(it + 1, sy[-1])]
        self.plot(sx, sy, pen=pg.mkPen(QColor(c["link"]), width=2))
        xs = sorted(ran)[:-1] if len(ran) > 1 else sorted(ran)
        self.plot(xs, [ran[i] for i in xs], pen=None,
                  symbol="o", symbolSize=5, symbolBrush=QColor(c["link"]), symbolPen=None)
        marks = self.marks()
        for kind, symbol, color in (("growth", "t1", c["ok"]), ("backoff", "t", c["error"])):
            pts = marks[kind]
            if pts:
                self.plot([p[0] for p in pts], [p[1] for p in pts], pen=None, symbol=symbol,
                          symbolSize=13, symbolBrush=QColor(color), symbolPen=None)
        sk = marks["skipped"]
        if sk:
            self.plot([p[0] for p in sk], [p[1] for p in sk], pen=None, symbol="x", symbolSize=13,
                      symbolBrush=QColor(c["error"]), symbolPen=pg.mkPen(QColor(c["error"]), width=2))
        self.addItem(self._cursor)
