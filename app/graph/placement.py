"""Where gradient labels and callouts go: one placement pass for every kind.

Issue 18: labels, callouts, badges, frame titles and region tabs must never
cover each other or a box. Every label (an edge's gradient, a `.grad` or
hook callout) is placed by `LabelPlacer`, greedily, at the first of its
candidate positions that is clear of everything already drawn:

- an edge's gradient: beside the edge at a few points along it, on both
  sides, then a line or two up/down (short edges in a dense layout);
- a callout: beside its box (right, left, below, above, the corners);
- then, for both, rings of places farther out, joined to the edge or the
  box by a thin leader line (`LabelItem.set_leader`);
- and when even those are taken (never seen in the course), the label is
  hidden and the scene keeps its text in `unplaced` (the edge's tooltip and
  the step caption say it) rather than drawing it over something.

"Everything drawn" is two grid-bucket indexes of rectangles (`RectIndex`):
the static one, filled while the scene is built (boxes with their R/H
badges and tick, module frame titles, the "×N" loop badges, the checkpoint
regions' title tabs and "not stored" ghosts), and the one of the labels
shown now, updated as they are placed and hidden. A query looks at the few
cells a rectangle covers, so a placement costs the same on a 30,000-box
graph as on lesson 1, and a step (a few labels) stays far under a frame.

The widgets over the view (legend, minimap) and the edge of the view are
soft: a clear place that they cover is taken only where no clear place
beside the edge or box is free of them.
"""

from __future__ import annotations

import math
from typing import Optional

from PySide6.QtCore import QPointF, QRectF

from autogradviz.app.graph.fit import label_extent

CELL = 120.0
# Places tried along an edge (fractions of its length), in order.
ALONG = (0.5, 0.35, 0.65, 0.2, 0.8, 0.1, 0.9)
# Leader-line rings: distances from the anchor, and directions (right,
# left, below, above first; then the diagonals and between).
RING_DISTANCES = (16.0, 32.0, 56.0, 90.0, 140.0, 210.0, 300.0, 420.0)
RING_ANGLES = tuple(math.radians(a) for a in (0, 180, 90, 270, 45, 135, 315, 225,
                                              22.5, 157.5, 337.5, 202.5, 67.5, 112.5, 292.5, 247.5))
GAP = 2.0  # kept between a label and what it avoids


