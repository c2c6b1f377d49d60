"""The graph as a QGraphicsScene, drawn from a LayoutResult and a replay state.

`set_graph` builds one item per layout box/edge/group; `apply_step` moves the
picture to a replay state by touching only the items whose state changed
(status of two nodes, a few new gradient labels and callouts per step), so
stepping through a 1,000-node graph stays well under a frame. The exporter
renders this same scene offscreen, so the app and exported images look alike.
"""

from __future__ import annotations

import math
from typing import Any, Optional

from PySide6.QtCore import QCoreApplication, QPointF, QRect, QRectF, Signal
from PySide6.QtGui import QBrush
from PySide6.QtWidgets import QGraphicsScene, QWidget

from autogradviz.engine.layout.model import LayoutResult
from autogradviz.engine.trace.replay import StepState
from autogradviz.engine.trace.model import Event, Graph, Node, Trace

from autogradviz.app.features import event_title as feature_event_title, features
from autogradviz.app.graph.placement import LabelPlacer
from autogradviz.app.graph.rolled_items import install_rolled
from autogradviz.app.graph.items import (
    EdgeItem, GroupFrameItem, LabelItem, LayerItem, NodeItem, OverviewItem, summary_text,
)
from autogradviz.app.graph.style import GraphStyle, NodeLook, style_for
from autogradviz.app.graph.tensor_labels import named_lines as _named_lines, value_lines
from autogradviz.app.services.text_safety import escaped, plain_tip
from autogradviz.app.services.layout_runner import OVERVIEW_MIN_BOXES  # (made there)


def tr(text: str) -> str:
    return QCoreApplication.translate("GraphScene", text)


# Above this many boxes only the current step's gradients get labels (the rest
# are shown by edge colour and on hover), so big graphs don't drown in text.
ALL_LABELS_MAX_BOXES = 60
OVERVIEW_MAX_SCALE = 0.35

_EVENT_NAMES = {
    "tensor_hook": "tensor hook",
    "node_prehook": "node pre-hook",
    "node_hook": "node hook",
    "post_accumulate_grad_hook": "post-accumulate-grad hook",
    "retain_grad": "retain_grad",
}  # (and those of the features: FeatureSpec.event_titles, e.g. DDP's all-reduce)


_SHORT_EVENT_NAMES = {
    "tensor_hook": "hook",
    "node_prehook": "pre-hook",
    "node_hook": "node hook",
    "post_accumulate_grad_hook": "after-.grad hook",
    "retain_grad": "retain_grad",
}


def event_title(ev: Event, short: bool = False) -> str:
    names = _SHORT_EVENT_NAMES if short else _EVENT_NAMES
    english = names.get(ev.kind) or feature_event_title(ev.kind, short) or ev.kind
    kind = QCoreApplication.translate("GraphScene", english)
    return f"{kind} {ev.name}" if ev.name else kind


def node_tooltip(node: Node, is_root: bool) -> str:
    parts = []  # HTML: the trace's strings escaped
    if node.label:
        parts.append(f"<b>{escaped(node.label)}</b>")
    parts.append(tr("operation: {0}").format(escaped(node.op)))
    if node.kind == "leaf":
        parts.append(tr("leaf tensor (requires grad): its gradient accumulates into .grad"))
    elif is_root:
        parts.append(tr("output: backward starts here"))
    else:
        parts.append(tr("intermediate result (non-leaf): .grad is not kept unless retain_grad()"))
    if node.tensor is not None:
        t = node.tensor
        parts.append(tr("shape {0}, {1}, {2}").format(list(t.shape), escaped(t.dtype), escaped(t.device)))
    if node.module:
        parts.append(tr("inside module {0}").format(escaped(node.module)))
    if node.retains_grad:
        parts.append(tr("R: retain_grad() was called on this tensor"))
    if node.hooks:
        parts.append(tr("H: hooks: {0}").format(escaped(", ".join(node.hooks))))
    parts.append(tr("Click for details in the Inspector."))
    return "<br>".join(parts)


