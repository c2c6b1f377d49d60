"""The trace: plain data that ties engine, GUI, CLI and tests together.

The worker records a script once into a `Trace`; everything else (the GUI's
stepper, the exporter, the CLI, the tests) only reads it. Nothing here imports
torch or Qt, so the GUI process can load traces and the tests can check them
without either. `docs/trace-format.md` documents every field; JSON is the only
wire format (`to_json` / `from_json`), never pickle.
"""

from __future__ import annotations

import gc
import json
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any, Optional, Union, get_args, get_origin, get_type_hints

FORMAT = "autogradviz-trace"
VERSION = 1

# How many backward calls are recorded in full; later ones are only counted.
MAX_RECORDED_RUNS = 50
# Tensors with at most this many elements carry all their values in a summary.
MAX_INLINE_VALUES = 64


@dataclass
class TensorSummary:
    """What crosses the process boundary instead of a tensor.

    `id` names the tensor in the live worker so full values can be fetched
    later (None when the tensor is not kept). `values` is flattened; it is
    complete when `truncated` is false. Statistics are None when they do not
    apply (empty tensors, bool/integer tensors for mean/norm).
    """

    shape: list[int]
    dtype: str
    device: str
    values: list[Any] = field(default_factory=list)
    truncated: bool = False
    numel: int = 0
    min: Optional[float] = None
    max: Optional[float] = None
    mean: Optional[float] = None
    norm: Optional[float] = None
    id: Optional[str] = None
    requires_grad: Optional[bool] = None
    is_leaf: Optional[bool] = None


@dataclass
class SavedValue:
    """One thing a node saved for backward: a tensor (`tensor`) or a plain value."""

    name: str
    tensor: Optional[TensorSummary] = None
    value: Any = None
    # Why nothing was read, in English (e.g. "inside a non-reentrant checkpoint
    # segment"), for people and tools reading the file.
    skipped: Optional[str] = None
    # The same reason as a code the app translates: "checkpoint",
    # "saved_tensors_hooks", "freed", "changed_in_place" (docs/trace-format.md).
    skipped_code: Optional[str] = None


@dataclass
class Node:
    """One autograd Node (grad_fn or AccumulateGrad)."""

    id: str
    op: str
    kind: str  # "leaf" for AccumulateGrad, else "op"
    label: Optional[str] = None
    tensor: Optional[TensorSummary] = None
    retains_grad: bool = False
    saved: list[SavedValue] = field(default_factory=list)
    module: Optional[str] = None
    # Names of the user's hooks on this node or its tensor, for badges.
    hooks: list[str] = field(default_factory=list)
    # Class name of the module in `module` (e.g. "Linear"), when known.
    module_class: Optional[str] = None
    # True for checkpoint-recomputed segments and other nodes whose saved
    # values were deliberately not read.
    in_checkpoint: bool = False
    # Which forward *call* of `module` produced this node: a number unique in
    # the trace for each call of a module (e.g. a counter bumped in every module
    # forward pre-hook), shared by all nodes made during that call of the
    # innermost module. None when unknown. The layout uses it to tell apart the
    # N calls of one module (an RNN cell over 1,000 steps) and roll them into
    # one "xN" group; without it, all nodes of a module path form one group.
    module_call: Optional[int] = None


@dataclass
class Edge:
    """Forward-direction edge: `src`'s output is consumed by `dst`.

    `input_nr` is the second element of torch's next_functions tuple (which
    output of `src`, i.e. which of src's grad_outputs receives the gradient).
    `slot` is the position of this edge in dst.next_functions: during backward
    dst's step `grad_inputs[slot]` travels along this edge to `src`.
    """

    src: str
    dst: str
    input_nr: int = 0
    slot: int = 0


@dataclass
class Graph:
    id: str
    nodes: list[Node] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    # Node ids where the graph was entered: backward roots or namespace tensors.
    roots: list[str] = field(default_factory=list)
    # "backward", "grad" or "namespace" (tensors left alive at the end).
    origin: str = "backward"


@dataclass
class Step:
    """One node executed by the engine, in real execution order."""

    index: int
    node: str
    grad_outputs: list[Optional[TensorSummary]] = field(default_factory=list)
    grad_inputs: list[Optional[TensorSummary]] = field(default_factory=list)
    # Set when the node did not complete: "Type: message" of what it (or a
    # hook of the user's on it) raised. Always the run's last step; what is
    # known of its gradients is filled, the rest left empty.
    error: Optional[str] = None


