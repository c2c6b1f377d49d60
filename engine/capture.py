"""Capture the grad_fn graph reachable from some roots into a trace `Graph`.

Walks `next_functions` iteratively (graphs 10,000+ nodes deep), one trace
node per autograd Node with ids we number ourselves (`id()` of a Node is
reused across graphs; we keep strong references to every captured Node for
the lifetime of the ScriptRun, so mapping Node objects to our ids is safe).

What is known when:
- `label`: names the user can see at capture time: module-level names of the
  script (and tensors one level deep inside lists/tuples/dicts as `name[i]` /
  `name['k']`), the local variables of the user's frame that called
  backward/grad, and parameter/buffer names (`fc1.weight`) of every nn.Module
  in the namespace.
- `tensor` of a leaf (AccumulateGrad): the leaf itself (`node.variable`),
  values as of capture time.
- `tensor` of an op node: its output when that output is still reachable at
  capture time: a named tensor (as for labels), a backward/grad root, or the
  output of an nn.Module forward (held by CaptureState.note_output until the
  next capture, within a byte budget, version-checked). Otherwise null.
- `saved`: every `_saved_*` attribute (tensors as summaries, other values as
  JSON), read before the backward frees them - except tensors saved under a
  saved-tensors hook (non-reentrant checkpoint, or the user's own
  saved_tensors_hooks): reading those would run the unpack hook (for
  checkpoint: re-run the forward), so they are marked `skipped` and the node
  `in_checkpoint` when the hook is checkpoint's.
"""

from __future__ import annotations

import weakref
from typing import Any, Callable, Iterable, Optional

import torch

from .summarize import Summarizer
from .trace_model import Edge, Graph, Node, SavedValue, gc_paused

ACCUMULATE_GRAD = "torch::autograd::AccumulateGrad"
_get_edge = torch.autograd.graph.get_gradient_edge
_Tensor = torch.Tensor

SKIP_CHECKPOINT = "inside a non-reentrant checkpoint segment (reading it would re-run the forward)"
SKIP_HOOKS = "saved with saved_tensors_hooks (reading it would call the unpack hook)"
SKIP_FREED = "already freed by an earlier backward"

MAX_CONTAINER_ITEMS = 1000
# Module outputs held until the next capture (bytes).
KNOWN_OUTPUT_BYTES = 256 * 1024 * 1024


# -- names --------------------------------------------------------------------
class Names:
    """Labels and known tensors gathered from the user's namespaces."""

    __slots__ = ("leaf", "out", "tensors", "keep")

    def __init__(self):
        self.leaf: dict[int, str] = {}  # id(leaf tensor) -> label
        # id(grad_fn) -> {output_nr: [labels]}; verified against `tensors`
        self.out: dict[int, dict[int, list[str]]] = {}
        self.tensors: dict[int, list] = {}  # id(grad_fn) -> tensors with that grad_fn
        self.keep: list = []

    def add(self, name: str, t) -> None:
        gf = t.grad_fn
        if gf is None:
            if t.requires_grad:
                self.leaf.setdefault(id(t), name)
                self.keep.append(t)
            return
        d = self.out.setdefault(id(gf), {})
        lst = d.setdefault(t.output_nr, [])
        if name not in lst:
            lst.append(name)
        self.tensors.setdefault(id(gf), []).append(t)
        self.keep.append(gf)

    def add_namespace(self, ns: dict) -> None:
        for name, val in list(ns.items()):
            if name.startswith("__"):
                continue
            if isinstance(val, _Tensor):
                self.add(name, val)
            elif isinstance(val, (list, tuple)):
                for i, v in enumerate(val[:MAX_CONTAINER_ITEMS]):
                    if isinstance(v, _Tensor):
                        self.add(f"{name}[{i}]", v)
            elif isinstance(val, dict) and val is not ns:
                try:
                    items = list(val.items())[:MAX_CONTAINER_ITEMS]
                except Exception:
                    continue
                for k, v in items:
                    if isinstance(v, _Tensor):
                        self.add(f"{name}[{k!r}]", v)

    def add_params(self, param_names: dict[int, str], keep: list) -> None:
        for p in keep:
            if isinstance(p, _Tensor):
                n = param_names.get(id(p))
                if n is not None and p.requires_grad and p.grad_fn is None:
                    self.leaf[id(p)] = n
                    self.keep.append(p)

    def label_of(self, node) -> Optional[str]:
        d = self.out.get(id(node))
        if not d:
            return None
        labels: list[str] = []
        for nr in sorted(d):
            for lab in d[nr]:
                if lab not in labels:
                    labels.append(lab)
        if len(labels) > 3:
            labels = labels[:3] + ["…"]
        return ", ".join(labels)

    def tensor_of(self, node):
        ts = self.tensors.get(id(node))
        if not ts:
            return None
        best = None
        for t in ts:
            if t.grad_fn is node:
                if t.output_nr == 0:
                    return t
                if best is None:
                    best = t
        return best


