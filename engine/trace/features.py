"""Trace features that declare themselves: one declaration, no hand lists.

A feature (checkpoint, memory, GradScaler, the layer table, DDP, or one a test
makes up) keeps its records in the trace: a list of msgspec Structs or one
Struct in a field of `Trace` (`Trace.checkpoints`, `Trace.memory`), or, for a
feature the core schema does not name, under its name in `Trace.features`.
It says so once:

    declare("checkpoint", Checkpoint, field="checkpoints")

and merge.py (a child process's trace into the parent's) and codec.py
(non-finite floats, tensor summaries) iterate over `declared()`. What they do
with a record is DERIVED from the Struct's own annotations, walked once per
class (`plan_of`):

- a field typed `Id` (`Annotated[str, ID]`: also Optional, in lists) holds an
  id that is only unique inside one process: merge prefixes it ("p42.n7");
- a field typed `IndexInto("backward_runs")` (`Annotated[int, ...]`) points
  into a list of the trace: merge shifts it by that list's length before the
  merge;
- a `float` field (also Optional, in lists, as dict values) may hold NaN or
  an infinity: the codec writes its name ("NaN", "Infinity") and the typed
  decoder reads it back;
- a `TensorSummary` field is summarised like every other summary (non-finite
  statistics, short float digits, merge drops its fetch id);
- a nested Struct field is walked the same way.

So a new float field of a feature can no longer be written as `null`, and a
new id field can no longer escape the prefix. Plain data: no torch, no Qt;
this module imports nothing of the trace model (the record modules import it
for the markers), so `declare` lives beside each feature's records.
"""

from __future__ import annotations

import sys
import typing
from dataclasses import dataclass
from typing import Annotated, Any, Callable, Iterator, Optional, Union

import msgspec


class _IdMarker:
    """Annotation marker: a string id local to the process that recorded it."""

    def __repr__(self) -> str:
        return "ID"


ID = _IdMarker()
# A field holding an id ("n7", "g2", "c1", "s1"): merge prefixes it.
Id = Annotated[str, ID]


@dataclass(frozen=True)
class IndexInto:
    """Annotation marker: an int that is a position in `Trace.<field>` (a list)."""

    field: str


# A position in Trace.backward_runs (merge shifts it by the parent's run count).
RunIndex = Annotated[int, IndexInto("backward_runs")]

# kinds of a field in a plan
_ID, _INDEX, _FLOAT, _SUMMARY, _STRUCT = "id", "index", "float", "summary", "struct"
# shapes of a field: one value, a list of them, the values of a dict
ONE, LIST, DICT = "one", "list", "dict"


@dataclass(frozen=True)
class FieldPlan:
    """What one field of a Struct holds, as its annotation says."""

    name: str
    kind: str  # _ID, _INDEX, _FLOAT, _SUMMARY or _STRUCT
    shape: str  # ONE, LIST or DICT
    target: Any = None  # _INDEX: the trace field; _STRUCT: the Struct class


_PLANS: dict[type, tuple[FieldPlan, ...]] = {}


def _summary_class() -> type:
    from autogradviz.engine.trace.summary import TensorSummary
    return TensorSummary


def _strip_optional(tp) -> Any:
    """`Optional[X]` -> X (a Union of X and None); anything else unchanged."""
    if typing.get_origin(tp) is Union:
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return tp


def _leaf_kind(tp) -> Optional[tuple[str, Any]]:
    """(kind, target) of one value's type, or None for a type nothing is done to."""
    tp = _strip_optional(tp)
    if typing.get_origin(tp) is Annotated:
        base, *meta = typing.get_args(tp)
        for m in meta:
            if m is ID:
                return _ID, None
            if isinstance(m, IndexInto):
                return _INDEX, m.field
        tp = base
    if tp is float:
        return _FLOAT, None
    if isinstance(tp, type) and issubclass(tp, msgspec.Struct):
        if tp is _summary_class():
            return _SUMMARY, None
        # (a record with nothing to visit, e.g. MemoryParts, is not walked)
        return (_STRUCT, tp) if plan_of(tp) else None
    return None


def _field_plan(name: str, tp) -> Optional[FieldPlan]:
    tp = _strip_optional(tp)
    origin = typing.get_origin(tp)
    if origin in (list, tuple):
        args = typing.get_args(tp)
        found = _leaf_kind(args[0]) if args else None
        return FieldPlan(name, found[0], LIST, found[1]) if found else None
    if origin is dict:
        args = typing.get_args(tp)
        found = _leaf_kind(args[1]) if len(args) == 2 else None
        return FieldPlan(name, found[0], DICT, found[1]) if found else None
    found = _leaf_kind(tp)
    return FieldPlan(name, found[0], ONE, found[1]) if found else None


