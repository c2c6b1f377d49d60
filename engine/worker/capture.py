"""Capture the grad_fn graph reachable from some roots into a trace `Graph`.

Walks `next_functions` iteratively (graphs 10,000+ nodes deep), one trace
node per autograd Node with ids we number ourselves (`id()` of a Node is
reused across graphs; we keep strong references to every captured Node for
the lifetime of the ScriptRun, so mapping Node objects to our ids is safe).

What is known when:
- `label`: names the user can see at capture time (names.py): module-level names of the
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

Two phases, so that a backward call pays only for what cannot wait: at the
call, `capture_pending` walks the graph and reads what the backward will
free or the script may change (see CapturedGraph); `CaptureState.materialize`
builds the trace objects later - after the script, or when held memory
passes the recorder's budget. `capture` does both at once.
"""

from __future__ import annotations

import weakref
from typing import Any, Callable, Optional

import torch

from autogradviz.engine.trace.features import saved_skips
from autogradviz.engine.trace.model import Edge, Graph, Node, SavedValue, gc_paused
from autogradviz.engine.worker.beneath_modes import beneath_modes
from autogradviz.engine.worker.graph_walk import _pop_oldest, root_edges, walk  # noqa: F401 (root_edges: capture's API)
from autogradviz.engine.worker.progress import NO_PROGRESS, TICK_MASK
from autogradviz.engine.worker.names import MAX_CONTAINER_ITEMS, Names
from autogradviz.engine.worker.summarize import Summarizer

ACCUMULATE_GRAD = "torch::autograd::AccumulateGrad"
_Tensor = torch.Tensor
_DisableTorchFunction = torch._C.DisableTorchFunction
_len_dispatch = getattr(torch._C, "_len_torch_dispatch_stack", lambda: 1)  # (unknown: the whole way)

# Saved tensors behind a feature's unpack hook, by the hook's module, with
# why they are not read (declared beside the feature's records:
# engine/trace/checkpoint.py's SAVED_SKIP).
_HOOK_SKIPS = saved_skips()
SKIP_CHECKPOINT = _HOOK_SKIPS["torch.utils.checkpoint"].text
SKIP_HOOKS = "saved with saved_tensors_hooks (reading it would call the unpack hook)"
SKIP_FREED = "already freed by an earlier backward"

# known_outputs' version of an entry holding (grad_fn, summary), not a tensor
_META_ONLY = object()

# Module outputs held until the next capture (bytes).
KNOWN_OUTPUT_BYTES = 256 * 1024 * 1024


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
            declared = _HOOK_SKIPS.get(getattr(uh, "__module__", ""))
            if declared is not None:
                return declared.text
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
        # symbolic (torch.compile's dynamic shapes): text, never int(v) -
        # that would specialise the compiled graph on the value
        return str(v)
    if isinstance(v, (list, tuple)) and depth < 3:
        return [_plain_value(x, depth + 1) for x in v[:MAX_CONTAINER_ITEMS]]
    if isinstance(v, complex):
        return [v.real, v.imag]
    return repr(v)


# -- capture ------------------------------------------------------------------
# Tags of one saved entry in CapturedGraph.saved: (name, tag, a, b)
_S_SUMMARY = 0   # a: TensorSummary (or None for a None in a tensor list)
_S_DEFERRED = 1  # a: the tensor, b: its _version when captured
_S_PLAIN = 2     # a: the raw Python value
_S_SKIPPED = 3   # a: why it was not read
SKIP_CHANGED = ("changed in place after it was captured, before its values were read "
                "(activations the script cannot name are read after the script)")
# SavedValue.skipped (English) -> SavedValue.skipped_code (the app translates it)
SKIP_CODES = {**{s.text: s.code for s in _HOOK_SKIPS.values()}, SKIP_HOOKS: "saved_tensors_hooks",
              SKIP_FREED: "freed", SKIP_CHANGED: "changed_in_place"}


def skipped(name: str, reason: str) -> SavedValue:
    """A saved value that was not read, with its reason as text and code."""
    return SavedValue(name, None, None, reason, skipped_code=SKIP_CODES.get(reason))
_LEAF = "leaf"  # _TYPE_INFO value for AccumulateGrad
# node type -> _LEAF, or the _saved_attrs that are SavedVariables (tensors:
# the backward frees them, so they are read at capture). The other saved
# attributes (sizes, strides, dims, scalars) are plain members of the node
# that outlive the backward: read at materialize.
_TYPE_INFO: dict = {}


