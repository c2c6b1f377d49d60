"""Checkpoint segments drawn on the graph: regions, "not stored" placeholders
and the recompute phase.

A checkpointed segment looks like any other part of the grad_fn graph; what
makes it different is what it did *not* keep. Each segment of the shown graph
gets a labelled region around exactly its nodes ("checkpoint 1 ·
non-reentrant · model.blocks.0"; `region_shape`), and every activation it did
not store gets a ghost of the missing tensor ("mat1 · not stored",
recompute_items.py) beside the node that will need it:

- non-reentrant: the saved tensors of the segment's nodes that torch replaced
  by checkpoint placeholders (the recorder marked them `skipped_code ==
  "checkpoint"` instead of reading them);
- reentrant: the outer graph has one CheckpointFunctionBackward node; what
  was not stored are the tensors the re-run's inner graph saved
  (`Recomputation.graph`), the activations torch had to make again.

During the recompute phase (recompute_frames.PhaseFrame) the region of the
checkpoint being re-run is lit, its trigger node ringed, the node the op
re-running now makes again glows amber (`lit_node`), the ghosts fill in as
their tensors are made again and empty once backward read them
(`follow_step`, at every step and frame), and a panel beside it lists the
ops re-running (done, current, not re-run after an early stop) and, for
reentrant, the nested backward through the recomputed nodes.

The overlay is built from the scene's own items after each build
(`GraphScene.checkpoint_overlay`, from `GraphScene.trace`), so the view, the
exporter's copies and the CLI's offscreen scene draw the same regions. Its
items are top-level scene items (not in the graph's layer), so the
exporter's picture extent includes a title drawn above the graph. Qt only;
reads the trace.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from PySide6.QtCore import QCoreApplication, QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFontMetricsF, QPainter, QPainterPath, QPainterPathStroker, QPen, QPolygonF
from PySide6.QtWidgets import QGraphicsItem

from autogradviz.app.graph.recompute_frames import fill_states
from autogradviz.app.graph.recompute_items import (GHOST_GAP, GHOST_H, PlaceholderItem, RerunItem, ghost_spot,
                                                    ghost_width)

PAD = 8.0
LABEL_H = 15.0
MAX_PANEL_LINES = 14


def tr(text: str) -> str:
    return QCoreApplication.translate("CheckpointRegions", text)


def kind_text(kind: str) -> str:
    return tr("reentrant") if kind == "reentrant" else tr("non-reentrant")


def region_title(number: int, checkpoint) -> str:
    """"checkpoint 1 · non-reentrant · model.blocks.0"."""
    parts = [tr("checkpoint {0}").format(number), kind_text(checkpoint.kind)]
    if checkpoint.function:
        parts.append(checkpoint.function)
    return " · ".join(parts)


def _colors(style) -> tuple[QColor, QColor]:
    dark = style.background.lightness() < 128
    return (QColor("#4db6ac") if dark else QColor("#00796b")), QColor(style.text)


def not_stored(trace, checkpoint) -> list[tuple[str, str, str, str]]:
    """(node id the placeholder sits beside, saved name, owner op, owner node
    id) for each activation the segment did not store (see the module
    docstring; a reentrant segment's owners are nodes of its inner graph)."""
    out: list[tuple[str, str, str, str]] = []
    try:
        g = trace.graph(checkpoint.graph) if checkpoint.graph else None
    except KeyError:
        g = None
    if g is None:
        return out
    wanted = set(checkpoint.nodes)
    if checkpoint.kind == "non_reentrant":
        for n in g.nodes:
            if n.id in wanted:
                out.extend((n.id, sv.name, n.op, n.id) for sv in n.saved if sv.skipped_code == "checkpoint")
        return out
    inner = next((r.graph for r in checkpoint.recomputations if r.graph), None)
    anchor = checkpoint.nodes[0] if checkpoint.nodes else None
    if inner is None or anchor is None:
        return out
    try:
        ig = trace.graph(inner)
    except KeyError:
        return out
    for n in ig.nodes:
        out.extend((anchor, sv.name, n.op, n.id) for sv in n.saved if sv.tensor is not None)
    return out


def region_shape(boxes: list[QRectF], links: list[QPainterPath], avoid: list[QRectF],
                 frames_off: tuple | list = ()) -> QPainterPath:
    """The outline around exactly the segment: its padded boxes and the
    edges between them (stroked as wide as the padding), joined into one
    blob, minus every box outside the segment (with a margin).

    Graphviz places a segment among the rest of the graph, often along a
    diagonal and around the leaves it uses (`x`, the weights), so a
    rectangle, or the convex hull, would take in nodes that are not part of
    it; this shape follows the segment and, by the subtraction, contains
    no outside box whatever the layout did. `frames_off`: module frames with
    nothing of the segment, kept off too (by a hair: a frame drawn right
    beside one the region holds leaves little room)."""
    path = QPainterPath()
    path.setFillRule(Qt.FillRule.WindingFill)
    for b in boxes:
        path.addRoundedRect(b.adjusted(-PAD, -PAD, PAD, PAD), PAD, PAD)
    if links:
        stroker = QPainterPathStroker()
        stroker.setWidth(2 * PAD)
        stroker.setCapStyle(Qt.PenCapStyle.RoundCap)
        stroker.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
        for link in links:
            path.addPath(stroker.createStroke(link))
    path = path.simplified()
    bounds = path.boundingRect()
    avoid = [r for r in avoid if r.intersects(bounds)]  # (a big graph: only the boxes nearby)
    if avoid or frames_off:
        holes = QPainterPath()
        holes.setFillRule(Qt.FillRule.WindingFill)
        for r in avoid:
            holes.addRoundedRect(r.adjusted(-4, -4, 4, 4), 4, 4)
        for r in frames_off:
            if r.intersects(bounds):
                holes.addRect(r.adjusted(-1.5, -1.5, 1.5, 1.5))
        path = path.subtracted(holes.simplified())
    return path


class RegionItem(QGraphicsItem):
    """The frame of one checkpoint segment, with its title above it: the
    outline around exactly its boxes (`region_shape`)."""

    def __init__(self, number: int, checkpoint, boxes: list[QRectF], style,
                 links: Optional[list[QPainterPath]] = None, avoid: Optional[list[QRectF]] = None,
                 frames_off: Optional[list[QRectF]] = None):
        super().__init__()
        self.number = number
        self.checkpoint = checkpoint
        self.title = region_title(number, checkpoint)
        self.style = style
        self.active = False  # lit during this checkpoint's recompute phase
        self.overlay: Any = None  # the CheckpointOverlay that made it
        self.expanded = False  # reentrant: its inner graph is drawn
        padded = [b.adjusted(-PAD, -PAD, PAD, PAD) for b in boxes]
        self._rect = QRectF(padded[0])
        for b in padded[1:]:
            self._rect = self._rect.united(b)
        self._shape = region_shape(boxes, list(links or ()), list(avoid or ()), list(frames_off or ()))
        self._poly = self._shape.toFillPolygon()
        self._rect = self._rect.united(self._shape.boundingRect())
        top = min(padded, key=lambda b: (b.top(), b.left()))
        self._title_at = QPointF(top.left(), top.top())
        self._padded = padded
        self.setZValue(0.5)
        kept = len(checkpoint.inputs)
        self.setToolTip(tr("Checkpointed segment: in the forward it kept only its {0} input tensor(s), "
                           "not the activations inside (dashed boxes). Backward re-runs it to make "
                           "them again.").format(kept)
                        + ("\n" + tr("Click the title to draw (or hide) the graph its re-run built.")
                           if self.expandable() else ""))

    def frame_rect(self) -> QRectF:
        """The frame's bounding rectangle."""
        return QRectF(self._rect)

    def place_title(self, avoid: list[QRectF]) -> None:
        """Put the title tab where it covers none of `avoid` (the boxes of
        nodes outside the segment): above the segment's top box (left or
        right aligned), else below its bottom box; the first place when all
        collide."""
        top = min(self._padded, key=lambda b: (b.top(), b.left()))
        bottom = max(self._padded, key=lambda b: (b.bottom(), -b.left()))
        w = self.label_rect().width()
        spots = [QPointF(top.left(), top.top()), QPointF(top.right() - w, top.top()),
                 QPointF(bottom.left(), bottom.bottom() + LABEL_H + 2)]
        # then farther up or down, and sideways (a long title, e.g. in zh_CN, beside an outside leaf)
        spots += [QPointF(x, y) for k in (1, 2, 3) for y in (top.top() - k * (LABEL_H + 4),
                                                              bottom.bottom() + LABEL_H + 2 + k * (LABEL_H + 4))
                  for x in (top.left(), top.right() - w, top.left() - w / 2, top.right() - w / 2)]
        for spot in spots:
            tab = QRectF(spot.x(), spot.y() - LABEL_H, w, LABEL_H)
            if not any(tab.intersects(r) for r in avoid):
                break
        else:
            spot = spots[0]
        self.prepareGeometryChange()
        self._title_at = spot
        self.update()

    def label_frame(self) -> QRectF:
        """Where the title goes, as the rectangle an exported region's label is
        drawn at the top left of (the SVG draws the polygon, the text there)."""
        return QRectF(self._title_at.x(), self._title_at.y() - LABEL_H - 4, self._rect.width(), LABEL_H)

    def frame_polygon(self) -> QPolygonF:
        """The frame as one polygon (the SVG export draws it)."""
        return QPolygonF(self._poly)

    def frame_path(self) -> QPainterPath:
        """The frame itself (see `region_shape`)."""
        return QPainterPath(self._shape)

    def label_rect(self) -> QRectF:
        fm = QFontMetricsF(self.style.small_font(bold=True))
        w = fm.horizontalAdvance(self._shown_title()) + 12
        return QRectF(self._title_at.x(), self._title_at.y() - LABEL_H, max(w, 40.0), LABEL_H)

    def boundingRect(self) -> QRectF:
        return self._rect.united(self.label_rect()).adjusted(-3, -3, 3, 3)

    def expandable(self) -> bool:
        return self.checkpoint.kind == "reentrant" and any(r.graph for r in self.checkpoint.recomputations)

    def mousePressEvent(self, event) -> None:
        """A click on a reentrant region's title draws (or hides) the graph
        its re-run built."""
        ov = self.overlay
        if (event.button() == Qt.MouseButton.LeftButton and self.expandable() and ov is not None and ov.on_toggle
                and self.label_rect().contains(event.pos())):
            ov.on_toggle(self.checkpoint.id)
            event.accept()
        else:
            event.ignore()

    def set_active(self, on: bool) -> None:
        if on != self.active:
            self.active = on
            self.update()

    def paint(self, painter: QPainter, option, widget=None) -> None:
        color, text = _colors(self.style)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        fill = QColor(color)
        fill.setAlpha(34 if self.active else 18)
        painter.setBrush(QBrush(fill))
        pen = QPen(QColor(self.style.current) if self.active else color, 2.4 if self.active else 1.4,
                   Qt.PenStyle.SolidLine if self.active else Qt.PenStyle.DashDotLine)
        painter.setPen(pen)
        pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
        painter.setPen(pen)
        painter.drawPath(self._shape)
        lr = self.label_rect()
        tab = QColor(self.style.current) if self.active else color
        painter.setBrush(QBrush(tab))
        painter.setPen(Qt.PenStyle.NoPen)
        painter.drawRoundedRect(lr, 4, 4)
        painter.setPen(QColor("#ffffff"))
        painter.setFont(self.style.small_font(bold=True))
        painter.drawText(lr.adjusted(6, 0, -4, 0), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, self._shown_title())

    def _shown_title(self) -> str:
        if not self.expandable():
            return self.title
        return ("▾ " if self.expanded else "▸ ") + self.title


def panel_spots(anchor: QRectF, w: float, h: float, gap: float = 10.0) -> list[QRectF]:
    """Places for a w x h panel beside `anchor`, nearest first: its four
    corners outside it (right top first, where it always went), then sliding
    down its right and left sides and along its bottom, then rings farther
    out (the same places, 60 px and 140 px away)."""
    out = []
    for far in (0.0, 60.0, 140.0):
        a = anchor.adjusted(-far, -far, far, far)
        right, left = a.right() + gap, a.left() - gap - w
        below, above = a.bottom() + gap, a.top() - gap - h
        out += [QRectF(right, a.top(), w, h), QRectF(right, a.bottom() - h, w, h),
                QRectF(left, a.top(), w, h), QRectF(left, a.bottom() - h, w, h),
                QRectF(a.right() - w, below, w, h), QRectF(a.left(), below, w, h),
                QRectF(a.right() - w, above, w, h), QRectF(a.left(), above, w, h)]
        steps = max(0, int((a.height() - h) // 24))
        for k in range(1, steps):
            y = a.top() + k * 24
            out += [QRectF(right, y, w, h), QRectF(left, y, w, h)]
        steps = max(0, int((a.width() - w) // 40))
        for k in range(1, steps):
            out.append(QRectF(a.left() + k * 40, below, w, h))
    return out


class PhasePanelItem(QGraphicsItem):
    """Beside the lit region: the ops re-running and the nested backward."""

    def __init__(self, style):
        super().__init__()
        self.style = style
        self.lines: list[tuple[str, str]] = []  # (text, "done"|"now"|"todo"|"skip"|"title")
        self._rect = QRectF()
        self.setZValue(6)

    def set_lines(self, lines: list[tuple[str, str]], anchor: QRectF, clear: Callable[[QRectF], bool],
                  inside: Optional[QRectF] = None) -> None:
        """Beside `anchor` (the lit region) at the first place `clear` accepts
        that lies within `inside` (what the picture shows already: the
        graph and its labels), so that showing the panel moves no view and
        cuts nothing off; else the first clear place farther out; else right
        of the anchor as before (`panel_spots`)."""
        self.prepareGeometryChange()
        self.lines = lines
        fm = QFontMetricsF(self.style.small_font(bold=True))
        w = max((fm.horizontalAdvance(t) for t, _ in lines), default=40.0) + 16
        h = len(lines) * (fm.height() + 1) + 8
        spots = panel_spots(anchor, w, h)
        free = [r for r in spots if clear(r)]
        within = [r for r in free if inside is not None and inside.contains(r)]
        self._rect = (within or free or spots)[0]
        self.update()

    def boundingRect(self) -> QRectF:
        return self._rect.adjusted(-2, -2, 2, 2)

    def paint(self, painter: QPainter, option, widget=None) -> None:
        st = self.style
        color, text = _colors(st)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setBrush(QBrush(st.callout_fill))
        painter.setPen(QPen(color, 1.2))
        painter.drawRoundedRect(self._rect, 5, 5)
        fm = QFontMetricsF(st.small_font())
        y = self._rect.top() + 4
        grey = QColor(text)
        grey.setAlpha(110)
        for line, how in self.lines:
            painter.setFont(st.small_font(bold=how in ("now", "title")))
            painter.setPen(QColor(st.current) if how == "now" else (grey if how in ("todo", "skip") else text))
            r = QRectF(self._rect.left() + 8, y, self._rect.width() - 12, fm.height() + 1)
            painter.drawText(r, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, line)
            y += fm.height() + 1


class RingItem(QGraphicsItem):
    """The trigger node's mark during the recompute phase."""

    def __init__(self, rect: QRectF, style):
        super().__init__()
        self._rect = rect.adjusted(-5, -5, 5, 5)
        self.style = style
        self.setZValue(5)
        self.setToolTip(tr("This node needs activations the checkpoint did not store: "
                           "its step triggered the recomputation."))

    def boundingRect(self) -> QRectF:
        return self._rect.adjusted(-2, -2, 2, 2)

    def paint(self, painter: QPainter, option, widget=None) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(QPen(QColor(self.style.current), 2.2, Qt.PenStyle.DotLine))
        painter.drawRoundedRect(self._rect, 6, 6)


def phase_lines(frame) -> list[tuple[str, str]]:
    """The panel's lines for a PhaseFrame: ops done / now / still to come
    (or not re-run: early stop), then the nested backward for reentrant."""
    lines = [(tr("Recomputing checkpoint {0}: forward again ({1}/{2} ops)").format(
        frame.number, frame.op_index, len(frame.ops)), "title")]
    ops = list(frame.ops)
    lo = max(0, min(frame.op_index - MAX_PANEL_LINES // 2, len(ops) - MAX_PANEL_LINES))
    shown = ops[lo:lo + MAX_PANEL_LINES]
    if lo > 0:
        lines.append(("  … " + tr("{0} more").format(lo), "done"))
    for i, op in enumerate(shown, lo + 1):
        how = "done" if i < frame.op_index else ("now" if i == frame.op_index and frame.phase == "rerun" else
                                                 ("done" if i == frame.op_index else "todo"))
        mark = {"done": "✓", "now": "▶", "todo": "·"}[how]
        lines.append((f"{mark} {_short(op)}", how))
    rest = len(ops) - lo - len(shown)
    if rest > 0:
        lines.append(("  … " + tr("{0} more").format(rest), "todo"))
    if frame.early_stopped:
        skipped = max(0, len(frame.forward_ops) - len(ops))
        lines.append((tr("■ stopped early: {0} op(s) of the forward not re-run").format(skipped),
                      "now" if frame.stopped else "skip"))
    if frame.inner_nodes:
        lines.append((tr("Nested backward through the recomputed nodes ({0}/{1})").format(
            frame.inner_index, len(frame.inner_nodes)), "title"))
        lo = max(0, min(frame.inner_index - MAX_PANEL_LINES // 2, len(frame.inner_ops) - MAX_PANEL_LINES))
        for i, op in enumerate(frame.inner_ops[lo:lo + MAX_PANEL_LINES], lo + 1):
            how = "done" if i < frame.inner_index else ("now" if i == frame.inner_index else "todo")
            lines.append((("✓ " if how == "done" else "▶ " if how == "now" else "· ") + op, how))
    if frame.masks_equal is not None:
        lines.append((tr("Dropout mask: same as the forward's") if frame.masks_equal else
                      tr("Dropout mask: differs from the forward's — the gradient no longer matches it"),
                      "title" if frame.masks_equal else "now"))
    return lines


def _short(op: str) -> str:
    """"aten.addmm.default" -> "aten.addmm"."""
    return op[:-len(".default")] if op.endswith(".default") else op


class CheckpointOverlay:
    """The regions, placeholders and phase marks of one built scene."""

    def __init__(self, scene):
        self.scene = scene
        self.regions: dict[str, RegionItem] = {}
        self.placeholders: dict[str, list[PlaceholderItem]] = {}
        self.ring: Optional[RingItem] = None
        self.panel: Optional[PhasePanelItem] = None
        self.rerun: Optional[RerunItem] = None
        self.frame = None
        # (checkpoint id) -> None: set by the view, toggles a reentrant
        # checkpoint's inner graph (a click on its region's title)
        self.on_toggle = None

    # -- building ---------------------------------------------------------------------------------
    def build(self, trace) -> None:
        sc = self.scene
        graph = sc.graph
        if trace is None or graph is None or sc.layer is None:
            return
        for number, c in enumerate(getattr(trace, "checkpoints", None) or [], 1):
            if c.graph != graph.id or not c.nodes:
                continue
            inner = [n.id for r in c.recomputations[:1] if r.graph for n in _graph_nodes(trace, r.graph)]
            members = [*c.nodes, *(n for n in inner if n in sc.node_items)]
            members += segment_parameters(graph, set(members))
            boxes = [b for b in map(self._box_of, members) if b is not None]
            inside = set(members)
            for gi in sc.group_items:  # module frames wholly inside the segment
                if boxes and gi.group.members and set(gi.group.members) <= inside:
                    boxes.append(gi.sceneBoundingRect())
            if not boxes:
                continue
            outside = [drawn_box(items[0]) for nid, items in sc.node_items.items()
                       if items and nid not in inside]
            # the module frames with nothing of the segment: the outline keeps off them
            # (padded, it could cross the border of a frame drawn right beside it)
            frames_off = [gi.sceneBoundingRect() for gi in sc.group_items
                          if gi.group.members and not set(gi.group.members) & inside]
            self.placeholders[c.id] = items = self._ghosts(trace, c, outside)
            boxes += [g._rect for g in items]
            keys = {it.key for nid in members for it in sc.node_items.get(nid, ())}
            links = [ei.mapToScene(ei.path()) for ei in sc.edge_items
                     if ei.ledge.src in keys and ei.ledge.dst in keys]
            region = RegionItem(number, c, boxes, sc.style, links, outside, frames_off)
            region.place_title([items[0].sceneBoundingRect() for nid, items in sc.node_items.items()
                                if items and nid not in inside] + [g._rect for g in items])
            region.overlay = self
            region.expanded = any(n in sc.node_items for n in inner)
            sc.addItem(region)
            self.regions[c.id] = region
        if self.frame is not None:  # a rebuild (theme) during the phase
            self.show_frame(self.frame)
        else:
            self.follow_step()

    def _ghosts(self, trace, c, outside: list[QRectF]) -> list[PlaceholderItem]:
        """The "not stored" ghosts of checkpoint `c`, stacked beside the node
        that needs them: on its right, or on its left where the right side
        would cover a box outside the segment."""
        sc = self.scene
        by_anchor: dict[str, list] = {}
        for nid, name, op, owner in not_stored(trace, c):
            by_anchor.setdefault(nid, []).append((name, op, owner))
        taken = [drawn_box(items[0]) for items in sc.node_items.values() if items]
        frames = [gi.mapRectToScene(gi.boundingRect().adjusted(2, 2, -2, -2)) for gi in sc.group_items]
        out: list[PlaceholderItem] = []
        for nid, chips in by_anchor.items():
            box = self._box_of(nid)
            if box is None:
                continue
            w = max(ghost_width(sc.style, name) for name, _, _ in chips)
            h = len(chips) * (GHOST_H + GHOST_GAP) - GHOST_GAP
            spot = ghost_spot(box, w, h, taken, frames)  # (clear of the boxes and of the frames' borders)
            for j, (name, op, owner) in enumerate(chips):
                r = QRectF(spot.left(), spot.top() + j * (GHOST_H + GHOST_GAP), w, GHOST_H)
                ghost = PlaceholderItem(r, name, op, sc.style, owner)
                sc.addItem(ghost)
                out.append(ghost)
            taken.append(spot)
        return out

    def avoid_rects(self) -> list[QRectF]:
        """What labels keep off: the regions' title tabs and the ghosts."""
        return ([r.mapRectToScene(r.label_rect()) for r in self.regions.values()]
                + [g.sceneBoundingRect() for v in self.placeholders.values() for g in v])

    def follow_step(self) -> None:
        """Fill or empty the ghosts for the scene's replay state and the
        recompute frame shown (recompute_frames.fill_states)."""
        trace = getattr(self.scene, "trace", None)
        state = getattr(self.scene, "state", None)
        if trace is None or not self.placeholders:
            return
        for c in getattr(trace, "checkpoints", None) or []:
            ghosts = self.placeholders.get(c.id)
            if not ghosts:
                continue
            fills = fill_states(trace, c, state, self.frame)
            for g in ghosts:
                g.set_fill(fills.get(g.owner, "empty"))

    def svg_overlays(self) -> list:
        """The regions and "not stored" chips as semantic SVG shapes
        (engine/layout/svg_export.py), so that an SVG export shows them too."""
        from autogradviz.engine.layout.svg_export import Overlay

        def box(r: QRectF) -> tuple[float, float, float, float]:
            return (r.x(), r.y(), r.width(), r.height())

        out = [Overlay("checkpoint-region", region.toolTip(), region.title, box(region.label_frame()),
                       tuple((p.x(), p.y()) for p in region.frame_polygon()))  # type: ignore[attr-defined]  # (QPolygonF iterates)
               for region in self.regions.values()]
        out += [Overlay("not-stored", chip.toolTip(), chip.text(), box(chip._rect))  # ("mat1 · not stored")
                for chips in self.placeholders.values() for chip in chips]
        return out

    def _box_of(self, nid: str) -> Optional[QRectF]:
        sc = self.scene
        items = sc.node_items.get(nid)
        if items:
            return drawn_box(items[0])
        g = sc.group_boxes.get(nid)
        return drawn_box(g) if g is not None else None

    # -- the recompute phase ----------------------------------------------------------------------
    def show_frame(self, frame) -> None:
        """Light the region of `frame` (a PhaseFrame, or None: no phase)."""
        self.frame = frame
        sc = self.scene
        for cid, region in self.regions.items():
            region.set_active(frame is not None and cid == frame.checkpoint)
        _remove(self.ring, self.panel, self.rerun)
        self.ring = self.panel = self.rerun = None
        self._light_inner(frame)
        self.follow_step()
        if frame is None or sc.layer is None:
            return
        lit = self.lit_node()
        lit_box = self._box_of(lit) if lit is not None else None
        if lit_box is not None and lit is not None:
            self.rerun = RerunItem(lit_box, sc.style, lit)
            sc.addItem(self.rerun)
        framed = self.regions.get(frame.checkpoint)
        box = self._box_of(frame.trigger) if frame.trigger else None
        if box is not None:
            self.ring = RingItem(box, sc.style)
            sc.addItem(self.ring)
        anchor = framed.frame_rect() if framed is not None else box
        if anchor is not None:
            shown = sc.itemsBoundingRect()  # (the graph and its labels, before the panel)
            self.panel = PhasePanelItem(sc.style)
            self.panel.set_lines(phase_lines(frame), anchor, self._panel_clear, shown)
            sc.addItem(self.panel)
            whole = anchor.united(self.panel.sceneBoundingRect())  # in sight (scrolls only when not)
            for view in sc.views():
                view.ensureVisible(whole, 20, 20)

    def _panel_clear(self, r: QRectF) -> bool:
        """Nothing drawn under `r`: no box, label, title, ghost or module
        frame line (the scene's label placer knows them all), no region."""
        sc = self.scene
        placer = getattr(sc, "placer", None)
        if placer is not None and not placer.is_clear(r):
            return False
        boxes = (drawn_box(v[0]) for v in sc.node_items.values() if v)
        if any(b.intersects(r) for b in boxes):
            return False
        return not any(reg.mapToScene(reg.frame_path()).intersects(r) for reg in self.regions.values())

    def lit_node(self) -> Optional[str]:
        """The node lit as re-running now: the one the current op makes
        again, or, where that node is not drawn (a reentrant segment's inner
        graph folded into its CheckpointFunctionBackward box), the drawn
        node standing for it; None between ops."""
        f = self.frame
        nid = f.current_node if f is not None else None
        if nid is None or self._box_of(nid) is not None:
            return nid
        region = self.regions.get(f.checkpoint)
        nodes = region.checkpoint.nodes if region is not None else []
        return nodes[0] if f.kind == "reentrant" and nodes else None

    def _light_inner(self, frame) -> None:
        """The nested backward on a drawn inner graph: its nodes done /
        current / pending like the outer steps; none outside the phase."""
        sc = self.scene
        lit = getattr(self, "_lit_inner", [])
        for nid in lit:
            for item in sc.node_items.get(nid, ()):
                item.set_flags(status=None)
        self._lit_inner = []
        if frame is None or not frame.inner_nodes:
            return
        i = frame.inner_index
        for k, nid in enumerate(frame.inner_nodes):
            status = "done" if k < i - 1 else ("current" if k == i - 1 else "pending")
            for item in sc.node_items.get(nid, ()):
                item.set_flags(status=status)
                self._lit_inner.append(nid)

    def clear(self) -> None:
        """Take every item of the overlay off the scene (a new build comes)."""
        _remove(self.ring, self.panel, self.rerun, *self.regions.values(),
                *(c for v in self.placeholders.values() for c in v))
        self.regions, self.placeholders, self.ring, self.panel, self.rerun = {}, {}, None, None, None
        self._lit_inner = []

    def set_style(self, style) -> None:
        for item in [*self.regions.values(), *(c for v in self.placeholders.values() for c in v),
                     self.ring, self.panel, self.rerun]:
            if item is not None:
                item.style = style
                item.update()


def segment_parameters(graph, nodes: set[str]) -> list[str]:
    """The parameters a segment's `nodes` use and nothing else does: leaves
    that name their module (the checkpointed block's weights, drawn in its
    module frames), every consumer in the segment. They belong to the block
    the region frames; an input leaf (`x`, which names no module) does not."""
    consumers: dict[str, set[str]] = {}
    for e in graph.edges:
        consumers.setdefault(e.src, set()).add(e.dst)
    return [n.id for n in graph.nodes
            if n.kind == "leaf" and n.module and n.id not in nodes and consumers.get(n.id)
            and consumers[n.id] <= nodes]


def drawn_box(item) -> QRectF:
    """A node item's box as drawn, in scene coordinates (its bounding
    rectangle also holds the glow and badges, and overlaps its neighbours')."""
    r = getattr(item, "_rect", None)
    return item.mapRectToScene(r) if r is not None else item.sceneBoundingRect()


def _graph_nodes(trace, graph_id: str) -> list:
    try:
        return list(trace.graph(graph_id).nodes)
    except KeyError:
        return []


def _remove(*items) -> None:
    for item in items:
        try:
            sc = item.scene() if item is not None else None
        except RuntimeError:  # (QGraphicsScene.clear() deleted it already)
            continue
        if sc is not None:
            sc.removeItem(item)
