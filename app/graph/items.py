"""The QGraphicsItems a graph is drawn with: boxes, edges, labels, callouts.

Items are dumb: they hold a few state flags and paint themselves from the
current `GraphStyle`. The scene decides the flags (from the replay state, hover
and search) and only touches items whose flags change, so a step update on a
big graph stays cheap.
"""

from __future__ import annotations

import math
from typing import Any, Optional

import msgspec
from PySide6.QtCore import QCoreApplication, QPointF, QRectF, Qt
from PySide6.QtGui import (
    QBrush, QColor, QFontMetricsF, QPainter, QPainterPath, QPen, QPolygonF,
)
from PySide6.QtWidgets import QGraphicsItem, QGraphicsRectItem, QStyleOptionGraphicsItem

from autogradviz.engine.trace.model import TensorSummary
from autogradviz.engine.trace.tensor_text import inline_text, shape_text
from autogradviz.engine.trace.tensor_text import number_text as _num

from autogradviz.app.graph.group_text import display_lines, folded_tip
from autogradviz.engine.layout.repeats import is_virtual
from autogradviz.app.graph.style import GraphStyle, NodeLook
from autogradviz.app.services.text_safety import plain_tip
from autogradviz.app.services.layout_runner import OverviewData


def tr(text: str) -> str:
    return QCoreApplication.translate("GraphItems", text)


# Below this zoom (scene units per pixel) box texts are not drawn: at 10-unit
# text they would be under 4 px high, unreadable, and text is the costly part.
LOD_TEXT = 0.4


# -- formatting tensor summaries for small labels --------------------------------------
def summary_text(s: Optional[TensorSummary], max_values: int = 6) -> str:
    """Small tensors: their values; larger ones: shape and norm."""
    if s is None:
        return tr("None")
    n = s.numel or (math.prod(s.shape) if s.shape else 1)
    if not s.truncated and s.values and n <= max_values:
        if not s.shape:
            return _num(s.values[0])
        if len(s.shape) > 1:  # nested like the tensor, not a flattened list
            return inline_text(s, max_values, tr)
        return "[" + ", ".join(_num(v) for v in s.values) + "]"
    parts = [shape_text(s)]
    if s.norm is not None:
        parts.append(tr("norm {0}").format(_num(s.norm)))
    return " ".join(parts)


def unscaled_summary(s: TensorSummary, scale: float) -> TensorSummary:
    """A GradScaler-scaled gradient's summary divided by `scale`: what unscale_
    makes of it (statistics scale with it; min/max swap for a negative scale)."""
    div = (lambda v: v / scale if isinstance(v, (int, float)) and not isinstance(v, bool) else v)
    lo, hi = div(s.min), div(s.max)
    if scale < 0:
        lo, hi = hi, lo
    return msgspec.structs.replace(s, values=[div(v) for v in s.values], min=lo, max=hi, mean=div(s.mean),
                                   norm=None if s.norm is None else s.norm / abs(scale))


def _set_changed(item, flags: dict) -> bool:
    """Set the item's flag attributes; True when any of them changed (so the
    caller repaints only then: stepping touches thousands of items)."""
    changed = False
    for k, v in flags.items():
        if getattr(item, k) != v:
            setattr(item, k, v)
            changed = True
    return changed


