"""Our own fast layered (Sugiyama-style) layout, for graphs Graphviz is too slow on.

Graphviz's `dot` needs 47 s for a 6,000-node RNN graph (ARCHITECTURE.md); the
GUI must show a 10,000-node trace in under 2 s. This layout trades dot's
polish for speed, in pure Python with linear-ish steps.

**Nested, so module frames never overlap.** An expanded module group is laid
out on its own (its boxes, and its expanded child groups as single big
blocks), innermost groups first; in its parent it is then one block of that
size. So a frame can only ever contain its own members, and two sibling
frames are two blocks of one layered picture, which never overlap. (Laying
the whole graph out flat and drawing frames around members afterwards made
GPT-2's 126 frames overlap in 88 places: measured.) An edge that leaves a
group goes through an *out-port* on the group's bottom border, one that
enters through an *in-port* on its top border (one port per outside source,
shared by all its edges), so inside the group it is routed like any other
edge, around the group's boxes.

Each level (the top, or one group's inside):

1. cycles (possible only after collapsing groups) are broken by reversing the
   back edges of a depth-first search;
2. ranks: as late as possible (leaves next to their consumer), then nodes that
   gather more than they feed move back up below their inputs; in-ports sit
   in a rank above everything, out-ports below;
3. long edges get dummy nodes (capped, so a pathological graph stays fast);
4. a few barycenter sweeps order each rank;
5. x coordinates: each rank is placed as close as possible to its neighbours'
   centres subject to the minimum gaps (isotonic regression, pool adjacent
   violators, O(n) per rank) - boxes can never overlap;
6. edges: a vertical stub from the box to the edge of its rank, straight
   lines across the gaps between ranks, vertical runs through the ranks at
   the dummy nodes' columns. Ranks hold boxes and gaps hold none, so a routed
   edge never crosses a box (except a long edge past the dummy cap, drawn
   straight). Back edges leave and enter beside their boxes.
"""

from __future__ import annotations

import time
from typing import Callable, Optional

from .model import LayoutBox, LayoutEdge, LayoutResult, layout_groups
from .prepare import DrawGraph

NODE_GAP = 18.0  # min horizontal gap between boxes
DUMMY_W = 6.0
RANK_GAP = 40.0
PORT_GAP = 18.0  # between a group's border ports and its first/last rank
GROUP_PAD = 10.0
GROUP_LABEL = 16.0  # the frame's title strip (app/graph/items.py, GroupFrameItem)
TITLE_CHAR_W = 6.2  # bold 9 px title text, generous
MARGIN = 20.0
SWEEPS = 4
X_PASSES = 4
# Dummy nodes per level: at least DUMMY_MIN, or DUMMY_FACTOR x the level's
# nodes (fewer on big levels). Past the cap a long edge is drawn straight
# (fast, may cross boxes). Real traces stay far below it; a random 10,000-node
# DAG does not (factor 3: 0.93 s, 2: 0.78 s, 1: 0.65 s; measured).
DUMMY_MIN = 2000
DUMMY_FACTOR = 3
DUMMY_FACTOR_BIG = 2  # levels of more than 3,000 nodes


class LayoutCancelled(Exception):
    """The caller's `cancelled()` turned true; no result."""


def _check(cancelled):
    if cancelled is not None and cancelled():
        raise LayoutCancelled()


class _Level:
    """One picture of the nesting: the top level (gid None) or the inside of
    one expanded group. Local nodes are the level's boxes, its child groups
    (blocks) and its border ports; `edges` are local, deduplicated."""

    __slots__ = ("gid", "keys", "idx", "w", "h", "kind", "edges", "x", "rank", "top", "rank_h",
                 "chains", "reversed", "width", "height", "ox", "oy", "frame", "has_back")

    def __init__(self, gid):
        self.gid = gid
        self.keys: list = []  # ("n", i) | ("g", gid) | ("in", i) | ("out", i)
        self.idx: dict = {}
        self.w: list[float] = []
        self.h: list[float] = []
        self.kind: list[str] = []  # "n", "g", "in", "out"
        self.edges: dict = {}  # (u, v) -> None, insertion-ordered
        self.has_back = False

    # set while the level is laid out (_layout_level), declared for the type checker
    x: list
    rank: list
    top: list
    rank_h: list
    chains: dict
    reversed: set
    width: float
    height: float
    ox: float
    oy: float

    def node(self, key, kind: str, w: float = DUMMY_W, h: float = 0.0) -> int:
        i = self.idx.get(key)
        if i is None:
            i = self.idx[key] = len(self.keys)
            self.keys.append(key)
            self.kind.append(kind)
            self.w.append(w)
            self.h.append(h)
        return i


