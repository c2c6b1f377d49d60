"""Trace <-> JSON, by msgspec from the Struct classes in model.py.

Why msgspec: the schema is the classes themselves, and encoding and typed
decoding run in C. The hand-written converters this replaces spent about
2 s encoding and 1 s decoding a 10,000-node trace.

What msgspec does not do the way the format wants, and is done here:

- **Non-finite floats.** Strict JSON has no NaN/Infinity; the format writes the
  strings "NaN", "Infinity", "-Infinity" where a float is expected. msgspec
  would write `null`. Encoding first checks every tensor summary's statistics
  (a summary whose min/max/mean/norm are finite holds only finite values: the
  statistics cover all elements; one numpy pass over all of them), then, for
  the few places that hold a non-finite float, swaps in the string names for
  the time of the encode and swaps the floats back (`encoding`: after the
  block that sends the bytes, or never for the worker, which does not read a
  sent trace again). One walk over the graphs and runs (_file_walk) swaps in
  the `same_as` references and finds every summary once for the non-finite
  check and the shortened floats (short_floats.py). The float fields of a declared feature's records
  (GradScaler's norms, any feature's) are found from their Struct
  annotations (engine/trace/features.py), not listed here; records kept in
  `Trace.features` are converted to their Structs after the read, laxly.
  Decoding in msgspec's lax mode (`strict=False`) turns
  the names back into floats wherever the schema says float; `SavedValue.value`
  (free-form) is fixed up after decoding, as before.
- **Lone surrogates** (a script printing "\\ud800") cannot be UTF-8: such a
  trace is written by the standard json module as ASCII with \\u escapes,
  which msgspec cannot read back, so decoding falls back to json as well.
- **`format` and `version` check.** A file whose `format` is not
  "autogradviz-trace" is rejected, also when the key is missing; so is a file
  whose `version` is newer than this reader's `VERSION` (TraceVersionError:
  a newer app wrote it, with changes an older reader would misread). Older
  versions (and files without a version) load.
- **Invariants and nesting.** Every decoded trace goes through
  validate.check_trace (sizes consistent with `numel`, references inside
  bounds, module paths bounded): a file can make no reader loop over a
  billion elements. JSON nested deeper than the parsers go is refused with
  one line (TraceDecodeError), not a RecursionError.

Nothing here imports torch or Qt.
"""

from __future__ import annotations

import contextlib
import json
import math
from itertools import chain
from operator import attrgetter
from typing import Any, Iterator, Optional, Union

import msgspec

from autogradviz.engine.trace import features, short_floats
from autogradviz.engine.trace.model import FORMAT, VERSION, TensorSummary, Trace, gc_paused
from autogradviz.engine.trace.validate import TraceInvalid, check_trace

NONFINITE = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}
_INF = math.inf



def _enc_hook(obj):
    """Subclasses of str/int/float (torch.__version__ is a TorchVersion, a
    numpy float64 is a float) as the plain type, as json.dumps wrote them."""
    if isinstance(obj, str):
        return str(obj)
    if isinstance(obj, float):
        x = float(obj)
        return x if -_INF < x < _INF else _float_name(x)
    if isinstance(obj, int):
        return int(obj)
    raise NotImplementedError(f"cannot encode {type(obj).__name__} objects as JSON")


_ENCODER = msgspec.json.Encoder(enc_hook=_enc_hook)
_TRACE_DECODER = msgspec.json.Decoder(Trace, strict=False)


class _Head(msgspec.Struct):
    """Only the `format` and `version` of a file (msgspec skips the rest quickly)."""

    format: Any = None
    version: Any = None


_HEAD_DECODER = msgspec.json.Decoder(_Head)


# The Trace fields decode_trace_outline leaves out: every one that grows
# with the graph (the rest are the run's few top-level facts).
BULK_FIELDS = frozenset({"graphs", "backward_runs", "scaler_events", "checkpoints", "modules", "memory",
                         "torch_formulas", "features", "note_codes", "note_records"})
