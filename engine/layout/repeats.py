"""Repeated sibling modules folded into one: a deep network's N identical layers drawn once, ×N.

A 12-layer `nn.TransformerEncoder` records 911 nodes, ~76 per layer; drawn
in full it is a column too long to read at any zoom that shows it. Its
layers `enc.layers.1` … `enc.layers.11` are different modules (each called
once), so the rolled view of a module *called* N times (rolled.py) does not
apply; but they are the same graph N times, each fed the previous one's
output. So they are treated exactly like the N calls of one module: a
*virtual* module path (`enc.layers.1–11`, the en dash tells it from a real
path) is called N times, call k being sibling k, and the rolled view draws
the first sibling's graph with a loop-back edge ×N. Every node of the other
siblings stands for its counterpart (LayoutResult.stand_ins), so stepping
lights the drawn box whose copy runs, and unrolling the virtual path gives
back the original graph.

Siblings fold when (all found, none assumed):
* they are children of the same parent path, of the same module class, each
  called once (a module called several times is rolled.py's case);
* they form a chain: every input of sibling k (k ≥ 1) that comes from
  outside it (leaves aside) comes from sibling k-1, as layers stacked in an
  `nn.Sequential`/`ModuleList` are; two Linear layers with an activation
  between them are not folded (the picture would draw a cycle);
* their graphs match node for node (rolled._canonical: the same ops with
  the same inner wiring).
A run of at least two such consecutive siblings folds. A first layer that
differs only by first-use effects folds with them (an encoder's layer 0 fed
a tensor `x` that needs no gradient records 73 nodes, not 76: the transpose,
clone and view of its input exist only when that input needs a gradient;
rolled.match_first_use finds them): the second layer is then the drawn one,
and layer 0's nodes stand for their counterparts in it.
"""

from __future__ import annotations

from dataclasses import dataclass

from autogradviz.engine.trace.model import Graph
from .rolled import _canonical, match_first_use

DASH = "\u2013"


@dataclass
class Repeat:
    path: str  # the virtual module path, e.g. "enc.layers.1–11"
    members: list[str]  # the sibling module paths, in order
    module_class: str


def _parent(path: str) -> str:
    return path.rsplit(".", 1)[0] if "." in path else ""


def _name(path: str) -> str:
    return path.rsplit(".", 1)[-1]


def find_repeats(graph: Graph, units: dict, copy_key: dict, module_class: dict,
                 repeated: dict) -> list[Repeat]:
    """The runs of identical chained sibling modules, outermost first.

    `units`: prepare's draw units, key -> (trace node id, copy_of, chain of
    (path, call)); `module_class`: path -> class; `repeated`: paths called
    more than once (left to rolled.py)."""
    keys_of: dict[str, list[str]] = {}  # module path -> unit keys in its subtree
    first: dict[str, int] = {}
    for i, (key, (_nid, _cp, chain)) in enumerate(units.items()):
        for p, _inst in chain:
            keys_of.setdefault(p, []).append(key)
            first.setdefault(p, i)
    # a path with a repeated module in its subtree is rolled.py's business
    busy = {p for p, keys in keys_of.items()
            if any(q in repeated for k in keys for q, _ in units[k][2])}
    ops = {n.id: n.op for n in graph.nodes}
    kinds = {n.id: n.kind for n in graph.nodes}
    preds: dict[str, list[tuple[int, str]]] = {}
    succs: dict[str, list[str]] = {}
    for e in graph.edges:
        preds.setdefault(e.dst, []).append((e.slot, e.src))
        succs.setdefault(e.src, []).append(e.dst)
    for lst in preds.values():
        lst.sort(key=lambda t: t[0])  # by slot; ties keep the edge order (not node ids:
        # "n1001" sorts before "n999", which would make layer 52 differ from layer 51)
    siblings: dict[str, list[str]] = {}
    for p in keys_of:
        if p not in busy:
            siblings.setdefault(_parent(p), []).append(p)

    def order_key(p: str):
        n = _name(p)
        return (0, int(n), "") if n.isdigit() else (1, first[p], n)

    out: list[Repeat] = []
    inside: list[str] = []  # members of runs found: nothing inside them folds again
    for parent in sorted(siblings, key=lambda s: (s.count(".") + bool(s), s)):
        if any(parent == m or parent.startswith(m + ".") for m in inside):
            continue
        kids = sorted(siblings[parent], key=order_key)
        sig = {}
        for p in kids:
            c = _canonical(keys_of[p], units, preds, succs, ops, copy_key)
            sig[p] = None if c is None else c[1]
        run: list[str] = []
        for p in kids + [None]:
            if p is not None and run and (_same(run[-1], p, sig, module_class) or (
                    len(run) == 1 and _first_use(run[0], p, sig, module_class, keys_of, units, preds, succs,
                                                 ops, kinds, copy_key))) \
                    and _fed_by(keys_of[p], set(keys_of[run[-1]]), units, preds, kinds, copy_key):
                run.append(p)
                continue
            if len(run) >= 2:
                a, b = _name(run[0]), _name(run[-1])
                path = f"{parent}.{a}{DASH}{b}" if parent else f"{a}{DASH}{b}"
                out.append(Repeat(path, list(run), module_class.get(run[0]) or ""))
                inside.extend(run)
            run = [p] if p is not None and sig.get(p) is not None else []
    return out


