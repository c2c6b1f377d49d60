"""A decoded trace checked against what the worker guarantees, before anyone reads it.

Why: a trace file is data from anywhere, and every reader (stepper, layout,
Inspector, rule binding, exports) sizes its work by what the file says. A
22 KB file whose tensor has shape [1e9, 1, 1] but one value made the matrix
text loop a billion times; an edge `slot` of 10^7 made rule binding build
ten million rows; a module path of 10,000 parts made the layout's group
prefixes quadratic (8 GB). So `check_trace` (called by codec.decode_trace
and codec.trace_from_builtins, i.e. on every load) makes sure that:

- every TensorSummary's shape has non-negative sizes whose product is its
  `numel` (when written: readers fall back to the shape's product), and
  its `values` are no more than `numel` (all of them when not `truncated`,
  or none: a dtype the worker could not read) and at most MAX_VALUES;
- every edge joins two nodes of its graph, with `slot` and `input_nr` in
  0..MAX_SLOT; every run names a graph of the trace and every step a node of
  that graph (or "", a node the worker could not name);
- module paths have at most MAX_MODULE_PARTS parts and MAX_MODULE_CHARS
  characters.

A broken summary or reference is refused (TraceInvalid, one line naming
where); a module path that is too deep is cut to its first parts (the
trace then holds a note saying so): a deep model is still a real run.

The check is one pass over the graphs and runs (about 30 ms for a 9,000-node,
17 MB trace) plus an iterative walk of the rest (no recursion, whatever the
nesting); the walk that keeps paths runs only to say where a file is broken.
Plain data: no torch, no Qt.
"""

from __future__ import annotations

from typing import Optional

import msgspec

from autogradviz.engine.trace.modules import ModuleRecord
from autogradviz.engine.trace.summary import TensorSummary

# The most values a summary in a trace may carry (the worker writes at most
# MAX_INLINE_VALUES = 64; fetched full values never go into a trace).
MAX_VALUES = 1 << 16
# The most dimensions a tensor may have (torch allows 64 at most).
MAX_DIMS = 64
# The largest element count a shape may describe.
MAX_NUMEL = 1 << 62
# The largest edge slot / input_nr: an op's number of inputs (a cat of a
# million tensors still fits).
MAX_SLOT = 1 << 20
# Module paths: deeper than any real model; cut beyond that.
MAX_MODULE_PARTS = 64
MAX_MODULE_CHARS = 4096


class TraceInvalid(ValueError):
    """The trace breaks an invariant the worker guarantees (the message says where)."""


def _where(path) -> str:
    """'graphs[0].nodes[3].tensor' from the walk's linked (parent, key) pairs."""
    keys = []
    while path is not None:
        path, key = path
        keys.append(key)
    text = ""
    for key in reversed(keys):
        text += f"[{key}]" if isinstance(key, int) else (f".{key}" if text else key)
    return text or "the trace"


def _shape_text(shape) -> str:
    if len(shape) > 8:
        return "(" + ", ".join(str(d) for d in shape[:8]) + f", … {len(shape)} dimensions)"
    return "(" + ", ".join(str(d) for d in shape) + ")"


def _check_summary(s: TensorSummary, path) -> None:
    shape = s.shape
    if len(shape) > MAX_DIMS:
        raise TraceInvalid(f"{_where(path)}: a tensor with {len(shape)} dimensions (at most {MAX_DIMS})")
    p = 1
    for d in shape:
        if d < 0:
            raise TraceInvalid(f"{_where(path)}: a tensor of shape {_shape_text(shape)} (a negative size)")
        p *= d
        if p > MAX_NUMEL:
            raise TraceInvalid(f"{_where(path)}: a tensor of shape {_shape_text(shape)} (too many elements)")
    numel = s.numel
    if numel == 0:
        numel = p  # (not written: files from before `numel`, summaries made by hand; readers use the shape)
    elif numel != p:
        raise TraceInvalid(f"{_where(path)}: a tensor of shape {_shape_text(shape)} has {p:,} elements, "
                           f"but its numel says {numel:,}")
    n = len(s.values)
    if n > MAX_VALUES:
        raise TraceInvalid(f"{_where(path)}: a tensor summary with {n:,} values (at most {MAX_VALUES:,})")
    if n > numel or (n and not s.truncated and n != numel):
        raise TraceInvalid(f"{_where(path)}: a tensor of shape {_shape_text(shape)} ({numel:,} elements) "
                           f"with {n:,} values{'' if s.truncated else ' and not truncated'}")


