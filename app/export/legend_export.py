"""The legend in an export, as the screen shows it.

On the screen the legend (app/graph/legend.py) is an overlay widget of the
view, not a scene item, so a picture drawn from the scene alone would lack
it. While an export is written, `legend_shown` puts a `LegendItem` into the
scene - painted by the legend widget's own `paint_on`, so its swatches and
words are the screen's - above the picture's top-left corner (or, for the
visible area, inside its top-left corner, where the screen has it). The
scene's bounds then include it (PNG, PDF, every GIF frame, the handout), and
scene_svg.py writes it as a `g.legend` with one `g.legend-entry` per row,
real text, escaped, from `Legend.placed_entries` (the same rows). It is taken
off the scene afterwards, whatever happened.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator, Optional

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QColor, QFontInfo, QPainter
from PySide6.QtWidgets import QGraphicsItem

from autogradviz.engine.layout.escape import xml_text as _x
from autogradviz.engine.layout.svg_export import _n

GAP = 10.0  # between the legend and the graph below it
INSET = 8.0  # the screen's offset of the legend from the view's corner


class LegendItem(QGraphicsItem):
    """The legend widget's drawing as a scene item (only while exporting)."""

    def __init__(self, legend):
        super().__init__()
        self.legend = legend
        self.setZValue(50)  # over everything, as the overlay is on the screen

    def boundingRect(self) -> QRectF:
        return QRectF(0, 0, self.legend.width(), self.legend.height())

    def paint(self, painter: QPainter, option, widget=None) -> None:
        painter.save()
        painter.setFont(self.legend.font())
        self.legend.paint_on(painter)
        painter.restore()


def make_legend(style, columns: int = 2):
    """A legend for an export without a window (the CLI): the screen's widget,
    not shown, in the current UI language."""
    from autogradviz.app.graph.legend import Legend

    legend = Legend(style)
    legend.set_columns(columns)
    return legend


def screen_place(graph_view) -> Optional[tuple[QPointF, float]]:
    """Where the view shows its legend, in scene coordinates, and the view's
    zoom: a visible-area export draws the legend there, at the screen's size."""
    legend = getattr(graph_view, "legend", None)
    if legend is None or not legend.isVisible():
        return None
    view = graph_view.view
    at = view.viewport().mapFrom(view, legend.pos())
    return view.mapToScene(at), max(view.transform().m11(), 1e-6)


@contextmanager
def legend_shown(scene, legend, rect: Optional[QRectF] = None, inside: bool = False,
                 place: Optional[tuple[QPointF, float]] = None) -> Iterator[Optional[LegendItem]]:
    """The legend on `scene` for the duration of an export (`legend` None: no legend).
    Placed above `rect` (default: the scene's content), or, when `inside`
    (the visible-area export), where the screen shows it (`place`: scene
    point and zoom, screen_place) or else in the rectangle's top-left corner."""
    if legend is None:
        yield None
        return
    from autogradviz.app.export.render import MARGIN, content_rect

    if legend.style is not getattr(scene, "style", legend.style):
        legend.set_style(scene.style)  # (the scene's theme)
    r = rect if rect is not None else content_rect(scene)
    item = LegendItem(legend)
    if inside and place is not None:
        item.setPos(place[0])
        item.setScale(1.0 / place[1])  # the screen's size at the view's zoom
    elif inside:
        item.setPos(r.left() + INSET, r.top() + INSET)
    else:
        item.setPos(r.left() + MARGIN, r.top() + MARGIN - GAP - legend.height())
    scene.addItem(item)
    scene.export_legend = item
    try:
        yield item
    finally:
        scene.export_legend = None
        if item.scene() is not None:
            item.scene().removeItem(item)


def _c(colour) -> str:
    c = QColor(colour)
    return c.name() if c.alpha() == 255 else f"rgba({c.red()},{c.green()},{c.blue()},{c.alphaF():.2f})"


def _swatch(kind: str, what, st, y: float) -> str:
    """The entry's swatch: the same shapes as Legend._paint_entry."""
    if kind in ("box", "pending"):
        look = what
        rx = ' rx="6"' if look.rounded else ""
        op = f' opacity="{_n(st.pending_opacity)}"' if kind == "pending" else ""
        out = (f'<rect x="8" y="{_n(y + 3)}" width="24" height="12"{rx} fill="{_c(look.fill)}" '
               f'stroke="{_c(look.border)}" stroke-width="{_n(look.border_width)}"{op}/>')
        if look.double:
            out += (f'<rect x="10" y="{_n(y + 5)}" width="20" height="8" fill="none" '
                    f'stroke="{_c(look.border)}" stroke-width="{_n(look.border_width)}"{op}/>')
        return out
    if kind == "badge":
        return f'<circle cx="20" cy="{_n(y + 9)}" r="6" fill="{_c(what)}"/>'
    if kind == "current":
        return (f'<rect x="8" y="{_n(y + 3)}" width="24" height="12" fill="{_c(st.op.fill)}" '
                f'stroke="{_c(what)}" stroke-width="3"/>')
    if kind == "done":
        return (f'<rect x="8" y="{_n(y + 3)}" width="24" height="12" fill="{_c(st.op.fill)}" '
                f'stroke="{_c(st.op.border)}" stroke-width="1"/>'
                f'<polyline points="11,{_n(y + 9)} 14,{_n(y + 12)} 19,{_n(y + 6)}" fill="none" '
                f'stroke="{_c(what)}" stroke-width="2"/>')
    if kind == "grad":
        return f'<line x1="8" y1="{_n(y + 9)}" x2="32" y2="{_n(y + 9)}" stroke="{_c(what)}" stroke-width="2"/>'
    if kind == "arrow":
        return (f'<line x1="8" y1="{_n(y + 9)}" x2="29" y2="{_n(y + 9)}" stroke="{_c(what)}" '
                f'stroke-width="1.4"/><polygon points="32,{_n(y + 9)} 26,{_n(y + 6)} 26,{_n(y + 12)}" '
                f'fill="{_c(what)}"/>')
    return ""


def legend_svg(item: LegendItem) -> str:
    """The legend as one `g.legend`: a titled group per entry (its kind a
    class), the swatch and the entry's words as real text."""
    legend = item.legend
    st = legend.style
    p = item.scenePos()
    w, h = legend.width(), legend.height()
    size = QFontInfo(legend.font()).pixelSize()
    bg = QColor(st.background)
    bg.setAlpha(225)
    zoom = f" scale({item.scale():.4g})" if abs(item.scale() - 1.0) > 1e-6 else ""
    parts = [f'<g class="legend" transform="translate({_n(p.x())},{_n(p.y())}){zoom}">',
             f"<title>{_x(legend.toolTip())}</title>",
             f"<style>.legend text{{font-size:{size}px;text-anchor:start;font-weight:normal;"
             f"fill:{_c(st.text)};dominant-baseline:central}}</style>",
             f'<rect class="legend-box" x="0.5" y="0.5" width="{_n(w - 1)}" height="{_n(h - 1)}" rx="5" '
             f'fill="{_c(bg)}" stroke="{_c(st.edge)}"/>']
    for kind, what, text, x0, y, _width in legend.placed_entries():
        parts.append(f'<g class="legend-entry {kind}" transform="translate({_n(x0)},0)">'
                     f"<title>{_x(text)}</title>{_swatch(kind, what, st, y)}"
                     f'<text x="38" y="{_n(y + 9)}" xml:space="preserve">{_x(text)}</text></g>')
    parts.append("</g>")
    return "".join(parts)