def _type_info(node):
    tp = type(node)
    info = _TYPE_INFO.get(tp)
    if info is None:
        name = node.name()
        if name == ACCUMULATE_GRAD:
            info = _LEAF
        else:
            info = [a for a in _saved_attrs(node) if a[2] is not None]
        # Every node class torch registers is named for its op; a Python
        # class shared by several ops (none seen in torch 2.x) is not cached.
        if name.endswith(tp.__name__):
            _TYPE_INFO[tp] = info
    return info


class NodeIds:
    """{node object: trace node id} of one capture, without a string per node
    until one is asked for: ids are "n<k>" with k = base + position in the walk."""

    __slots__ = ("index", "base", "names")

    def __init__(self, index: dict, base: int):
        self.index = index
        self.base = base
        self.names: Optional[list[str]] = None  # every id, once the graph is built (_materialize)

    def get(self, node, default=None):
        i = self.index.get(node)
        if i is None:
            return default
        names = self.names
        return names[i] if names is not None else f"n{self.base + i + 1}"

    def __getitem__(self, node) -> str:
        names = self.names
        return names[self.index[node]] if names is not None else f"n{self.base + self.index[node] + 1}"

    def __contains__(self, node) -> bool:
        return node in self.index


class CapturedGraph:
    """One captured graph between the capture and `CaptureState.materialize`.

    A backward call must read, before the engine frees them, the node objects,
    their saved values and the leaves' values - and nothing more: turning
    that into trace objects (`Node`, `Edge`, `SavedValue`, labels, module
    paths, the summaries of saved activations) can wait until the script has
    finished, which keeps the user's backward call fast. What is read now:
    leaves (summarised at once: an optimizer changes them in place), tensors
    the user can name and saved tensors the script can still change in place
    (without a grad_fn, views of those, memory of a named tensor: summarised
    before the call) and the other saved activations (held with their
    version; summarised at materialize, or marked
    SKIP_CHANGED if the script changed one in place meanwhile).
    """

    __slots__ = ("graph", "ids", "order", "nexts", "root_nodes", "leaf_info", "named", "saved",
                 "retains", "hooks_by_node", "node_hooks", "module_of", "deferred_bytes",
                 "leaf_indices", "hook_skips")

    def __init__(self, graph: Graph, ids: NodeIds, order: list, nexts: list):
        self.graph = graph
        self.ids = ids
        self.order = order
        self.nexts = nexts
        self.root_nodes: list = []
        # walk index -> (summary, label, module, module_class, hooks) of a leaf
        self.leaf_info: dict[int, tuple] = {}
        self.leaf_indices: list[int] = []  # walk indices of the leaves (kept after materialize)
        # walk index -> (label, summary) of an op node the user can name
        self.named: dict[int, tuple] = {}
        # walk index -> [(name, tag, a, b)] (see the _S_* tags)
        self.saved: dict[int, list] = {}
        self.retains: set = set()
        self.hooks_by_node: dict = {}
        self.node_hooks: Optional[dict] = None
        self.module_of: Optional[Callable] = None
        self.deferred_bytes = 0
        # whether saved-tensor hooks were looked for (a checkpoint's
        # placeholders among `saved`): materialize looks for them only then
        self.hook_skips = False


