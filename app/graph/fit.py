"""Where "fit" puts the graph: the zoom, the centre, and where the legend goes.

A long, narrow graph (a 600-step chain) fitted whole would be a hairline
with unreadable boxes. Unless the whole graph is asked for, such a graph is
fitted across its narrow side at a readable zoom and shows where backward
starts (the output); the minimap shows the rest, and fitting again (the Fit
button, Ctrl+0) shows the whole graph. A graph too big both ways is fitted
whole: that is the overview of a big graph - unless it is so long that the
whole would be a line (a 10,000-step chain): then it is fitted across, zoomed
out, at its output. The legend goes where it costs the graph least: a column
on the left (tall graphs), two columns along the bottom (wide graphs), or
away (a small view).

`plan_fit` only computes (no widget is touched), so the GraphView applies
the plan and the rules can be read in one place.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple, Optional

from PySide6.QtCore import QPointF, QRectF, QSize

# Below this zoom a box's 10-unit text is under 6 px: a "fit" that would go
# lower on a long, narrow graph fits its narrow side instead.
MIN_READABLE_ZOOM = 0.6
# Below this a whole-graph fit shows boxes under 2 px: only worth it when the
# graph is not much longer than wide (then it is the overview of a big graph).
MIN_OVERVIEW_ZOOM = 0.03
MAX_ZOOM = 1.6  # small graphs are not blown up beyond this
# A graph too big both ways to be read whole (a whole fit under this zoom: box
# text under 4 px, e.g. eight checkpointed Sequential blocks drawn as a
# staircase of frames) is fitted at AROUND_START_ZOOM around where backward
# starts, like a long chain; Fit again shows the whole. (Unless it is the
# overview of a graph of thousands of boxes: see plan_fit.)
SLIVER_ZOOM = 0.4
AROUND_START_ZOOM = 1.0  # box text 10 px


@dataclass
class FitPlan:
    scale: float
    center: QPointF  # scene point to centre on
    legend_columns: int  # 0: hide the legend
    readable: bool  # fitted across a long graph (not all of it shown)
    # the zoom that shows the graph with all its label margins (under
    # `scale` when a small graph is fitted on its boxes: _soft_scale); a
    # step's labels may widen the view down to 80 % of it
    label_scale: float = 0.0


def big_graph_zoom(layout) -> float:
    """The least zoom a fit calls readable: 1.0 (box text 10 px) for a big
    graph drawn folded or collapsed (the layout says "large_graph": the
    12-layer encoder's 13 boxes stand in a column too tall for the canvas at
    10 px, so it is fitted across at 10 px around where backward starts, and
    Fit again shows the whole); else `MIN_READABLE_ZOOM`."""
    notes = getattr(layout, "note_codes", None) or ()
    return 1.0 if any(getattr(n, "code", "") == "large_graph" for n in notes) else MIN_READABLE_ZOOM


# Viewport pixels a fit leaves free around the graph's margins (below).
PAD = 24


def _margins(rect: QRectF) -> QRectF:
    # room for what stepping adds: gradient labels beside the edges and the
    # .grad / hook callouts to the right of the boxes
    return rect.adjusted(-40, -10, 170, 10)


def _soft_scale(bare: QRectF, aw: float, ah: float, sc: float, layout) -> float:
    """A small graph (up to SOFT_MAX_BOXES boxes) that the label margins
    alone keep under 10 px text is fitted at up to 100 % on its boxes: the
    margins are room for labels that steps add later, and a step whose
    labels reach past the view widens it then (GraphView._keep_labels_in_sight)."""
    if sc >= AROUND_START_ZOOM or not _few_boxes(layout, SOFT_MAX_BOXES):
        return sc
    # (the boxes alone need less free room than the margins: 18 px left and
    # right of the drawing, 6 px above and below)
    bare_sc = min((aw + PAD - 12) / (bare.width() + PAD), (ah + PAD - 12) / bare.height())
    return max(sc, min(bare_sc, AROUND_START_ZOOM))


def label_extent(layout) -> Optional[QRectF]:
    """Where labels are drawn by preference (placement.LabelPlacer): the
    layout's rectangle with the room a fit keeps around it, so that a fitted
    view shows them whole. From the layout alone (never the view): the
    screen and every export place labels alike."""
    if layout is None or not getattr(layout, "width", 0):
        return None
    return _margins(QRectF(0, 0, layout.width, layout.height))


def plan_fit(rect: QRectF, viewport: QSize, whole: bool, legend_sizes: Optional[tuple[QSize, QSize]],
             layout=None, start: Optional[QPointF] = None, max_zoom: float = MAX_ZOOM) -> Optional[FitPlan]:
    """The fit of the graph's `rect` into a viewport of this size.
    `legend_sizes`: the legend's size in one and in two columns (None: no
    legend shown); `start`: where backward starts (see `backward_start`)."""
    if rect.isEmpty():
        return None
    boxes_rect, rect = rect, _margins(rect)
    vw, vh = viewport.width(), viewport.height()
    readable = big_graph_zoom(layout)
    cands = [(0, 0, 2)]
    if legend_sizes is not None:
        tall, wide = legend_sizes
        cands = [(tall.width() + 12, 0, 1)]
        if wide.width() + 16 <= vw:  # two columns only where they fit
            cands.append((0, wide.height() + 12, 2))
        cands.append((0, 0, 0))  # no room for it: hidden (a small view)

    def choose(cands):
        best = None
        for l_, b_, cols in cands:
            aw = max(vw - l_ - PAD, 40)
            ah = max(vh - b_ - PAD, 40)
            sw, sh = aw / rect.width(), ah / rect.height()
            sc = label_sc = min(sw, sh, max_zoom)
            if not whole:
                sc = _soft_scale(boxes_rect, aw, ah, sc, layout)
            long_side = None
            big = max(sw, sh)
            if not whole and sc < readable and (
                    big >= MIN_READABLE_ZOOM or (sc < MIN_OVERVIEW_ZOOM and big > 4 * sc)):
                # readable across, or (an extremely long graph, whose whole
                # would be a hairline) at least its structure across
                long_side = "v" if sw > sh else "h"
                sc = min(big, 1.0)
            elif not whole and sc < SLIVER_ZOOM and _few_boxes(layout):
                # too big both ways to read whole, too few boxes to be an
                # overview: a readable part around the start
                long_side = "both"
                sc = AROUND_START_ZOOM
            # readable first, then the whole graph, then bigger
            key = (sc >= MIN_READABLE_ZOOM, long_side is None, sc) if not whole else (sc,)
            if best is None or key > best[0]:
                best = (key, sc, l_, b_, cols, long_side, label_sc)
        return best

    best = choose([c for c in cands if c[2]])
    if legend_sizes is not None:
        bare = choose([(0, 0, 0)])
        # the legend goes away when keeping it would shrink the graph by
        # more than a third (a small view: it would fill half of it)
        if bare[0] > best[0] and bare[1] > best[1] * 1.5:
            best = bare
    _, scale, left, bottom, cols, long_side, label_scale = best
    scale = max(scale, 0.002)
    cx, cy = _centre(boxes_rect, rect, (vw - left - PAD) / scale, (vh - bottom - PAD) / scale)
    if long_side == "both":
        cx, cy = _around(start, rect, (vw - left) / scale, (vh - bottom) / scale)
    elif long_side is not None:
        # fitted across what is around the start (a long graph may drift
        # sideways: its whole width can be many times the width of any one part)
        local = extent_near(start, long_side, viewport, layout)
        if local is not None:
            local = _margins(local)
            aw = max(vw - left - PAD, 40)
            ah = max(vh - bottom - PAD, 40)
            across = aw / local.width() if long_side == "v" else ah / local.height()
            scale = max(scale, min(across, 1.0))
            if long_side == "v":
                cx = local.center().x()
            else:
                cy = local.center().y()
        vis_w = (vw - left) / scale
        vis_h = (vh - bottom) / scale
        if long_side == "v":
            y = start.y() if start is not None else rect.bottom()
            cy = min(max(y, rect.top() + vis_h / 2), rect.bottom() - vis_h / 2)
        else:
            x = start.x() if start is not None else rect.right()
            cx = min(max(x, rect.left() + vis_w / 2), rect.right() - vis_w / 2)
    # centre the graph in the part of the viewport the legend leaves free
    center = QPointF(cx - left / 2 / scale, cy + bottom / 2 / scale)
    return FitPlan(scale=scale, center=center, legend_columns=cols, readable=long_side is not None,
                   label_scale=min(label_scale, scale))


def _few_boxes(layout, most: Optional[int] = None) -> bool:
    """Few enough boxes that a whole fit is no overview worth having (the
    issue's "graphs up to ~60 boxes" read at Fit); no layout: not known."""
    boxes = getattr(layout, "boxes", None)
    return boxes is not None and len(boxes) <= (OVERVIEW_MAX_FEW if most is None else most)


# Up to this many boxes a whole fit must be readable (else: around the start).
OVERVIEW_MAX_FEW = 200
# Up to this many boxes the label margins give way to 10 px text (_soft_scale).
SOFT_MAX_BOXES = 60


def _centre(bare: QRectF, rect: QRectF, vis_w: float, vis_h: float) -> tuple[float, float]:
    """The centre of the margined `rect`, moved towards the boxes' own
    (`bare`) as far as needed to keep every box in a view vis_w x vis_h."""
    cx, cy = rect.center().x(), rect.center().y()
    bx, by = bare.center().x(), bare.center().y()
    slack_x = max(0.0, (vis_w - bare.width()) / 2)
    slack_y = max(0.0, (vis_h - bare.height()) / 2)
    return bx + min(max(cx - bx, -slack_x), slack_x), by + min(max(cy - by, -slack_y), slack_y)


def _around(start: Optional[QPointF], rect: QRectF, vis_w: float, vis_h: float) -> tuple[float, float]:
    """The centre of a view vis_w x vis_h (scene units) that shows `start`
    (default: the bottom of `rect`, where an output is drawn) and as much of
    `rect` as it can: the start kept in view, the view kept inside the rect."""
    p = start if start is not None else QPointF(rect.center().x(), rect.bottom())
    cx = min(max(p.x(), rect.left() + vis_w / 2), rect.right() - vis_w / 2)
    cy = min(max(p.y(), rect.top() + vis_h / 2), rect.bottom() - vis_h / 2)
    return cx, cy


def extent_near(start: Optional[QPointF], long_side: str, viewport: QSize, layout) -> Optional[QRectF]:
    """Bounding box of the boxes within what a readable view shows along the
    long side around `start`."""
    if start is None or layout is None or not layout.boxes:
        return None
    if long_side == "v":
        band = viewport.height() / MIN_READABLE_ZOOM
        lo, hi = start.y() - band, start.y() + band
        near = [b for b in layout.boxes if b.y + b.h >= lo and b.y <= hi]
    else:
        band = viewport.width() / MIN_READABLE_ZOOM
        lo, hi = start.x() - band, start.x() + band
        near = [b for b in layout.boxes if b.x + b.w >= lo and b.x <= hi]
    if not near:
        return None
    x0 = min(b.x for b in near)
    y0 = min(b.y for b in near)
    return QRectF(x0, y0, max(b.x + b.w for b in near) - x0, max(b.y + b.h for b in near) - y0)


def backward_start(graph, layout) -> Optional[QPointF]:
    """Centre of the box of the graph's output (where backward starts), or of
    the collapsed group holding it; from the layout, so that it works while a
    big scene is still being built."""
    if graph is None or layout is None or not graph.roots:
        return None
    roots = set(graph.roots)
    keys = {grp.id for grp in layout.groups if grp.collapsed and roots & set(grp.members)}
    for b in layout.boxes:
        if b.node in roots or b.key in keys:
            return QRectF(b.x, b.y, b.w, b.h).center()
    return None


SHOW_MAX_ZOOM = 1.0  # a node or region brought into sight: shown at most at 100 %


class ShowPlan(NamedTuple):
    """`scale`: the zoom to set (None: keep the current one); `free`: the
    part of the viewport (viewport coordinates) to centre the rect in."""
    scale: Optional[float]
    free: QRectF


def show_plan(rect: QRectF, viewport: QRectF, legend: Optional[QRectF], scale_now: float) -> ShowPlan:
    """How to bring scene `rect` into sight (GraphView.show_rect): in the
    largest strip of the viewport beside the legend (`legend`, viewport
    coordinates, or None), at a zoom that fits it there with a margin
    (never above SHOW_MAX_ZOOM). The current zoom is kept when the rect fits
    at it and is not much smaller than it could be."""
    margin = 24.0
    strips = [viewport]
    if legend is not None and legend.intersects(viewport):
        v = viewport
        strips = [QRectF(legend.right() + 8, v.top(), v.right() - legend.right() - 8, v.height()),
                  QRectF(v.left(), v.top(), legend.left() - 8 - v.left(), v.height()),
                  QRectF(v.left(), legend.bottom() + 8, v.width(), v.bottom() - legend.bottom() - 8),
                  QRectF(v.left(), v.top(), v.width(), legend.top() - 8 - v.top())]

    def fitting(r: QRectF) -> float:
        if r.width() <= margin or r.height() <= margin:
            return 0.0
        return min((r.width() - margin) / max(rect.width(), 1.0), (r.height() - margin) / max(rect.height(), 1.0))

    free = max(strips, key=fitting)
    best = min(fitting(free), SHOW_MAX_ZOOM)
    if best <= 0:
        return ShowPlan(None, viewport)
    if scale_now > best or scale_now < best / 1.5:
        return ShowPlan(best, free)
    return ShowPlan(None, free)