# -- node boxes ----------------------------------------------------------------------------
class NodeItem(QGraphicsRectItem):
    """One LayoutBox: a trace node (or a per-use copy of a leaf, or a group).

    Built by the ten thousand for big graphs, so the constructor makes as few
    PySide calls as it can: no z-value (the scene's node layer stacks them),
    no cursor and no tooltip text until the first hover.

    A QGraphicsRectItem (its rect = the area painted: box, glow, badges) only
    so that `boundingRect` is answered in C++: Qt asks every item under a
    layer for it on each paint and mouse move, and 30,000 calls into Python
    made both take 20-30 ms on a big graph."""

    owner: Any  # set by the scene on a box that stands in for others

    def __init__(self, box, look: NodeLook, style: GraphStyle, *, retain: bool = False,
                 hooks: bool = False, tooltip=""):
        super().__init__(-14, -10, box.w + 24, box.h + 16)
        self.box = box
        self.key = box.key
        self.node_id = box.node if box.node is not None else box.copy_of
        self.look = look
        self.style = style
        self.retain = retain
        self.hooks = hooks
        self.status: Optional[str] = None  # None | done | current | pending
        self.hovered = False
        self.lit = False  # neighbour / copy highlight while something is hovered
        self.selected_flag = False
        self.search_hit = False
        self.line_hit = False  # made by the editor's cursor line (panels/code_link)
        self._rect = QRectF(0, 0, box.w, box.h)
        self.setPos(box.x, box.y)
        self.setAcceptHoverEvents(True)
        # text, or a function making it on first hover (10,000 boxes build faster)
        self._tip = tooltip
        if isinstance(tooltip, str) and tooltip:
            self.setToolTip(tooltip)
        self._cursor_set = False

    def set_flags(self, **kw) -> None:
        if _set_changed(self, kw):
            # faded while pending, but never while it is hovered or lit up
            faded = self.status == "pending" and not (self.lit or self.hovered or self.search_hit
                                                      or self.line_hit)
            self.setOpacity(self.style.pending_opacity if faded else 1.0)
            self.update()

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget=None) -> None:
        st, look, r = self.style, self.look, self._rect
        lod = QStyleOptionGraphicsItem.levelOfDetailFromTransform(painter.worldTransform())
        if lod < LOD_TEXT:
            self._paint_small(painter)
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        border = QColor(look.border)
        width = look.border_width
        if self.status == "current":
            glow = QColor(st.current)
            glow.setAlpha(70)
            painter.setPen(QPen(glow, 9))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            self._draw_shape(painter, r)
            border, width = st.current, 3.2
        elif self.hovered or self.lit:
            border, width = st.edge_hover, max(width, 2.4)
        if self.selected_flag:
            painter.setPen(QPen(st.selected, 2, Qt.PenStyle.DashLine))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            self._draw_shape(painter, r.adjusted(-4, -4, 4, 4))
        if self.line_hit and st.line_hit is not None:
            painter.setPen(QPen(st.line_hit, 3))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            self._draw_shape(painter, r.adjusted(-6, -6, 6, 6))
        fill = QColor(look.fill)
        if self.search_hit:
            fill = QColor(st.search_hit)
        painter.setBrush(QBrush(fill))
        painter.setPen(QPen(border, width))
        self._draw_shape(painter, r)
        if look.double:
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.setPen(QPen(border, 1.0))
            self._draw_shape(painter, r.adjusted(3, 3, -3, -3))
        # text lines
        painter.setPen(look.text)
        lines = display_lines(self.box.kind, self.box.lines or [])
        if lines:
            fb = st.font(bold=True)
            fn = st.font()
            fm = QFontMetricsF(fn)
            lh = fm.height()
            top = r.top() + (r.height() - lh * len(lines)) / 2
            for i, line in enumerate(lines):
                painter.setFont(fb if i == 0 else fn)
                painter.drawText(QRectF(r.left() + 2, top + i * lh, r.width() - 4, lh),
                                 Qt.AlignmentFlag.AlignCenter, line)
        # badges (top-right): R = retain_grad, H = hook
        bx = r.right() - 2
        for flag, text, colour in ((self.hooks, "H", st.badge_hook), (self.retain, "R", st.badge_retain)):
            if flag:
                br = QRectF(bx - 14, r.top() - 8, 16, 16)
                painter.setPen(Qt.PenStyle.NoPen)
                painter.setBrush(colour)
                painter.drawEllipse(br)
                painter.setPen(st.badge_text)
                painter.setFont(st.small_font(bold=True))
                painter.drawText(br, Qt.AlignmentFlag.AlignCenter, text)
                bx -= 18
        if self.status == "done":
            # a tick just outside the top-left corner (never over the text)
            painter.setPen(QPen(st.done_border, 2))
            x0, y0 = r.left() - 11, r.top() + 5
            painter.drawPolyline(QPolygonF([QPointF(x0, y0), QPointF(x0 + 3, y0 + 3), QPointF(x0 + 8, y0 - 3)]))

    def _paint_small(self, painter: QPainter) -> None:
        """Zoomed out: text would be a grey smear, so only the box in its
        colours (current/hovered borders kept); much cheaper to paint."""
        st, look = self.style, self.look
        if self.status == "current":
            border, width = st.current, 4.0
        elif self.hovered or self.lit:
            border, width = st.edge_hover, 3.0
        elif self.line_hit and st.line_hit is not None:
            border, width = st.line_hit, 4.0
        else:
            border, width = look.border, look.border_width
        fill = st.search_hit if self.search_hit else look.fill
        painter.setBrush(fill)
        painter.setPen(QPen(border, width))
        painter.drawRect(self._rect)
        if self.hooks or self.retain:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(st.badge_hook if self.hooks else st.badge_retain)
            painter.drawRect(QRectF(self._rect.right() - 12, self._rect.top() - 6, 12, 12))

    def _draw_shape(self, painter: QPainter, r: QRectF) -> None:
        if self.look.rounded:
            rad = min(r.height() / 2, 12)
            painter.drawRoundedRect(r, rad, rad)
        else:
            painter.drawRect(r)

    # hover: the scene lights up inputs, outputs and copies
    def hoverEnterEvent(self, event) -> None:
        if not self._cursor_set:  # the view shows it from this move on
            self._cursor_set = True
            self.setCursor(Qt.CursorShape.PointingHandCursor)
        if callable(self._tip):
            self.setToolTip(self._tip())
            self._tip = None
        sc = self.scene()
        if sc is not None and hasattr(sc, "node_hovered"):
            sc.node_hovered(self, True)
        super().hoverEnterEvent(event)

    def hoverLeaveEvent(self, event) -> None:
        sc = self.scene()
        if sc is not None and hasattr(sc, "node_hovered"):
            sc.node_hovered(self, False)
        super().hoverLeaveEvent(event)

    def mousePressEvent(self, event) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            return super().mousePressEvent(event)
        sc = self.scene()
        if sc is not None and hasattr(sc, "item_clicked"):
            sc.item_clicked(self)
        event.accept()

    def contextMenuEvent(self, event) -> None:
        sc = self.scene()
        grp = sc.layout_group(self.key) if self.box.kind == "group" and hasattr(sc, "layout_group") else None
        if grp is None:
            return super().contextMenuEvent(event)
        _group_menu(sc, grp, event)