class CaptureState:
    """Everything captured during one script run (ids, graphs, strong refs)."""

    def __init__(self, summ: Summarizer, module_of: Optional[Callable] = None):
        self.summ = summ
        self.module_of = module_of
        self.graphs: list[Graph] = []
        self.n_nodes = 0
        # every capture, in order (node objects held: ids stay valid)
        self.captures: list[CapturedGraph] = []
        self._pending: list[CapturedGraph] = []  # not materialized yet
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
        # long captures and materializes report here (worker/progress.py)
        self.progress = NO_PROGRESS
        # called once per capture with [id(node), storage data_ptr, storage
        # nbytes, id(node), ...] (three ints per saved tensor it read, one flat
        # list: no tuple per value for the cyclic GC to scan after the call)
        # for the memory probe, which counts storages (None: nobody asks).
        # Read inline and handed over in one call: this is the hot loop.
        self.on_saved: Optional[Callable[[list], None]] = None
        # False (a run without values, for the plain picture): saved values
        # are not read and module outputs not held (only their summaries)
        self.read_saved = True

    def release_probes(self) -> None:
        """Forget the probes' callbacks once nothing more is captured (the
        end of a run: Recording.finish). They are bound methods and closures
        of probes that reach the recorder, which holds this state: a cycle
        that kept every captured graph, step and summary alive until a full
        collection (of the oldest generation, where a recorded call's objects
        are promoted: engine/trace/gc_pause.py) instead of freeing them when
        the run is dropped."""
        self.module_of = None
        self.module_calls = None
        self.node_hooks = None
        self.on_saved = None
        self.saved_hooks_seen = lambda: True

    # -- queries ---------------------------------------------------------------
    def is_captured(self, node) -> bool:
        return any(node in c.ids.index for c in self.captures)

    @property
    def pending_bytes(self) -> int:
        """Bytes of saved activations held for materialize (estimated)."""
        return sum(c.deferred_bytes for c in self._pending)

    # -- module outputs ----------------------------------------------------------
    def note_output(self, t) -> None:
        """Remember a module's output so its node can show it: held strongly
        (an intermediate output is usually gone by the time backward is
        called) until the next capture, within KNOWN_OUTPUT_BYTES (oldest
        dropped first), with its version so an in-place change later (e.g. a
        ReLU(inplace=True)) is not shown as this node's output.

        A module hook's read, beneath the script's modes and subclasses: a
        plain Tensor while no dispatch mode is active has nothing beneath the
        torch-function modes (ours among them) to step past; anything else
        goes the whole way (beneath_modes)."""
        if type(t) is _Tensor and not _len_dispatch():
            with _DisableTorchFunction():
                try:
                    self._note(t)
                except Exception:
                    pass
            return
        self._note_beneath(t)

    @beneath_modes
    def _note_beneath(self, t) -> None:
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
        if not self.read_saved:  # the summary (metadata) now; the tensor is not held
            self.known_outputs[id(gf)] = ((gf, self.summ.request(t)), _META_ONLY, 0)
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

    # -- materialize -------------------------------------------------------------
    def materialize(self, cap: Optional[CapturedGraph] = None) -> None:
        """Turn pending captures (all, or just `cap`) into trace objects. The
        summaries they request are filled at the next `summ.flush()`."""
        todo = self._pending if cap is None else [c for c in self._pending if c is cap]
        if not todo:
            return
        with gc_paused():
            for c in todo:
                _materialize(self, c)
        if cap is None:
            self._pending = []
        else:
            self._pending = [c for c in self._pending if c is not cap]


@beneath_modes
def capture(state: CaptureState, roots: list[tuple[Any, int, Any]], names: Names,
            origin: str = "backward", reuse: bool = True) -> tuple[Graph, NodeIds]:
    """Capture the graph reachable from `roots` (see root_edges), as trace
    objects at once. Returns the Graph and {node object: node id}."""
    g, ids, cap = capture_pending(state, roots, names, origin, reuse)
    state.materialize(cap)
    return g, ids


@beneath_modes
def capture_pending(state: CaptureState, roots: list[tuple[Any, int, Any]], names: Names,
                    origin: str = "backward", reuse: bool = True) -> tuple[Graph, NodeIds, CapturedGraph]:
    """Capture the graph reachable from `roots` for a backward call that is
    about to run: read what the backward will free (see CapturedGraph); the
    Graph's nodes and edges appear at `state.materialize()`.

    With `reuse`, a walk that finds exactly the nodes of an already captured
    graph returns that graph. Cyclic GC is paused meanwhile (its passes over
    the many new objects would cost more than the capture itself)."""
    with gc_paused():
        return _capture(state, roots, names, origin, reuse)


def _reused(state, order, root_nodes):
    """The earlier capture with exactly these nodes, or None."""
    first = order[0]
    for c in reversed(state.captures):
        if first in c.ids.index:
            cidx = c.ids.index
            if len(cidx) == len(order) and all(n in cidx for n in order):
                for n in root_nodes:
                    if n not in c.root_nodes:
                        c.root_nodes.append(n)
                        if c.graph.nodes:  # materialized already
                            rid = c.ids[n]
                            if rid not in c.graph.roots:
                                c.graph.roots.append(rid)
                return c
            return None
    return None


