"""Tell apart the calls of a module that was called many times, from the graph alone.

`Node.module` names the module whose forward made a node, not *which call*
made it: an RNN cell run for 1,000 steps leaves 5,000 nodes all labelled
"cell". `Node.module_call` answers that when the recorder fills it; when it
does not, this module infers the calls from the graph's shape, so the layout
can still roll the calls into one "×N" group and unroll them on demand.

The inference is deliberately strict (a wrong split would draw a wrong
picture; no split only draws a bigger one):

1. N = the greatest common divisor of the op counts among the module's
   (non-leaf) nodes; N < 2 means no repetition.
2. An *anchor* op occurring exactly N times marks the end of each call (the
   cell's output, e.g. TanhBackward0). Every node belongs to the first anchor
   downstream of it within the module (found by one reverse-topological
   pass).
3. Accepted only if that yields N calls with exactly the same op multiset
   each, and every node was assigned; otherwise the next candidate anchor is
   tried, and then the module is left unsplit.
"""

from __future__ import annotations

from collections import Counter
from math import gcd
from typing import Optional, cast

from autogradviz.engine.trace.model import Graph


def infer_calls(graph: Graph, max_candidates: int = 4) -> dict[str, dict[str, int]]:
    """{module path: {node id: call index (0 = first call)}} for every module
    path (or prefix) whose nodes carry no `module_call` and split cleanly into
    two or more identical calls."""
    by_path: dict[str, list[str]] = {}
    ops: dict[str, str] = {}
    for n in graph.nodes:
        ops[n.id] = n.op
        if not n.module or n.kind == "leaf" or n.module_call is not None:
            continue
        parts = n.module.split(".")
        for i in range(len(parts)):
            by_path.setdefault(".".join(parts[: i + 1]), []).append(n.id)
    if not by_path:
        return {}
    succ: dict[str, list[str]] = {}
    for e in graph.edges:
        succ.setdefault(e.src, []).append(e.dst)
    out = {}
    for path, members in by_path.items():
        if len(members) < 4:
            continue
        res = _split(members, ops, succ, max_candidates)
        if res is not None:
            out[path] = res
    return out


def _split(members: list[str], ops: dict, succ: dict, max_candidates: int) -> Optional[dict[str, int]]:
    counts = Counter(ops[m] for m in members)
    n = 0
    for c in counts.values():
        n = gcd(n, c)
    if n < 2:
        return None
    inside = set(members)
    # topological order of the module's subgraph (Kahn)
    indeg = dict.fromkeys(members, 0)
    ssucc = {}
    for m in members:
        lst = [s for s in succ.get(m, ()) if s in inside]
        ssucc[m] = lst
        for s in lst:
            indeg[s] += 1
    order = [m for m in members if indeg[m] == 0]
    i = 0
    while i < len(order):
        for s in ssucc[order[i]]:
            indeg[s] -= 1
            if indeg[s] == 0:
                order.append(s)
        i += 1
    if len(order) != len(members):
        return None  # not a DAG (cannot happen in autograd graphs)
    pos = {m: k for k, m in enumerate(order)}
    # candidates: ops occurring exactly N times, latest (on average) first
    cands = [op for op, c in counts.items() if c == n]
    avg = {op: 0.0 for op in cands}
    for m in members:
        if ops[m] in avg:
            avg[ops[m]] += pos[m]
    cands.sort(key=lambda op: -avg[op])
    per_call = {op: c // n for op, c in counts.items()}
    for op in cands[:max_candidates]:
        anchor: dict[str, Optional[str]] = {}
        for m in reversed(order):
            if ops[m] == op:
                anchor[m] = m
                continue
            best = None
            for s in ssucc[m]:
                a = anchor[s]
                if a is not None and (best is None or pos[a] < pos[best]):
                    best = a
            anchor[m] = best
        if any(a is None for a in anchor.values()):
            continue
        anchors = cast("dict[str, str]", anchor)  # (no None left)
        groups: dict[str, Counter] = {}
        for m in members:
            groups.setdefault(anchors[m], Counter())[ops[m]] += 1
        if len(groups) != n or any(dict(g) != per_call for g in groups.values()):
            continue
        index = {a: k for k, a in enumerate(sorted(groups, key=lambda a: pos[a]))}
        return {m: index[anchors[m]] for m in members}
    return None