# (`format` absent reads as None here: such a file is refused, not taken for a trace)
_Outline = msgspec.defstruct(
    "_Outline", [(f.name, f.type, None if f.name == "format" else f.default if f.default is not msgspec.NODEFAULT
                  else msgspec.field(default_factory=f.default_factory))
                 for f in msgspec.structs.fields(Trace) if f.name not in BULK_FIELDS])
_OUTLINE_DECODER = msgspec.json.Decoder(_Outline, strict=False)


class TraceDecodeError(ValueError):
    """The data is not a readable trace (not JSON, not a trace, wrong types)."""


TOO_DEEP = "nested too deeply to be a trace: JSON arrays or objects inside each other beyond what a parser follows"


class TraceVersionError(TraceDecodeError):
    """A trace of a newer format version than this reader knows (`found`, `known`)."""

    def __init__(self, found: int, known: int = VERSION):
        super().__init__(f"a trace of format version {found}, newer than the {known} this version of "
                         "autogradviz reads (update autogradviz to open it)")
        self.found = found
        self.known = known


def check_version(version: Any) -> None:
    """Refuse a newer format version (TraceVersionError); an absent or older one is fine."""
    if isinstance(version, int) and not isinstance(version, bool) and version > VERSION:
        raise TraceVersionError(version)


# -- non-finite floats ----------------------------------------------------------------------------
def _float_name(x: float) -> str:
    return "NaN" if x != x else ("Infinity" if x > 0 else "-Infinity")


def _bad(x) -> bool:
    """x is a non-finite float."""
    return x.__class__ is float and not (-_INF < x < _INF)