def _capture(state, roots, names, origin, reuse):  # noqa: C901 - over the cap before it was set; to be split (issue 22)
    root_nodes = []
    for n, _, _ in roots:
        if n is not None and n not in root_nodes:
            root_nodes.append(n)
    order, nexts, index = walk(root_nodes)

    if reuse and order:
        c = _reused(state, order, root_nodes)
        if c is not None:
            return c.graph, c.ids, c

    gid = f"g{len(state.graphs) + 1}"
    g = Graph(id=gid, origin=origin)
    ids = NodeIds(index, state.n_nodes)
    state.n_nodes += len(order)
    cap = CapturedGraph(g, ids, order, nexts)
    cap.root_nodes = root_nodes

    summ = state.summ
    request = summ.request
    if state.module_of is not None and (state.module_calls is None or state.module_calls()):
        cap.module_of = state.module_of  # else no module was ever called

    # Op nodes the user can name: their label and output tensor, now.
    named = cap.named
    for gf in names.nodes.values():
        i = index.get(gf)
        if i is not None:
            t = names.tensor_of(gf)
            named[i] = (names.label_of(gf), request(t, snapshot=True) if t is not None else None)
    for n, _, t in roots:
        i = index.get(n) if (t is not None and n is not None) else None
        if i is not None and (i not in named or named[i][1] is None):
            lab = named[i][0] if i in named else None
            named[i] = (lab, request(t, snapshot=True))
    for t, version, _ in list(state.known_outputs.values()):
        if version is _META_ONLY:
            gf, summary = t
            i = index.get(gf)
            if i is not None and (i not in named or named[i][1] is None):
                named[i] = (named[i][0] if i in named else None, summary)
            continue
        gf = t.grad_fn
        i = index.get(gf) if gf is not None else None
        if i is not None and (i not in named or named[i][1] is None) and t._version == version:
            lab = named[i][0] if i in named else None
            named[i] = (lab, request(t, snapshot=True))

    # nodes whose tensors retain grad
    retains = cap.retains
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
    hooks_by_leaf: dict[int, list[str]] = {}
    for ref, hname in state.tensor_hooks:
        t = ref()
        if t is None:
            continue
        if t.grad_fn is not None:
            cap.hooks_by_node.setdefault(t.grad_fn, []).append(hname)
        else:
            hooks_by_leaf.setdefault(id(t), []).append(hname)
    # user hooks registered on grad_fn nodes themselves (node.register_hook /
    # register_prehook), known before they fire
    if state.node_hooks is not None:
        cap.node_hooks = state.node_hooks(order)

    # Saved activations the script can reach by name are summarised now (the
    # script may change them in place after the call); the rest can wait.
    reach_ids: set = set()
    reach_ptrs: set = set()
    for lst in names.tensors.values():
        for t in lst:
            reach_ids.add(id(t))
            try:  # (by storage: a view of it at an offset shares its memory too)
                reach_ptrs.add(t.untyped_storage().data_ptr())
            except Exception:
                pass
    reach_ptrs.discard(0)
    leaf_labels = names.leaf
    param_names = state.param_names
    check_hooks = state.saved_hooks_seen()
    on_saved = state.on_saved
    seen_saved: list = []
    note_saved = seen_saved.extend if on_saved is not None else None  # ((id(node), ptr, nbytes))
    # id(saved tensor) -> _storage(it) for this capture
    storage_of: dict = {}
    summarized = summ.summarized_by_id()
    read_saved = state.read_saved
    type_info = _TYPE_INFO
    leaf_info = cap.leaf_info
    saved = cap.saved
    held: list = []  # saved activations held for materialize
    hold = held.append
    phase = state.progress.phase("capturing", len(order))
    for i, n in enumerate(order):
        if not i & TICK_MASK:
            phase.tick(i)
        info = type_info.get(type(n))
        if info is None:
            info = _type_info(n)
        if info is _LEAF:
            try:
                v = n.variable
            except Exception:
                v = None
            if v is None:
                leaf_info[i] = (None, None, None, None, None)
                continue
            lab = leaf_labels.get(id(v))
            pname = param_names.get(id(v))
            module = pname.rsplit(".", 1)[0] if pname is not None and "." in pname else None
            leaf_info[i] = (request(v, snapshot=True), lab if lab is not None else pname, module,
                            state.module_classes.get(module) if module is not None else None,
                            hooks_by_leaf.get(id(v)))
            continue
        if not info:
            continue  # nothing the backward frees (plain attributes: at materialize)
        if not read_saved:  # (a picture without values: only what a checkpoint did not store)
            if check_hooks:
                sv = []
                for name, _attr, raw_attr in info:
                    try:
                        if _hook_reason(getattr(n, raw_attr)) is SKIP_CHECKPOINT:
                            sv.append((name, _S_SKIPPED, SKIP_CHECKPOINT, None))
                    except Exception:
                        pass
                if sv:
                    saved[i] = sv
            continue
        sv = []
        nid = id(n)
        for name, attr, raw_attr in info:
            if check_hooks:
                try:
                    raw = getattr(n, raw_attr)
                except Exception:
                    raw = None
                reason = _hook_reason(raw)
                if reason is not None:
                    sv.append((name, _S_SKIPPED, reason, None))
                    continue
            try:
                v = getattr(n, attr)
            except Exception:
                sv.append((name, _S_SKIPPED, SKIP_FREED, None))
                continue
            if isinstance(v, _Tensor):
                try:  # (the hot loop: _storage inline)
                    vid = id(v)
                    e = storage_of.get(vid)
                    if e is None:
                        # _storage(v, reach_ids, reach_ptrs), inline (the hot loop)
                        st = v.untyped_storage()
                        ptr = st.data_ptr()
                        if v.is_leaf or vid in reach_ids:
                            # (a weight saved by many nodes is one object: once)
                            e = storage_of[vid] = (v, (ptr, st.nbytes()), True)
                        else:
                            b = v._base
                            if (b is not None and b.is_leaf) or ptr in reach_ptrs:
                                e = storage_of[vid] = (v, (ptr, st.nbytes()), True)
                            else:  # (most: held for materialize, no entry to keep)
                                if note_saved is not None:
                                    note_saved((nid, ptr, st.nbytes()))
                                sv.append((name, _S_DEFERRED, v, v._version))
                                hold(v)
                                continue
                    if note_saved is not None:
                        where = e[1]
                        note_saved((nid, where[0], where[1]))
                    ver = None if e[2] else v._version
                except Exception:  # (sparse: no data_ptr) read it now
                    ver = None
                if ver is None:
                    e = summarized.get(id(v))  # (Summarizer.request's first check, inline)
                    sv.append((name, _S_SUMMARY, e[0] if e is not None and e[1] == v._version else request(v),
                               None))
                else:
                    sv.append((name, _S_DEFERRED, v, ver))
                    hold(v)
            elif isinstance(v, (list, tuple)) and v and all(isinstance(x, _Tensor) or x is None for x in v):
                group = []
                for j, x in enumerate(v):
                    nm = f"{name}[{j}]"
                    try:
                        if x is None:
                            ver = None
                        else:
                            e = storage_of.get(id(x))
                            if e is None:
                                e = storage_of[id(x)] = _storage(x, reach_ids, reach_ptrs)
                            if note_saved is not None:
                                where = e[1]
                                note_saved((nid, where[0], where[1]))
                            ver = None if e[2] else x._version
                    except Exception:
                        ver = None
                    if ver is None:
                        group.append((nm, _S_SUMMARY, request(x) if x is not None else None, None))
                    else:
                        group.append((nm, _S_DEFERRED, x, ver))
                        hold(x)
                sv.append(group)
            else:
                sv.append((name, _S_PLAIN, v, None))
        saved[i] = sv
    if seen_saved:
        on_saved(seen_saved)
    cap.hook_skips = bool(check_hooks)
    if check_hooks:
        for sv in saved.values():
            if any(type(e) is tuple and e[2] is SKIP_CHECKPOINT for e in sv):
                state.checkpoint_skips += 1
    cap.leaf_indices = list(leaf_info)
    if held:
        cap.deferred_bytes = estimate_bytes(held)
    state.graphs.append(g)
    state.captures.append(cap)
    state._pending.append(cap)
    return g, ids, cap