def layout_layered(dg: DrawGraph, progress: Optional[Callable[[float, str], None]] = None,  # noqa: C901 - over the cap before it was set; to be split (issue 22)
                   cancelled: Optional[Callable[[], bool]] = None, side_pad: float = GROUP_PAD,
                   title_room: bool = True) -> LayoutResult:
    """`side_pad`, `title_room`: a frame's left/right padding, and whether
    it is widened to its title's length (direction.py lays out transposed:
    there the sides become the top, where the title goes)."""
    t0 = time.perf_counter()
    prog = progress or (lambda f, m: None)
    n = len(dg.nodes)
    if n == 0:
        return LayoutResult(engine="layered", seconds=time.perf_counter() - t0)
    index = {dn.key: i for i, dn in enumerate(dg.nodes)}

    # -- the nesting: expanded groups, each node's chain of them --------------------
    parent_all = {g.id: g.parent for g in dg.groups}
    expanded = {g.id: g for g in dg.groups if not g.collapsed}

    def up_to_expanded(gid):
        seen = 0
        while gid is not None and gid not in expanded and seen < 10000:
            gid = parent_all.get(gid)
            seen += 1
        return gid if gid in expanded else None

    eparent = {gid: up_to_expanded(g.parent) for gid, g in expanded.items()}
    chain_cache: dict = {None: ()}

    def chain(gid) -> tuple:
        c = chain_cache.get(gid)
        if c is None:
            c = chain_cache[gid] = chain(eparent.get(gid)) + (gid,)
        return c

    node_chain = [chain(up_to_expanded(dn.group)) for dn in dg.nodes]
    used = {g for c in node_chain for g in c}  # groups with something inside

    levels: dict = {None: _Level(None)}
    for gid in expanded:
        if gid in used:
            levels[gid] = _Level(gid)
    for i, dn in enumerate(dg.nodes):
        c = node_chain[i]
        levels[c[-1] if c else None].node(("n", i), "n", dn.w, dn.h)
        for d in range(len(c)):  # every group on the way is a block of its parent's level
            levels[c[d - 1] if d else None].node(("g", c[d]), "g")

    # -- each drawn edge as segments, one per level it passes through -------------
    # segment: (level, local u, local v, u end, v end); an end is the local node
    # or, for a block, the block's own port node ("out"/"in", source node).
    routes: list = []
    for e in dg.edges:
        a, b = index[e.src], index[e.dst]
        if a == b:
            routes.append(None)
            continue
        ca, cb = node_chain[a], node_chain[b]
        k = 0
        while k < len(ca) and k < len(cb) and ca[k] == cb[k]:
            k += 1
        segs: list = []
        inner = ("n", a)
        inner_end = None
        for G in reversed(ca[k:]):  # innermost group first: out through its bottom
            lv = levels[G]
            u = lv.idx[inner]
            v = lv.node(("out", a), "out")
            lv.edges[(u, v)] = None
            segs.append((lv, u, v, inner_end, None))
            inner, inner_end = ("g", G), (G, ("out", a))
        C = ca[k - 1] if k else None
        lv = levels[C]
        if k < len(cb):
            tgt, tgt_end = ("g", cb[k]), (cb[k], ("in", a))
        else:
            tgt, tgt_end = ("n", b), None
        u, v = lv.idx[inner], lv.idx[tgt]
        lv.edges[(u, v)] = None
        segs.append((lv, u, v, inner_end, tgt_end))
        for j in range(k, len(cb)):  # in through each group's top
            lv = levels[cb[j]]
            u = lv.node(("in", a), "in")
            if j + 1 < len(cb):
                tgt, tgt_end = ("g", cb[j + 1]), (cb[j + 1], ("in", a))
            else:
                tgt, tgt_end = ("n", b), None
            v = lv.idx[tgt]
            lv.edges[(u, v)] = None
            segs.append((lv, u, v, None, tgt_end))
        routes.append((e, segs))
    _check(cancelled)
    prog(0.05, "layout")

    # -- lay out the levels, innermost first ------------------------------------------
    order = sorted(levels.values(), key=lambda lv: -len(chain(lv.gid)) if lv.gid else 1)
    total_nodes = sum(len(lv.keys) for lv in order) or 1
    done = 0
    for lv in order:
        for j, key in enumerate(lv.keys):
            if key[0] == "g":
                sub = levels[key[1]]
                lv.w[j], lv.h[j] = sub.frame
        report = None
        if len(lv.keys) >= 500:  # a big level says how far it got (a small one is quick)
            base, span = done / total_nodes, len(lv.keys) / total_nodes

            def report(f, m, base=base, span=span):
                prog(0.05 + 0.8 * (base + span * f), m)
        title_w = 0.0
        if lv.gid is not None and title_room:
            g = expanded[lv.gid]
            title_w = _title_width(g)
        _layout_level(lv, cancelled, report, title_w)
        if lv.gid is not None:
            inner_w = max(lv.width, title_w)
            if inner_w > lv.width:  # centre the content under a long title
                shift = (inner_w - lv.width) / 2
                lv.x = [x + shift for x in lv.x]
                lv.chains = {k: [(x + shift, r) for x, r in c] for k, c in lv.chains.items()}
                lv.width = inner_w
            lv.frame = (round(lv.width + 2 * side_pad, 2),
                        round(lv.height + 2 * GROUP_PAD + GROUP_LABEL, 2))
        done += len(lv.keys)
        prog(0.05 + 0.8 * done / total_nodes, "layout")

    # -- absolute positions, outermost first ------------------------------------------------
    root = levels[None]
    root.ox, root.oy = MARGIN, MARGIN
    frames: dict = {}
    for lv in reversed(order):
        for j, key in enumerate(lv.keys):
            if key[0] == "g":
                sub = levels[key[1]]
                fx = lv.ox + lv.x[j] - lv.w[j] / 2
                fy = lv.oy + lv.top[lv.rank[j]] + (lv.rank_h[lv.rank[j]] - lv.h[j]) / 2
                frames[key[1]] = (fx, fy, lv.w[j], lv.h[j])
                sub.ox, sub.oy = fx + side_pad, fy + GROUP_PAD + GROUP_LABEL

    def abs_box(lv, j):
        """(left, top, right, bottom) of local node j in absolute coordinates;
        ports are points on the group's border."""
        x = lv.ox + lv.x[j]
        kind = lv.kind[j]
        if kind == "in":
            y = lv.oy - GROUP_PAD - GROUP_LABEL
            return x, y, x, y
        if kind == "out":
            y = lv.oy + lv.height + GROUP_PAD
            return x, y, x, y
        r = lv.rank[j]
        top = lv.oy + lv.top[r] + (lv.rank_h[r] - lv.h[j]) / 2
        return x - lv.w[j] / 2, top, x + lv.w[j] / 2, top + lv.h[j]

    boxes = []
    for i, dn in enumerate(dg.nodes):
        c = node_chain[i]
        lv = levels[c[-1] if c else None]
        x0, y0, _, _ = abs_box(lv, lv.idx[("n", i)])
        boxes.append(LayoutBox(key=dn.key, kind=dn.kind, node=dn.node, x=round(x0, 2), y=round(y0, 2),
                               w=dn.w, h=dn.h, lines=list(dn.lines), copy_of=dn.copy_of, group=dn.group))
    prog(0.9, "routing")

    # -- 6. edges ------------------------------------------------------------------------------
    # ports spread along a box's bottom (out) and top (in), ordered by where
    # the edge goes next, so edges leave and arrive side by side
    port_at: dict = {}  # (level gid, u, v, "s"|"t") -> x
    for lv in order:
        outs: dict = {}
        ins: dict = {}
        for (u, v) in lv.edges:
            ch = lv.chains.get((u, v))
            if (u, v) in lv.reversed:
                nu, nv = lv.x[u] + lv.w[u] / 2, lv.x[v] + lv.w[v] / 2
            else:
                nu = ch[0][0] if ch else lv.x[v]
                nv = ch[-1][0] if ch else lv.x[u]
            if lv.kind[u] == "n":
                outs.setdefault(u, []).append((nu, v))
            if lv.kind[v] == "n":
                ins.setdefault(v, []).append((nv, u))
        for u, lst in outs.items():
            for x, v in _spread(lv.ox + lv.x[u], lv.w[u], lst):
                port_at[(lv.gid, u, v, "s")] = x
        for v, lst in ins.items():
            for x, u in _spread(lv.ox + lv.x[v], lv.w[v], lst):
                port_at[(lv.gid, u, v, "t")] = x

    def end_point(lv, j, end, u, v, which):
        if end is not None:  # a block: its own port node
            sub = levels[end[0]]
            l, t, _, _ = abs_box(sub, sub.idx[end[1]])
            return l, t
        l, t, r, btm = abs_box(lv, j)
        if lv.kind[j] == "n":
            x = port_at.get((lv.gid, u, v, which), (l + r) / 2)
            return x, (btm if which == "s" else t)
        return l, t  # a port of this level

    edges = []
    for item in routes:
        if item is None:
            continue
        e, segs = item
        pts: list = []
        for lv, u, v, uend, vend in segs:
            sx, sy = end_point(lv, u, uend, u, v, "s")
            tx, ty = end_point(lv, v, vend, u, v, "t")
            for p in _segment(lv, u, v, sx, sy, tx, ty):
                if not pts or abs(pts[-1][0] - p[0]) > 0.01 or abs(pts[-1][1] - p[1]) > 0.01:
                    pts.append(p)
        if len(pts) < 2:
            pts = [pts[0], pts[0]] if pts else [(0.0, 0.0), (0.0, 0.0)]
        edges.append(LayoutEdge(src=e.src, dst=e.dst, points=[(round(x, 2), round(y, 2)) for x, y in pts],
                                spline=False, trace_edges=list(e.trace_edges), loop=e.loop))

    # -- group frames --------------------------------------------------------------------------
    groups = layout_groups(dg.groups, boxes, frames)
    width = root.ox + root.width + MARGIN
    height = root.oy + root.height + MARGIN
    prog(1.0, "done")
    return LayoutResult(boxes=boxes, edges=edges, groups=groups, width=round(width, 2),
                        height=round(height, 2), engine="layered",
                        seconds=time.perf_counter() - t0, notes=list(dg.notes),
                        note_codes=list(dg.note_codes))