def plan_of(cls: type[msgspec.Struct]) -> tuple[FieldPlan, ...]:
    """The fields of Struct class `cls` that merge or the codec must visit,
    read from its annotations (cached per class)."""
    plan = _PLANS.get(cls)
    if plan is None:
        module = sys.modules.get(cls.__module__)
        hints = typing.get_type_hints(cls, globalns=vars(module) if module else None, include_extras=True)
        found = []
        for name in cls.__struct_fields__:
            fp = _field_plan(name, hints[name])
            if fp is not None:
                found.append(fp)
        plan = _PLANS[cls] = tuple(found)
    return plan


def _values(obj, fp: FieldPlan) -> list:
    """The non-None values of one field of `obj`, as a list."""
    v = getattr(obj, fp.name)
    if v is None:
        return []
    if fp.shape == LIST:
        return [x for x in v if x is not None]
    if fp.shape == DICT:
        return [x for x in v.values() if x is not None]
    return [v]


# -- walks over records (derived from plan_of) ------------------------------------------------------
def summaries(obj) -> Iterator:
    """Every TensorSummary inside record `obj` (None where a place holds none),
    in field order, nested records included."""
    for fp in plan_of(type(obj)):
        if fp.kind == _SUMMARY:
            v = getattr(obj, fp.name)
            if fp.shape == ONE:
                yield v
            elif v:
                yield from (v if fp.shape == LIST else v.values())
        elif fp.kind == _STRUCT:
            for child in _values(obj, fp):
                yield from summaries(child)


def relabel(obj, prefix: Callable[[str], str], bases: dict) -> None:
    """Prefix every id of record `obj` (empty ids stay empty: "not known")
    and shift every index into a trace list by `bases[that list]`."""
    for fp in plan_of(type(obj)):
        kind, name = fp.kind, fp.name
        if kind == _ID:
            v = getattr(obj, name)
            if fp.shape == ONE:
                if v:
                    setattr(obj, name, prefix(v))
            elif fp.shape == LIST:
                setattr(obj, name, [prefix(x) if x else x for x in v])
            else:
                setattr(obj, name, {k: prefix(x) if x else x for k, x in v.items()})
        elif kind == _INDEX:
            base = bases.get(fp.target, 0)
            v = getattr(obj, name)
            if fp.shape == ONE:
                if v is not None:
                    setattr(obj, name, v + base)
            elif fp.shape == LIST:
                setattr(obj, name, [x + base if x is not None else x for x in v])
        elif kind == _STRUCT:
            for child in _values(obj, fp):
                relabel(child, prefix, bases)


def shift_back(obj, bases: dict, nested: bool = True) -> bool:
    """The inverse of relabel's shift, for the part of a trace recorded after
    a fork (engine/worker/fork_child.py): every index into a trace list
    counted from `bases[that list]`. An index that points before the base
    (to the parent's records) becomes None where the field may be None;
    where it may not, False is returned: `obj` belongs to the parent.
    `nested` False: the records inside `obj` are left as they are."""
    required = _required(type(obj))
    for fp in plan_of(type(obj)):
        if fp.kind == _INDEX:
            base = bases.get(fp.target, 0)
            v = getattr(obj, fp.name)
            if fp.shape == ONE:
                if v is None:
                    continue
                if v < base and fp.name in required:
                    return False
                setattr(obj, fp.name, v - base if v >= base else None)
            elif fp.shape == LIST:
                setattr(obj, fp.name, [x - base if x is not None and x >= base else None for x in v])
        elif fp.kind == _STRUCT and nested:
            for child in _values(obj, fp):
                shift_back(child, bases)
    return True


def ids(obj) -> Iterator[str]:
    """Every id in record `obj` (nested records included): what it refers to."""
    for fp in plan_of(type(obj)):
        if fp.kind == _ID:
            yield from (x for x in _values(obj, fp) if x)
        elif fp.kind == _STRUCT:
            for child in _values(obj, fp):
                yield from ids(child)


_REQUIRED: dict[type, frozenset] = {}


def _required(cls: type) -> frozenset:
    """The fields of Struct class `cls` without a default (cached)."""
    found = _REQUIRED.get(cls)
    if found is None:
        found = _REQUIRED[cls] = frozenset(f.name for f in msgspec.structs.fields(cls) if f.required)
    return found


def nonfinite_floats(obj) -> Iterator[tuple[Any, str, Any]]:
    """(record, field name, value) for each float field of `obj` (nested
    records included) holding a non-finite float somewhere; the value as it
    is (a float, a list or a dict of floats)."""
    for fp in plan_of(type(obj)):
        if fp.kind == _FLOAT:
            v = getattr(obj, fp.name)
            if v is None:
                continue
            if fp.shape == ONE:
                bad = _bad(v)
            else:
                bad = any(_bad(x) for x in (v if fp.shape == LIST else v.values()))
            if bad:
                yield obj, fp.name, v
        elif fp.kind == _STRUCT:
            for child in _values(obj, fp):
                yield from nonfinite_floats(child)


_INF = float("inf")


def _bad(x) -> bool:
    """x is a non-finite float."""
    return x.__class__ is float and not (-_INF < x < _INF)


