"""Turn a trace graph into the graph we actually draw.

The trace graph is not drawn as is, for two measured reasons (ARCHITECTURE.md,
"Layout facts"): a shared leaf (an RNN's weights, a tied embedding) fans out
to every step, and Graphviz on those long edges did not finish in 300 s for a
605-node graph; and a 6,000-node graph is unreadable as one picture. So:

* **Per-use leaves.** A leaf consumed by k distinct nodes is drawn k times,
  once next to each consumer (keys `f"{leaf}#use{i}"`, `copy_of` = the leaf's
  id, so the GUI can light all copies up together). A leaf with one consumer
  keeps its own id as key.
* **Module groups.** `Node.module` paths (dotted, nested) become a tree of
  groups. An expanded group is a frame around its members; a collapsed group is
  one box (kind `"group"`) standing for all its nodes. Groups whose members are
  exactly their single child's are dropped (the child is more specific).
* **Rolling.** A module called N times (`Node.module_call` tells the calls
  apart; without it `calls.infer_calls` finds identical calls from the
  graph's shape) can be rolled into one collapsed group "×N" and unrolled on
  demand. When neither works, all nodes of a module path form one group.
* **Auto.** With `group="auto"` and no explicit sets, a graph of more than
  `LARGE_GRAPH` nodes is rolled and collapsed at the deepest module level that
  brings it down to about `TARGET_BOXES` boxes.

Expanding everything (no collapsed group, every path unrolled) gives back the
original graph exactly: each drawn box maps to one trace node (copies via
`copy_of`) and each trace edge to exactly one drawn edge (tested).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import Optional

from autogradviz.engine.trace.model import Graph, Node
from . import text_metrics as tm
from .calls import infer_calls
from .rolled import fold_calls
from .repeats import apply_repeats, find_repeats
from .model import LayoutNote

LARGE_GRAPH = 300  # trace nodes; above this "auto" rolls and collapses
TARGET_BOXES = 300  # what auto-collapsing aims for
MIN_USEFUL_BOXES = 8  # never collapse so far that fewer boxes remain
FULL_MAX_BOXES = 3500  # ...unless the full picture is bigger than this
# With repeated layers folded (repeats.py), auto-collapsing aims lower: the
# point of folding a deep network is a picture readable at Fit (issue 18:
# ~60 boxes keep 10 px text at the default window size)
READABLE_BOXES = 60


@dataclass
class DrawNode:
    key: str
    kind: str  # "op", "leaf", "group", "saved"
    node: Optional[str]  # trace node id (owner for "saved"; None for groups)
    lines: list[str]
    w: float
    h: float
    copy_of: Optional[str] = None
    group: Optional[str] = None  # innermost *expanded* group containing it


@dataclass
class DrawEdge:
    src: str
    dst: str
    trace_edges: list[int] = field(default_factory=list)
    loop: int = 0  # N: the loop-back edge of a rolled module's N calls (rolled.py)


@dataclass
class DrawGroup:
    id: str  # "g:" + chain of path[@call] elements; the box key when collapsed
    module: str
    module_class: Optional[str]
    parent: Optional[str]
    depth: int
    members: list[str] = field(default_factory=list)  # trace node ids
    collapsed: bool = False
    repeat: int = 1
    call: Optional[int] = None  # which call, for one of several unrolled calls
    calls: int = 1


@dataclass
class DrawGraph:
    nodes: list[DrawNode] = field(default_factory=list)
    edges: list[DrawEdge] = field(default_factory=list)
    groups: list[DrawGroup] = field(default_factory=list)  # visible ones, parents first
    collapsed: set[str] = field(default_factory=set)  # effective module paths
    unrolled: set[str] = field(default_factory=set)  # effective module paths
    internal_edges: list[int] = field(default_factory=list)  # hidden inside a group box
    # rolled view: trace node id (or per-use copy key) of a later call's node ->
    # the draw key of its counterpart in the first call (rolled.py)
    stand_ins: dict = field(default_factory=dict)
    # repeated sibling modules (repeats.py): virtual path -> the sibling paths
    # it folds (folded or, when unrolled, drawn one by one)
    repeats: dict = field(default_factory=dict)
    # trace node id -> [module path, call] for the nodes of every module drawn
    # as its first call (rolled or folded): which copy runs when it runs
    copies: dict = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    note_codes: list[LayoutNote] = field(default_factory=list)  # notes[i] as a code (same index)


def _prefixes(path: str) -> list[str]:
    parts = path.split(".")
    return [".".join(parts[: i + 1]) for i in range(len(parts))]


class _Chains:
    """Each node's chain of group elements from outermost to innermost.

    An element is (path, instance) where instance is the index of the call of
    `path` that produced the node (0 when the path was called once or calls
    are unknown). Group identity is the chain prefix, so groups form a tree.
    """

    def __init__(self, graph: Graph):
        direct_calls: dict[str, set[int]] = {}
        cls: dict[str, str] = {}
        for n in graph.nodes:
            if n.module:
                if n.module_call is not None:
                    direct_calls.setdefault(n.module, set()).add(n.module_call)
                if n.module_class and n.module not in cls:
                    cls[n.module] = n.module_class
        self.calls = {p: sorted(c) for p, c in direct_calls.items()}
        self.module_class = cls
        # Calls inferred from the graph's shape where module_call is missing.
        self.inferred = infer_calls(graph)
        self.elements: dict[str, list[tuple[str, int]]] = {}
        for n in graph.nodes:
            self.elements[n.id] = self._chain(n) if n.module else []
        # Which module paths are called more than once.
        self.repeated = {p: len(c) for p, c in self.calls.items() if len(c) > 1}
        for p, m in self.inferred.items():
            if p not in self.repeated:
                self.repeated[p] = max(m.values()) + 1

    def _chain(self, n: Node) -> list[tuple[str, int]]:
        out: list[tuple[str, int]] = []
        for p in _prefixes(n.module or ""):
            calls = self.calls.get(p)
            inf = self.inferred.get(p)
            if inf is not None and n.id in inf and not (calls and len(calls) > 1):
                out.append((p, inf[n.id]))
            elif not calls or len(calls) < 2 or n.module_call is None:
                out.append((p, 0))
            else:
                # Global call counter: a parent's call number is the largest of
                # its call numbers not after the (inner) call that made n.
                i = bisect.bisect_right(calls, n.module_call) - 1
                out.append((p, max(i, 0)))
        return out


def _group_id(chain: list[tuple[str, object]]) -> str:
    parts = []
    for p, inst in chain:
        parts.append(p if inst == 0 else f"{p}@{inst}")
    return "g:" + "/".join(parts)


def prepare(graph: Graph, group: str = "auto", collapsed: Optional[set[str]] = None,  # noqa: C901 - over the cap before it was set; to be split (issue 22)
            unrolled: Optional[set[str]] = None, show_saved: bool = False,
            per_use_leaves: bool = True, rolled_view: str = "box",
            fold_repeated: str = "auto") -> DrawGraph:
    out = DrawGraph()
    nodes = {n.id: n for n in graph.nodes}
    large = len(graph.nodes) > LARGE_GRAPH
    use_groups = group != "none"
    chains = _Chains(graph) if use_groups else None

    # -- consumers of each leaf (distinct, in edge order) ----------------------
    consumers: dict[str, list[str]] = {}
    for e in graph.edges:
        if e.src in nodes and e.dst in nodes and nodes[e.src].kind == "leaf":
            lst = consumers.setdefault(e.src, [])
            if e.dst not in lst:
                lst.append(e.dst)

    # -- units: what would be drawn with everything expanded -------------------
    # unit key -> (trace node id, copy_of, element chain)
    units: dict[str, tuple[str, Optional[str], list]] = {}
    copy_key: dict[tuple[str, str], str] = {}  # (leaf, consumer) -> unit key

    def elems(nid: str) -> list:
        return list(chains.elements[nid]) if chains else []

    # When the trace names the module of each parameter, a leaf it names none
    # is an input (the script's `x`), not part of any module: drawn outside
    # the module frames, not inside its first consumer's (where it looked
    # like a parameter of that layer, and sat inside a checkpoint's region).
    params_known = any(n.kind == "leaf" and n.module for n in graph.nodes)

    def leaf_elems(n, consumer: str) -> list:
        return [] if params_known and not n.module else elems(consumer)

    for n in graph.nodes:
        cons = consumers.get(n.id, [])
        if per_use_leaves and n.kind == "leaf" and cons:
            if len(cons) == 1:
                units[n.id] = (n.id, None, leaf_elems(n, cons[0]))
                copy_key[(n.id, cons[0])] = n.id
            else:
                for i, c in enumerate(cons):
                    k = f"{n.id}#use{i}"
                    units[k] = (n.id, n.id, leaf_elems(n, c))
                    copy_key[(n.id, c)] = k
        else:
            units[n.id] = (n.id, None, elems(n.id))

    # -- repeated sibling modules: N identical layers as N calls of one (repeats.py)
    virtual: set[str] = set()
    if chains is not None and (fold_repeated == "on" or (fold_repeated == "auto" and large)):
        repeats = find_repeats(graph, units, copy_key, chains.module_class, chains.repeated)
        out.repeats = {r.path: list(r.members) for r in repeats}
        folding = [r for r in repeats if not (unrolled and r.path in unrolled)]
        apply_repeats(folding, units, chains.module_class, chains.repeated)
        virtual = {r.path for r in folding}

    # -- rolling ----------------------------------------------------------------
    rolled_paths: set[str] = set()
    alias: dict[str, str] = {}
    call_of: dict[str, tuple[str, int]] = {}
    folded: set[str] = set()
    if chains is not None and chains.repeated:
        if unrolled is None:
            roll = group == "auto" and large and _rolling_pays(units, set(chains.repeated) - virtual)
            eff_unrolled = set() if roll else set(chains.repeated)
        else:
            eff_unrolled = set(unrolled)
        eff_unrolled -= virtual  # a folded run is folded (unrolled ones were not applied)
        rolled_paths = set(chains.repeated) - eff_unrolled
        out.unrolled = set(chains.repeated) & eff_unrolled
        if rolled_view == "inner" and rolled_paths:
            # the first call's graph stands for every call (rolled.py)
            alias, call_of = fold_calls(graph, units, rolled_paths, copy_key)
            folded = {p for p, _ in call_of.values()}
        for key, (nid, cp, ch) in units.items():
            new = []
            for p, inst in ch:
                if p in rolled_paths:
                    new.append((p, "*"))
                    if p in folded:
                        continue  # the representative call's inner groups stay
                    break  # everything inside a rolled group is hidden
                new.append((p, inst))
            units[key] = (nid, cp, new)
        # units of the other calls are drawn as their counterparts
        for key in alias:
            units.pop(key, None)

    # -- the group tree -----------------------------------------------------------
    gmembers: dict[str, set[str]] = {}
    gunits: dict[str, int] = {}
    ginfo: dict[str, tuple[str, Optional[str], int, object]] = {}  # id -> (path, parent, depth, inst)
    unit_gids: dict[str, list[str]] = {}
    for key, (nid, _cp, ch) in units.items():
        gids = []
        parent = None
        for d in range(len(ch)):
            gid = _group_id(ch[: d + 1])
            gids.append(gid)
            if gid not in ginfo:
                ginfo[gid] = (ch[d][0], parent, d, ch[d][1])
            gmembers.setdefault(gid, set()).add(nid)
            gunits[gid] = gunits.get(gid, 0) + 1
            parent = gid
        unit_gids[key] = gids

    # Drop a group whose members equal its only child's (keep the child).
    children: dict[Optional[str], list[str]] = {}
    for gid, (_, parent, _, _) in ginfo.items():
        children.setdefault(parent, []).append(gid)
    redundant = set()
    for gid in ginfo:
        kids = children.get(gid, [])
        if len(kids) == 1 and gunits[kids[0]] == gunits[gid] and ginfo[gid][3] != "*":
            redundant.add(gid)
    if redundant:
        for key in unit_gids:
            unit_gids[key] = [g for g in unit_gids[key] if g not in redundant]
    kept = [g for g in ginfo if g not in redundant]
    parent_of: dict[str, Optional[str]] = {}
    depth_of: dict[str, int] = {}
    for gids in unit_gids.values():
        prev = None
        for d, g in enumerate(gids):
            parent_of[g] = prev
            depth_of[g] = d
            prev = g

    # -- what is collapsed ----------------------------------------------------------
    # rolled groups are boxes (unless drawn as their first call's graph)
    forced = {g for g in kept if ginfo[g][3] == "*" and ginfo[g][0] not in folded}
    if collapsed is not None:
        explicit = {g for g in kept if ginfo[g][0] in collapsed}
        coll = explicit | forced
    elif group == "auto" and large and kept:
        coll = forced | _auto_collapse(unit_gids, forced, depth_of, gunits,
                                       READABLE_BOXES if virtual else TARGET_BOXES)
    else:
        coll = set(forced)

    # Representative drawn key of each unit: its first collapsed group, else itself.
    rep: dict[str, str] = {}
    box_group: dict[str, Optional[str]] = {}
    visible_groups: list[str] = []
    for key, gids in unit_gids.items():
        r = key
        inner = None
        for g in gids:
            if g in coll:
                r = g
                break
            inner = g
        rep[key] = r
        box_group.setdefault(r, inner)
    for g in kept:
        # visible: no collapsed ancestor
        p = parent_of.get(g)
        hidden = False
        while p is not None:
            if p in coll:
                hidden = True
                break
            p = parent_of.get(p)
        if not hidden and g in parent_of:
            visible_groups.append(g)
    visible_groups.sort(key=lambda g: depth_of[g])

    # -- boxes ------------------------------------------------------------------------
    made = set()
    for key, (nid, cp, _) in units.items():
        r = rep[key]
        if r in made:
            continue
        made.add(r)
        if r == key:
            n = nodes[nid]
            lines = tm.node_lines(n)
            w, h = tm.box_size(lines)
            out.nodes.append(DrawNode(key, n.kind, nid, lines, w, h, copy_of=cp, group=box_group[r]))
        else:
            path, _, _, inst = ginfo[r]
            assert chains is not None  # a group box exists only when grouping
            n_calls = chains.repeated.get(path, 1)
            repeat = n_calls if inst == "*" else 1
            lines = tm.group_lines(path, chains.module_class.get(path), len(gmembers[r]), repeat,
                                   call=inst if isinstance(inst, int) else None, calls=n_calls)
            w, h = tm.box_size(lines)
            out.nodes.append(DrawNode(r, "group", None, lines, w, h, group=box_group[r]))

    for g in visible_groups:
        path, _, _, inst = ginfo[g]
        assert chains is not None  # groups exist only when grouping
        out.groups.append(DrawGroup(
            id=g, module=path, module_class=chains.module_class.get(path),
            parent=parent_of.get(g), depth=depth_of[g],
            members=sorted(gmembers[g]), collapsed=g in coll,
            repeat=chains.repeated.get(path, 1) if inst == "*" else 1,
            call=inst if isinstance(inst, int) and chains.repeated.get(path, 1) > 1 else None,
            calls=chains.repeated.get(path, 1)))
    out.collapsed = {ginfo[g][0] for g in coll if g in ginfo and ginfo[g][3] != "*"}
    if collapsed is not None:
        out.collapsed |= set(collapsed)

    # -- edges --------------------------------------------------------------------------
    def unit_of(nid: str, consumer: str) -> str:
        k = copy_key.get((nid, consumer))
        k = k if k is not None else nid
        return alias.get(k, k)

    def crosses_calls(src: str, dst: str) -> int:
        """N when trace edge src -> dst joins two different calls of a folded
        module (call k's output into call k+1): the loop-back edge."""
        a = call_of.get(copy_key.get((src, dst), src))
        b = call_of.get(dst)
        if a is not None and b is not None and a[0] == b[0] and a[1] != b[1]:
            assert chains is not None  # calls are told apart only when grouping
            return chains.repeated.get(a[0], 0)
        return 0

    merged: dict[tuple[str, str], DrawEdge] = {}
    for i, e in enumerate(graph.edges):
        if e.src not in nodes or e.dst not in nodes:
            continue
        a = rep[unit_of(e.src, e.dst)]
        b = rep.get(unit_of(e.dst, ""))
        if b is None:  # a leaf consuming something (not in autograd graphs): its first copy
            b = rep[copy_key[(e.dst, consumers[e.dst][0])]]
        if a == b:
            out.internal_edges.append(i)
            continue
        de = merged.get((a, b))
        if de is None:
            de = merged[(a, b)] = DrawEdge(a, b)
            out.edges.append(de)
        de.trace_edges.append(i)
        if call_of:
            de.loop = max(de.loop, crosses_calls(e.src, e.dst))

    for k, r in alias.items():
        out.stand_ins[k] = rep.get(r, r)
    out.copies = {k: [p, c] for k, (p, c) in call_of.items() if "#use" not in k}
    out.unrolled |= {p for p in out.repeats if unrolled and p in unrolled}

    # -- saved tensors (extra boxes next to their owner) --------------------------------
    if show_saved:
        for dn in list(out.nodes):
            if dn.kind not in ("op",) or dn.node is None:
                continue
            # one small box per owner, its tensors one under the other: boxes
            # side by side would turn the graph into a wide strip; the
            # non-tensor attributes (alpha, strides) stay in the Inspector
            lines = [line for sv in nodes[dn.node].saved if sv.tensor is not None
                     for line in tm.saved_lines(sv.name, sv.tensor)]
            if not lines:
                continue
            w, h = tm.box_size(lines)
            k = f"{dn.node}#saved"
            out.nodes.append(DrawNode(k, "saved", dn.node, lines, w, h, group=dn.group))
            out.edges.append(DrawEdge(k, dn.key, []))

    if group == "auto" and large and collapsed is None and (coll or rolled_paths):
        n_boxes = len(out.nodes)
        repeated = chains.repeated if chains is not None else {}
        what = []
        if rolled_paths:
            what.append(", ".join(f"{p} \u00d7{repeated[p]}" for p in sorted(rolled_paths))
                        + (" rolled: the first call drawn, with a loop-back edge" if folded >= rolled_paths
                           else " rolled into one box"))
        n_coll = len(coll - forced)
        if n_coll:
            what.append(f"{n_coll} module groups collapsed")
        out.notes.append(
            f"Large graph ({len(graph.nodes)} nodes): {'; '.join(what)}; {n_boxes} boxes drawn. "
            "Expand a group to see inside.")
        out.note_codes.append(LayoutNote("large_graph", {
            "nodes": len(graph.nodes), "boxes": n_boxes,
            "rolled": {p: repeated[p] for p in sorted(rolled_paths)},
            "folded": sorted(folded & rolled_paths),
            "repeats": sorted(virtual),
            "collapsed_groups": n_coll}))
    return out


def _rolling_pays(units: dict, repeated: set[str]) -> bool:
    """Roll repeated modules by default only when the calls drawn one box each
    would still be too many, and rolling at least halves that: an RNN loop whose whole body is the cell shrinks from N boxes to
    one; a loop that also does work outside the module (a running loss) keeps
    N boxes outside anyway, and one hub box with N edges reads worse (and is
    slow for Graphviz) than a chain of N collapsed calls."""
    per_call = set()
    rolled = set()
    for key, (_, _, ch) in units.items():
        a = b = key
        for i, (p, _inst) in enumerate(ch):
            if p in repeated:
                a = (tuple(ch[: i + 1]),)
                b = (tuple(ch[:i]), p)
                break
        per_call.add(a)
        rolled.add(b)
    # a chain of N collapsed calls is the better picture while it is small
    return len(per_call) > TARGET_BOXES and len(rolled) <= 0.5 * len(per_call)


def _auto_collapse(unit_gids: dict[str, list[str]], forced: set[str],
                   depth_of: dict[str, int], gunits: dict[str, int],
                   target: int = TARGET_BOXES) -> set[str]:
    """Collapse every group at one depth d: the deepest d whose picture has at
    most TARGET_BOXES boxes (but not fewer than MIN_USEFUL_BOXES when a deeper
    level exists). Groups of a single unit are never collapsed (pointless)."""
    max_depth = max(depth_of.values(), default=-1)

    def boxes_at(d: Optional[int]) -> tuple[int, set[str]]:
        reps = set()
        chosen = set()
        for key, gids in unit_gids.items():
            r = key
            for g in gids:
                if g in forced or (d is not None and depth_of[g] == d and gunits[g] > 1):
                    r = g
                    if g not in forced:
                        chosen.add(g)
                    break
            reps.add(r)
        return len(reps), chosen

    n_none, _ = boxes_at(None)
    if n_none <= target:
        return set()
    prev = None
    for d in range(max_depth, -1, -1):
        n, chosen = boxes_at(d)
        if n <= target:
            if n < MIN_USEFUL_BOXES:
                if prev is not None:
                    return prev[1]
                if n_none <= FULL_MAX_BOXES:
                    # one big module (an RNN cell whose calls cannot be told
                    # apart): a few boxes say nothing; draw it all instead
                    return set()
            return chosen
        prev = (n, chosen)
    return prev[1] if prev else set()