def _title_width(g) -> float:
    """Width of a frame's title ("▾ path (Class) ×N", drawn from the frame's
    left edge plus 6) measured from the content's left edge, generously."""
    chars = len(g.module or "") + len(g.module_class or "") + 5 + (5 if g.repeat > 1 else 0)
    return chars * TITLE_CHAR_W + 6 - GROUP_PAD


def _spread(cx: float, w: float, lst: list) -> list:
    lst.sort(key=lambda t: t[0])
    k = len(lst)
    span = w * 0.8
    return [(cx - span / 2 + span * (i + 1) / (k + 1), other) for i, (_, other) in enumerate(lst)]


def _segment(lv: _Level, u: int, v: int, sx: float, sy: float, tx: float, ty: float) -> list:
    """The polyline of local edge u -> v from (sx, sy) to (tx, ty): vertical
    inside ranks (stubs, dummy columns), straight across the gaps."""
    ox, oy = lv.ox, lv.oy
    top, rh, rank = lv.top, lv.rank_h, lv.rank

    def rtop(r):
        return oy + top[r]

    def rbot(r):
        return oy + top[r] + rh[r]

    pts = [(sx, sy)]
    ru, rv = rank[u], rank[v]
    if (u, v) in lv.reversed:
        # laid out as v above u: leave u beside it, go up, enter v beside it
        cu = ox + lv.x[u] + lv.w[u] / 2 + NODE_GAP / 2
        cv = ox + lv.x[v] + lv.w[v] / 2 + NODE_GAP / 2
        pts += [(sx, rbot(ru)), (cu, rbot(ru)), (cu, rtop(ru))]
        for x, r in reversed(lv.chains.get((u, v), [])):
            pts += [(ox + x, rbot(r)), (ox + x, rtop(r))]
        pts += [(cv, rbot(rv)), (cv, rtop(rv)), (tx, rtop(rv)), (tx, ty)]
        return pts
    pts.append((sx, max(sy, rbot(ru))))
    for x, r in lv.chains.get((u, v), []):
        pts += [(ox + x, rtop(r)), (ox + x, rbot(r))]
    pts += [(tx, min(ty, rtop(rv))), (tx, ty)]
    return pts