# -- saved values -------------------------------------------------------------
_SAVED_ATTRS: dict[type, list[tuple[str, str, Optional[str]]]] = {}


def _saved_attrs(node) -> list[tuple[str, str, Optional[str]]]:
    """(display name, value attribute, raw attribute or None) for a node type."""
    tp = type(node)
    attrs = _SAVED_ATTRS.get(tp)
    if attrs is None:
        names = set(dir(node))
        attrs = []
        for a in sorted(names):
            if a.startswith("_saved_"):
                raw = "_raw" + a
                attrs.append((a[len("_saved_"):], a, raw if raw in names else None))
        if "_raw_saved_tensors" in names and "saved_tensors" in names:
            attrs.append(("saved_tensors", "saved_tensors", "_raw_saved_tensors"))
        _SAVED_ATTRS[tp] = attrs
    return attrs


def _hook_reason(raw) -> Optional[str]:
    """Why a saved tensor must not be read (it has an unpack hook), or None."""
    items = raw if isinstance(raw, (list, tuple)) else (raw,)
    reason = None
    for r in items:
        if r is None:
            continue
        try:
            uh = r.unpack_hook
        except Exception:
            continue
        if uh is not None:
            if getattr(uh, "__module__", "") == "torch.utils.checkpoint":
                return SKIP_CHECKPOINT
            reason = SKIP_HOOKS
    return reason


def _plain_value(v, depth: int = 0):
    tp = type(v)
    if (tp is tuple or tp is list) and depth < 3:
        # the common case: sizes and strides (tuples of ints)
        for x in v:
            if type(x) is not int:
                break
        else:
            return list(v[:MAX_CONTAINER_ITEMS])
    elif v is None or tp is int or tp is float or tp is bool or tp is str:
        return v
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, (torch.dtype, torch.device, torch.layout, torch.memory_format)):
        return str(v)
    if isinstance(v, (torch.SymInt, torch.SymFloat, torch.SymBool)):
        try:
            return int(v) if isinstance(v, torch.SymInt) else float(v) if isinstance(v, torch.SymFloat) else bool(v)
        except Exception:
            return str(v)
    if isinstance(v, (list, tuple)) and depth < 3:
        return [_plain_value(x, depth + 1) for x in v[:MAX_CONTAINER_ITEMS]]
    if isinstance(v, complex):
        return [v.real, v.imag]
    return repr(v)


def read_saved(node, summ: Summarizer, check_hooks: bool = True,
               attrs: Optional[list] = None) -> tuple[list[SavedValue], bool]:
    """Saved values of `node`; second result: node is inside a checkpoint.
    `check_hooks=False`: no saved-tensor hooks were ever active, so no saved
    tensor can have an unpack hook (skips two attribute reads per tensor).
    `attrs`: _saved_attrs(node), when the caller has it."""
    out: list[SavedValue] = []
    in_ckpt = False
    request = summ.request
    for name, attr, raw_attr in (attrs if attrs is not None else _saved_attrs(node)):
        if raw_attr is not None and check_hooks:
            try:
                raw = getattr(node, raw_attr)
            except Exception:
                raw = None
            reason = _hook_reason(raw)
            if reason is not None:
                if reason is SKIP_CHECKPOINT:
                    in_ckpt = True
                out.append(SavedValue(name, None, None, reason))
                continue
        try:
            v = getattr(node, attr)
        except Exception:
            out.append(SavedValue(name, None, None, SKIP_FREED))
            continue
        if isinstance(v, _Tensor):
            out.append(SavedValue(name, request(v)))
        elif isinstance(v, (list, tuple)) and v and all(isinstance(x, _Tensor) or x is None for x in v):
            for i, x in enumerate(v):
                out.append(SavedValue(f"{name}[{i}]", request(x) if x is not None else None))
        else:
            out.append(SavedValue(name, None, _plain_value(v)))
    return out, in_ckpt


