"""The trace: plain data that ties engine, GUI, CLI and tests together.

The worker records a script once into a `Trace`; everything else (the GUI's
stepper, the exporter, the CLI, the tests) only reads it. Nothing here imports
torch or Qt, so the GUI process can load traces and the tests can check them
without either. `docs/trace-format.md` documents every field.

The classes are `msgspec.Struct`s: the schema is the class, and
engine/trace/codec.py encodes and decodes it in C (JSON for files and the
worker protocol), instead of converting dataclasses by hand - which cost
seconds per trace of 10,000 nodes. Structs behave like the dataclasses they
replace (same names, fields, defaults, positional order; mutable; `==`);
`dataclasses.fields/asdict/replace` do not apply: use `msgspec.structs`.
"""

from __future__ import annotations

from typing import Any, Optional

import msgspec

from autogradviz.engine.trace.checkpoint import Checkpoint
from autogradviz.engine.trace.derivatives import TorchFormula
from autogradviz.engine.trace.features import declare
from autogradviz.engine.trace.grad_scaler import ScalerEvent
from autogradviz.engine.trace.modules import ModuleRecord
from autogradviz.engine.trace.memory import MemoryRecord
from autogradviz.engine.trace.part import _Part
# (TensorSummary lives beside the feature records that use it; re-exported here)
from autogradviz.engine.trace.summary import TensorSummary, Value  # noqa: F401
# the one GC pause (engine/trace/gc_pause.py), here where its users always found it
from autogradviz.engine.trace.gc_pause import gc_paused  # noqa: F401

FORMAT = "autogradviz-trace"
VERSION = 1

# How many backward calls are recorded in full; later ones are only counted.
MAX_RECORDED_RUNS = 50
# Tensors with at most this many elements carry all their values in a summary.
MAX_INLINE_VALUES = 64


class SavedValue(_Part):
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
    # Only in files: `tensor` is the very summary written earlier in the same
    # graph, at [node position, saved index] (saved index -1: that node's
    # `tensor`), and is left out here. The loader fills `tensor` back in and
    # clears this (codec.py); in memory it is always None.
    same_as: Optional[list[int]] = None


class Node(_Part):
    """One autograd Node (grad_fn or AccumulateGrad)."""

    id: str
    op: str
    kind: str  # "leaf" for AccumulateGrad, else "op"
    label: Optional[str] = None
    tensor: Optional[TensorSummary] = None
    retains_grad: bool = False
    saved: list[SavedValue] = msgspec.field(default_factory=list)
    module: Optional[str] = None
    # Names of the user's hooks on this node or its tensor, for badges.
    hooks: list[str] = msgspec.field(default_factory=list)
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
    # The script line (1-based) that made this node: the innermost frame of
    # the script's own file when the torch call that created it ran (also
    # inside the script's functions and classes); for a leaf, where its
    # tensor was made to require grad. `code`: that line's text, stripped.
    # None when unknown (nodes made inside a backward, custom Functions).
    line: Optional[int] = None
    code: Optional[str] = None


class Edge(_Part):
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


class Graph(_Part):
    id: str
    nodes: list[Node] = msgspec.field(default_factory=list)
    edges: list[Edge] = msgspec.field(default_factory=list)
    # Node ids where the graph was entered: backward roots or namespace tensors.
    roots: list[str] = msgspec.field(default_factory=list)
    # "backward", "grad" or "namespace" (tensors left alive at the end).
    origin: str = "backward"


class Step(_Part):
    """One node executed by the engine, in real execution order."""

    index: int
    node: str
    grad_outputs: list[Optional[TensorSummary]] = msgspec.field(default_factory=list)
    grad_inputs: list[Optional[TensorSummary]] = msgspec.field(default_factory=list)
    # Set when the node did not complete: "Type: message" of what it (or a
    # hook of the user's on it) raised. Always the run's last step; what is
    # known of its gradients is filled, the rest left empty.
    error: Optional[str] = None
    # Only in files: [side, j, step, side2, j2] for each gradient of this step
    # written as null because it is the very summary written earlier in the
    # run (side 0: grad_outputs, 1: grad_inputs; `step`: position in `steps`).
    # The engine hands one gradient tensor to the node that made it and the
    # node that receives it, so most gradients would be written twice. The
    # loader fills them back in and clears this; in memory it is always empty.
    same_as: list[list[int]] = msgspec.field(default_factory=list)