def _layout_level(lv: _Level, cancelled, report=None, title_w: float = 0.0) -> None:  # noqa: C901 - over the cap before it was set; to be split (issue 22)
    """Ranks, order and x of one level's local nodes; sets lv.x (centres,
    content starting at 0), lv.rank, lv.top/rank_h (rank tops and heights,
    content starting at 0), lv.chains ((u, v) -> dummy [(x, rank)]),
    lv.reversed, lv.width, lv.height."""
    n = len(lv.keys)
    kind = lv.kind
    items = [j for j in range(n) if kind[j] in ("n", "g")]
    ins = [j for j in range(n) if kind[j] == "in"]
    outs = [j for j in range(n) if kind[j] == "out"]
    widths = lv.w
    heights = lv.h

    # -- 1. items' graph, cycles broken -------------------------------------------------
    item_pairs = [(a, b) for (a, b) in lv.edges if kind[a] in ("n", "g") and kind[b] in ("n", "g")]
    reversed_pairs: set = set()
    dag = _dag(items, item_pairs)
    if dag is None:
        reversed_pairs = _back_edges(n, item_pairs)
        dag = _dag(items, [(b, a) if (a, b) in reversed_pairs else (a, b) for a, b in item_pairs])
    lv.reversed = reversed_pairs
    assert dag is not None  # acyclic once the back edges are reversed
    topo, isucc, ipred = dag
    _check(cancelled)
    if report:
        report(0.05, "ranks")

    # -- 2. ranks ---------------------------------------------------------------------------
    rank = [0] * n
    for v in topo:
        rv = rank[v] + 1
        for s in isucc[v]:
            if rank[s] < rv:
                rank[s] = rv
    # As late as possible first: leaves, weight transposes and inputs sit just
    # above the op that uses them instead of all in the top rank. Then, in
    # topological order, nodes that gather at least as much as they feed move
    # back up to just below their inputs (a running loss stays beside the
    # steps that feed it instead of sinking to the bottom); nodes that hang
    # only off sources through single edges (leaf -> transpose) stay put.
    for v in reversed(topo):
        if isucc[v]:
            rank[v] = min(rank[s] for s in isucc[v]) - 1
    free = bytearray(n)
    for v in topo:
        preds = ipred[v]
        if not preds or (len(preds) == 1 and free[next(iter(preds))]):
            free[v] = 1
        elif len(preds) >= len(isucc[v]):
            rank[v] = max(rank[p] for p in preds) + 1
    low = min((rank[v] for v in items), default=0)
    shift = (1 if ins else 0) - low
    for v in items:
        rank[v] += shift
    last = max((rank[v] for v in items), default=0)
    for v in ins:
        rank[v] = 0
    for v in outs:
        rank[v] = last + 1
    nranks = last + (2 if outs else 1)

    # -- 3. dummies for long edges --------------------------------------------------------
    succ: list[list[int]] = [[] for _ in range(n)]
    pred: list[list[int]] = [[] for _ in range(n)]
    paths: dict = {}
    budget = max(DUMMY_MIN, (DUMMY_FACTOR if n <= 3000 else DUMMY_FACTOR_BIG) * n)
    total = n
    vrank = list(rank)
    vw = list(widths)
    for (a, b) in lv.edges:
        rev = (a, b) in reversed_pairs
        x, y = (b, a) if rev else (a, b)
        span = rank[y] - rank[x]
        if span > 1 and budget >= span - 1:
            budget -= span - 1
            chain = [x]
            for r in range(rank[x] + 1, rank[y]):
                d = total
                total += 1
                vrank.append(r)
                vw.append(DUMMY_W)
                succ.append([])
                pred.append([])
                chain.append(d)
            chain.append(y)
            for p, q in zip(chain, chain[1:]):
                succ[p].append(q)
                pred[q].append(p)
            paths[(a, b)] = chain
        elif span >= 1:
            succ[x].append(y)
            pred[y].append(x)
    _check(cancelled)

    # -- 4. ordering ----------------------------------------------------------------------------
    layers: list[list[int]] = [[] for _ in range(nranks)]
    visited = bytearray(total)
    # initial order: iterative DFS from the sources, in rank then topological order
    starts = ins + [v for v in topo if not pred[v]]
    for s in starts:
        if visited[s]:
            continue
        stack = [s]
        while stack:
            v = stack.pop()
            if visited[v]:
                continue
            visited[v] = 1
            layers[vrank[v]].append(v)
            stack.extend(reversed(succ[v]))
    for v in range(total):
        if not visited[v]:
            layers[vrank[v]].append(v)
    pos = [0.0] * total
    for layer in layers:
        for i, v in enumerate(layer):
            pos[v] = float(i)
    bary = pos[:]
    # small pictures get more sweeps (cheap there, and they are looked at closely)
    sweeps = SWEEPS * 2 if total < 3000 else SWEEPS
    x_passes = X_PASSES * 2 if total < 3000 else X_PASSES
    for sweep in range(sweeps):
        down = sweep % 2 == 0
        rng = range(1, nranks) if down else range(nranks - 2, -1, -1)
        nbrs = pred if down else succ
        for r in rng:
            layer = layers[r]
            for v in layer:
                ns = nbrs[v]
                bary[v] = sum(pos[u] for u in ns) / len(ns) if ns else pos[v]
            layer.sort(key=bary.__getitem__)
            for i, v in enumerate(layer):
                pos[v] = float(i)
        _check(cancelled)
        if report:
            report(0.2 + 0.4 * (sweep + 1) / sweeps, "ordering")

    # -- 5. x coordinates ----------------------------------------------------------------------
    xc = [0.0] * total
    seps = []
    for layer in layers:
        s = [(vw[p] + vw[q]) / 2 + NODE_GAP for p, q in zip(layer, layer[1:])]
        seps.append(s)
        x = 0.0
        for i, v in enumerate(layer):
            if i:
                x += s[i - 1]
            xc[v] = x
        if layer:
            mid = (xc[layer[0]] + xc[layer[-1]]) / 2
            for v in layer:
                xc[v] -= mid
    for it in range(x_passes):
        down = it % 2 == 0
        rng = range(1, nranks) if down else range(nranks - 2, -1, -1)
        nbrs = pred if down else succ
        for r in rng:
            layer = layers[r]
            if not layer:
                continue
            desired = []
            weights = []
            for v in layer:
                ns = nbrs[v]
                if ns:
                    desired.append(sum(xc[u] for u in ns) / len(ns))
                    weights.append(float(len(ns)) + (2.0 if v >= n else 0.0))
                else:
                    desired.append(xc[v])
                    weights.append(0.2)
            for v, x in zip(layer, _place(desired, weights, seps[r])):
                xc[v] = x
        _check(cancelled)
        if report:
            report(0.6 + 0.4 * (it + 1) / x_passes, "placing")

    # -- in-ports right of the frame's title (edges enter beside it, not through it)
    if ins and title_w > 0:
        rest = [v for v in range(total) if vrank[v] != 0]
        x = min((xc[v] - vw[v] / 2 for v in rest), default=0.0) + title_w + DUMMY_W
        for v in layers[0]:
            if xc[v] < x:
                xc[v] = x
            x = xc[v] + DUMMY_W + NODE_GAP

    # -- extent, ranks' y ------------------------------------------------------------------------
    minx = min(xc[v] - vw[v] / 2 for v in range(total))
    maxx = max(xc[v] + vw[v] / 2 for v in range(total))
    if reversed_pairs:
        maxx += NODE_GAP  # back edges run beside their boxes
    lv.x = [xc[v] - minx for v in range(n)]
    lv.chains = {k: [(xc[d] - minx, vrank[d]) for d in c[1:-1]] for k, c in paths.items()}
    rank_h = [0.0] * nranks
    for v in range(n):
        if heights[v] > rank_h[rank[v]]:
            rank_h[rank[v]] = heights[v]
    top = [0.0] * nranks
    y = 0.0
    for r in range(nranks):
        top[r] = y
        port_next = (r == 0 and ins) or (outs and r == nranks - 2)
        y += rank_h[r] + (PORT_GAP if port_next else RANK_GAP)
    lv.rank = rank
    lv.top = top
    lv.rank_h = rank_h
    lv.width = maxx - minx
    lv.height = top[-1] + rank_h[-1]


