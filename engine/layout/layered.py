"""Our own fast layered (Sugiyama-style) layout, for graphs Graphviz is too slow on.

Graphviz's `dot` needs 47 s for a 6,000-node RNN graph (ARCHITECTURE.md); the
GUI must show a 10,000-node trace in under 2 s. This layout trades dot's
polish for speed, in pure Python with linear-ish steps:

1. cycles (possible only after collapsing groups) are broken by reversing the
   back edges of a depth-first search (networkx checks acyclicity);
2. ranks: as late as possible (leaves next to their consumer), then nodes that
   gather more than they feed move back up below their inputs;
3. long edges get dummy nodes (capped, so a pathological graph stays fast);
4. a few barycenter sweeps order each rank; members of one module group are
   kept contiguous so group frames do not interleave;
5. x coordinates: each rank is placed as close as possible to its neighbours'
   centres subject to the minimum gaps (isotonic regression, pool adjacent
   violators, O(n) per rank) - boxes can never overlap;
6. edges are straight polylines through their dummy nodes, with ports spread
   along the box sides.
"""

from __future__ import annotations

import time
from typing import Callable, Optional

import networkx as nx

from .model import LayoutBox, LayoutEdge, LayoutGroup, LayoutResult
from .prepare import DrawGraph

NODE_GAP = 18.0  # min horizontal gap between boxes
DUMMY_W = 6.0
RANK_GAP = 40.0
GROUP_PAD = 10.0
GROUP_LABEL = 16.0
MARGIN = 20.0
SWEEPS = 4
X_PASSES = 4


class LayoutCancelled(Exception):
    """The caller's `cancelled()` turned true; no result."""


def _check(cancelled):
    if cancelled is not None and cancelled():
        raise LayoutCancelled()