def _storage(t, reach_ids: set, reach_ptrs: set) -> tuple:
    """(t, (its storage's data_ptr, nbytes), read now?) for saved tensor `t`.

    Read now (summarised during the capture, not at materialize) when the
    script can change it in place later: it has no grad_fn (a leaf, an
    input), the script names it (`reach_ids`), it is a view of a tensor
    without grad_fn (a parameter's `.t()` saved by a Linear: the optimizer
    updates the parameter), or it shares memory (its storage) with a tensor
    the script names (`reach_ptrs`; a saved output is a new tensor object).
    Capture keeps these per id(t) for one capture, t included so that its id
    stays t's."""
    st = t.untyped_storage()
    where = (st.data_ptr(), st.nbytes())
    if t.is_leaf or id(t) in reach_ids:  # (is_leaf: grad_fn is None, without making the node object)
        return t, where, True
    b = t._base
    return t, where, (b is not None and b.is_leaf) or where[0] in reach_ptrs


def estimate_bytes(tensors: list, samples: int = 64) -> int:
    """Bytes of `tensors`, estimated from evenly spaced samples (exact when
    there are at most `samples`): a budget check, not worth a pass over
    every tensor."""
    n = len(tensors)
    step = max(1, n // samples)
    tot = 0
    k = 0
    for j in range(0, n, step):
        try:
            x = tensors[j]
            tot += x.numel() * x.element_size()
        except Exception:
            pass
        k += 1
    return tot * n // max(1, k)


def _materialize(state: CaptureState, cap: CapturedGraph) -> None:
    g = cap.graph
    order, nexts = cap.order, cap.nexts
    base = cap.ids.base
    index = cap.ids.index
    request = state.summ.request
    module_of = cap.module_of
    leaf_info, named, saved = cap.leaf_info, cap.named, cap.saved
    retains, hooks_by_node, node_hooks = cap.retains, cap.hooks_by_node, cap.node_hooks
    saved_attrs = _SAVED_ATTRS
    hook_skips = cap.hook_skips
    nodes = g.nodes
    edges = g.edges
    node_app = nodes.append
    edge_app = edges.append
    phase = state.progress.phase("building", len(order))
    # every node's id, made once (each is also its in-edges' source)
    nids = cap.ids.names = [f"n{k}" for k in range(base + 1, base + len(order) + 1)]
    for i, n in enumerate(order):
        if not i & TICK_MASK:
            phase.tick(i)
        nid = nids[i]
        li = leaf_info.get(i)
        if li is not None:
            summary, label, module, mclass, hooks = li
            node = Node(nid, "AccumulateGrad", "leaf", label, summary)
            if module is not None:
                node.module = module
                node.module_class = mclass
            if hooks:
                node.hooks = list(hooks)
        else:
            node = Node(nid, n.name(), "op")
            nm = named.get(i)
            if nm is not None:
                node.label, node.tensor = nm
            if module_of is not None:
                node.module, node.module_class, node.module_call = module_of(n)
            attrs = saved_attrs.get(type(n))
            if attrs is None:
                attrs = _saved_attrs(n)
            if attrs and state.read_saved:
                sv = saved.get(i)
                node.saved = _saved_values(n, attrs, sv, request)
                if hook_skips and sv and any(type(e) is tuple and e[2] is SKIP_CHECKPOINT for e in sv):
                    node.in_checkpoint = True
            elif i in saved:  # (no values: the checkpoint's placeholders only)
                node.saved = [skipped(e[0], e[2]) for e in saved[i]]
                node.in_checkpoint = True
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
        slot = 0
        for m, nr in nexts[i]:
            if m is not None:
                edge_app(Edge(nids[index[m]], nid, nr, slot))
            slot += 1
    g.roots = [nids[index[n]] for n in cap.root_nodes]
    # what only materialize needed (freed here: typed as always present before)
    cap.nexts = None  # type: ignore[assignment]
    cap.named = cap.saved = cap.leaf_info = None  # type: ignore[assignment]
    cap.hooks_by_node = cap.node_hooks = None  # type: ignore[assignment]
    cap.retains = None  # type: ignore[assignment]


def _saved_values(node, attrs: list, captured: Optional[list], request) -> list[SavedValue]:
    """node.saved, in _saved_attrs order: the SavedVariables as captured
    (one entry, or a list for a list of tensors, per attribute), the plain
    attributes read now."""
    out: list[SavedValue] = []
    k = 0
    for name, attr, raw_attr in attrs:
        if raw_attr is None:
            try:
                v = getattr(node, attr)
            except Exception:
                out.append(skipped(name, SKIP_FREED))
                continue
            out.append(SavedValue(name, None, _plain_value(v)))
            continue
        if captured is None or k >= len(captured):
            continue
        e = captured[k]
        k += 1
        for name2, tag, a, b in (e if type(e) is list else (e,)):
            if tag == _S_SUMMARY:
                out.append(SavedValue(name2, a))
            elif tag == _S_DEFERRED:
                try:
                    same = a._version == b
                except Exception:
                    same = False
                out.append(SavedValue(name2, request(a)) if same else skipped(name2, SKIP_CHANGED))
            elif tag == _S_PLAIN:
                out.append(SavedValue(name2, None, _plain_value(a)))
            else:
                out.append(skipped(name2, a))
    return out