def _place(desired: list[float], weights: list[float], seps: list[float]) -> list[float]:
    """Weighted least squares positions x_i near desired_i with
    x_{i+1} - x_i >= seps_i (pool adjacent violators on shifted targets)."""
    k = len(desired)
    c = [0.0] * k
    for i in range(1, k):
        c[i] = c[i - 1] + seps[i - 1]
    # blocks: [value, weight, count]
    vals: list[float] = []
    wts: list[float] = []
    cnts: list[int] = []
    for i in range(k):
        t = desired[i] - c[i]
        w = weights[i]
        vals.append(t)
        wts.append(w)
        cnts.append(1)
        while len(vals) > 1 and vals[-2] > vals[-1]:
            v2, w2, n2 = vals.pop(), wts.pop(), cnts.pop()
            v1, w1, n1 = vals[-1], wts[-1], cnts[-1]
            wt = w1 + w2
            vals[-1] = (v1 * w1 + v2 * w2) / wt
            wts[-1] = wt
            cnts[-1] = n1 + n2
    out = []
    i = 0
    for v, cnt in zip(vals, cnts):
        for _ in range(cnt):
            out.append(v + c[i])
            i += 1
    return out


def _dag(items: list[int], pairs: list[tuple[int, int]]) -> Optional[tuple[list, dict, dict]]:
    """(topological order, successors, predecessors) of the items' graph, or
    None when it has a cycle. Successors and predecessors are dicts per item,
    without repeats, in the order the edges came; the order is by
    generations (the sources in `items` order, then what they free, ...), so
    the picture is the same from run to run."""
    succ: dict = {v: {} for v in items}
    pred: dict = {v: {} for v in items}
    for a, b in pairs:
        succ[a][b] = None
        pred[b][a] = None
    waiting = {v: len(pred[v]) for v in items if pred[v]}
    generation = [v for v in items if not pred[v]]
    order: list = []
    while generation:
        order.extend(generation)
        freed = []
        for v in generation:
            for c in succ[v]:
                waiting[c] -= 1
                if not waiting[c]:
                    freed.append(c)
                    del waiting[c]
        generation = freed
    return None if waiting else (order, succ, pred)


def _back_edges(n: int, pairs: list[tuple[int, int]]) -> set[tuple[int, int]]:
    """Edges that close a cycle in an iterative DFS (reverse them for a DAG)."""
    succ: list[list[int]] = [[] for _ in range(n)]
    for a, b in pairs:
        succ[a].append(b)
    state = bytearray(n)  # 0 new, 1 on stack, 2 done
    back = set()
    for s in range(n):
        if state[s]:
            continue
        stack = [(s, 0)]
        state[s] = 1
        while stack:
            v, i = stack[-1]
            if i < len(succ[v]):
                stack[-1] = (v, i + 1)
                w = succ[v][i]
                if state[w] == 1:
                    back.add((v, w))
                elif state[w] == 0:
                    state[w] = 1
                    stack.append((w, 0))
            else:
                state[v] = 2
                stack.pop()
    return back