class RectIndex:
    """Rectangles in grid buckets (CELL-sized cells): `hits` looks only in
    the cells a rectangle covers, never at every rectangle."""

    def __init__(self):
        self._cells: dict[tuple[int, int], list] = {}
        self._where: dict = {}  # key -> (rect, cells)

    @staticmethod
    def _cells_of(r: QRectF):
        return [(cx, cy) for cx in range(int(r.left() // CELL), int(r.right() // CELL) + 1)
                for cy in range(int(r.top() // CELL), int(r.bottom() // CELL) + 1)]

    def add(self, key, rect: QRectF) -> None:
        if key in self._where:
            self.remove(key)
        cells = self._cells_of(rect)
        entry = (key, rect)
        for c in cells:
            self._cells.setdefault(c, []).append(entry)
        self._where[key] = (entry, cells)

    def remove(self, key) -> None:
        got = self._where.pop(key, None)
        if got is None:
            return
        entry, cells = got
        for c in cells:
            lst = self._cells.get(c)
            if lst is not None:
                try:
                    lst.remove(entry)
                except ValueError:
                    pass

    def hits(self, rect: QRectF, skip=None) -> bool:
        for c in self._cells_of(rect):
            for key, r in self._cells.get(c, ()):
                if key is not skip and r.intersects(rect):
                    return True
        return False

    def crossed(self, a: QPointF, b: QPointF, skip=()) -> bool:
        """Does the segment a-b pass through a rectangle (other than those of `skip`)?"""
        span = QRectF(a, b).normalized().adjusted(-1, -1, 1, 1)
        for c in self._cells_of(span):
            for key, r in self._cells.get(c, ()):
                if key not in skip and r.intersects(span) and _segment_hits(a, b, r):
                    return True
        return False

    def clear(self) -> None:
        self._cells.clear()
        self._where.clear()


def _overlap(a: QRectF, b: QRectF) -> float:
    r = a.intersected(b)
    return 0.0 if r.isEmpty() else r.width() * r.height()


def _segment_hits(a: QPointF, b: QPointF, r: QRectF) -> bool:
    """Whether segment a-b crosses the inside of `r` (Liang-Barsky clipping)."""
    r = r.adjusted(1, 1, -1, -1)  # touching a corner is not crossing
    dx, dy = b.x() - a.x(), b.y() - a.y()
    t0, t1 = 0.0, 1.0
    for p, q in ((-dx, a.x() - r.left()), (dx, r.right() - a.x()), (-dy, a.y() - r.top()), (dy, r.bottom() - a.y())):
        if p == 0:
            if q < 0:
                return False
            continue
        t = q / p
        if p < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 > t1:
            return False
    return True


def _ring(anchor: QRectF, w: float, h: float):
    """Rectangles of size w x h around `anchor`, farther and farther out."""
    c = anchor.center()
    for d in RING_DISTANCES:
        for a in RING_ANGLES:
            dx, dy = math.cos(a), math.sin(a)
            x = c.x() + dx * (anchor.width() / 2 + d + w / 2) - w / 2
            y = c.y() + dy * (anchor.height() / 2 + d + h / 2) - h / 2
            yield QRectF(x, y, w, h)


def _outside(rect: QRectF, extent: Optional[QRectF]) -> float:
    """How much of `rect` lies outside `extent` (its area there; 0 inside
    or without an extent): the cost of a label the fitted view would cut."""
    if extent is None or extent.contains(rect):
        return 0.0
    return (rect.width() * rect.height() - _overlap(rect, extent)) * 4


def frame_bands(r: QRectF, width: float = 3.0) -> list[QRectF]:
    """A module frame's outline `r` as four thin bands along its sides: a
    label that meets one would be cut by the frame's line (half in the frame,
    half out), one wholly inside or outside meets none."""
    h = width / 2
    return [QRectF(r.left() - h, r.top() - h, width, r.height() + width),
            QRectF(r.right() - h, r.top() - h, width, r.height() + width),
            QRectF(r.left() - h, r.top() - h, r.width() + width, width),
            QRectF(r.left() - h, r.bottom() - h, r.width() + width, width)]


def nearest_point(r: QRectF, p: QPointF) -> QPointF:
    """The point of rectangle `r` nearest to `p` (on its border when outside)."""
    return QPointF(min(max(p.x(), r.left()), r.right()), min(max(p.y(), r.top()), r.bottom()))


class LabelPlacer:
    """The placement pass of one scene (see the module docstring)."""

    def __init__(self, scene):
        self.scene = scene
        self.static = RectIndex()
        self.grads = RectIndex()  # gradient labels drawn now, by item
        self.callouts = RectIndex()  # callouts drawn now, by item
        self.borders = RectIndex()  # the module frames' outlines (frame_bands): no label crosses one
        self._frames: tuple = ()  # the frame items `borders` was made from
        self.unplaced: dict = {}  # label item -> its text, while no place is free

    def clear(self) -> None:
        self.static.clear()
        self.grads.clear()
        self.callouts.clear()
        self.borders.clear()
        self._frames = ()
        self.unplaced = {}

    def _sync_borders(self) -> None:
        """The frame outlines of the scene's module frames now (made again when the frames change)."""
        frames = tuple(getattr(self.scene, "group_items", None) or ())
        if frames == self._frames:
            return
        self.borders.clear()
        self._frames = frames
        for gi in frames:
            for i, band in enumerate(frame_bands(gi.mapRectToScene(gi.boundingRect().adjusted(2, 2, -2, -2)))):
                self.borders.add((id(gi), i), band)

    # -- what is drawn -------------------------------------------------------------------------------
    def add_box(self, key, x: float, y: float, w: float, h: float, badges: int = 0) -> None:
        """A node's box, its R/H badges (above its top-right corner) and the
        "done" tick (left of its top-left corner)."""
        self.static.add(("box", key), QRectF(x, y, w, h))
        if badges:
            self.static.add(("badges", key), QRectF(x + w - 16 - 18 * (badges - 1), y - 8, 16 + 18 * (badges - 1), 16))
        self.static.add(("tick", key), QRectF(x - 12, y + 1, 10, 9))

    def add_static(self, key, rect: QRectF) -> None:
        self.static.add(key, rect)

    def forget(self, label) -> None:
        """`label` is hidden: its place is free."""
        self.grads.remove(label)
        self.callouts.remove(label)
        self.unplaced.pop(label, None)
        label.set_leader(None)

    def is_clear(self, rect: QRectF) -> bool:
        """Nothing already drawn (box, badge, title, ghost, frame line, label) under `rect`."""
        self._sync_borders()
        return self._clear(rect, None)

    def _clear(self, rect: QRectF, skip, grads: bool = True) -> bool:
        r = rect.adjusted(-GAP, -GAP, GAP, GAP)
        if self.static.hits(r) or self.callouts.hits(r, skip) or self.borders.hits(r):
            return False
        return not (grads and self.grads.hits(r, skip))

    # -- placing -----------------------------------------------------------------------------------------
    def place_edge_label(self, edge_item, label) -> bool:
        """Beside its edge, else on a leader line; False when hidden."""
        sz = label.size()
        w, h = sz.width(), sz.height()
        path = edge_item.path()
        near = []
        points = []
        for t in ALONG:
            p = path.pointAtPercent(t)
            points.append(p)
        for dy in (0.0, h + 2, -(h + 2), 2 * (h + 2), -2 * (h + 2)):
            for p in points:
                for side in (1, -1):
                    x = p.x() + 5 if side > 0 else p.x() - 5 - w
                    near.append(QRectF(x, p.y() - h / 2 + dy, w, h))
        mid = points[0]
        return self._place(label, near, QRectF(mid, mid), points, soft_view=False)

    def place_callout(self, anchor_rect: QRectF, c) -> bool:
        """Beside its box (right, left, below, above, the corners), else on
        a leader line; False when hidden."""
        b = anchor_rect
        sz = c.size()
        w, h = sz.width(), sz.height()
        near = [QRectF(b.right() + 6, b.top() + 4, w, h),
                QRectF(b.left() - 14 - w, b.top() + 4, w, h),
                QRectF(b.center().x() - w / 2, b.bottom() + 4, w, h),
                QRectF(b.center().x() - w / 2, b.top() - 12 - h, w, h),
                QRectF(b.right() + 6, b.bottom() - h, w, h),
                QRectF(b.left() - 14 - w, b.bottom() - h, w, h),
                QRectF(b.right() + 6, b.bottom() + 4, w, h),
                QRectF(b.left() - 14 - w, b.bottom() + 4, w, h),
                QRectF(b.right() + 6, b.top() - 12 - h, w, h),
                QRectF(b.left() - 14 - w, b.top() - 12 - h, w, h)]
        return self._place(c, near, b, None, soft_view=True, over_grads=True)

    def _place(self, label, near: list[QRectF], anchor: QRectF, points: Optional[list[QPointF]], soft_view: bool,
               over_grads: bool = False) -> bool:
        """The first clear place of `near` (clear of the overlays too, or
        the one they cover least); a callout may then take a place over
        gradient labels (which the scene moves next: they are easier to
        move than a callout from its box); then the leader-line rings.
        Places inside the layout's extent (fit.label_extent) come first: a
        place beside that a fitted view would cut gives way to a leader
        line that stays in view."""
        self.forget(label)
        self._sync_borders()
        covered = self.scene._under_overlays()
        area = self.scene._shown_area() if soft_view else None
        extent = label_extent(getattr(self.scene, "layout", None))
        best = self._near_spot(label, near, covered, area, extent, over_grads)
        if best is not None and (extent is None or extent.contains(best)):
            return self._put(label, best, None)
        own = self._own(anchor, points)
        spot = self._ring_spot(label, anchor, points, covered, own, True, extent)
        if spot is not None:
            return self._put(label, *spot)
        if best is not None:
            return self._put(label, best, None)
        for strict in (True, False):  # anywhere: a leader that crosses nothing; else one that does
            spot = self._ring_spot(label, anchor, points, covered, own, strict, None)
            if spot is not None:
                return self._put(label, *spot)
        label.set_leader(None)
        label.setVisible(False)
        self.unplaced[label] = label.text()
        return False

    def _near_spot(self, label, near: list[QRectF], covered: list[QRectF], area: Optional[QRectF],
                   extent: Optional[QRectF], over_grads: bool) -> Optional[QRectF]:
        """The best clear place of `near`: the first that costs nothing
        (no overlay over it, in view, in the extent), else the cheapest."""
        for grads in ((True, False) if over_grads else (True,)):
            best, best_cost = None, None
            for i, rect in enumerate(near):
                if not self._clear(rect, label, grads):
                    continue
                cost = self._soft(rect, covered, area) + _outside(rect, extent)
                if cost == 0:
                    return rect
                cost += i
                if best_cost is None or cost < best_cost:
                    best, best_cost = rect, cost
            if best is not None:
                return best
        return None

    def _ring_spot(self, label, anchor: QRectF, points: Optional[list[QPointF]], covered: list[QRectF],
                   own: tuple, strict: bool, within: Optional[QRectF]) -> Optional[tuple[QRectF, QPointF]]:
        """The first clear place on the leader-line rings (inside `within`
        when given) and the point its leader goes to; with `strict`, only a
        leader that crosses no label, callout or box (but its own)."""
        sz = label.size()
        for rect in _ring(anchor, sz.width(), sz.height()):
            if within is not None and not within.contains(rect):
                continue
            if not self._clear(rect, label) or any(_overlap(rect, o) for o in covered):
                continue
            c = rect.center()
            targets = ([nearest_point(anchor, c)] if points is None else
                       sorted(points, key=lambda p: (p.x() - c.x()) ** 2 + (p.y() - c.y()) ** 2))
            for target in targets:
                start = nearest_point(rect, target)
                if strict and (self.grads.crossed(start, target, (label,))
                               or self.callouts.crossed(start, target, (label,))
                               or self.static.crossed(start, target, own)):
                    continue
                return rect, target
        return None

    def _own(self, anchor: QRectF, points) -> tuple:
        """The static keys a leader may end in: the callout's box (its tick, badges)."""
        if points is not None:
            return ()
        out: list = []
        for c in self.static._cells_of(anchor):
            for key, r in self.static._cells.get(c, ()):
                if isinstance(key, tuple) and key[0] in ("box", "tick", "badges") and r.intersects(anchor):
                    out.extend((("box", key[1]), ("tick", key[1]), ("badges", key[1])))
        return tuple(out)

    @staticmethod
    def _soft(rect: QRectF, covered: list[QRectF], area: Optional[QRectF]) -> float:
        cost = 0.0
        for o in covered:
            cost += 4 * _overlap(rect, o)
        if area is not None and not area.contains(rect):
            cost += (rect.width() * rect.height() - _overlap(rect, area)) * 4
        return cost

    def _put(self, label, rect: QRectF, leader: Optional[QPointF]) -> bool:
        label.setPos(rect.topLeft())
        label.set_leader(leader)
        (self.grads if label.kind == "grad" else self.callouts).add(label, QRectF(rect))
        self.unplaced.pop(label, None)
        return True