def layout_layered(dg: DrawGraph, progress: Optional[Callable[[float, str], None]] = None,
                   cancelled: Optional[Callable[[], bool]] = None) -> LayoutResult:
    t0 = time.perf_counter()
    prog = progress or (lambda f, m: None)
    n = len(dg.nodes)
    if n == 0:
        return LayoutResult(engine="layered", seconds=time.perf_counter() - t0)
    index = {dn.key: i for i, dn in enumerate(dg.nodes)}
    widths = [dn.w for dn in dg.nodes]
    heights = [dn.h for dn in dg.nodes]

    # group ancestry of each real node (outermost first)
    gparent = {g.id: g.parent for g in dg.groups}
    gdepth_max = max((g.depth for g in dg.groups if not g.collapsed), default=-1) + 1

    def chain_of(gid):
        out = []
        while gid is not None and gid in gparent:
            out.append(gid)
            gid = gparent[gid]
        out.reverse()
        return out

    chain_cache: dict = {}
    gchain = []
    for dn in dg.nodes:
        c = chain_cache.get(dn.group)
        if c is None:
            c = chain_cache[dn.group] = tuple(chain_of(dn.group))
        gchain.append(c)

    # -- 1. simple digraph, cycles broken -------------------------------------
    edge_pairs = []
    seen = set()
    for e in dg.edges:
        a, b = index[e.src], index[e.dst]
        if a != b and (a, b) not in seen:
            seen.add((a, b))
            edge_pairs.append((a, b))
    G = nx.DiGraph()
    G.add_nodes_from(range(n))
    G.add_edges_from(edge_pairs)
    reversed_pairs = set()
    if not nx.is_directed_acyclic_graph(G):
        reversed_pairs = _back_edges(n, edge_pairs)
        G = nx.DiGraph()
        G.add_nodes_from(range(n))
        G.add_edges_from((b, a) if (a, b) in reversed_pairs else (a, b) for a, b in edge_pairs)
    _check(cancelled)
    prog(0.1, "ranks")

    # -- 2. ranks -----------------------------------------------------------------
    topo = list(nx.topological_sort(G))
    rank = [0] * n
    for v in topo:
        rv = rank[v] + 1
        for s in G._succ[v]:
            if rank[s] < rv:
                rank[s] = rv
    # As late as possible first: leaves, weight transposes and inputs sit just
    # above the op that uses them instead of all in the top rank. Then, in
    # topological order, nodes that gather at least as much as they feed move
    # back up to just below their inputs (a running loss stays beside the
    # steps that feed it instead of sinking to the bottom); nodes that hang
    # only off sources through single edges (leaf -> transpose) stay put.
    for v in reversed(topo):
        if G._succ[v]:
            rank[v] = min(rank[s] for s in G._succ[v]) - 1
    free = bytearray(n)
    for v in topo:
        preds = G._pred[v]
        if not preds or (len(preds) == 1 and free[next(iter(preds))]):
            free[v] = 1
        elif len(preds) >= len(G._succ[v]):
            rank[v] = max(rank[p] for p in preds) + 1
    low = min(rank)
    if low:
        rank = [r - low for r in rank]
    nranks = max(rank) + 1
    _check(cancelled)

    # -- 3. dummies for long edges --------------------------------------------------
    succ: list[list[int]] = [[] for _ in range(n)]
    pred: list[list[int]] = [[] for _ in range(n)]
    paths: dict[tuple[int, int], list[int]] = {}
    dummy_budget = max(n, 1000)
    total = n
    vrank = list(rank)
    vw = list(widths)
    vgchain = list(gchain)
    for a, b in G.edges():
        span = rank[b] - rank[a]
        if span > 1 and dummy_budget >= span - 1:
            dummy_budget -= span - 1
            ca, cb = gchain[a], gchain[b]
            common = []
            for x, y in zip(ca, cb):
                if x != y:
                    break
                common.append(x)
            common = tuple(common)
            chain = [a]
            for r in range(rank[a] + 1, rank[b]):
                d = total
                total += 1
                vrank.append(r)
                vw.append(DUMMY_W)
                vgchain.append(common)
                succ.append([])
                pred.append([])
                chain.append(d)
            chain.append(b)
            for u, v in zip(chain, chain[1:]):
                succ[u].append(v)
                pred[v].append(u)
            paths[(a, b)] = chain
        else:
            succ[a].append(b)
            pred[b].append(a)
            paths[(a, b)] = [a, b]
    _check(cancelled)
    prog(0.25, "ordering")

    # -- 4. ordering ------------------------------------------------------------------
    layers: list[list[int]] = [[] for _ in range(nranks)]
    visited = bytearray(total)
    # initial order: iterative DFS from the sources, in topological order
    for s in topo:
        if pred[s] or visited[s]:
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

    def sort_layer(layer, bary):
        if not any(vgchain[v] for v in layer):
            layer.sort(key=lambda v: bary[v])
            return
        gsum: dict = {}
        for v in layer:
            for g in vgchain[v]:
                s = gsum.get(g)
                if s is None:
                    gsum[g] = [bary[v], 1]
                else:
                    s[0] += bary[v]
                    s[1] += 1
        gb = {g: s[0] / s[1] for g, s in gsum.items()}

        def key(v):
            return tuple((gb[g], g) for g in vgchain[v]) + ((bary[v], ""),)
        layer.sort(key=key)

    bary = pos[:]  # reused buffer
    # small pictures get more sweeps (cheap there, and they are looked at closely)
    sweeps = SWEEPS * 2 if total < 3000 else SWEEPS
    x_passes = X_PASSES * 2 if total < 3000 else X_PASSES
    for sweep in range(sweeps):
        down = sweep % 2 == 0
        rng = range(1, nranks) if down else range(nranks - 2, -1, -1)
        for r in rng:
            layer = layers[r]
            nbrs = pred if down else succ
            for v in layer:
                ns = nbrs[v]
                if ns:
                    bary[v] = sum(pos[u] for u in ns) / len(ns)
                else:
                    bary[v] = pos[v]
            sort_layer(layer, bary)
            for i, v in enumerate(layer):
                pos[v] = float(i)
        _check(cancelled)
        prog(0.25 + 0.35 * (sweep + 1) / sweeps, "ordering")

    # -- 5. x coordinates --------------------------------------------------------------
    # Separation between neighbours: box gap, plus room for group frames when
    # the two sit in different groups.
    def sep(u, v):
        cu, cv = vgchain[u], vgchain[v]
        k = 0
        for x, y in zip(cu, cv):
            if x != y:
                break
            k += 1
        extra = (len(cu) - k) + (len(cv) - k)
        return (vw[u] + vw[v]) / 2 + NODE_GAP + GROUP_PAD * extra

    xc = [0.0] * total
    seps = []
    for layer in layers:
        s = [sep(u, v) for u, v in zip(layer, layer[1:])]
        seps.append(s)
        x = 0.0
        for i, v in enumerate(layer):
            if i:
                x += s[i - 1]
            xc[v] = x
    # centre each layer on 0 to start
    for layer in layers:
        if layer:
            mid = (xc[layer[0]] + xc[layer[-1]]) / 2
            for v in layer:
                xc[v] -= mid
    for it in range(x_passes):
        down = it % 2 == 0
        rng = range(1, nranks) if down else range(nranks - 2, -1, -1)
        for r in rng:
            layer = layers[r]
            if not layer:
                continue
            nbrs = pred if down else succ
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
            xs = _place(desired, weights, seps[r])
            for v, x in zip(layer, xs):
                xc[v] = x
        _check(cancelled)
        prog(0.6 + 0.25 * (it + 1) / x_passes, "placing")

    # -- y coordinates --------------------------------------------------------------------
    rank_gap = RANK_GAP + gdepth_max * (2 * GROUP_PAD) + (GROUP_LABEL if gdepth_max else 0)
    rank_h = [0.0] * nranks
    for v in range(n):
        if heights[v] > rank_h[rank[v]]:
            rank_h[rank[v]] = heights[v]
    top = [0.0] * nranks
    y = 0.0
    for r in range(nranks):
        top[r] = y
        y += rank_h[r] + rank_gap
    minx = min(xc[v] - vw[v] / 2 for v in range(total))
    off_x = MARGIN - minx + gdepth_max * GROUP_PAD
    off_y = MARGIN + gdepth_max * GROUP_PAD + (GROUP_LABEL if gdepth_max else 0)
    cy = [0.0] * total  # centre y
    for v in range(total):
        r = vrank[v]
        cy[v] = off_y + top[r] + rank_h[r] / 2
    boxes = []
    for v, dn in enumerate(dg.nodes):
        x = xc[v] + off_x - widths[v] / 2
        yv = cy[v] - heights[v] / 2
        boxes.append(LayoutBox(key=dn.key, kind=dn.kind, node=dn.node, x=round(x, 2), y=round(yv, 2),
                               w=dn.w, h=dn.h, lines=list(dn.lines), copy_of=dn.copy_of, group=dn.group))
    prog(0.9, "routing")

    # -- 6. edges -------------------------------------------------------------------------------
    out_ports: dict[int, list] = {}
    in_ports: dict[int, list] = {}
    routes = []
    for e in dg.edges:
        a, b = index[e.src], index[e.dst]
        if a == b:
            routes.append(None)
            continue
        rev = (a, b) in reversed_pairs
        key = (b, a) if rev else (a, b)
        chain = paths.get(key, [key[0], key[1]])
        routes.append((e, chain, rev))
        u, w = chain[0], chain[-1]
        out_ports.setdefault(u, []).append((xc[chain[1]], len(routes) - 1))
        in_ports.setdefault(w, []).append((xc[chain[-2]], len(routes) - 1))

    def port_x(v, lst):
        lst.sort()
        k = len(lst)
        w = widths[v] * 0.8
        res = {}
        for i, (_, ri) in enumerate(lst):
            res[ri] = xc[v] + off_x - w / 2 + w * (i + 1) / (k + 1)
        return res

    outx: dict[int, float] = {}
    inx: dict[int, float] = {}
    for v, lst in out_ports.items():
        for ri, x in port_x(v, lst).items():
            outx[ri] = x
    for v, lst in in_ports.items():
        for ri, x in port_x(v, lst).items():
            inx[ri] = x
    edges = []
    for ri, item in enumerate(routes):
        if item is None:
            continue
        e, chain, rev = item
        u, w = chain[0], chain[-1]
        pts = [(outx[ri], cy[u] + heights[u] / 2)]
        for d in chain[1:-1]:
            pts.append((xc[d] + off_x, cy[d]))
        pts.append((inx[ri], cy[w] - heights[w] / 2))
        if rev:
            pts.reverse()
        edges.append(LayoutEdge(src=e.src, dst=e.dst, points=pts, spline=False,
                                trace_edges=list(e.trace_edges)))

    # -- group frames ------------------------------------------------------------------------
    groups = _frames(dg, boxes)
    width = max((b.x + b.w for b in boxes), default=0.0)
    height = max((b.y + b.h for b in boxes), default=0.0)
    for g in groups:
        if not g.collapsed:
            width = max(width, g.x + g.w)
            height = max(height, g.y + g.h)
    prog(1.0, "done")
    return LayoutResult(boxes=boxes, edges=edges, groups=groups, width=round(width + MARGIN, 2),
                        height=round(height + MARGIN, 2), engine="layered",
                        seconds=time.perf_counter() - t0, notes=list(dg.notes))


