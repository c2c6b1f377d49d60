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
gradient, so its edge is missing). A first call that differs only by
first-use effects (its input needed no gradient, so the nodes fed by it
alone are missing; or its input is a leaf) is matched to the second call,
which is then the drawn one (`match_first_use`). A module whose calls do not
all match is not folded (prepare.py draws it as one "×N" box, as before).
"""

from __future__ import annotations

from typing import Optional, cast

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
    kinds = {n.id: n.kind for n in graph.nodes}
    alias: dict[str, str] = {}
    call_of: dict[str, tuple[str, int]] = {}
    for path, calls in by_call.items():
        if len(calls) < 2 or 0 not in calls:
            continue
        canonical = {k: _canonical(keys, units, preds, succs, ops, copy_key) for k, keys in calls.items()}
        if any(o is None for o in canonical.values()):
            continue
        orders = cast("dict[int, tuple[list[str], tuple]]", canonical)  # (no None left)
        # the drawn call: the first, or the second when only the first differs
        # (its input needed no gradient: a first use, see match_first_use)
        ref = 1 if 1 in orders and orders[0][1] != orders[1][1] else 0
        if any(o[1] != orders[ref][1] for k, o in orders.items() if k):
            continue  # not all calls are the same graph: leave the path unfolded
        first_map = dict(zip(orders[0][0], orders[ref][0]))
        if ref:
            found = match_first_use(calls[0], calls[ref], units, preds, succs, ops, kinds, copy_key)
            if found is None:
                continue
            first_map, extras = found
            hoist(extras, path, units)
        for k, (order, _sig) in orders.items():
            for i, key in enumerate(order):
                if key not in first_map and k == 0:
                    continue  # an input leaf hoisted out of the frame
                call_of[key] = (path, k)
                if k != ref:
                    alias[key] = first_map[key] if k == 0 else orders[ref][0][i]
    return alias, call_of


def hoist(keys: list[str], path: str, units: dict) -> None:
    """Draw the units `keys` (input leaves of a first call) outside `path`'s frame."""
    for key in keys:
        nid, cp, chain = units[key]
        i = next(i for i, (p, _inst) in enumerate(chain) if p == path)
        units[key] = (nid, cp, list(chain[:i]))


def vanishing(keys: list[str], units: dict, preds: dict, kinds: dict, copy_key: dict) -> set[str]:
    """The units of a call that exist only because its input from outside
    needed a gradient: non-leaf nodes all of whose inputs come from outside
    the call (no parameter) or from such nodes. A first call fed a tensor that
    needs no gradient (an encoder's layer 0 fed `x`) records none of them."""
    inside = set(keys)
    gone: set[str] = set()
    grew = True
    while grew:
        grew = False
        for k in keys:
            n = units[k][0]
            if k in gone or units[k][1] is not None or kinds.get(n) == "leaf" or not preds.get(n):
                continue
            srcs = [copy_key.get((src, n), src) for _slot, src in preds[n]]
            if all(s in gone or (s not in inside and kinds.get(units.get(s, (s,))[0]) != "leaf") for s in srcs):
                gone.add(k)
                grew = True
    return gone


def match_first_use(first: list[str], ref: list[str], units: dict, preds: dict, succs: dict, ops: dict,
                    kinds: dict, copy_key: dict) -> Optional[tuple[dict[str, str], list[str]]]:
    """Whether the first call `first` is the call `ref` modulo first-use effects,
    and if so (its unit -> counterpart in `ref`, its input leaves).

    First-use effects, all found from the graphs: `ref`'s `vanishing` nodes
    are missing in `first` (its input needed no gradient); a leaf that feeds
    `first` where `ref` is fed from outside is the first call's input (a
    leaf `x` that needs a gradient), drawn outside the frame. Everything else
    must match node for node: the same ops with the same inner wiring, the
    same parameters on the same slots."""
    def is_leaf(k: str) -> bool:
        return kinds.get(units[k][0]) == "leaf"

    core = [k for k in ref if k not in vanishing(ref, units, preds, kinds, copy_key)]
    a = _canonical([k for k in first if not is_leaf(k)], units, preds, succs, ops, copy_key)
    b = _canonical([k for k in core if not is_leaf(k)], units, preds, succs, ops, copy_key)
    if a is None or b is None or a[1] != b[1]:
        return None
    mapping = dict(zip(a[0], b[0]))
    mine, theirs = set(first), set(ref)
    extras: list[str] = []
    for k0, kr in zip(a[0], b[0]):
        ins0 = _slot_inputs(units[k0][0], preds, copy_key)
        insr = _slot_inputs(units[kr][0], preds, copy_key)
        for slot, s0 in ins0.items():
            if s0 not in mine or not is_leaf(s0):
                continue
            sr = insr.get(slot)
            if sr in theirs and is_leaf(sr):
                mapping[s0] = sr  # the same parameter's counterpart
            elif sr is not None and sr not in theirs:
                extras.append(s0)  # the first call's own input, where `ref` is fed the previous call's
            else:
                return None
        for slot, sr in insr.items():
            if sr in theirs and is_leaf(sr) and mapping.get(ins0.get(slot)) != sr:  # type: ignore[arg-type]  # (a missing slot's None is simply not in mapping)
                return None  # a parameter of `ref` missing in `first`
    if set(mapping) | set(extras) != mine:
        return None
    return mapping, extras


def _slot_inputs(n: str, preds: dict, copy_key: dict) -> dict[tuple[int, int], str]:
    """Node `n`'s input unit keys by (slot, rank among the inputs on that slot)."""
    out: dict[tuple[int, int], str] = {}
    rank: dict[int, int] = {}
    for slot, src in preds.get(n, ()):
        r = rank[slot] = rank.get(slot, -1) + 1
        out[(slot, r)] = copy_key.get((src, n), src)
    return out


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