def _same(a: str, b: str, sig: dict, module_class: dict) -> bool:
    return (sig.get(a) is not None and sig.get(a) == sig.get(b)
            and module_class.get(a) == module_class.get(b))


def _first_use(a: str, b: str, sig: dict, module_class: dict, keys_of: dict, units: dict, preds: dict,
               succs: dict, ops: dict, kinds: dict, copy_key: dict) -> bool:
    """Sibling `a` is `b` modulo first-use effects (rolled.match_first_use):
    the first layer, fed an input that needs no gradient (or a leaf)."""
    return (sig.get(b) is not None and module_class.get(a) == module_class.get(b)
            and match_first_use(keys_of[a], keys_of[b], units, preds, succs, ops, kinds, copy_key) is not None)


def _fed_by(keys: list[str], prev: set[str], units: dict, preds: dict, kinds: dict,
            copy_key: dict) -> bool:
    """Every non-leaf input of `keys` from outside them comes from `prev`
    (and at least one does: the siblings are chained)."""
    mine = set(keys)
    fed = False
    for k in keys:
        n = units[k][0]
        if units[k][1] is not None:
            continue  # a per-use copy of a shared leaf
        for _slot, src in preds.get(n, ()):
            sk = copy_key.get((src, n), src)
            if sk in mine or kinds.get(src) == "leaf":
                continue
            if sk not in prev:
                return False
            fed = True
    return fed


def apply_repeats(repeats: list[Repeat], units: dict, module_class: dict,
                  repeated: dict) -> None:
    """Rewrite the units' chains so that sibling k of each run is call k of
    the run's virtual path (inner paths renamed under it), and register the
    virtual paths as modules called N times (`repeated`, `module_class`)."""
    where = {m: (r, k) for r in repeats for k, m in enumerate(r.members)}
    for r in repeats:
        repeated[r.path] = len(r.members)
        module_class[r.path] = r.module_class
    for key, (nid, cp, chain) in units.items():
        for i, (p, _inst) in enumerate(chain):
            hit = where.get(p)
            if hit is None:
                continue
            r, k = hit
            new = list(chain[:i]) + [(r.path, k)]
            for q, inst in chain[i + 1:]:
                vq = r.path + q[len(p):]
                if q in module_class:
                    module_class.setdefault(vq, module_class[q])
                new.append((vq, inst))
            units[key] = (nid, cp, new)
            break


def is_virtual(path: str) -> bool:
    """A folded run's path (made here), not a module of the script."""
    return DASH in path.rsplit(".", 1)[-1]