def encode_nonfinite(obj):
    """`obj` (plain data) with every non-finite float replaced by its name."""
    if isinstance(obj, float):
        return _float_name(obj) if _bad(obj) else obj
    if isinstance(obj, dict):
        return {k: encode_nonfinite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [encode_nonfinite(v) for v in obj]
    return obj


def _has_nonfinite(obj) -> bool:
    """Plain data (numbers, lists, dicts) holds a non-finite float."""
    cls = obj.__class__
    if cls is float:
        return not (-_INF < obj < _INF)
    if cls is list or cls is tuple:
        return any(_has_nonfinite(v) for v in obj)
    if cls is dict:
        return any(_has_nonfinite(v) for v in obj.values())
    return False


def decode_value(v):
    """A free-form value from a file: the names of non-finite floats (also in
    lists) back to floats."""
    if v.__class__ is str:
        return NONFINITE.get(v, v)
    if v.__class__ is list:
        return [decode_value(x) for x in v]
    return v


class _Swaps:
    """Attributes set to their file form for one encode, then put back.
    The bulk kinds (references, shortened floats) keep compact undo lists of
    their own: one tuple per step or per dtype, not one per attribute."""

    def __init__(self):
        self.undo: list = []
        # (saved value, its summary) for each saved tensor written as a reference
        self.saved_refs: list = []
        # (step, grad_outputs, grad_inputs, same_as) for each step written with references
        self.step_refs: list = []
        # (summaries, their values, mins, maxs) of each dtype before shortening, put back last
        self.summaries: list = []

    def set(self, obj, name: str, value) -> None:
        self.undo.append((obj, name, getattr(obj, name)))
        setattr(obj, name, value)

    def restore(self) -> None:
        for obj, name, old in reversed(self.undo):
            setattr(obj, name, old)
        self.undo.clear()
        for sv, t in self.saved_refs:
            sv.tensor, sv.same_as = t, None
        self.saved_refs.clear()
        for st, outs, ins, same in self.step_refs:
            st.grad_outputs, st.grad_inputs, st.same_as = outs, ins, same
        self.step_refs.clear()
        for group, values, mins, maxs in self.summaries:
            for s, v, mn, mx in zip(group, values, mins, maxs):
                s.values, s.min, s.max = v, mn, mx
        self.summaries.clear()


def _swap_summary(s: Optional[TensorSummary], swaps: _Swaps) -> None:
    if s is None:
        return
    mn, mx, me, no = s.min, s.max, s.mean, s.norm
    try:
        if ((mn is None or -_INF < mn < _INF) and (mx is None or -_INF < mx < _INF)
                and (me is None or -_INF < me < _INF) and (no is None or -_INF < no < _INF)
                and (mn is not None or not s.values)):
            return  # statistics over all elements are finite: so is every value
    except TypeError:  # not a number where one belongs: let the encoder say so
        return
    for name, v in (("min", mn), ("max", mx), ("mean", me), ("norm", no)):
        if v is not None and _bad(v):
            swaps.set(s, name, _float_name(v))
    if _has_nonfinite(s.values):
        swaps.set(s, "values", encode_nonfinite(s.values))


def _summaries(trace: Trace):
    """Every tensor summary of `trace` (a shared one as often as it is
    shared; None where a place holds none). One list for the non-finite swap,
    the shortening and the widening after a read, so that the reader widens
    exactly what the writer shortened."""
    for g in trace.graphs:
        for n in g.nodes:
            yield n.tensor
            for sv in n.saved:
                yield sv.tensor
    for run in trace.backward_runs:
        for st in run.steps:
            yield from st.grad_outputs
            yield from st.grad_inputs
        for ev in run.events:
            yield ev.received
            yield ev.returned
        yield from run.leaf_grads.values()
        yield from run.results
    # every declared feature's (the inputs checkpoint kept, a reentrant
    # re-run's nested backward, ...), as its records' annotations say
    walk = features.summaries
    for feature in features.visited():
        for record in feature.records(trace):
            yield from walk(record)


def _swap_nonfinite_summaries(unique: list, swaps: _Swaps) -> None:
    """Swap in the names of the non-finite floats of the summaries `unique`
    (each once). One numpy pass over all their statistics finds the few that
    may hold one (a statistic not finite, or absent: None reads as NaN);
    only those are looked at one by one (_swap_summary)."""
    import numpy as np

    try:
        stats = np.fromiter(chain.from_iterable(map(_STATS, unique)), np.float64, 4 * len(unique))
    except (TypeError, ValueError, OverflowError):  # not all numbers: each on its own
        suspects = unique
    else:
        finite = np.isfinite(stats.reshape(-1, 4)).all(axis=1)
        suspects = [unique[i] for i in np.flatnonzero(~finite).tolist()]
    for s in suspects:
        _swap_summary(s, swaps)


_STATS = attrgetter("min", "max", "mean", "norm")


def _swap_rest(trace: Trace, swaps: _Swaps) -> None:
    """Swap in the names of the non-finite floats outside summaries and
    saved values: every float field of every declared feature's records (a
    GradScaler overflow gives inf/NaN norms and losses, found from their
    annotations), notes' parameters, the duration."""
    for feature in features.visited():
        for record in feature.records(trace):
            for obj, name, value in features.nonfinite_floats(record):
                swaps.set(obj, name, encode_nonfinite(value))
    for notes in (trace.note_codes, trace.note_records):
        for note in notes:
            if _has_nonfinite(note.params):
                swaps.set(note, "params", encode_nonfinite(note.params))
    if _bad(trace.duration_s):
        swaps.set(trace, "duration_s", None)


def _float_summaries(trace: Trace) -> dict:
    """{dtype: [summary, ...]} of the float32/bfloat16/float16 summaries of
    `trace`, each once."""
    groups: dict = {}
    seen: set = set()
    add = seen.add
    dtypes = short_floats.DTYPES
    for s in _summaries(trace):
        if s is not None and s.dtype in dtypes and id(s) not in seen:
            add(id(s))
            g = groups.get(s.dtype)
            if g is None:
                groups[s.dtype] = [s]
            else:
                g.append(s)
    return groups


def _shorten_summaries(unique: list, trace: Trace, swaps: _Swaps) -> None:
    """Swap in the shortest decimals of the values, min and max of every
    float32/bfloat16/float16 summary among `unique` (one numpy pass per
    dtype) and mark the trace `float_digits="dtype"` (a reader widens them
    back: _widen_trace). A value that is not a float of its summary's dtype
    (a hand-made summary) leaves the whole trace in float64 form: a reader
    could not tell it from a shortened one. A trace the worker made with
    its values shortened already (`float_digits` "dtype" in memory:
    engine/worker/summarize.py) is written as it is."""
    if trace.float_digits == "dtype":
        return
    plans = _short_plans(unique)
    if plans is None:
        return
    for plan in plans:
        _swap_short(*plan, swaps)
    swaps.set(trace, "float_digits", "dtype")


def shorten_in_place(summaries: list) -> None:
    """Give the float32/bfloat16/float16 summaries among `summaries` (each
    once) the shortest decimals of their values, min and max, for good (the
    worker, for a trace it only sends: Trace.float_digits); those of a dtype
    holding a value that is not a float of it are left as they are."""
    for plan in _short_plans(summaries, each_dtype=True) or ():
        _swap_short(*plan, None)


_ShortPlan = tuple[list, list, list, list, list, int]


def _short_plans(unique: list, each_dtype: bool = False) -> Optional[list[_ShortPlan]]:
    """(group, values, mins, maxs, shortened floats, where the minima start)
    per dtype of `unique`'s float32/bfloat16/float16 summaries; None when a
    group cannot be shortened (each_dtype: that group is left out instead)."""
    groups: dict = {}
    dtypes = short_floats.DTYPES
    for s in unique:
        if s.dtype in dtypes:
            groups.setdefault(s.dtype, []).append(s)
    plans: list[_ShortPlan] = []
    for dtype, group in groups.items():
        values = [s.values for s in group]
        mins = [s.min for s in group]
        maxs = [s.max for s in group]
        flat = list(chain.from_iterable(values))
        stats = mins + maxs
        if None in stats:  # (no statistics: an empty tensor, or a run without values)
            stats = [0.0 if v is None else v for v in stats]
        short = short_floats.shorten(flat + stats, dtype)
        if short is None:
            if each_dtype:
                continue
            return None
        plans.append((group, values, mins, maxs, short, len(flat)))
    return plans


def _swap_short(group: list, values: list, mins: list, maxs: list, short: list, at: int,
                swaps: Optional[_Swaps]) -> None:
    """Give the summaries `group` their shortened floats: `short` holds all
    their values in order, then (from `at`) their mins, then their maxs.
    `swaps`: where the old ones are kept to be put back (None: for good)."""
    if swaps is not None:
        swaps.summaries.append((group, values, mins, maxs))
    n = len(group)
    j = 0
    for s, v, mn, mx, mn_short, mx_short in zip(group, values, mins, maxs,
                                                short[at:at + n], short[at + n:at + 2 * n]):
        k = j + len(v)
        s.values = short[j:k]
        j = k
        if mn is not None:
            s.min = mn_short
        if mx is not None:
            s.max = mx_short


def _widen_trace(trace: Trace) -> None:
    """After a read: the shortened floats of a `float_digits="dtype"` file
    rounded to their summary's dtype again, which gives exactly the floats
    the writer had (torch's own values); one array conversion per dtype."""
    if trace.float_digits != "dtype":
        return
    trace.float_digits = "float64"  # (in memory, floats are what they are)
    widen = short_floats.widen
    for dtype, group in _float_summaries(trace).items():
        flat: list = []
        for s in group:
            flat += s.values
        stats = [0.0 if v is None else v for s in group for v in (s.min, s.max)]
        wide = widen(flat + stats, dtype)
        if wide is None:  # not floats (a hand-edited file): each summary on its own
            for s in group:
                s.values = widen(s.values, dtype) or s.values
                if s.min.__class__ is float:
                    s.min = (widen([s.min], dtype) or [s.min])[0]  # (one float always widens)
                if s.max.__class__ is float:
                    s.max = (widen([s.max], dtype) or [s.max])[0]
            continue
        i = len(flat)
        j = 0
        for s in group:
            n = len(s.values)
            if n:
                s.values = wide[j:j + n]
                j += n
            if s.min is not None:
                s.min = wide[i]
            if s.max is not None:
                s.max = wide[i + 1]
            i += 2


def _file_walk(trace: Trace, swaps: _Swaps) -> list:
    """One walk over the graphs and runs of `trace` that swaps in their file
    form (references for repeated summaries, names for non-finite floats in
    saved values) and gives every summary the trace holds, each once (the
    same set as _summaries, which the reader widens: test_short_floats)."""
    found: list = []
    for g in trace.graphs:
        _swap_graph(g, swaps, found)
    for run in trace.backward_runs:
        _swap_run(run, swaps, found)
        for ev in run.events:
            found.append(ev.received)
            found.append(ev.returned)
        found += run.leaf_grads.values()
        found += run.results
    walk = features.summaries
    for feature in features.visited():
        for record in feature.records(trace):
            found += walk(record)
    unique = {id(s): s for s in found}
    unique.pop(id(None), None)
    return list(unique.values())


def _swap_graph(g, swaps: _Swaps, found: list) -> None:
    """Write each summary object once per graph's nodes: a saved value's
    repeat (the same object, as the worker shares them) becomes a null plus a
    `same_as` reference to where it was written first. Free-form saved values
    holding a non-finite float get names. Each summary written goes to `found`."""
    seen: dict = {}
    refs = swaps.saved_refs
    keep = found.append
    for pos, n in enumerate(g.nodes):
        t = n.tensor
        if t is not None and id(t) not in seen:
            seen[id(t)] = (pos, -1)
            keep(t)
        for k, sv in enumerate(n.saved):
            t = sv.tensor
            if t is not None:
                loc = seen.get(id(t))
                if loc is None:
                    seen[id(t)] = (pos, k)
                    keep(t)
                elif sv.same_as is None:
                    refs.append((sv, t))
                    sv.tensor, sv.same_as = None, list(loc)
            v = sv.value
            if v is not None and v.__class__ is not str and _has_nonfinite(v):
                swaps.set(sv, "value", encode_nonfinite(v))


def _swap_run(run, swaps: _Swaps, found: list) -> None:
    """Write each gradient summary once per run's steps: a repeat becomes a
    null plus a `same_as` entry [side, j, step, side2, j2] of its step. Each
    summary written goes to `found`. (One loop over both sides of every
    step, no call per side: a 50,000-step run repeats a gradient per step.)"""
    seen: dict = {}
    get = seen.get
    keep = found.append
    step_refs = swaps.step_refs
    for pos, st in enumerate(run.steps):
        outs, ins = st.grad_outputs, st.grad_inputs
        if st.same_as:  # references of its own already (not ours): leave them
            found += outs
            found += ins
            continue
        sides = [outs, ins]
        refs = None
        for side in (0, 1):
            grads = sides[side]
            for j, t in enumerate(grads):
                if t is None:
                    continue
                loc = get(id(t))
                if loc is None:
                    seen[id(t)] = (pos, side, j)
                    keep(t)
                    continue
                if refs is None:
                    refs = []
                if grads is outs or grads is ins:
                    grads = sides[side] = list(grads)
                grads[j] = None
                refs.append([side, j, *loc])
        if refs:
            step_refs.append((st, outs, ins, st.same_as))
            st.grad_outputs, st.grad_inputs, st.same_as = sides[0], sides[1], refs


def _resolve_refs(trace: Trace) -> None:
    """Undo the references _swap_graph and _swap_run write, after decoding
    (references point only backwards, so one pass in document order
    resolves them)."""
    for g in trace.graphs:
        nodes = g.nodes
        for n in nodes:
            for sv in n.saved:
                ref = sv.same_as
                if ref is not None:
                    pos, k = ref
                    src = nodes[pos]
                    sv.tensor = src.tensor if k < 0 else src.saved[k].tensor
                    sv.same_as = None
    for run in trace.backward_runs:
        steps = run.steps
        for st in steps:
            if st.same_as:
                for side, j, pos, side2, j2 in st.same_as:
                    from_step = steps[pos]
                    t = (from_step.grad_outputs if side2 == 0 else from_step.grad_inputs)[j2]
                    (st.grad_outputs if side == 0 else st.grad_inputs)[j] = t
                st.same_as = []


def _swap_any(obj, swaps: _Swaps):
    """The file form of a protocol message's value: dicts and lists copied
    with names for non-finite floats, summaries and traces swapped in place."""
    if isinstance(obj, Trace):
        unique = _file_walk(obj, swaps)
        _shorten_summaries(unique, obj, swaps)
        _swap_nonfinite_summaries(unique, swaps)
        _swap_rest(obj, swaps)
        return obj
    if isinstance(obj, TensorSummary):
        _swap_summary(obj, swaps)
        return obj
    if isinstance(obj, dict):
        return {k: _swap_any(v, swaps) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_swap_any(v, swaps) for v in obj]
    if _bad(obj):
        return _float_name(obj)
    return obj


# -- encoding ----------------------------------------------------------------------------------------
def encode_json(obj, indent: Optional[int] = None) -> bytes:
    """Strict JSON bytes (UTF-8) of a Trace, a summary, or plain data holding
    them (a protocol message); non-finite floats as their names."""
    with encoding(obj, indent) as data:
        return data


@contextlib.contextmanager
def encoding(obj, indent: Optional[int] = None, put_back: bool = True) -> Iterator[bytes]:
    """`with encoding(trace) as data:` encode_json's bytes, with `obj` left
    in its file form (shortened floats, references) until the block ends,
    then put back as it was. put_back=False: left in its file form for good,
    for a sender that never reads the trace again (the worker: putting a
    50,000-node trace back costs 0.1 s of a machine the reader shares)."""
    swaps = _Swaps()
    # The swaps make many small lists: no GC passes over a big trace meanwhile.
    with gc_paused():
        try:
            yield _encode_form(_swap_any(obj, swaps), indent)
        finally:
            if put_back:
                swaps.restore()


def _encode_form(form, indent: Optional[int]) -> bytes:
    """The JSON bytes of `form` (its file form: _swap_any)."""
    try:
        data = _ENCODER.encode(form)
    except UnicodeEncodeError:  # a lone surrogate: only json can write it (as \\u escapes)
        plain = encode_nonfinite(msgspec.to_builtins(form, enc_hook=_enc_hook))
        return json.dumps(plain, indent=indent, ensure_ascii=True, allow_nan=False).encode("ascii")
    if indent is not None:
        data = msgspec.json.format(data, indent=indent)
    return data


def encode_trace(trace: Trace, indent: Optional[int] = None) -> bytes:
    """A trace file's bytes: `format` and `version` first, every top-level
    field, parts without the fields that are at their default."""
    return encode_json(trace, indent=indent)


def encode_outline(trace: Trace) -> bytes:
    """The bytes of `trace` without its bulk (BULK_FIELDS at their
    defaults): what decode_trace_outline reads from the whole file, for a
    writer that put the whole file elsewhere (the worker writing
    `autogradviz trace`'s file itself: message_types.Run.trace_file)."""
    empty = {f.name: (f.default if f.default is not msgspec.NODEFAULT else f.default_factory())
             for f in msgspec.structs.fields(Trace) if f.name in BULK_FIELDS}
    return encode_trace(msgspec.structs.replace(trace, **empty))


def to_builtins(obj) -> Any:
    """Plain data of a Trace or any part (fields at their default omitted in
    the parts, floats kept as floats)."""
    return msgspec.to_builtins(obj, enc_hook=_enc_hook)


# -- decoding ----------------------------------------------------------------------------------------
def _fix_saved_values(trace: Trace) -> Trace:
    """What typed decoding leaves to do: free-form saved values with names of
    non-finite floats, and the `same_as` references of the file."""
    for g in trace.graphs:
        for n in g.nodes:
            for sv in n.saved:
                v = sv.value
                if v.__class__ is str or v.__class__ is list:
                    sv.value = decode_value(v)
    try:
        features.decode_extra(trace)  # (records in Trace.features: their Structs)
    except msgspec.ValidationError as exc:
        raise TraceDecodeError(f"not a readable trace: a feature's records ({exc})") from None
    try:
        _resolve_refs(trace)
    except (IndexError, TypeError, ValueError, AttributeError) as exc:
        raise TraceDecodeError(f"not a readable trace: a broken same_as reference ({exc})") from None
    _widen_trace(trace)
    try:
        return check_trace(trace)
    except TraceInvalid as exc:
        raise TraceDecodeError(f"not a readable trace: {exc}") from None


def decode_trace(data: Union[bytes, bytearray, memoryview, str]) -> Trace:
    """The Trace of a file's text or bytes. Unknown keys are ignored (newer
    files load), absent fields take their defaults. Raises TraceDecodeError
    (a ValueError) for anything that is not a readable trace."""
    with gc_paused():
        got, whole = _checked_decode(data, _TRACE_DECODER)
        try:
            return got if whole else _fix_saved_values(got)
        except RecursionError:  # (a hostile file's saved values nested beyond what Python follows)
            raise TraceDecodeError(TOO_DEEP) from None


def decode_trace_outline(data: Union[bytes, bytearray, memoryview, str]) -> Trace:
    """A Trace with the file's top-level facts (script, output, error, notes,
    duration...) and none of its bulk: no graphs, runs, feature records,
    memory or formulas. For a reader that only reports how a run ended and
    keeps the bytes as they are (`autogradviz trace` writing the worker's
    file): msgspec skips the bulk without building it, about 25x faster than
    decode_trace on a 50,000-node trace. The bulk is still parsed as JSON
    (an unreadable file is refused), not checked against the schema. One
    pass over the data when it is a readable trace of a known version;
    otherwise the checks of decode_trace, in its order, say what it is."""
    outline: Any
    try:
        with gc_paused():
            outline = _OUTLINE_DECODER.decode(data)
    except (msgspec.DecodeError, RecursionError):  # (ValidationError is a DecodeError)
        outline = None
    if outline is None or outline.format != FORMAT or _newer(outline.version):
        outline = _checked_outline(data)
        if isinstance(outline, Trace):  # (JSON that only json reads: read whole)
            return outline
    return Trace(**msgspec.structs.asdict(outline))


def _newer(version: Any) -> bool:
    try:
        check_version(version)
    except TraceVersionError:
        return True
    return False


def _checked_outline(data: Union[bytes, bytearray, memoryview, str]) -> Any:
    """The outline of `data` after the head's checks (TraceDecodeError or
    TraceVersionError when they fail); a Trace already for JSON only json reads."""
    with gc_paused():
        return _checked_decode(data, _OUTLINE_DECODER)[0]


def _checked_decode(data: Union[bytes, bytearray, memoryview, str], decoder: msgspec.json.Decoder) -> tuple[Any, bool]:
    """(what `decoder` makes of `data`, False) once its head says it is a
    trace of a version this reader knows (else TraceDecodeError /
    TraceVersionError); (the whole Trace, True) for JSON only json reads
    (lone surrogates: _decode_with_json)."""
    try:
        head = _HEAD_DECODER.decode(data)
    except msgspec.DecodeError as exc:
        return _decode_with_json(data, exc), True
    except RecursionError:
        raise TraceDecodeError(TOO_DEEP) from None
    if head.format != FORMAT:
        raise TraceDecodeError(f"not an autogradviz trace (format={head.format!r})")
    check_version(head.version)
    try:
        return decoder.decode(data), False
    except msgspec.DecodeError as exc:
        raise TraceDecodeError(f"not a readable trace: {exc}") from None
    except RecursionError:
        raise TraceDecodeError(TOO_DEEP) from None


def check_head(data: Union[bytes, bytearray, memoryview, str]) -> None:
    """Raise TraceDecodeError (or TraceVersionError) unless `data` is JSON
    whose `format` and `version` this reader accepts; the rest is not read
    into objects (fast, for a first look at a file)."""
    try:
        head = _HEAD_DECODER.decode(data)
    except msgspec.DecodeError:
        try:
            text = data if isinstance(data, str) else bytes(data).decode("utf-8")
            plain = json.loads(text)
        except ValueError as exc:
            raise TraceDecodeError(f"not JSON ({exc})") from None
        except RecursionError:
            raise TraceDecodeError(TOO_DEEP) from None
        head = _Head(plain.get("format"), plain.get("version")) if isinstance(plain, dict) else _Head()
    except msgspec.ValidationError:
        head = _Head()
    except RecursionError:
        raise TraceDecodeError(TOO_DEEP) from None
    if head.format != FORMAT:
        raise TraceDecodeError(f"not an autogradviz trace (format={head.format!r})")
    check_version(head.version)


def _decode_with_json(data, first_error) -> Trace:
    """msgspec refused the text: JSON with \\u escapes of lone surrogates
    (written by encode_json's fallback) still loads through json."""
    try:
        text = data if isinstance(data, str) else bytes(data).decode("utf-8")
        plain = json.loads(text)
    except ValueError:
        raise TraceDecodeError(f"not a readable trace: {first_error}") from None
    except RecursionError:
        raise TraceDecodeError(TOO_DEEP) from None
    return trace_from_builtins(plain)


def trace_from_builtins(data: Any) -> Trace:
    """The Trace of plain data (a parsed file, `Trace.to_dict()`); raises
    TraceDecodeError for anything that is not a trace."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        found = data.get("format") if isinstance(data, dict) else type(data).__name__
        raise TraceDecodeError(f"not an autogradviz trace (format={found!r})")
    check_version(data.get("version"))
    with gc_paused():
        try:
            return _fix_saved_values(msgspec.convert(data, Trace, strict=False))
        except msgspec.ValidationError as exc:
            raise TraceDecodeError(f"not a readable trace: {exc}") from None
        except RecursionError:
            raise TraceDecodeError(TOO_DEEP) from None


def from_builtins(cls: type, data: Any):
    """An instance of `cls` (TensorSummary, ...) from plain data, lax like
    decode_trace (names of non-finite floats become floats). Raises
    TraceDecodeError when the data does not fit."""
    try:
        return msgspec.convert(data, cls, strict=False)
    except msgspec.ValidationError as exc:
        raise TraceDecodeError(f"not a {cls.__name__}: {exc}") from None


def decode_as(cls: type, data: Union[bytes, memoryview, str]):
    """An instance of `cls` from JSON bytes (e.g. a `values` message's summary)."""
    try:
        return msgspec.json.decode(data, type=cls, strict=False)
    except msgspec.DecodeError as exc:
        try:
            plain = json.loads(data if isinstance(data, str) else bytes(data).decode("utf-8"))
        except ValueError:
            raise TraceDecodeError(f"not a {cls.__name__}: {exc}") from None
        return from_builtins(cls, plain)