class GroupFrameItem(QGraphicsItem):
    """The frame of an expanded module group; clicking its title collapses it."""

    # the layout's group; the name hides QGraphicsItem.group(), which nothing calls here
    group: Any  # type: ignore[assignment]

    def __init__(self, group, style: GraphStyle):
        super().__init__()
        self.group = group
        self.style = style
        self._rect = QRectF(0, 0, group.w, group.h)
        self.setPos(group.x, group.y)
        self.setZValue(0)
        title = group.module + (f" ({group.module_class})" if group.module_class else "")
        self.title = title + (f" ×{group.repeat}" if group.repeat > 1 else "")
        self.running = self.running_short = ""  # which copy runs now (fold_items.show_running_copy)
        # N identical modules drawn as the first (repeats.py): a title click unfolds them
        self.folded = group.repeat > 1 and is_virtual(group.module)
        self.setToolTip(plain_tip(folded_tip(self.title) if self.folded else
                                  tr("Module {0}. Click the title to collapse it into one box.").format(title)))

    def boundingRect(self) -> QRectF:
        return self._rect.adjusted(-2, -2, 2, 2)

    def title_rect(self) -> QRectF:
        return QRectF(0, 0, self._rect.width(), 16)

    def paint(self, painter: QPainter, option, widget=None) -> None:
        st = self.style
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        fill = QColor(st.group_fill)
        fill.setAlpha(140)
        # The fill as a plain rectangle (no antialiasing) just inside the
        # rounded outline (1.5 px in: its corners stay inside the 6 px arcs),
        # then the outline alone. A step repaints every frame in view, under
        # a clip with holes for the minimap and legend; one antialiased
        # rounded rectangle with both the fill and a dashed pen cost ~0.75 ms
        # a frame there (bench_deep_network's folded encoder: 4 frames).
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(fill)
        painter.drawRect(self._rect.adjusted(1.5, 1.5, -1.5, -1.5))
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(QPen(st.group_border, 1.0, Qt.PenStyle.DashLine))
        painter.drawRoundedRect(self._rect, 6, 6)
        painter.setPen(st.group_text)
        painter.setFont(st.small_font(bold=True))
        painter.drawText(self.title_rect().adjusted(6, 1, -4, 0), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                         self.shown_title())

    def shown_title(self) -> str:
        """The title as drawn: never cut at the end; a title longer than the
        frame loses its middle ("enc.layers.6 (Tr…Layer)"), whole in the tooltip."""
        fm = QFontMetricsF(self.style.small_font(bold=True))
        width = self.title_rect().adjusted(6, 1, -4, 0).width()
        run = ""  # which copy runs: "copy 7 of 12: enc.layers.6", or "copy 7 of 12" where narrow
        for text in (self.running, self.running_short) if self.running else ():
            run = f"  \u25b6 {text}"
            if fm.horizontalAdvance(run) <= width * 0.6:
                break
        if run:
            run = fm.elidedText(run, Qt.TextElideMode.ElideMiddle, width * 0.75)
        head = ("▸ " if self.folded else "▾ ") + self.title
        return fm.elidedText(head, Qt.TextElideMode.ElideMiddle, max(width - fm.horizontalAdvance(run), 0.0)) + run

    def contextMenuEvent(self, event) -> None:
        sc = self.scene()
        if sc is not None and hasattr(sc, "group_actions"):
            _group_menu(sc, self.group, event)
        else:
            event.ignore()

    def mousePressEvent(self, event) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self.title_rect().contains(event.pos()):
            sc = self.scene()
            if sc is not None and hasattr(sc, "group_clicked"):
                sc.group_clicked(self.group.module, not self.folded)  # folded: unfold
            event.accept()
        else:
            event.ignore()


