"""The legend: what each colour, border and badge of the graph means.

Drawn from the same `GraphStyle` as the scene so it can never disagree with it.
It floats in the top-left corner of the graph view and can be hidden.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QWidget

from autogradviz.app.graph.style import GraphStyle, NodeLook


class Legend(QWidget):
    # the graph's colours; the name hides QWidget.style(), which nothing calls on the legend
    style: GraphStyle  # type: ignore[assignment]

    def __init__(self, style: GraphStyle, parent=None):
        super().__init__(parent)
        self.style = style
        self.columns = 2
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents, False)
        self.move(8, 8)
        self.retranslate()

    def entries(self):
        st = self.style
        return [
            ("box", st.leaf, self.tr("leaf tensor (requires grad) → .grad")),
            ("box", st.leaf_special, self.tr("leaf with retain_grad or hooks")),
            ("box", st.op, self.tr("operation (non-leaf, grad_fn)")),
            ("box", st.output, self.tr("output: backward starts here")),
            ("box", st.saved, self.tr("tensor saved for backward")),
            ("badge", st.badge_retain, self.tr("R  retain_grad() was called")),
            ("badge", st.badge_hook, self.tr("H  a hook is registered")),
            ("current", st.current, self.tr("running at this step")),
            ("done", st.done_border, self.tr("already ran (✓)")),
            ("pending", st.op, self.tr("not run yet (faded)")),
            ("grad", st.edge_grad, self.tr("gradient flowed along this edge")),
            ("arrow", st.edge, self.tr("arrows point forward; backward runs against them")),
        ]

    def retranslate(self) -> None:
        self.setToolTip(self.tr("Legend: how the graph is drawn. Arrows point forward (input → "
                                "operation); gradients flow against them during backward."))
        self._entries = self.entries()
        fm = self.fontMetrics()
        self._rows = (len(self._entries) + self.columns - 1) // self.columns
        cols = [self._entries[i * self._rows:(i + 1) * self._rows] for i in range(self.columns)]
        self._colw = [max(fm.horizontalAdvance(t) for _, _, t in col) + 48 for col in cols if col]
        self.setFixedSize(QSize(sum(self._colw) + 4, 8 + 18 * self._rows))
        self.update()

    def set_columns(self, n: int) -> None:
        """One column (tall, for the left side) or two (wide, for the bottom)."""
        if n != self.columns:
            self.columns = n
            self.retranslate()

    def size_for(self, n: int):
        old = self.columns
        self.columns = n
        self.retranslate()
        size = self.size()
        self.columns = old
        self.retranslate()
        return size

    def set_style(self, style: GraphStyle) -> None:
        self.style = style
        self.retranslate()

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def placed_entries(self) -> list[tuple[str, object, str, int, int, int]]:
        """(kind, colour or look, text, x, y, column width) of every entry as
        drawn: the exports (app/export/legend_export.py) draw the same rows."""
        out = []
        for i, (kind, what, text) in enumerate(self._entries):
            col, row = divmod(i, self._rows)
            out.append((kind, what, text, sum(self._colw[:col]), 4 + 18 * row, self._colw[col]))
        return out

    def paintEvent(self, event) -> None:
        p = QPainter(self)
        self.paint_on(p)
        p.end()

    def paint_on(self, p: QPainter) -> None:
        """The legend drawn with `p` at (0, 0): the widget and the exports."""
        st = self.style
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        bg = QColor(st.background)
        bg.setAlpha(225)
        p.setBrush(bg)
        p.setPen(QPen(st.edge, 1))
        p.drawRoundedRect(QRectF(0.5, 0.5, self.width() - 1, self.height() - 1), 5, 5)
        for kind, what, text, x0, y, width in self.placed_entries():
            p.save()
            p.translate(x0, 0)
            self._paint_entry(p, kind, what, text, y, width)
            p.restore()

    def _paint_entry(self, p: QPainter, kind, what, text, y: int, width: int) -> None:
        st = self.style
        sw = QRectF(8, y + 3, 24, 12)
        if True:  # noqa: SIM108 - keeps the drawing cases together
            if kind in ("box", "pending"):
                look: NodeLook = what
                if kind == "pending":
                    p.setOpacity(st.pending_opacity)
                p.setBrush(look.fill)
                p.setPen(QPen(look.border, look.border_width))
                if look.rounded:
                    p.drawRoundedRect(sw, 6, 6)
                else:
                    p.drawRect(sw)
                if look.double:
                    p.setBrush(Qt.BrushStyle.NoBrush)
                    p.drawRect(sw.adjusted(2, 2, -2, -2))
                p.setOpacity(1.0)
            elif kind == "badge":
                p.setPen(Qt.PenStyle.NoPen)
                p.setBrush(what)
                p.drawEllipse(QRectF(14, y + 3, 12, 12))
            elif kind == "current":
                p.setBrush(st.op.fill)
                p.setPen(QPen(what, 3))
                p.drawRect(sw)
            elif kind == "done":
                p.setBrush(st.op.fill)
                p.setPen(QPen(st.op.border, 1))
                p.drawRect(sw)
                p.setPen(QPen(what, 2))
                p.drawLine(11, y + 9, 14, y + 12)
                p.drawLine(14, y + 12, 19, y + 6)
            elif kind == "grad":
                p.setPen(QPen(what, 2))
                p.drawLine(8, y + 9, 32, y + 9)
            elif kind == "arrow":
                p.setPen(QPen(what, 1.4))
                p.drawLine(8, y + 9, 29, y + 9)
                p.setBrush(what)
                from PySide6.QtCore import QPointF
                p.drawPolygon([QPointF(32, y + 9), QPointF(26, y + 6), QPointF(26, y + 12)])
            p.setPen(st.text)
            p.drawText(QRectF(38, y, width - 40, 18), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, text)
