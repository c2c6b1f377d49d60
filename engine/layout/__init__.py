"""Graph layout: trace graph in, `LayoutResult` (boxes, edges, group frames) out.

Qt-free and torch-free, so it runs in the GUI's background thread, in the
headless exporter and in plain tests. `layout_graph` decides *what* to draw
(`prepare`: per-use leaves, module groups, rolling, auto-collapse) and *how*
to place it:

* `engine="graphviz"`: Graphviz `dot` (system or WebAssembly, see
  `graphviz_backend`): the nicest pictures for small and medium graphs;
* `engine="layered"`: our fast layered layout (`layered`), for big graphs;
* `engine="auto"`: Graphviz up to `GRAPHVIZ_MAX_BOXES` drawn boxes, else the
  layered layout; and, as a safety net, when Graphviz runs past
  `time_limit_s` it is stopped and the layered layout is used (with a note).

Progress is reported as `progress(fraction, stage)`, the stage a code the GUI
translates ("preparing", "prepared", "graphviz", "graphviz_output", "layout",
"ranks", "ordering", "placing", "routing", "done"); `cancelled()` is polled
and a cancelled layout raises `LayoutCancelled` (Graphviz is stopped too).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, fields
from typing import Callable, Optional

from autogradviz.engine.trace.model import Graph, gc_paused
from . import graphviz_backend as _gv
from .layered import LayoutCancelled, layout_layered
from .direction import layout_layered_lr
from .model import LayoutBox, LayoutEdge, LayoutGroup, LayoutNote, LayoutResult, layout_groups
from .prepare import DrawGraph, prepare

__all__ = [
    "LayoutOptions", "layout_graph", "LayoutCancelled", "graphviz_backend", "BackendInfo",
    "LayoutResult", "LayoutBox", "LayoutEdge", "LayoutGroup", "LayoutNote", "prepare", "DrawGraph",
    "check_option_names",
]

BackendInfo = _gv.BackendInfo
GRAPHVIZ_MAX_BOXES = 800  # measured: ~600 boxes take dot 0.25 s, 1,800 take 1.9 s
GRAPHVIZ_MAX_EDGES = 1600
# dot's crossing minimisation is slow around hubs: a rolled RNN cell with 200
# edges took 6.9 s although the picture had only 200 boxes (measured)
GRAPHVIZ_MAX_DEGREE = 60
MARGIN = 20.0
# Two algorithms and no third: Graphviz for small pictures, our layered layout
# for big ones (and whenever Graphviz fails or times out: a note says so).
ENGINES = ("auto", "graphviz", "layered")
DIRECTIONS = ("TB", "LR")


@dataclass
class LayoutOptions:
    engine: str = "auto"  # auto | graphviz | layered
    group: str = "auto"  # auto | none | modules
    collapsed: Optional[set] = None  # module paths; None = default (collapsed when large)
    unrolled: Optional[set] = None  # module paths whose repeated calls are drawn one by one
    show_saved: bool = False
    per_use_leaves: bool = True
    time_limit_s: float = 8.0
    # "box": a rolled module (N calls) is one "xN" box; "inner": its first
    # call's graph in a frame, with a loop-back edge xN (layout/rolled.py)
    rolled_view: str = "box"
    # N identical chained sibling modules (a TransformerEncoder's layers, ResNet
    # blocks) drawn as one ×N (repeats.py): "auto" (large graphs), "on", "off"
    fold_repeated: str = "auto"
    # "TB": forward flows down (the default); "LR": left to right, for long chains
    direction: str = "TB"


def check_option_names(names) -> None:
    """Raise ValueError naming every unknown layout option in `names` (and the
    known ones): a misspelled option must not be silently ignored."""
    known = [f.name for f in fields(LayoutOptions)]
    unknown = sorted(set(names) - set(known))
    if unknown:
        raise ValueError(f"unknown layout option(s) {', '.join(unknown)}; "
                         f"known: {', '.join(known)}")


class _BackendAccessor:
    """`graphviz_backend()` returns the BackendInfo; the object itself also
    answers `.name`, `.version`, `.path` (both spellings are in use), and
    stands in for the `graphviz_backend` module it shadows."""

    def __call__(self) -> "BackendInfo":
        return _gv.backend_info()

    name = property(lambda self: _gv.backend_info().name)
    version = property(lambda self: _gv.backend_info().version)
    path = property(lambda self: _gv.backend_info().path)
    detail = property(lambda self: _gv.backend_info().detail)

    def __getattr__(self, attr):
        # `import autogradviz.engine.layout.graphviz_backend as m` resolves to
        # this object (a package attribute wins over the submodule): behave
        # like the module for everything else.
        return getattr(_gv, attr)

    def __str__(self) -> str:
        return str(_gv.backend_info())

    def __repr__(self) -> str:
        return f"graphviz_backend({_gv.backend_info()!r})"


graphviz_backend = _BackendAccessor()


def layout_graph(graph: Graph, options: Optional[LayoutOptions] = None,
                 progress: Optional[Callable[[float, str], None]] = None,
                 cancelled: Optional[Callable[[], bool]] = None) -> LayoutResult:
    # The layout allocates hundreds of thousands of small lists and tuples; with
    # a big trace in memory every generational GC pass rescans all of it, which
    # doubled the time on a 10,000-node trace (measured). Nothing here makes
    # reference cycles, so collection waits until the layout is done.
    with gc_paused():
        return _layout_graph(graph, options, progress, cancelled)


def _layout_graph(graph, options, progress, cancelled) -> LayoutResult:
    t0 = time.perf_counter()
    opts = options or LayoutOptions()
    if opts.direction not in DIRECTIONS:
        raise ValueError(f"unknown layout direction {opts.direction!r}; known: {', '.join(DIRECTIONS)}")
    if opts.engine not in ENGINES:
        raise ValueError(f"unknown layout engine {opts.engine!r}; known: {', '.join(ENGINES)}")
    prog = progress or (lambda f, m: None)
    if cancelled is not None and cancelled():
        raise LayoutCancelled()
    prog(0.0, "preparing")
    dg = prepare(graph, group=opts.group, collapsed=opts.collapsed, unrolled=opts.unrolled,
                 show_saved=opts.show_saved, per_use_leaves=opts.per_use_leaves,
                 rolled_view=opts.rolled_view, fold_repeated=opts.fold_repeated)
    if cancelled is not None and cancelled():
        raise LayoutCancelled()
    prog(0.1, "prepared")

    notes = list(dg.notes)
    codes = list(dg.note_codes)

    def note(text: str, code: str, **params) -> None:
        notes.append(text)
        codes.append(LayoutNote(code, params))

    engine = opts.engine
    if engine == "auto":
        small = len(dg.nodes) <= GRAPHVIZ_MAX_BOXES and len(dg.edges) <= GRAPHVIZ_MAX_EDGES
        hub = _max_degree(dg) > GRAPHVIZ_MAX_DEGREE
        engine = "graphviz" if small and not hub else "layered"
        if not small:
            note(f"{len(dg.nodes)} boxes: used the fast layered layout.", "layered_many_boxes",
                 boxes=len(dg.nodes))
        elif hub:
            note("A box with very many edges: used the fast layered layout.", "layered_hub")
    result = None
    if engine == "graphviz":
        try:
            result = _layout_graphviz(dg, opts.time_limit_s, cancelled,
                                      lambda f, m: prog(0.1 + 0.85 * f, m), opts.direction)
        except _gv.GraphvizCancelled:
            raise LayoutCancelled() from None
        except _gv.GraphvizTimeout:
            note(f"Graphviz took longer than {opts.time_limit_s:g} s; used the fast layered layout.",
                 "graphviz_timeout", limit_s=opts.time_limit_s)
        except (_gv.GraphvizError, _gv.GraphvizUnavailable, OSError, ImportError) as exc:
            note(f"Graphviz failed ({exc}); used the fast layered layout.", "graphviz_failed",
                 error=type(exc).__name__, reason=str(exc))
    if result is None:
        lay = layout_layered if opts.direction == "TB" else layout_layered_lr
        result = lay(dg, lambda f, m: prog(0.1 + 0.85 * f, m), cancelled)
    result.notes = notes
    result.note_codes = codes
    result.direction = opts.direction
    _add_effective(result, dg)
    result.seconds = time.perf_counter() - t0
    prog(1.0, "done")
    return result


def _max_degree(dg: DrawGraph) -> int:
    deg: dict = {}
    for e in dg.edges:
        deg[e.src] = deg.get(e.src, 0) + 1
        deg[e.dst] = deg.get(e.dst, 0) + 1
    return max(deg.values(), default=0)


def _add_effective(result: LayoutResult, dg: DrawGraph) -> None:
    """Record the collapsed/unrolled sets actually used, so a GUI can toggle
    one group and lay out again with everything else unchanged."""
    result.collapsed = sorted(dg.collapsed)
    result.unrolled = sorted(dg.unrolled)
    result.stand_ins = dict(dg.stand_ins)
    result.repeats = dict(dg.repeats)
    result.copies = dict(dg.copies)


def _layout_graphviz(dg: DrawGraph, time_limit_s, cancelled, prog, direction: str = "TB") -> LayoutResult:
    t0 = time.perf_counter()
    if not dg.nodes:
        return LayoutResult(engine="graphviz", seconds=0.0)
    source, names = _gv.layout_source(dg, rankdir=direction)
    info = _gv.backend_info()
    prog(0.05, "graphviz")
    data = _gv.run_dot(source, "json0", time_limit_s, cancelled)
    prog(0.9, "graphviz_output")
    W, H, pos, eroutes, clusters = _gv.parse_json0(data, names, len(dg.edges))
    boxes = []
    for dn in dg.nodes:
        cx, cy = pos[dn.key]
        boxes.append(LayoutBox(key=dn.key, kind=dn.kind, node=dn.node,
                               x=round(cx - dn.w / 2 + MARGIN, 2), y=round(cy - dn.h / 2 + MARGIN, 2),
                               w=dn.w, h=dn.h, lines=list(dn.lines), copy_of=dn.copy_of,
                               group=dn.group))
    edges = []
    for k, e in enumerate(dg.edges):
        pts, tip, start = eroutes.get(k, ([], None, None))
        pts = [(round(x + MARGIN, 2), round(y + MARGIN, 2)) for x, y in pts]
        if tip is not None and pts:
            # extend the Bezier by a straight cubic piece to the arrow tip, so
            # the curve ends on the box border (the scene draws the arrowhead)
            (x0, y0), (x1, y1) = pts[-1], (tip[0] + MARGIN, tip[1] + MARGIN)
            pts += [(round(x0 + (x1 - x0) / 3, 2), round(y0 + (y1 - y0) / 3, 2)),
                    (round(x0 + 2 * (x1 - x0) / 3, 2), round(y0 + 2 * (y1 - y0) / 3, 2)),
                    (round(x1, 2), round(y1, 2))]
        if start is not None and pts:
            (x1, y1), (x0, y0) = pts[0], (start[0] + MARGIN, start[1] + MARGIN)
            pts = [(round(x0, 2), round(y0, 2)),
                   (round(x0 + (x1 - x0) / 3, 2), round(y0 + (y1 - y0) / 3, 2)),
                   (round(x0 + 2 * (x1 - x0) / 3, 2), round(y0 + 2 * (y1 - y0) / 3, 2))] + pts
        spline = len(pts) >= 4 and (len(pts) - 1) % 3 == 0
        if not pts:  # no route from Graphviz: straight line between the boxes
            a = next(b for b in boxes if b.key == e.src)
            b = next(b for b in boxes if b.key == e.dst)
            pts = [(a.x + a.w / 2, a.y + a.h), (b.x + b.w / 2, b.y)]
            spline = False
        edges.append(LayoutEdge(src=e.src, dst=e.dst, points=pts, spline=spline,
                                trace_edges=list(e.trace_edges), loop=e.loop))
    # (cluster ids are "g<index in dg.groups>": no module name goes into the DOT)
    frames = {}
    for cid, (x, y, w, h) in clusters.items():
        j = int(cid[1:]) if cid[:1] == "g" and cid[1:].isdigit() else -1
        if 0 <= j < len(dg.groups):
            frames[dg.groups[j].id] = (x + MARGIN, y + MARGIN, w, h)
    groups = layout_groups(dg.groups, boxes, frames)
    return LayoutResult(boxes=boxes, edges=edges, groups=groups,
                        width=round(W + 2 * MARGIN, 2), height=round(H + 2 * MARGIN, 2),
                        engine=f"graphviz {info.version or ''} ({info.name})".replace("  ", " "),
                        seconds=time.perf_counter() - t0)