# -- capture ------------------------------------------------------------------
class CaptureState:
    """Everything captured during one script run (ids, graphs, strong refs)."""

    def __init__(self, summ: Summarizer, module_of: Optional[Callable] = None):
        self.summ = summ
        self.module_of = module_of
        self.graphs: list[Graph] = []
        self.n_nodes = 0
        # node object -> (graph, node id) of its latest capture
        self.where: dict[Any, tuple[Graph, str]] = {}
        self.graph_nodes: dict[str, list] = {}  # graph id -> node objects (strong refs)
        self.param_names: dict[int, str] = {}
        self.module_classes: dict[str, str] = {}  # module path -> class name
        # id(grad_fn) -> (output tensor, its version, bytes): module outputs
        self.known_outputs: dict[int, Any] = {}
        self.known_bytes = 0
        # tensors that called retain_grad (weak)
        self.retained: "weakref.WeakSet" = weakref.WeakSet()
        # (weakref(tensor), hook name) for every user hook
        self.tensor_hooks: list[tuple[Any, str]] = []
        self.checkpoint_skips = 0
        # () -> bool: were saved-tensor hooks (checkpoint, save_on_cpu, the
        # user's own) ever active? Unknown -> assume yes.
        self.saved_hooks_seen: Callable[[], bool] = lambda: True
        # () -> int: how many module forward calls so far (None: unknown)
        self.module_calls: Optional[Callable[[], int]] = None
        # (nodes) -> {node: [names of the user's hooks registered on it with
        # node.register_hook / register_prehook]} (None: not tracked)
        self.node_hooks: Optional[Callable[[list], dict]] = None

    def note_output(self, t) -> None:
        """Remember a module's output so its node can show it: held strongly
        (an intermediate output is usually gone by the time backward is
        called) until the next capture, within KNOWN_OUTPUT_BYTES (oldest
        dropped first), with its version so an in-place change later (e.g. a
        ReLU(inplace=True)) is not shown as this node's output."""
        try:
            if isinstance(t, _Tensor):
                self._note(t)
            elif isinstance(t, (list, tuple)):
                for x in t[:64]:
                    if isinstance(x, _Tensor):
                        self._note(x)
        except Exception:
            pass

    def _note(self, t) -> None:
        gf = t.grad_fn
        if gf is None:
            return
        nbytes = t.numel() * t.element_size()
        ko = self.known_outputs
        ko[id(gf)] = (t, t._version, nbytes)
        self.known_bytes += nbytes
        while self.known_bytes > KNOWN_OUTPUT_BYTES and ko:
            _, (_, _, b) = _pop_oldest(ko)
            self.known_bytes -= b

    def drop_known_outputs(self) -> None:
        self.known_outputs.clear()
        self.known_bytes = 0

    def _known_output(self, node):
        e = self.known_outputs.get(id(node))
        if e is None:
            return None
        t, version, _ = e
        if t.grad_fn is node and t._version == version:
            return t
        return None


def _pop_oldest(d: dict):
    k = next(iter(d))
    return k, d.pop(k)


def walk(roots: Iterable) -> tuple[list, list]:
    """Iterative DFS over next_functions. Returns (nodes, next_functions per node)."""
    order: list = []
    nexts: list = []
    index: dict = {}
    stack = [r for r in roots if r is not None]
    push = stack.append
    pop = stack.pop
    while stack:
        n = pop()
        if n in index:
            continue
        index[n] = len(order)
        order.append(n)
        nf = n.next_functions
        nexts.append(nf)
        for m, _ in nf:
            if m is not None and m not in index:
                push(m)
    return order, nexts


def root_edges(tensors) -> list[tuple[Any, int, Any]]:
    """(node, output_nr, tensor) for each root tensor / GradientEdge."""
    out = []
    if isinstance(tensors, (_Tensor, torch.autograd.graph.GradientEdge)):
        tensors = (tensors,)
    try:
        items = list(tensors)
    except TypeError:
        return out
    for t in items:
        try:
            if isinstance(t, torch.autograd.graph.GradientEdge):
                out.append((t.node, t.output_nr, None))
            elif isinstance(t, _Tensor):
                if t.grad_fn is not None:
                    out.append((t.grad_fn, t.output_nr, t))
                elif t.requires_grad:
                    e = _get_edge(t)
                    out.append((e.node, e.output_nr, t))
        except Exception:
            pass
    return out


def capture(state: CaptureState, roots: list[tuple[Any, int, Any]], names: Names,
            origin: str = "backward", reuse: bool = True) -> tuple[Graph, dict]:
    """Capture the graph reachable from `roots` (see root_edges).

    Returns the Graph and {node object: node id}. With `reuse`, a walk that
    finds exactly the nodes of an already captured graph returns that graph.
    Cyclic GC is paused meanwhile (its passes over the many new objects
    would cost more than the capture itself).
    """
    with gc_paused():
        return _capture(state, roots, names, origin, reuse)