_SCALARS = (msgspec.inspect.StrType, msgspec.inspect.IntType, msgspec.inspect.FloatType,
            msgspec.inspect.BoolType, msgspec.inspect.NoneType, msgspec.inspect.LiteralType)
_FIELDS: dict = {}


def _may_nest(t) -> bool:
    """A field of msgspec type `t` can hold a Struct, a dict or a list of them."""
    if isinstance(t, _SCALARS):
        return False
    if isinstance(t, msgspec.inspect.UnionType):
        return any(_may_nest(x) for x in t.types)
    if isinstance(t, msgspec.inspect.ListType):
        return _may_nest(t.item_type)
    if isinstance(t, msgspec.inspect.DictType):
        return _may_nest(t.value_type)
    return True


def _fields_of(cls) -> tuple:
    """The fields of a Struct class worth walking into (cached per class):
    reading every field of every part cost as much as decoding the file."""
    names = _FIELDS.get(cls)
    if names is None:
        try:
            info = msgspec.inspect.type_info(cls)
            names = tuple(f.name for f in info.fields if _may_nest(f.type))  # type: ignore[attr-defined]  # (a StructType's)
        except Exception:  # (a type msgspec cannot describe: walk everything)
            names = cls.__struct_fields__
        _FIELDS[cls] = names
    return names


def _fits(s: TensorSummary) -> bool:
    """`_check_summary` without the message (the fast pass)."""
    shape = s.shape
    if len(shape) > MAX_DIMS:
        return False
    p = 1
    for d in shape:
        if d < 0:
            return False
        p *= d
    if p > MAX_NUMEL or (s.numel and s.numel != p):
        return False
    n = len(s.values)
    return not n or (n <= MAX_VALUES and n <= p and (s.truncated or n == p))


def _all_fit(trace) -> bool:
    """Every summary fits: the graphs' and runs' (nearly all of a big trace)
    read directly, the rest walked. No paths kept: when one does not fit,
    `_check_summaries` walks again to say where."""
    for g in trace.graphs:
        for n in g.nodes:
            if n.tensor is not None and not _fits(n.tensor):
                return False
            for sv in n.saved:
                if sv.tensor is not None and not _fits(sv.tensor):
                    return False
                if sv.value.__class__ in (list, dict) and not _walk_fits(sv.value):
                    return False
    for run in trace.backward_runs:
        for st in run.steps:
            for t in st.grad_outputs:
                if t is not None and not _fits(t):
                    return False
            for t in st.grad_inputs:
                if t is not None and not _fits(t):
                    return False
        for name in _fields_of(run.__class__):
            if name != "steps" and not _walk_fits(getattr(run, name)):
                return False
    for name in _fields_of(trace.__class__):
        if name not in ("graphs", "backward_runs") and not _walk_fits(getattr(trace, name)):
            return False
    return True


def _walk_fits(obj) -> bool:
    c = obj.__class__
    if not (c is TensorSummary or c is list or c is dict or isinstance(obj, msgspec.Struct)):
        return True  # (None, a number, a string)
    try:
        _check_summaries(obj)
    except TraceInvalid:
        return False
    return True


