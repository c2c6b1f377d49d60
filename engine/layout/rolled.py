"""The rolled view of a module called N times: one call's inner graph and a loop.

An RNN cell run for 1,000 steps makes 1,000 copies of the same small graph.
Rolled, they are drawn as torchlens draws a recurrent module: the first
call's nodes, inside a frame "×N", with the edges that carried each call's
output into the next call folded into one loop-back edge marked ×N. Every
node of the other calls stands for its counterpart in the first call (its
*representative*), so each drawn box and edge still maps to the trace nodes
and edges it stands for, and expanding (unrolling) gives back every call.

Counterparts are found, not assumed: each call's nodes are ordered by a
breadth-first walk from the call's exits (its nodes whose output leaves the
call) back along their inputs in slot order; two calls correspond when these
walks give the same ops with the same inner wiring, node by node (inputs
from outside the call may differ: the first call's initial state may need no
gradient, so its edge is missing). A module
whose calls do not all match the first is not folded (prepare.py draws it as
one "×N" box, as before).
"""

from __future__ import annotations

from typing import Optional

from autogradviz.engine.trace.model import Graph


def fold_calls(graph: Graph, units: dict, rolled: set[str],
               copy_key: dict) -> tuple[dict[str, str], dict[str, tuple[str, int]]]:
    """(alias, call_of) for the rolled module paths whose calls all match.

    `units`: prepare's draw units, key -> (trace node id, copy_of, chain of
    (path, call) elements); `copy_key`: (leaf, consumer) -> the unit key of
    that per-use copy. `alias`: unit key of a node in call k >= 1 -> the unit
    key of its counterpart in call 0. `call_of`: unit key -> (path, call) for
    every unit inside a folded path (call 0's too)."""
    by_call: dict[str, dict[int, list[str]]] = {}
    for key, (_nid, _cp, chain) in units.items():
        for p, inst in chain:
            if p in rolled:
                by_call.setdefault(p, {}).setdefault(inst, []).append(key)
                break
    ops = {n.id: n.op for n in graph.nodes}
    preds: dict[str, list[tuple[int, str]]] = {}
    succs: dict[str, list[str]] = {}
    for e in graph.edges:
        preds.setdefault(e.dst, []).append((e.slot, e.src))
        succs.setdefault(e.src, []).append(e.dst)
    for lst in preds.values():
        lst.sort(key=lambda t: t[0])  # by slot; ties keep the edge order, not node-id order
    alias: dict[str, str] = {}
    call_of: dict[str, tuple[str, int]] = {}
    for path, calls in by_call.items():
        if len(calls) < 2 or 0 not in calls:
            continue
        orders = {k: _canonical(keys, units, preds, succs, ops, copy_key) for k, keys in calls.items()}
        first = orders[0]
        if first is None or any(o is None or o[1] != first[1] for o in orders.values()):
            continue  # not all calls are the same graph: leave the path unfolded
        for k, (order, _sig) in orders.items():
            for i, key in enumerate(order):
                call_of[key] = (path, k)
                if k:
                    alias[key] = first[0][i]
    return alias, call_of


def _canonical(keys: list[str], units: dict, preds: dict, succs: dict, ops: dict,
               copy_key: dict) -> Optional[tuple[list[str], tuple]]:
    """(unit keys of one call in walk order, its signature), or None."""
    inside = set(keys)
    inside_nodes = {units[k][0] for k in keys}

    def inputs(k: str) -> list[Optional[str]]:
        """The unit keys feeding unit `k` inside the call (None: from outside)."""
        n = units[k][0]
        out = []
        for _slot, src in preds.get(n, ()):
            sk = copy_key.get((src, n), src)
            out.append(sk if sk in inside else None)
        return out

    exits = [k for k in keys if units[k][1] is None
             and (not succs.get(units[k][0]) or any(d not in inside_nodes for d in succs[units[k][0]]))]
    order: list[str] = []
    pos: dict[str, int] = {}
    queue = list(exits)
    seen = set(queue)
    while queue:
        k = queue.pop(0)
        pos[k] = len(order)
        order.append(k)
        for sk in inputs(k):
            if sk is not None and sk not in seen:
                seen.add(sk)
                queue.append(sk)
    if len(order) != len(keys):
        return None
    # inner wiring only: an input from outside the call (the previous call's
    # output, or nothing for the first call's initial state) may differ
    sig = tuple((ops.get(units[k][0]), tuple(pos[sk] for sk in inputs(k) if sk is not None))
                for k in order)
    return order, sig
