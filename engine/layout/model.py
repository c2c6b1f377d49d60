"""Layout results: where every box and edge goes, in points, Qt-free.

The layout engines (Graphviz, or our own layered layout for big graphs) produce
a `LayoutResult`; the GUI's scene and the exporter draw exactly that. Boxes are
keyed by a *draw key*, not by trace node id, because a shared leaf is drawn
once per use (`copy_of` links the copies back to the one trace node) and a
collapsed module group is one box standing for many nodes.

Coordinates: origin top-left, y grows downwards, units are points (1/72 in);
`x`, `y` are the box's top-left corner.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple, Optional


class LayoutNote(NamedTuple):
    """A layout note as a code plus parameters, so that the GUI can say it in
    the user's language without reading the English `notes` (which stay for
    the command line and for people reading a result).

    Codes: "large_graph" (nodes, boxes, rolled: {module path: calls},
    collapsed_groups: int), "layered_many_boxes" (boxes), "layered_hub" (),
    "graphviz_timeout" (limit_s), "graphviz_failed" (error: the exception's
    class name, reason: its text)."""

    code: str
    params: dict[str, Any]


@dataclass
class LayoutBox:
    key: str  # draw key, unique in the layout
    kind: str  # "op", "leaf", "group" (a collapsed module group)
    node: Optional[str]  # trace node id drawn here (None for a collapsed group)
    x: float
    y: float
    w: float
    h: float
    lines: list[str] = field(default_factory=list)  # text lines, top to bottom
    copy_of: Optional[str] = None  # for per-use leaf copies: the trace node id
    group: Optional[str] = None  # id of the innermost expanded group containing it


@dataclass
class LayoutEdge:
    src: str  # draw key (forward direction, like trace edges)
    dst: str
    points: list[tuple[float, float]] = field(default_factory=list)  # polyline or cubic bezier control points
    spline: bool = False  # True when points are cubic Bezier control points (1 + 3n)
    trace_edges: list[int] = field(default_factory=list)  # indices into Graph.edges
    loop: int = 0  # N on the loop-back edge of a rolled module's N calls (layout/rolled.py)


@dataclass
class LayoutGroup:
    """A module group: an expanded frame drawn around its members, or (when
    collapsed) the frame of the LayoutBox with the same key."""

    id: str  # draw key of the group
    module: str  # qualified module path, e.g. "encoder.layers.0"
    module_class: Optional[str] = None
    members: list[str] = field(default_factory=list)  # trace node ids inside
    collapsed: bool = False
    repeat: int = 1  # >1 when N calls of the same module were rolled into one
    # For one of the N calls of a module drawn separately (unrolled): which
    # call (0-based) and how many there are, so a GUI can offer "roll up".
    call: Optional[int] = None
    calls: int = 1
    x: float = 0.0
    y: float = 0.0
    w: float = 0.0
    h: float = 0.0


@dataclass
class LayoutResult:
    boxes: list[LayoutBox] = field(default_factory=list)
    edges: list[LayoutEdge] = field(default_factory=list)
    groups: list[LayoutGroup] = field(default_factory=list)
    width: float = 0.0
    height: float = 0.0
    engine: str = ""  # e.g. "graphviz dot 12.2 (system)", "graphviz (wasm)", "layered"
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)  # e.g. "Graphviz timed out; used the layered layout"
    # `notes[i]` as a code and parameters (same index): what the GUI translates.
    note_codes: list[LayoutNote] = field(default_factory=list)
    # The module paths actually collapsed / unrolled in this picture (the
    # defaults resolved), so a GUI can toggle one group and lay out again with
    # LayoutOptions(collapsed=set(...), unrolled=set(...)).
    collapsed: list[str] = field(default_factory=list)
    unrolled: list[str] = field(default_factory=list)
    # rolled view (LayoutOptions.rolled_view "inner"): trace node id of a
    # node of a later call -> the draw key of its counterpart in the first call
    stand_ins: dict = field(default_factory=dict)
    # repeated sibling modules (repeats.py): virtual module path ("enc.layers.1–11")
    # -> the sibling paths it folds, folded or (when in `unrolled`) drawn one by one
    repeats: dict = field(default_factory=dict)
    # trace node id -> [module path, call] for the nodes of a module drawn as
    # its first call (rolled or folded): the copy that runs when the node runs
    copies: dict = field(default_factory=dict)
    direction: str = "TB"  # "LR": forward flows left to right


def layout_groups(draw_groups, boxes, frames: dict) -> list:
    """LayoutGroups for prepared groups (DrawGroup): a collapsed group takes its
    box's rectangle, an expanded one its frame from `frames` (group id ->
    (x, y, w, h), already in picture coordinates). Shared by both engines."""
    bykey = {b.key: b for b in boxes}
    groups = []
    for g in draw_groups:
        lg = LayoutGroup(id=g.id, module=g.module, module_class=g.module_class,
                         members=list(g.members), collapsed=g.collapsed, repeat=g.repeat,
                         call=g.call, calls=g.calls)
        b = bykey.get(g.id) if g.collapsed else None
        if b is not None:
            lg.x, lg.y, lg.w, lg.h = b.x, b.y, b.w, b.h
        elif not g.collapsed and g.id in frames:
            x, y, w, h = frames[g.id]
            lg.x, lg.y, lg.w, lg.h = round(x, 2), round(y, 2), round(w, 2), round(h, 2)
        groups.append(lg)
    return groups