def _group_menu(scene, group, event) -> None:
    """The context menu of a module group (box or frame)."""
    from PySide6.QtWidgets import QMenu

    from autogradviz.app.graph.fold_items import fold_actions

    menu = QMenu()
    for text, fn in scene.group_actions(group) + fold_actions(scene, group):
        menu.addAction(text).triggered.connect(fn)
    event.accept()
    menu.exec(event.screenPos())


# -- edges ------------------------------------------------------------------------------
class EdgeItem(QGraphicsRectItem):
    """A layout edge in forward direction (arrowhead at the consumer).

    The QPainterPath and the arrowhead are made on first use (paint, hit
    test, label placement): a big graph builds 15,000 of these, and most are
    never looked at closely. A QGraphicsRectItem over the edge's extent so
    that `boundingRect` stays in C++ (see NodeItem)."""

    pos_index: Any  # set by the scene: the trace edge's position
    is_saved_edge: bool  # set by the scene on a saved tensor's edge

    def __init__(self, ledge, style: GraphStyle, rect: Optional[tuple] = None):
        super().__init__(*(rect if rect is not None else edge_rect(ledge.points)))
        self.ledge = ledge
        self.style = style
        self.has_grad = False
        self.current = False
        self.lit = False
        self._path: Optional[QPainterPath] = None
        self._arrow: Optional[QPolygonF] = None  # made with the path
        self._pen = QPen(style.edge, 1.2)

    def path(self) -> QPainterPath:
        if self._path is None:
            pts = [QPointF(float(x), float(y)) for x, y in self.ledge.points]
            path = QPainterPath()
            if pts:
                path.moveTo(pts[0])
                if self.ledge.spline and len(pts) >= 4:
                    i = 1
                    while i + 2 < len(pts):
                        path.cubicTo(pts[i], pts[i + 1], pts[i + 2])
                        i += 3
                else:
                    for p in pts[1:]:
                        path.lineTo(p)
            self._path = path
            self._arrow = self._arrow_polygon(pts[-2:])
        return self._path

    @staticmethod
    def _arrow_polygon(pts: list[QPointF]) -> QPolygonF:
        if len(pts) < 2:
            return QPolygonF()
        tip = pts[-1]
        prev = pts[-2]
        dx, dy = tip.x() - prev.x(), tip.y() - prev.y()
        length = math.hypot(dx, dy) or 1.0
        ux, uy = dx / length, dy / length
        size = 8.0
        base = QPointF(tip.x() - ux * size, tip.y() - uy * size)
        nx, ny = -uy * size * 0.45, ux * size * 0.45
        return QPolygonF([tip, QPointF(base.x() + nx, base.y() + ny), QPointF(base.x() - nx, base.y() - ny)])

    def set_flags(self, **kw) -> None:
        if _set_changed(self, kw):
            self._apply_pen()

    def _apply_pen(self) -> None:
        st = self.style
        if self.lit:
            pen = QPen(st.edge_hover, 2.4)
        elif self.current:
            pen = QPen(st.current, 2.8)
        elif self.has_grad:
            pen = QPen(st.edge_grad, 1.8)
        else:
            pen = QPen(st.edge, 1.2)
        self._pen = pen
        self.update()

    def pen(self) -> QPen:
        return self._pen

    def shape(self) -> QPainterPath:
        return self.path()

    def paint(self, painter: QPainter, option, widget=None) -> None:
        path = self.path()
        pen = self._pen
        lod = QStyleOptionGraphicsItem.levelOfDetailFromTransform(painter.worldTransform())
        if lod < LOD_TEXT and not (self.current or self.lit):
            # zoomed out: a plain line, no antialiasing, no arrowhead
            painter.setPen(QPen(pen.color(), 0))
            painter.drawPath(path)
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawPath(path)
        painter.setBrush(pen.color())
        painter.setPen(QPen(pen.color(), 1))
        if self._arrow is not None:  # (made by self.path() above)
            painter.drawPolygon(self._arrow)