# -- the declarations ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class TraceFeature:
    """One feature's place in the trace.

    `record`: the Struct class of its records. `field`: the Trace attribute
    holding them (a list of records, or one record / None); None: the
    feature lives in `Trace.features[name]` (a list of records), so a new
    feature needs no change to the Trace class. `unique_by`: merge appends
    a child's record only when no record of the parent has the same value
    of that field (the layer table: one row per module path). `owns`:
    fields of core records it fills (DDP's "allreduce" events), for people
    reading the declaration. `within`: the records are core records at
    that place of the trace ("backward_runs.events"): the core's own merge
    and codec handle them, and `owns` names the fields the feature fills."""

    name: str
    record: type[msgspec.Struct]
    field: Optional[str] = None
    unique_by: Optional[str] = None
    owns: tuple[str, ...] = ()
    within: Optional[str] = None

    def get(self, trace) -> Any:
        """Its records in `trace`: a list, or the one record (None: none)."""
        if self.field is None:
            return trace.features.get(self.name, [])
        return getattr(trace, self.field)

    def set(self, trace, value) -> None:
        if self.field is None:
            trace.features[self.name] = value
        else:
            setattr(trace, self.field, value)

    def records(self, trace) -> list:
        """Its records in `trace` as a list (empty when none)."""
        v = self.get(trace)
        if v is None:
            return []
        return v if isinstance(v, list) else [v]


_DECLARED: dict[str, TraceFeature] = {}


def declare(name: str, record: type, field: Optional[str] = None, *, unique_by: Optional[str] = None,
            owns: tuple[str, ...] = (), within: Optional[str] = None) -> TraceFeature:
    """Declare (or re-declare) the feature `name`: its records are `record`
    Structs in `Trace.<field>` (or in `Trace.features[name]` without a
    field). Everything merge and the codec do to them follows from the
    Struct's annotations (see the module doc). Returns the declaration."""
    if not (isinstance(record, type) and issubclass(record, msgspec.Struct)):
        raise TypeError(f"a feature's records are msgspec Structs, not {record!r}")
    plan_of(record)  # (fails now, at the declaration, on annotations it cannot read)
    feature = TraceFeature(name, record, field, unique_by, tuple(owns), within)
    _DECLARED[name] = feature
    return feature


def undeclare(name: str) -> None:
    """Forget a declaration (a test's made-up feature)."""
    _DECLARED.pop(name, None)


def declared() -> list[TraceFeature]:
    """Every declared feature, in declaration order (the core ones first:
    importing the trace model declares them)."""
    _core()
    return list(_DECLARED.values())


def separate() -> list[TraceFeature]:
    """The declared features with records of their own: what merge and the
    codec iterate over."""
    return [f for f in declared() if f.within is None]


def visited() -> list[TraceFeature]:
    """The separate features whose records hold something the codec must
    visit (a float, a summary): the layer table's rows, say, hold neither."""
    return [f for f in separate() if any(fp.kind in (_FLOAT, _SUMMARY) for fp in _deep_plan(f.record))]


def _deep_plan(cls: type) -> list[FieldPlan]:
    """plan_of(cls) and that of every record nested in it."""
    out: list[FieldPlan] = []
    for fp in plan_of(cls):
        out.append(fp)
        if fp.kind == _STRUCT:
            out += _deep_plan(fp.target)
    return out


def _core() -> None:
    """Importing the record modules declares the core features (once)."""
    import autogradviz.engine.trace.model  # noqa: F401 (model imports every record module)


@dataclass(frozen=True)
class SavedSkip:
    """Why a feature's saved tensors are not read at capture: `text`
    (English, `SavedValue.skipped`) and `code` (`SavedValue.skipped_code`,
    the app translates it). `hook_module`: the module whose saved-tensors
    unpack hook marks them (reading them would call it)."""

    code: str
    text: str
    hook_module: Optional[str] = None


_SKIPS: dict[str, SavedSkip] = {}


def declare_skip(code: str, text: str, hook_module: Optional[str] = None) -> SavedSkip:
    """Declare a reason a feature's saved tensors are left unread (see SavedSkip)."""
    skip = _SKIPS[code] = SavedSkip(code, text, hook_module)
    return skip


def saved_skips() -> dict[str, SavedSkip]:
    """{unpack hook's module: SavedSkip} of every declared skip with a hook module."""
    _core()
    return {s.hook_module: s for s in _SKIPS.values() if s.hook_module}


def decode_extra(trace) -> None:
    """After a typed read: the records of features kept in `Trace.features`
    (plain data there, as the decoder cannot know their classes) as their
    Structs; names of non-finite floats become floats (lax conversion).
    Features not declared in this process stay plain data."""
    for name, raw in list(trace.features.items()):
        feature = _DECLARED.get(name)
        if feature is None or feature.field is not None or feature.within or not isinstance(raw, list):
            continue
        trace.features[name] = msgspec.convert(raw, list[feature.record], strict=False)  # type: ignore[name-defined]  # (a type made at run time)