def _check_summaries(trace) -> None:
    """Every TensorSummary anywhere in `trace` (iteratively, each part once),
    raising TraceInvalid with the path of the first that does not fit."""
    Struct = msgspec.Struct
    stack: list = [(trace, None)]
    pop, push = stack.pop, stack.append
    fields = _FIELDS
    while stack:
        obj, path = pop()
        cls = obj.__class__
        if cls is TensorSummary:
            _check_summary(obj, path)
        elif cls is list:
            if obj:
                c0 = obj[0].__class__
                if (c0 is not TensorSummary and isinstance(obj[0], Struct) and not _fields_of(c0)
                        and all(v.__class__ is c0 for v in obj)):
                    continue  # (12,000 memory points: nothing inside can hold a summary)
            for i, v in enumerate(obj):
                c = v.__class__
                if c is TensorSummary or c is list or c is dict or isinstance(v, Struct):
                    push((v, (path, i)))
        elif cls is dict:
            for k, v in obj.items():
                c = v.__class__
                if c is TensorSummary or c is list or c is dict or isinstance(v, Struct):
                    push((v, (path, str(k))))
        else:
            names = fields.get(cls) or _fields_of(cls)
            for name in names:
                v = getattr(obj, name)
                c = v.__class__
                if c is TensorSummary or c is list or c is dict or isinstance(v, Struct):
                    push((v, (path, name)))


def _cut_module(path: Optional[str]) -> Optional[str]:
    """`path` cut to MAX_MODULE_PARTS parts and MAX_MODULE_CHARS characters (None: it fits)."""
    if path is None or (len(path) <= MAX_MODULE_CHARS and path.count(".") < MAX_MODULE_PARTS):
        return None
    return ".".join(path[:MAX_MODULE_CHARS].split(".")[:MAX_MODULE_PARTS])


def _check_refs(trace) -> int:
    """Edges, runs and steps refer to what exists; module paths cut. Returns
    how many module paths were cut."""
    cut = 0
    ids_of: dict = {}
    for gi, g in enumerate(trace.graphs):
        ids = {n.id for n in g.nodes}
        ids_of.setdefault(g.id, ids)
        for n in g.nodes:
            m = n.module
            if m is not None and (len(m) > MAX_MODULE_CHARS or m.count(".") >= MAX_MODULE_PARTS):
                n.module = _cut_module(m)
                cut += 1
        for ei, e in enumerate(g.edges):
            if e.src not in ids or e.dst not in ids:
                missing = e.src if e.src not in ids else e.dst
                raise TraceInvalid(f"graphs[{gi}].edges[{ei}]: node {missing[:80]!r} is not in graph "
                                   f"{str(g.id)[:80]!r}")
            if not (0 <= e.slot <= MAX_SLOT and 0 <= e.input_nr <= MAX_SLOT):
                raise TraceInvalid(f"graphs[{gi}].edges[{ei}]: slot {e.slot:,} / input_nr {e.input_nr:,} "
                                   f"(each 0 to {MAX_SLOT:,})")
    for ri, run in enumerate(trace.backward_runs):
        run_ids = ids_of.get(run.graph)
        if run_ids is None:
            if not run.steps:
                continue  # (nothing refers into it)
            raise TraceInvalid(f"backward_runs[{ri}]: graph {str(run.graph)[:80]!r} is not in the trace")
        for si, st in enumerate(run.steps):
            if st.node and st.node not in run_ids:
                raise TraceInvalid(f"backward_runs[{ri}].steps[{si}]: node {st.node[:80]!r} is not in graph "
                                   f"{str(run.graph)[:80]!r}")
    for rec in trace.modules:
        if isinstance(rec, ModuleRecord):
            short = _cut_module(rec.path)
            if short is not None:
                rec.path = short
                cut += 1
    return cut


def check_trace(trace):
    """Raise TraceInvalid for a trace that breaks the invariants above; cut
    module paths that are too deep (and say so in a note). Returns `trace`."""
    if not _all_fit(trace):
        _check_summaries(trace)  # (raises, saying where)
    cut = _check_refs(trace)
    if cut:
        trace.add_note("module_paths_cut", count=cut, parts=MAX_MODULE_PARTS, chars=MAX_MODULE_CHARS)
    return trace