class Event(_Part):
    """A hook firing or a retain_grad fill, tied to the step during which it ran.

    kind: "tensor_hook", "retain_grad", "node_prehook", "node_hook",
    "post_accumulate_grad_hook", "allreduce" (DDP all-reduced a gradient
    bucket: engine/probes/ddp.py).
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
    # kind "allreduce": the gradient bucket's index and the parameters in it.
    bucket: Optional[int] = None
    params: list[str] = msgspec.field(default_factory=list)


# DDP's all-reduces are events of the core runs (kind "allreduce",
# engine/probes/ddp.py): the core merges and encodes them; the feature owns
# these fields of them.
DDP_FEATURE = declare("ddp", Event, within="backward_runs.events", owns=("bucket", "params"))


class BackwardRun(_Part):
    index: int
    graph: str
    kind: str = "backward"  # "backward" or "grad"
    line: Optional[int] = None  # the user's line that called backward/grad
    steps: list[Step] = msgspec.field(default_factory=list)
    events: list[Event] = msgspec.field(default_factory=list)
    leaf_grads: dict[str, TensorSummary] = msgspec.field(default_factory=dict)
    # For torch.autograd.grad: summaries of the returned gradients, in order.
    results: list[Optional[TensorSummary]] = msgspec.field(default_factory=list)
    # ...and, in the same order, the node each one is the gradient for: the
    # input's AccumulateGrad for a leaf input, its grad_fn otherwise (None:
    # not a node of the graph, or not known).
    result_nodes: list[Optional[str]] = msgspec.field(default_factory=list)
    # The exception the call raised (the script saw it unchanged), else None.
    error: Optional["ErrorInfo"] = None
    # Index in Trace.scaler_events of the GradScaler.scale() call that made the
    # tensor this backward started from: every gradient of the run is that
    # call's `scale_before` times the unscaled one. None otherwise.
    scaled_by: Optional[int] = None
    # Who made the call (engine/worker/run_tags.py): torch.distributed's rank
    # when initialised, else a child process's index (None: the script's own
    # process, no process group), the process id, and the thread's name and ident.
    rank: Optional[int] = None
    pid: Optional[int] = None
    thread: Optional[str] = None
    thread_id: Optional[int] = None


class ErrorInfo(_Part):
    type: str
    message: str
    line: Optional[int] = None
    explanation: Optional[str] = None
    traceback: Optional[str] = None
    # What the explanation is about, for the app to say in the UI language
    # and to act on (e.g. "missing_module": offer to install it); None when
    # the explanation has no code. docs/trace-format.md lists the codes.
    code: Optional[str] = None
    params: dict[str, Any] = msgspec.field(default_factory=dict)


class Note(_Part):
    """A note as a code plus parameters: the app turns it into text in the UI
    language (`code` names the message, `params` fill it in). The English
    text stays in `Trace.notes` at the same index, for people and tools."""

    code: str
    params: dict[str, Any] = msgspec.field(default_factory=dict)


class NoteRecord(_Part):
    """One note whole: its code (registered in engine/trace/notes.py), the
    code's parameters and the English text the registry's template gives.
    Read from `Trace.note_records`, one list: `notes` and `note_codes` (the
    older pair of parallel lists) stay in the file for older readers."""

    code: str
    params: dict[str, Any] = msgspec.field(default_factory=dict)
    text: str = ""


class Trace(msgspec.Struct, weakref=True):
    """One run of a script (docs/trace-format.md).

    Not `omit_defaults`, unlike the parts: every top-level field is written,
    so `format` and `version` always lead the file. `weakref=True` lets
    readers keep caches about a trace beside it (engine/trace/replay.py) that
    go away with it; nothing but the trace's own fields lives on it."""

    format: str = FORMAT
    version: int = VERSION
    script: Optional[str] = None
    device: str = "cpu"
    torch_version: Optional[str] = None
    graphs: list[Graph] = msgspec.field(default_factory=list)
    backward_runs: list[BackwardRun] = msgspec.field(default_factory=list)
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
    # Plain-language notes about the run (explained warnings such
    # as reading .grad of a non-leaf, saved values skipped inside checkpoints,
    # truncated output, recording problems). Never affects the script.
    notes: list[str] = msgspec.field(default_factory=list)
    # `notes[i]` as a code and parameters (same index); see `add_note`.
    note_codes: list[Note] = msgspec.field(default_factory=list)
    # The same notes as one list of (code, params, text): what readers use
    # (`note_list()` also for traces made before it existed).
    note_records: list[NoteRecord] = msgspec.field(default_factory=list)
    # One per GradScaler call the script made (engine/probes/grad_scaler.py).
    scaler_events: list[ScalerEvent] = msgspec.field(default_factory=list)
    # One per torch.utils.checkpoint.checkpoint call (engine/probes/checkpoint.py).
    checkpoints: list[Checkpoint] = msgspec.field(default_factory=list)
    # One per nn.Module the script called: output shape, parameter counts (engine/trace/modules.py).
    modules: list[ModuleRecord] = msgspec.field(default_factory=list)
    # The script's text as it ran (the editor's, or the file's): a saved trace
    # shows its code beside the graph on any machine (None in older files).
    source: Optional[str] = None
    # Torch's own backward formula for each op node name in the trace, read by
    # the worker from the installed torch's derivatives.yaml (engine/trace/derivatives.py).
    torch_formulas: dict[str, TorchFormula] = msgspec.field(default_factory=dict)
    # "absent" when that file was not there (the app says so); else None.
    torch_formulas_missing: Optional[str] = None
    # Activation timelines and the four parts of memory (engine/probes/memory.py).
    memory: Optional[MemoryRecord] = None
    # False when the run was asked for no values (`"values": false` in the
    # worker's run request: the plain graph's picture): every tensor summary
    # has shape, dtype and device only (`values` empty, `truncated` true, no
    # statistics) and nodes' `saved` are empty.
    values_recorded: bool = True
    # How the file writes tensor values: "dtype" when the floats of float32,
    # bfloat16 and float16 summaries (values, min, max) have the fewest digits
    # that identify them in that dtype, and a reader rounds them to the dtype
    # again (engine/trace/short_floats.py); "float64" (older files, and every
    # trace read) when they are exactly the floats they are. In memory,
    # "dtype" is a trace the worker records only to send it (runner.run_script
    # `shorten_floats`): each such float is its shortest decimal already or
    # exactly torch's, and the codec writes them as they are.
    float_digits: str = "float64"
    # Records of features declared outside the core schema, by feature name
    # (engine/trace/features.py: `declare(name, Record)` without a field):
    # a new feature needs no change to this class. Plain data for a feature
    # the reading process has not declared.
    features: dict[str, Any] = msgspec.field(default_factory=dict)

    def add_note(self, code: str, text: Optional[str] = None, /, **params: Any) -> None:
        """Add a note: `code` (registered in engine/trace/notes.py, else
        KeyError) with its `params`; the English text is the registry's
        template rendered (a `text` given by an older caller is not used:
        the template is the one wording). Written to `note_records` and to
        the older `notes` / `note_codes` pair."""
        from autogradviz.engine.trace.notes import render

        english = render(code, params)
        if self.notes and not self.note_records:  # (a trace from before note_records: the older notes first)
            self.note_records = self.note_list()
        self.notes.append(english)
        self.note_codes.append(Note(code=code, params=params))
        self.note_records.append(NoteRecord(code, params, english))

    def note_list(self) -> list[NoteRecord]:
        """The notes as (code, params, text): `note_records`, or for a trace
        made before it existed the older pair, `notes[i]` with `note_codes[i]`
        when the two line up, else each English text without a code
        (code "")."""
        if self.note_records or not self.notes:
            return self.note_records
        codes = self.note_codes if len(self.note_codes) == len(self.notes) else None
        return [NoteRecord(codes[i].code, codes[i].params, text) if codes else NoteRecord("", {}, text)
                for i, text in enumerate(self.notes)]

    # -- convenience (not serialised) ---------------------------------------
    def graph(self, graph_id: str) -> Graph:
        for g in self.graphs:
            if g.id == graph_id:
                return g
        raise KeyError(graph_id)

    def to_dict(self) -> dict:
        """Plain data (dicts, lists, numbers, strings) as in the file, fields
        at their default omitted below the top level; floats stay floats."""
        from autogradviz.engine.trace import codec

        return codec.to_builtins(self)

    def to_json(self, indent: Optional[int] = None) -> str:
        """The trace file's text: strict JSON, non-finite floats as the strings
        "NaN"/"Infinity"/"-Infinity" (`codec.encode_trace`)."""
        from autogradviz.engine.trace import codec

        return codec.encode_trace(self, indent=indent).decode("utf-8")

    @classmethod
    def from_dict(cls, data: dict) -> "Trace":
        """The Trace of plain data (`to_dict`'s or a parsed file's); raises
        ValueError for anything that is not a trace."""
        from autogradviz.engine.trace import codec

        return codec.trace_from_builtins(data)

    @classmethod
    def from_json(cls, text: "str | bytes") -> "Trace":
        """Load a trace file's text (or bytes); see `codec.decode_trace`."""
        from autogradviz.engine.trace import codec

        return codec.decode_trace(text)