@dataclass
class Event:
    """A hook firing or a retain_grad fill, tied to the step during which it ran.

    kind: "tensor_hook", "retain_grad", "node_prehook", "node_hook",
    "post_accumulate_grad_hook".
    """

    step: int
    kind: str
    node: str
    name: Optional[str] = None  # the hook function's name or tensor label
    received: Optional[TensorSummary] = None
    returned: Optional[TensorSummary] = None
    replaced: bool = False
    # "Type: message" when the user's hook raised (the backward stopped there).
    error: Optional[str] = None


@dataclass
class BackwardRun:
    index: int
    graph: str
    kind: str = "backward"  # "backward" or "grad"
    line: Optional[int] = None  # the user's line that called backward/grad
    steps: list[Step] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    leaf_grads: dict[str, TensorSummary] = field(default_factory=dict)
    # For torch.autograd.grad: summaries of the returned gradients, in order.
    results: list[Optional[TensorSummary]] = field(default_factory=list)
    # The exception the call raised (the script saw it unchanged), else None.
    error: Optional["ErrorInfo"] = None


@dataclass
class ErrorInfo:
    type: str
    message: str
    line: Optional[int] = None
    explanation: Optional[str] = None
    traceback: Optional[str] = None


@dataclass
class Note:
    """A note as a code plus parameters: the app turns it into text in the UI
    language (`code` names the message, `params` fill it in). The English
    text stays in `Trace.notes` at the same index, for people and tools."""

    code: str
    params: dict[str, Any] = field(default_factory=dict)


@dataclass
class Trace:
    format: str = FORMAT
    version: int = VERSION
    script: Optional[str] = None
    device: str = "cpu"
    torch_version: Optional[str] = None
    graphs: list[Graph] = field(default_factory=list)
    backward_runs: list[BackwardRun] = field(default_factory=list)
    # Every backward/grad call the script made; runs past MAX_RECORDED_RUNS are
    # counted here but not recorded.
    backward_calls: int = 0
    runs_truncated: bool = False
    # False when the run was asked not to record steps (`"steps": false` in the
    # worker's run request, e.g. `autogradviz export` of the plain graph): the
    # graphs, runs and leaf_grads are there, each run's steps and events are empty.
    steps_recorded: bool = True
    stdout: str = ""
    stderr: str = ""
    error: Optional[ErrorInfo] = None
    duration_s: Optional[float] = None
    # Added by H1: plain-language notes about the run (explained warnings such
    # as reading .grad of a non-leaf, saved values skipped inside checkpoints,
    # truncated output, recording problems). Never affects the script.
    notes: list[str] = field(default_factory=list)
    # `notes[i]` as a code and parameters (same index); see `add_note`.
    note_codes: list[Note] = field(default_factory=list)

    def add_note(self, code: str, text: str, **params: Any) -> None:
        """Add a note in both forms: English `text` and `code` + `params`."""
        self.notes.append(text)
        self.note_codes.append(Note(code=code, params=params))

    # -- convenience (not serialised) ---------------------------------------
    def graph(self, graph_id: str) -> Graph:
        for g in self.graphs:
            if g.id == graph_id:
                return g
        raise KeyError(graph_id)

    def to_dict(self) -> dict:
        # same result as dataclasses.asdict(self), several times faster
        with gc_paused():
            return _plain(self)

    def to_json(self, indent: Optional[int] = None) -> str:
        """Strict JSON: non-finite floats become "NaN"/"Infinity"/"-Infinity"
        strings (see `encode_nonfinite`); `from_json` turns them back."""
        return dumps_strict(self.to_dict(), indent=indent)

    @classmethod
    def from_dict(cls, data: dict) -> "Trace":
        if data.get("format") != FORMAT:
            raise ValueError(f"not an autogradviz trace (format={data.get('format')!r})")
        with gc_paused():
            return _from_dict(cls, data)

    @classmethod
    def from_json(cls, text: str) -> "Trace":
        with gc_paused():
            return cls.from_dict(json.loads(text))


class gc_paused:
    """Pause the cyclic GC while making many objects without cycles (building
    or flattening a trace, capturing a graph, a layout): millions of
    small objects made every generational pass rescan everything
    (loading an 8,000-node trace: 1.1 s -> 0.3 s). Re-entrant; restores the
    previous state."""

    def __enter__(self):
        self.was = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc):
        if self.was:
            gc.enable()
        return False


# Strict JSON has no NaN/Infinity. On the wire and in trace files a
# non-finite float is the string "NaN", "Infinity" or "-Infinity" (the names
# JavaScript and Python's lenient json use); loading turns them back into
# floats wherever a float is expected (statistics, tensor values).
NONFINITE = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}


def _encode_float(x: float):
    if x != x:
        return "NaN"
    if x == float("inf"):
        return "Infinity"
    if x == float("-inf"):
        return "-Infinity"
    return x