def _capture(state, roots, names, origin, reuse):
    root_nodes = []
    for n, _, _ in roots:
        if n is not None and n not in root_nodes:
            root_nodes.append(n)
    order, nexts = walk(root_nodes)

    if reuse and order:
        hit = state.where.get(order[0])
        if hit is not None:
            g = hit[0]
            objs = state.graph_nodes.get(g.id)
            if objs is not None and len(objs) == len(order):
                where = state.where
                if all((w := where.get(n)) is not None and w[0] is g for n in order):
                    ids = {n: where[n][1] for n in order}
                    for n in root_nodes:
                        rid = ids[n]
                        if rid not in g.roots:
                            g.roots.append(rid)
                    return g, ids

    gid = f"g{len(state.graphs) + 1}"
    g = Graph(id=gid, origin=origin)
    base = state.n_nodes
    state.n_nodes += len(order)
    ids: dict = {}
    for i, n in enumerate(order):
        ids[n] = f"n{base + i + 1}"

    summ = state.summ
    request = summ.request
    module_of = state.module_of
    param_names = state.param_names
    leaf_labels = names.leaf
    root_tensor = {}
    for n, nr, t in roots:
        if t is not None and n is not None and n not in root_tensor:
            root_tensor[n] = t
    # nodes whose tensors retain grad
    retains: set = set()
    for t in list(state.retained):
        try:
            if t.grad_fn is not None and t.retains_grad:
                retains.add(t.grad_fn)
        except Exception:
            pass
    for lst in names.tensors.values():
        for t in lst:
            if t.retains_grad:
                retains.add(t.grad_fn)
    hooks_by_node: dict = {}
    hooks_by_leaf: dict[int, list[str]] = {}
    for ref, hname in state.tensor_hooks:
        t = ref()
        if t is None:
            continue
        if t.grad_fn is not None:
            hooks_by_node.setdefault(t.grad_fn, []).append(hname)
        else:
            hooks_by_leaf.setdefault(id(t), []).append(hname)

    nodes = g.nodes
    edges = g.edges
    where = state.where
    out_names = names.out
    known_outputs = state.known_outputs
    check_hooks = state.saved_hooks_seen()
    if module_of is not None and state.module_calls is not None and not state.module_calls():
        module_of = None  # no module was ever called
    saved_attrs = _SAVED_ATTRS
    edge_app = edges.append
    node_app = nodes.append
    # user hooks registered on grad_fn nodes themselves (node.register_hook /
    # register_prehook), known before they fire
    node_hooks = state.node_hooks(order) if state.node_hooks is not None else None
    for i, n in enumerate(order):
        nid = ids[n]
        op = n.name()
        if op == ACCUMULATE_GRAD:
            node = Node(nid, "AccumulateGrad", "leaf")
            try:
                v = n.variable
            except Exception:
                v = None
            if v is not None:
                node.tensor = request(v, snapshot=True)
                lab = leaf_labels.get(id(v))
                pname = param_names.get(id(v))
                node.label = lab if lab is not None else pname
                if pname is not None and "." in pname:
                    node.module = pname.rsplit(".", 1)[0]
                    node.module_class = state.module_classes.get(node.module)
                hl = hooks_by_leaf.get(id(v))
                if hl:
                    node.hooks = list(hl)
        else:
            node = Node(nid, op, "op")
            key = id(n)
            t = None
            if key in out_names:
                node.label = names.label_of(n)
                t = names.tensor_of(n)
            if t is None:
                t = root_tensor.get(n)
                if t is None and key in known_outputs:
                    t = state._known_output(n)
            if t is not None:
                node.tensor = request(t, snapshot=True)
            if module_of is not None:
                node.module, node.module_class, node.module_call = module_of(n)
            attrs = saved_attrs.get(type(n))
            if attrs is None:
                attrs = _saved_attrs(n)
            if attrs:
                saved, in_ckpt = read_saved(n, summ, check_hooks, attrs)
                node.saved = saved
                if in_ckpt:
                    node.in_checkpoint = True
                    state.checkpoint_skips += 1
            if n in retains:
                node.retains_grad = True
            hl = hooks_by_node.get(n)
            if hl:
                node.hooks = list(hl)
        if node_hooks:
            hl = node_hooks.get(n)
            if hl:
                for h in hl:
                    if h not in node.hooks:
                        node.hooks.append(h)
        node_app(node)
        where[n] = (g, nid)
        slot = 0
        for m, nr in nexts[i]:
            if m is not None:
                edge_app(Edge(ids[m], nid, nr, slot))
            slot += 1
    g.roots = [ids[n] for n in root_nodes]
    state.graphs.append(g)
    state.graph_nodes[gid] = order
    return g, ids