def edge_rect(points) -> tuple:
    """Bounding box of an edge's points (control points included), with room
    for the pen and the arrowhead, as (x, y, w, h)."""
    if not points:
        return (0.0, 0.0, 0.0, 0.0)
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    x0, y0 = min(xs) - 10, min(ys) - 10
    return (x0, y0, max(xs) + 10 - x0, max(ys) + 10 - y0)


# -- labels and callouts ---------------------------------------------------------------------
class LabelItem(QGraphicsItem):
    """A small rounded text label (gradient on an edge, or a callout by a node)."""

    def __init__(self, style: GraphStyle, kind: str = "grad"):
        super().__init__()
        self.style = style
        self.kind = kind  # grad | callout | hook
        self.lines: list[str] = []
        self.emphasis = False
        self._rect = QRectF()
        self._leader: Any = None  # QGraphicsLineItem to the edge or box, when placed away from it
        self.setZValue(5)

    def box_rect(self) -> QRectF:
        """The label's box (item coordinates): what it covers."""
        return QRectF(self._rect)

    def set_leader(self, target: Optional[QPointF]) -> None:
        """A thin line from the label to `target` (a scene point on its edge
        or box), for a label placed away from it (app/graph/placement.py);
        None: no line."""
        if target is None:
            if self._leader is not None:
                self._leader.setVisible(False)
            return
        from PySide6.QtWidgets import QGraphicsLineItem

        if self._leader is None:
            self._leader = QGraphicsLineItem(self)
            self._leader.setFlag(QGraphicsItem.GraphicsItemFlag.ItemStacksBehindParent, True)
        border = self.style.edge_grad if self.kind == "grad" else self.style.callout_border
        self._leader.setPen(QPen(border, 1.0, Qt.PenStyle.DashLine))
        t = self.mapFromScene(target)
        r = self._rect
        start = QPointF(min(max(t.x(), r.left()), r.right()), min(max(t.y(), r.top()), r.bottom()))
        self._leader.setLine(start.x(), start.y(), t.x(), t.y())
        self._leader.setVisible(True)

    def leader_line(self):
        """The leader line in scene coordinates, or None (the SVG export draws it)."""
        if self._leader is None or not self._leader.isVisible():
            return None
        return self._leader.mapToScene(self._leader.line().p1()), self._leader.mapToScene(self._leader.line().p2())

    def set_lines(self, lines: list[str], emphasis: bool = False) -> None:
        if lines == self.lines and emphasis == self.emphasis:
            return
        self.prepareGeometryChange()
        self.lines = list(lines)
        self.emphasis = emphasis
        fm = QFontMetricsF(self.style.small_font(bold=True))
        w = max((fm.horizontalAdvance(s) for s in self.lines), default=0) + 10
        h = fm.height() * len(self.lines) + 4
        self._rect = QRectF(0, 0, w, h)
        self.update()

    def text(self) -> str:
        return "\n".join(self.lines)

    def size(self):
        return self._rect.size()

    def boundingRect(self) -> QRectF:
        return self._rect.adjusted(-2, -2, 2, 2)

    def paint(self, painter: QPainter, option, widget=None) -> None:
        st = self.style
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        if self.kind == "grad":
            fill, border, text = st.grad_label_fill, st.edge_grad, st.grad_label_text
        elif self.kind == "hook":
            fill, border, text = st.callout_fill, st.hook_callout_border, st.callout_text
        else:
            fill, border, text = st.callout_fill, st.callout_border, st.callout_text
        if self.emphasis:
            border = st.current
        painter.setBrush(fill)
        painter.setPen(QPen(border, 2.0 if self.emphasis else 1.0))
        painter.drawRoundedRect(self._rect, 4, 4)
        painter.setPen(text)
        lh = QFontMetricsF(self.style.small_font(bold=True)).height()
        for i, line in enumerate(self.lines):
            painter.setFont(self.style.small_font(bold=(i == 0)))
            painter.drawText(QRectF(5, 2 + i * lh, self._rect.width() - 8, lh),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, line)