def _frames(dg: DrawGraph, boxes: list[LayoutBox]) -> list[LayoutGroup]:
    """Expanded groups: bounding box of their members (nested groups get more
    padding so frames nest visibly, a label strip on top). Collapsed groups: the
    frame of their box."""
    bykey = {b.key: b for b in boxes}
    gparent = {g.id: g.parent for g in dg.groups}
    ext: dict[str, list[float]] = {}
    height_below: dict[str, int] = {}
    for b in boxes:
        if b.kind == "group" and b.key in gparent:
            continue
        g = b.group
        while g is not None and g in gparent:
            r = ext.get(g)
            if r is None:
                ext[g] = [b.x, b.y, b.x + b.w, b.y + b.h]
            else:
                r[0] = min(r[0], b.x)
                r[1] = min(r[1], b.y)
                r[2] = max(r[2], b.x + b.w)
                r[3] = max(r[3], b.y + b.h)
            g = gparent[g]
    for b in boxes:  # collapsed groups count inside their parents
        if b.kind == "group" and b.key in gparent:
            g = gparent[b.key]
            while g is not None and g in gparent:
                r = ext.get(g)
                if r is None:
                    ext[g] = [b.x, b.y, b.x + b.w, b.y + b.h]
                else:
                    r[0] = min(r[0], b.x)
                    r[1] = min(r[1], b.y)
                    r[2] = max(r[2], b.x + b.w)
                    r[3] = max(r[3], b.y + b.h)
                g = gparent[g]
    # nesting level below each group, for padding
    for g in sorted(dg.groups, key=lambda g: -g.depth):
        height_below.setdefault(g.id, 0)
        p = g.parent
        if p is not None and not g.collapsed:
            height_below[p] = max(height_below.get(p, 0), height_below[g.id] + 1)
    out = []
    for g in dg.groups:
        lg = LayoutGroup(id=g.id, module=g.module, module_class=g.module_class,
                         members=list(g.members), collapsed=g.collapsed, repeat=g.repeat,
                         call=g.call, calls=g.calls)
        if g.collapsed:
            b = bykey.get(g.id)
            if b is not None:
                lg.x, lg.y, lg.w, lg.h = b.x, b.y, b.w, b.h
        else:
            r = ext.get(g.id)
            if r is not None:
                pad = GROUP_PAD * (1 + height_below.get(g.id, 0))
                lg.x = round(r[0] - pad, 2)
                lg.y = round(r[1] - pad - GROUP_LABEL, 2)
                lg.w = round(r[2] - r[0] + 2 * pad, 2)
                lg.h = round(r[3] - r[1] + 2 * pad + GROUP_LABEL, 2)
        out.append(lg)
    return out


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