def encode_nonfinite(obj):
    """Return `obj` (plain JSON data) with every non-finite float replaced by
    its string name, so that json.dumps(..., allow_nan=False) accepts it."""
    if isinstance(obj, float):
        return _encode_float(obj)
    if isinstance(obj, dict):
        return {k: encode_nonfinite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [encode_nonfinite(v) for v in obj]
    return obj


def dumps_strict(obj, indent: Optional[int] = None, **kwargs) -> str:
    """json.dumps that never emits NaN/Infinity tokens (fast path first)."""
    try:
        return json.dumps(obj, indent=indent, allow_nan=False, **kwargs)
    except ValueError:
        return json.dumps(encode_nonfinite(obj), indent=indent, allow_nan=False, **kwargs)


def _decode_value(v):
    if isinstance(v, str) and v in NONFINITE:
        return NONFINITE[v]
    if isinstance(v, list):
        return [_decode_value(x) for x in v]
    return v


_HINTS: dict = {}
_FIELDS: dict = {}


def _hints(cls) -> dict:
    """get_type_hints(cls), once per class: it re-evaluates every annotation
    on each call, which made loading an 8,000-node trace take 9 s instead of 1 s."""
    h = _HINTS.get(cls)
    if h is None:
        h = _HINTS[cls] = get_type_hints(cls)
    return h


def _field_converters(cls) -> list:
    """[(field name, converter)] for a dataclass, built once per class."""
    fc = _FIELDS.get(cls)
    if fc is None:
        hints = _hints(cls)
        fc = _FIELDS[cls] = [(f.name, _converter(hints[f.name])) for f in fields(cls)]
    return fc


def _from_dict(cls, data):
    """Build dataclass `cls` from plain JSON data; unknown keys are ignored so
    that newer traces (with added fields) still load."""
    kwargs = {}
    for name, conv in _field_converters(cls):
        if name in data:
            kwargs[name] = conv(data[name])
    if cls is TensorSummary and kwargs.get("values"):
        vals = kwargs["values"]
        for v in vals:  # decode only lists that hold names of non-finite floats
            if isinstance(v, (str, list)):
                kwargs["values"] = [_decode_value(x) for x in vals]
                break
    if cls is SavedValue and "value" in kwargs:
        kwargs["value"] = _decode_value(kwargs["value"])
    return cls(**kwargs)


def _convert(tp, value):
    return _converter(tp)(value)


# Converters are made once per type (loading a trace converts millions of
# values; asking typing about each one made that take seconds).
_CONVERTERS: dict = {}


def _identity(value):
    return value


def _float_value(value):
    if isinstance(value, str) and value in NONFINITE:
        return NONFINITE[value]
    return value


def _converter(tp):
    try:
        c = _CONVERTERS.get(tp)
    except TypeError:  # unhashable annotation: build each time
        return _make_converter(tp)
    if c is None:
        c = _CONVERTERS[tp] = _make_converter(tp)
    return c


def _make_converter(tp):
    if tp is float:
        return _float_value
    origin = get_origin(tp)
    if origin is Union:
        args = [a for a in get_args(tp) if a is not type(None)]
        return _converter(args[0]) if len(args) == 1 else _identity
    if origin is list:
        (arg,) = get_args(tp)
        inner = _converter(arg)
        if inner is _identity:
            return lambda value: None if value is None else list(value)
        return lambda value: None if value is None else [None if v is None else inner(v) for v in value]
    if origin is dict:
        _, arg = get_args(tp)
        inner = _converter(arg)
        return lambda value: (None if value is None else
                              {k: (None if v is None else inner(v)) for k, v in value.items()})
    if isinstance(tp, type) and is_dataclass(tp):
        return lambda value: None if value is None else _from_dict(tp, value)
    return _identity


_NAMES: dict = {}


def _plain(obj):
    """dataclasses.asdict without its deep copies (the same structure: dicts
    for dataclasses, lists/tuples/dicts rebuilt, other values as they are)."""
    names = _NAMES.get(type(obj))
    if names is None and is_dataclass(obj) and not isinstance(obj, type):
        names = _NAMES[type(obj)] = [f.name for f in fields(obj)]
    if names is not None:
        return {name: _plain(getattr(obj, name)) for name in names}
    if isinstance(obj, list):
        return [_plain(v) for v in obj]
    if isinstance(obj, dict):
        return {k: _plain(v) for k, v in obj.items()}
    if isinstance(obj, tuple):
        if hasattr(obj, "_fields"):  # namedtuple, as asdict does
            return type(obj)(*[_plain(v) for v in obj])
        return type(obj)(_plain(v) for v in obj)
    return obj