class LayerItem(QGraphicsItem):
    """Paints nothing; parent of all detailed items so they hide in one call.
    Sub-layers (edges under boxes) stack their children without a z-value
    on each of thousands of items."""

    def __init__(self, parent: Optional[QGraphicsItem] = None, z: float = 0.0):
        super().__init__(parent)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemHasNoContents, True)
        if z:
            self.setZValue(z)

    def boundingRect(self) -> QRectF:
        return QRectF()

    def paint(self, painter, option, widget=None) -> None:
        pass


class OverviewItem(QGraphicsItem):
    """The whole graph as bulk-drawn rectangles and lines (zoomed far out).

    Boxes are coloured by kind and replay status (current in the highlight
    colour, pending faded), with a few QPainter calls for thousands of boxes.
    """

    def __init__(self, layout, style: GraphStyle, data: Optional[OverviewData] = None):
        super().__init__()
        self.style = style
        d = data if data is not None else OverviewData(layout)
        self.keys, self.rects, self.node_of, self.kinds = d.keys, d.rects, d.node_of, d.kinds
        self.lines = d.lines
        self.status: dict = {}
        self._groups = None  # rects by (look, status), rebuilt when the status changes
        self._br = QRectF(0, 0, d.width, d.height).adjusted(-10, -10, 10, 10)
        self.setZValue(10)
        self.setToolTip(tr("Overview of a large graph: zoom in to see the boxes' text and gradients."))

    def set_status(self, status: dict, changed) -> None:
        same = status is self.status or (not changed and status == self.status)
        self.status = status
        if not same:
            self._groups = None
            if self.isVisible():
                self.update()

    def boundingRect(self) -> QRectF:
        return self._br

    def _grouped(self):
        if self._groups is None:
            st = self.style
            looks = {"leaf": st.leaf, "saved": st.saved,
                     "group": NodeLook(st.group_fill, st.group_border, st.group_text)}
            groups: dict = {}
            status = self.status
            for r, nid, kind in zip(self.rects, self.node_of, self.kinds):
                look = looks.get(kind, st.op)
                s = status.get(nid) if nid is not None else None
                g = groups.get((kind, s))
                if g is None:
                    g = groups[(kind, s)] = (look, s, [])
                g[2].append(r)
            out = []
            for look, s, rects in groups.values():
                fill = QColor(st.current) if s == "current" else QColor(look.fill)
                border = QColor(st.current) if s == "current" else QColor(look.border)
                if s == "pending":
                    fill.setAlphaF(st.pending_opacity)
                    border.setAlphaF(st.pending_opacity)
                # the current box last, on top
                out.append((s == "current", fill, border, rects))
            out.sort(key=lambda g: g[0])
            self._groups = out
        return self._groups

    def paint(self, painter: QPainter, option, widget=None) -> None:
        st = self.style
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)  # thousands of hairlines: fast
        painter.setPen(QPen(st.edge, 0))
        painter.drawLines(self.lines)
        for cur, fill, border, rects in self._grouped():
            painter.setBrush(fill)
            pen = QPen(border, 3 if cur else 0)
            pen.setCosmetic(True)  # the running box stays visible however far out
            painter.setPen(pen)
            painter.drawRects(rects)