def group_tooltip(grp) -> str:
    """What a collapsed group box is, and what clicking it does."""
    title = grp.module + (f" ({grp.module_class})" if grp.module_class else "")
    n = len(grp.members)
    return plain_tip(_group_words(title, grp, n))


def _group_words(title: str, grp, n: int) -> str:
    if grp.repeat > 1:
        return tr("Module {0}, called {1} times, rolled into one box ({2} nodes). "
                  "Click to unroll it: one box per call.").format(title, grp.repeat, n)
    if grp.call is not None and grp.calls > 1:
        return tr("Module {0}, call {1} of {2} ({3} nodes). Click to expand the calls; "
                  "right-click to roll them back into one box.").format(title, grp.call + 1, grp.calls, n)
    return tr("Module {0}: {1} nodes. Click to expand it.").format(title, n)


class GraphScene(QGraphicsScene):
    nodeClicked = Signal(object)  # node id or None
    groupToggled = Signal(str, bool)  # module path, collapsed?
    groupRolled = Signal(str)  # module path: roll its unrolled calls back into one box
    hoverChanged = Signal(object)  # node id or None
    # texts of labels with no free place on the graph (placement.py): the step caption says them
    unplacedChanged = Signal(list)
    # the graph's colours and strokes; the name hides QGraphicsScene.style(),
    # which nothing calls on this scene
    style: GraphStyle  # type: ignore[assignment]

    def __init__(self, parent=None, style: Optional[GraphStyle] = None):
        super().__init__(parent)
        self.style = style or style_for("light")
        self.setBackgroundBrush(QBrush(self.style.background))
        self.graph: Optional[Graph] = None
        self.layout: Optional[LayoutResult] = None
        self.state: Optional[StepState] = None
        # The GraphView turns this on: boxes are painted once into a pixmap and
        # blitted afterwards (a step repaints the neighbours of the changed
        # boxes; antialiased text is the costly part of a frame). Off for the
        # exporter, so that SVG/PDF get vector boxes, not pixmaps.
        self.item_cache = False
        self._trash: list = []  # old layers being taken apart: [item, its items, done]
        self._rect_set = False
        # The trace the graph belongs to: the declared features draw their
        # overlays from it (the checkpoint regions, checkpoint_regions.py);
        # None draws none.
        self.trace: Optional[Trace] = None
        self.overlays = {f.id: f.overlay(self) for f in features() if f.overlay is not None}
        self._clear_maps()

    @property
    def checkpoint_overlay(self):
        """The checkpoint feature's overlay (its regions), for the exporters
        and the lesson guide that point at a region."""
        return self.overlays.get("checkpoint")

    def _clear_maps(self) -> None:
        self.node_items: dict[str, list[NodeItem]] = {}  # trace node id -> items (copies)
        self.key_items: dict[str, NodeItem] = {}  # draw key -> item
        self.edge_items: list[EdgeItem] = []
        self.trace_edge_items: dict[int, list[EdgeItem]] = {}
        self.group_items: list[GroupFrameItem] = []
        self.grad_labels: dict[int, LabelItem] = {}  # layout edge position -> label
        self.callouts: dict[str, LabelItem] = {}  # node id -> callout
        self.in_edges: dict[str, list[EdgeItem]] = {}  # draw key -> edges
        self.out_edges: dict[str, list[EdgeItem]] = {}
        self._lit: list = []
        self._shown: dict = {}  # item -> last applied flags (status)
        self._search_hits: list[NodeItem] = []
        self._selected: Optional[str] = None
        self._nodes: dict[str, Node] = {}
        # (made by set_graph; typed as present, what runs before checks for None)
        self.layer: LayerItem = None  # type: ignore[assignment]
        self.overview: Optional[OverviewItem] = None
        self.overview_mode = False
        self.overview_locked = False
        # every label's place: clear of boxes, badges, titles and each other (placement.py)
        self.placer = LabelPlacer(self)
        self._edge_layer: LayerItem = None  # type: ignore[assignment]
        self._node_layer: LayerItem = None  # type: ignore[assignment]
        self.group_boxes: dict[str, NodeItem] = {}  # node id inside a collapsed group -> its box
        self._group_members: dict[str, list[str]] = {}  # group box key -> member node ids
        self.stand_in_items: dict[str, NodeItem] = {}  # rolled view: node id -> box standing for it

    # -- building -----------------------------------------------------------------------
    def set_graph(self, graph: Optional[Graph], layout: Optional[LayoutResult]) -> None:
        """Build all items at once (the exporter; small graphs)."""
        for _ in self.build_steps(graph, layout):
            pass

    def build_steps(self, graph: Optional[Graph], layout: Optional[LayoutResult],
                    state: Optional[StepState] = None, overview_data=None, chunk: int = 64):
        """Build the items, yielding every `chunk` items so that the GUI can
        build a 10,000-box graph in time slices without freezing (GraphView
        drives this from a timer and stops each slice after a few ms).

        The first thing yielded after the old picture is hidden is the string
        "overview" when a big graph's overview item is ready to be shown; the
        old items are then removed in chunks too (removing 30,000 items at
        once takes a few hundred ms). Items are made in the look of `state`
        (statuses, edges that carry gradients), so that applying that state
        afterwards touches only what differs."""
        old_layer, old_overview = self.layer, self.overview
        for overlay in self.overlays.values():
            overlay.clear()
        # the old lookup tables are dropped piece by piece below (freeing
        # tables of 30,000 entries at once is itself a 20 ms pause)
        old_maps = [self.node_items, self.key_items, self.edge_items, self.trace_edge_items,
                    self.in_edges, self.out_edges, self.group_boxes, self._group_members,
                    self._nodes, self.grad_labels, self.callouts]
        self._clear_maps()
        if old_layer is not None:
            old_layer.setVisible(False)
        if old_overview is not None:
            old_overview.setVisible(False)
        self.graph = graph
        self.layout = layout
        self.state = None
        if graph is not None and layout is not None:
            self._grow_scene_rect(self.wanted_rect())
            # A fixed BSP depth for the items to come: left automatic, Qt
            # rebuilds the whole index each time the item count passes a
            # power of two (50-100 ms at once on a big graph, not sliceable).
            n = len(layout.boxes) + len(layout.edges)
            self.setBspTreeDepth(max(5, min(16, math.ceil(math.log2(n + 1)) + 1)) if n > 2000 else 0)
            # every detailed item is a child of one layer: hiding the layer (the
            # zoomed-out overview of a big graph) is one call, not 30,000
            self.layer = LayerItem()
            self.addItem(self.layer)
            self._edge_layer = LayerItem(self.layer, 1)
            self._node_layer = LayerItem(self.layer, 2)
            if len(layout.boxes) >= OVERVIEW_MIN_BOXES:
                overview = self.overview = OverviewItem(layout, self.style, overview_data)
                if state is not None:
                    overview.set_status(state.status, ())
                overview.setVisible(False)
                self.addItem(overview)
                yield "overview"
        while old_maps:
            old_maps.pop()
            yield 0
        # the old picture goes, a chunk at a time (also what an interrupted
        # build left behind)
        for old in (old_overview, old_layer):
            if old is not None:
                self._trash.append([old, None, 0])
        step = chunk * 4
        while self._trash:
            entry = self._trash[0]
            old, kids, i = entry
            if kids is None:
                kids = entry[1] = []
                for k in old.childItems():
                    kids.extend(k.childItems())  # the sub-layers' items first
                    kids.append(k)
            if i < len(kids):
                batch = kids[i:i + step]
                kids[i:i + step] = [None] * len(batch)
                entry[2] = i + step
                for k in batch:
                    k.setParentItem(None)
                    self.removeItem(k)  # now owned by Python: freed with `batch`
                del batch, k
            else:
                self._trash.pop(0)
                if old.scene() is self:
                    self.removeItem(old)
                del entry, old, kids
            yield 0
        if graph is None or layout is None:
            return
        yield from self._build_items(graph, layout, state, chunk)

    def _build_items(self, graph: Graph, layout: LayoutResult, state: Optional[StepState], chunk: int):  # noqa: C901 - over the cap before it was set; to be split (issue 22)
        nodes = {n.id: n for n in graph.nodes}
        self._nodes = nodes
        roots = set(graph.roots)
        st = self.style
        status = state.status if state is not None else {}
        edge_grads = state.edge_grads if state is not None else {}
        for g in layout.groups:
            if not g.collapsed:
                gi = GroupFrameItem(g, st)
                gi.setParentItem(self.layer)
                self.group_items.append(gi)
        groups_by_id = {g.id: g for g in layout.groups}
        group_look = NodeLook(st.group_fill, st.group_border, st.group_text, st.op.border_width,
                              st.op.rounded, st.op.double)
        node_layer, edge_layer, placer = self._node_layer, self._edge_layer, self.placer
        cache = NodeItem.CacheMode.DeviceCoordinateCache if self.item_cache else None
        for bi, box in enumerate(layout.boxes):
            if bi % chunk == 0:
                yield bi
            nid = box.node if box.node is not None else box.copy_of
            node = nodes.get(nid) if nid else None
            grp = None
            tip: Any  # a text, or a function that makes it when first shown
            if box.kind == "saved":
                look, tip = st.saved, tr("Saved for backward by {0}").format(node.op if node else "?")
            elif box.kind == "group":
                look, tip = group_look, tr("Collapsed module group. Click to expand it.")
                grp = groups_by_id.get(box.key)
                if grp is not None:
                    tip = group_tooltip(grp)
            elif node is not None and node.kind == "leaf":
                special = node.retains_grad or bool(node.hooks)
                look, tip = (st.leaf_special if special else st.leaf), (lambda n=node: node_tooltip(n, False))
            elif node is not None and node.id in roots:
                look, tip = st.output, (lambda n=node: node_tooltip(n, True))
            else:
                look, tip = st.op, (lambda n=node: node_tooltip(n, False)) if node else ""
            if grp is not None:
                # a collapsed group says when nodes inside it have hooks / retain_grad
                inside = [nodes[m] for m in grp.members if m in nodes]
                retain = any(n.retains_grad for n in inside)
                hooks = any(n.hooks for n in inside)
            else:
                retain = bool(node and node.retains_grad and box.kind != "saved")
                hooks = bool(node and node.hooks and box.kind != "saved")
            item = NodeItem(box, look, st, retain=retain, hooks=hooks, tooltip=tip)
            if cache is not None:
                item.setCacheMode(cache)
            if box.kind == "group":
                item.node_id = None
                members = list(grp.members) if grp is not None else []
                self._group_members[box.key] = members
                for m in members:
                    self.group_boxes[m] = item
            elif box.kind == "saved":
                item.node_id = None  # saved boxes are not trace nodes
                item.owner = nid
            elif nid is not None:
                self.node_items.setdefault(nid, []).append(item)
                s0 = status.get(nid)
                if s0 is not None:
                    item.set_flags(status=s0)
            self.key_items[box.key] = item
            placer.add_box(box.key, box.x, box.y, box.w, box.h, int(retain) + int(hooks))
            item.setParentItem(node_layer)
        if state is not None:
            for gitem in {id(v): v for v in self.group_boxes.values()}.values():
                gitem.set_flags(status=self._group_status(gitem, status))
        key_items = self.key_items
        for pos, le in enumerate(layout.edges):
            if pos % chunk == 0:
                yield pos
            ei = EdgeItem(le, st)
            ei.pos_index = pos
            self.edge_items.append(ei)
            for t in le.trace_edges:
                self.trace_edge_items.setdefault(t, []).append(ei)
                if t in edge_grads:
                    ei.has_grad = True
            if ei.has_grad:
                ei._apply_pen()
            self.out_edges.setdefault(le.src, []).append(ei)
            self.in_edges.setdefault(le.dst, []).append(ei)
            src, dst = key_items.get(le.src), key_items.get(le.dst)
            if (src is not None and src.box.kind == "saved") or (dst is not None and dst.box.kind == "saved"):
                ei.is_saved_edge = True
            ei.setParentItem(edge_layer)
        install_rolled(self, layout)  # rolled view: stand-ins, loop badges (rolled_items.py)
        if state is not None:
            for gitem in {id(v): v for v in self.stand_in_items.values()}.values():
                gitem.set_flags(status=self._group_status(gitem, status))
        # the items show `state` already; big graphs then only apply what differs
        self.state = state if (state is not None and self._many()) else None
        for overlay in self.overlays.values():
            overlay.build(self.trace)
        self._mark_static()

    def _mark_static(self) -> None:
        """What labels keep off besides the boxes: module frame titles, the
        "×N" loop badges, what the overlays ask for (the checkpoint regions' tabs and ghosts)."""
        for gi in self.group_items:  # (the whole strip: a folded frame's title grows with "▶ copy 3")
            self.placer.add_static(("frame", id(gi)), gi.mapRectToScene(gi.title_rect()))
        for ei in self.edge_items:
            if getattr(ei.ledge, "loop", 0):
                for k in ei.childItems():
                    self.placer.add_static(("loop", id(k)), k.sceneBoundingRect())
        for fid, overlay in self.overlays.items():
            for i, r in enumerate(overlay.avoid_rects()):
                self.placer.add_static((fid, i), r)

    def wanted_rect(self) -> QRectF:
        """The graph with generous margins, so that centring/fit never gets
        clamped at its edge (the views scroll within this)."""
        if self.layout is None:
            return QRectF(0, 0, 10, 10)
        w = max(self.layout.width, 10.0)
        h = max(self.layout.height, 10.0)
        m = max(w, h, 800.0)
        return QRectF(-m, -m, w + 2 * m, h + 2 * m)

    def _grow_scene_rect(self, rect: QRectF) -> None:
        """The scene rect only grows (in big steps). Each change makes Qt
        rebuild its item index from scratch with every item still in the
        scene - the old graph's 30,000 while the new one is being built, one
        stall of 50-100 ms. The views scroll over `wanted_rect` instead."""
        cur = self.sceneRect()
        if self._rect_set and cur.contains(rect):
            return
        if self._rect_set:
            rect = rect.united(cur)
        c = rect.center()
        side = 1024.0
        while side < max(rect.width(), rect.height()):
            side *= 2
        self.setSceneRect(QRectF(c.x() - side, c.y() - side, 2 * side, 2 * side))
        self._rect_set = True

    # -- style and options -------------------------------------------------------------
    def set_style(self, style: GraphStyle) -> None:
        self.style = style
        self.setBackgroundBrush(QBrush(style.background))
        graph, layout, state = self.graph, self.layout, self.state
        sel = self._selected
        self.set_graph(graph, layout)
        self.apply_step(state)
        self.set_selected(sel)

    def set_overview_mode(self, on: bool) -> None:
        """Zoomed far out on a big graph: one overview item instead of all items."""
        on = (bool(on) or self.overview_locked) and self.overview is not None
        if on == self.overview_mode:
            return
        self.overview_mode = on
        if self.layer is not None:
            self.layer.setVisible(not on)
        if self.overview is not None:
            self.overview.setVisible(on)

    # -- stepping --------------------------------------------------------------------------
    def _many(self) -> bool:
        return self.layout is not None and len(self.layout.boxes) > ALL_LABELS_MAX_BOXES

    def apply_step(self, state: Optional[StepState]) -> None:
        """Show a replay state; cheap: only changed items are touched."""
        old = self.state
        self.state = state
        # node status
        old_status = old.status if old is not None else {}
        new_status = state.status if state is not None else {}
        if old is None or state is None:
            changed = set(old_status) | set(new_status)
        else:
            changed = {k for k, v in new_status.items() if old_status.get(k) != v}
        if self.overview is not None:
            self.overview.set_status(new_status, changed)
        groups = set()
        stand_ins = self.stand_in_items
        for nid in changed:
            if nid in stand_ins:  # rolled view: the box shows all the calls it stands for
                groups.add(stand_ins[nid])
                continue
            items = self.node_items.get(nid)
            if items:
                for item in items:
                    item.set_flags(status=new_status.get(nid))
            elif nid in self.group_boxes:
                groups.add(self.group_boxes[nid])
        for gitem in groups:
            gitem.set_flags(status=self._group_status(gitem, new_status))
        # edges carrying gradients
        old_eg = old.edge_grads if old is not None else {}
        new_eg = state.edge_grads if state is not None else {}
        cur = state.current if state is not None else None
        old_cur = old.current if old is not None else None
        touched_edges: set = set()
        for t in set(old_eg) ^ set(new_eg):
            touched_edges.update(self.trace_edge_items.get(t, ()))
        for t, g in new_eg.items():
            if old_eg.get(t) is not g:
                touched_edges.update(self.trace_edge_items.get(t, ()))
        # edges fed by the current (and previous current) node change emphasis
        for cur_id in (cur, old_cur):
            if cur_id is None:
                continue
            for item in self.node_items.get(cur_id, ()):
                touched_edges.update(self.in_edges.get(item.key, ()))
        # callouts first (anchored to their node), then the labels avoid them;
        # labels that disappear go before labels that are placed
        self._update_callouts(old, state)
        many = self._many()
        if many and old is not None:
            # labels of the previous step's edges go away on big graphs
            touched_edges.update(self._lit_edges_of(old_cur))
        # labels placed at earlier steps that a callout now covers move too
        touched_edges.update(self._edges_under_callouts())
        ordered = sorted(touched_edges, key=lambda e: (self._edge_grad(e, new_eg)[1] is not None, e.pos_index))
        for ei in ordered:
            self._update_edge(ei, new_eg, cur, many)
        unplaced = sorted(" ".join(t.split()) for t in self.placer.unplaced.values())
        if unplaced != getattr(self, "_unplaced_said", []):
            self._unplaced_said = unplaced
            self.unplacedChanged.emit(unplaced)
        for overlay in self.overlays.values():
            overlay.follow_step()  # e.g. the checkpoints' "not stored" ghosts filled / emptied

    def _edges_under_callouts(self) -> list:
        """Edges whose visible gradient label intersects a visible callout."""
        shown = [c.sceneBoundingRect() for c in self.callouts.values() if c.isVisible()]
        if not shown:
            return []
        hit = {pos for pos, lab in self.grad_labels.items()
               if lab.isVisible() and any(lab.sceneBoundingRect().intersects(r) for r in shown)}
        if not hit:
            return []
        return [e for items in self.trace_edge_items.values() for e in items if e.pos_index in hit]

    def _group_status(self, gitem, status: dict) -> Optional[str]:
        """A collapsed group shows its members' progress: current when one of
        them runs now, done when all ran, pending while none has."""
        sts = [status.get(m) for m in self._group_members.get(gitem.key, ())]
        if not sts or all(v is None for v in sts):
            return None
        if "current" in sts:
            return "current"
        if all(v == "done" for v in sts):
            return "done"
        if any(v == "done" for v in sts):
            return None  # partly run: neither dimmed nor ticked
        return "pending"

    def _lit_edges_of(self, nid):
        if nid is None:
            return []
        out = []
        for item in self.node_items.get(nid, ()):
            out.extend(self.in_edges.get(item.key, ()))
        return out

    def _edge_grad(self, ei: EdgeItem, egs):
        for t in ei.ledge.trace_edges:
            g = egs.get(t)
            if g is not None:
                return t, g
        return None, None

    def _update_edge(self, ei: EdgeItem, egs, cur, many: bool) -> None:
        t, g = self._edge_grad(ei, egs)
        dst_item = self.key_items.get(ei.ledge.dst)
        is_cur = g is not None and dst_item is not None and dst_item.node_id == cur and cur is not None
        ei.set_flags(has_grad=g is not None, current=is_cur)
        pos = ei.pos_index
        label = self.grad_labels.get(pos)
        show = g is not None and (is_cur or not many)
        if not show:
            if label is not None:
                label.setVisible(False)
                self.placer.forget(label)
            ei.setToolTip(plain_tip(tr("gradient: {0}").format(summary_text(g))) if g is not None else "")
            return
        if label is None:
            label = LabelItem(self.style, "grad")
            label.setParentItem(self.layer)
            self.grad_labels[pos] = label
        text = summary_text(g)
        label.set_lines(value_lines(g), emphasis=is_cur)
        label.setToolTip(plain_tip(tr("Gradient flowing backward along this edge: {0}").format(text)))
        ei.setToolTip(label.toolTip())
        label.setZValue(6 if is_cur else 5)
        label.setVisible(True)
        if not self.placer.place_edge_label(ei, label):  # no free place: said by the edge and the caption
            ei.setToolTip(plain_tip(tr("Gradient flowing backward along this edge: {0}").format(text)))

    def _shown_area(self) -> Optional[QRectF]:
        """What the views show of the scene (None offscreen: everything counts)."""
        area = None
        for v in self.views():
            r = v.mapToScene(v.viewport().rect()).boundingRect()
            area = r if area is None else area.united(r)
        return area

    def _under_overlays(self) -> list[QRectF]:
        """The scene under the widgets drawn over the views (the legend, the
        minimap: marked with the property "coversGraph")."""
        out = []
        for v in self.views():
            for w in v.findChildren(QWidget):
                if w.property("coversGraph") and w.isVisible():
                    tl = v.viewport().mapFrom(v, w.geometry().topLeft())
                    out.append(v.mapToScene(QRect(tl, w.size())).boundingRect())
        return out

    def _callout_lines(self, nid: str, state: StepState) -> tuple[list[str], str, bool]:
        node = self._nodes.get(nid)
        name = (node.label if node is not None and node.label else (node.op if node else nid))
        lines, kind = [], "callout"
        if nid in state.leaf_grads:
            lines.extend(_named_lines(f"{name}.grad = ", state.leaf_grads[nid]))
        if nid in state.retained:
            lines.extend(_named_lines(tr("{0}.grad (retained) = ").format(name), state.retained[nid]))
        for ev in state.events:
            if ev.node != nid or ev.kind == "retain_grad":
                continue
            kind = "hook"
            lines.append(tr("{0} saw {1}").format(event_title(ev, short=True), summary_text(ev.received)))
            if ev.replaced or ev.returned is not None:
                lines.append(tr("   and returned {0}").format(summary_text(ev.returned)))
        fresh = any(ev.node == nid for ev in state.new_events) or state.current == nid
        return lines, kind, fresh

    def _callout_nodes(self, state: Optional[StepState]) -> set:
        if state is None:
            return set()
        if self._many():
            # big graphs: only what happens at this step gets a callout (the
            # rest is in tooltips and the inspector), or they would bury it
            s = {ev.node for ev in state.new_events}
            if state.current is not None and (state.current in state.leaf_grads or
                                              state.current in state.retained):
                s.add(state.current)
            return s
        s = set(state.leaf_grads) | set(state.retained)
        s.update(ev.node for ev in state.events)
        return s

    def _update_callouts(self, old: Optional[StepState], state: Optional[StepState]) -> None:
        want = self._callout_nodes(state)
        have = set(self.callouts)
        for nid in have - want:
            gone = self.callouts[nid]
            if gone.isVisible():
                gone.setVisible(False)
                self.placer.forget(gone)
        # recompute those that can have changed: new ones, those touched by events
        # at this or the previous step, the current/previous current node
        recompute = want - {n for n in have if self.callouts[n].isVisible()}
        for st in (old, state):
            if st is not None:
                recompute.update(ev.node for ev in st.new_events)
                if st.current:
                    recompute.add(st.current)
                recompute.update(set(st.leaf_grads) ^ set((state or st).leaf_grads))
        if state is None:
            return  # (nothing wanted: want is empty)
        for nid in recompute & want:
            items = self.node_items.get(nid)
            if not items:
                continue
            lines, kind, fresh = self._callout_lines(nid, state)
            if not lines:
                continue
            c = self.callouts.get(nid)
            if c is None:
                c = LabelItem(self.style, kind)
                c.setParentItem(self.layer)
                self.callouts[nid] = c
            c.kind = kind
            c.set_lines(lines, emphasis=fresh)
            c.setToolTip("<br>".join(escaped(line) for line in lines))
            anchor = items[0]
            c.setVisible(True)
            self.placer.place_callout(QRectF(anchor.box.x, anchor.box.y, anchor.box.w, anchor.box.h), c)
        for nid in want - recompute:
            c = self.callouts.get(nid)
            if c is not None and c.emphasis:
                c.set_lines(c.lines, emphasis=False)

    # -- interaction (called by items) ---------------------------------------------------------
    def node_hovered(self, item: NodeItem, entering: bool) -> None:
        for it in self._lit:
            it.set_flags(lit=False)
        self._lit = []
        item.set_flags(hovered=entering)
        if not entering:
            self.hoverChanged.emit(None)
            return
        lit: list = []
        if item.node_id is not None:
            lit.extend(c for c in self.node_items.get(item.node_id, ()) if c is not item)
        for e in self.in_edges.get(item.key, ()):
            lit.append(e)
            s = self.key_items.get(e.ledge.src)
            if s is not None:
                lit.append(s)
        for e in self.out_edges.get(item.key, ()):
            lit.append(e)
            d = self.key_items.get(e.ledge.dst)
            if d is not None:
                lit.append(d)
        for it in lit:
            it.set_flags(lit=True)
        self._lit = lit
        self.hoverChanged.emit(item.node_id)

    def item_clicked(self, item: NodeItem) -> None:
        if item.box.kind == "group":
            grp = next((g for g in (self.layout.groups if self.layout else []) if g.id == item.key), None)
            if grp is not None:
                self.groupToggled.emit(grp.module, False)
            return
        nid = item.node_id if item.node_id is not None else getattr(item, "owner", None)
        self.nodeClicked.emit(nid)

    def group_clicked(self, module: str, collapse: bool) -> None:
        self.groupToggled.emit(module, collapse)

    def group_roll(self, module: str) -> None:
        """Roll the separately drawn calls of `module` back into one "×N" box."""
        self.groupRolled.emit(module)

    def group_actions(self, group) -> list:
        """What a group's context menu offers: (text, action) pairs."""
        acts = []
        if group.repeat > 1 and not group.collapsed:  # rolled, drawn as its first call
            acts.append((tr("Unroll: one box per call ({0} calls)").format(group.repeat),
                         lambda: self.group_clicked(group.module, False)))
            acts.append((tr("Collapse {0} into one box").format(group.module),
                         lambda: self.group_clicked(group.module, True)))
        elif group.collapsed and group.repeat > 1:
            acts.append((tr("Unroll: one box per call ({0} calls)").format(group.repeat),
                         lambda: self.group_clicked(group.module, False)))
        elif group.collapsed:
            acts.append((tr("Expand {0}").format(group.module), lambda: self.group_clicked(group.module, False)))
        else:
            acts.append((tr("Collapse {0} into one box").format(group.module),
                         lambda: self.group_clicked(group.module, True)))
        if group.call is not None and group.calls > 1:
            acts.append((tr("Roll the {0} calls of {1} into one box").format(group.calls, group.module),
                         lambda: self.group_roll(group.module)))
        return acts

    def layout_group(self, key: str):
        return next((g for g in (self.layout.groups if self.layout else []) if g.id == key), None)

    def set_selected(self, node_id: Optional[str]) -> None:
        if self._selected is not None:
            for it in self.node_items.get(self._selected, ()):
                it.set_flags(selected_flag=False)
        self._selected = node_id
        for it in self.node_items.get(node_id, ()) if node_id else ():
            it.set_flags(selected_flag=True)

    def set_search_hits(self, node_ids: list[str]) -> list[NodeItem]:
        for it in self._search_hits:
            it.set_flags(search_hit=False)
        hits = []
        for nid in node_ids:
            items = self.node_items.get(nid)
            if items:
                hits.extend(items)
            elif nid in self.group_boxes and self.group_boxes[nid] not in hits:
                hits.append(self.group_boxes[nid])
        for it in hits:
            it.set_flags(search_hit=True)
        self._search_hits = hits
        return hits

    def center_of(self, node_id: str) -> Optional[QPointF]:
        """Centre of the node's box (its first copy), or of the collapsed group
        that contains it."""
        items = self.node_items.get(node_id)
        if items:
            return items[0].sceneBoundingRect().center()
        g = self.group_boxes.get(node_id)
        return g.sceneBoundingRect().center() if g is not None else None
