"""Trace records of the checkpoint probe (`Trace.checkpoints`, docs/trace-format.md).

One `Checkpoint` per `torch.utils.checkpoint.checkpoint` call the script made
(`checkpoint_sequential` makes one per checkpointed segment), with the aten ops
its forward ran and one `Recomputation` per time torch re-ran it. Op names are
what a TorchDispatchMode sees (`str(func)`, e.g. "aten.addmm.default"), without
torch's own `aten.detach.default` bookkeeping. Plain data: no torch, no Qt.
"""

from __future__ import annotations

from typing import Optional

import msgspec

from autogradviz.engine.trace.features import Id, RunIndex, declare, declare_skip
from autogradviz.engine.trace.summary import TensorSummary
from autogradviz.engine.trace.part import _Part

KINDS = ("reentrant", "non_reentrant")


class InnerStep(_Part):
    """One node run by the nested backward of a reentrant re-run (the same
    fields as model.Step, which this module cannot import: model imports it).
    `node` is a node of `Recomputation.graph`; `index` counts from 0 inside
    that nested backward."""

    index: int
    node: Id
    grad_outputs: list[Optional[TensorSummary]] = msgspec.field(default_factory=list)
    grad_inputs: list[Optional[TensorSummary]] = msgspec.field(default_factory=list)
    error: Optional[str] = None


class MaskRecord(_Part):
    """A Dropout mask (which elements were kept: 1, dropped: 0) drawn in the
    original forward or in a re-run, in the order the segment called dropout.
    `values` holds the whole mask when it has at most MAX_MASK_VALUES
    elements, else only its first MAX_MASK_VALUES (`truncated`); `kept` and
    `numel` count over the whole mask, `digest` is a hash of all of it, so
    two masks are equal exactly when their digests are."""

    op: str  # the aten op that drew it, e.g. "aten.native_dropout.default"
    shape: list[int] = msgspec.field(default_factory=list)
    numel: int = 0
    kept: int = 0
    values: list[int] = msgspec.field(default_factory=list)
    truncated: bool = False
    digest: str = ""


MAX_MASK_VALUES = 256


class Recomputation(_Part):
    """One re-run of a checkpointed function (torch needed what it did not store)."""

    # Index in Trace.backward_runs of the run it happened in; None when it was
    # not during a recorded backward (past the recording limit, or a saved
    # tensor read outside any backward).
    run: Optional[RunIndex] = None
    # The step of that run during which it was triggered (steps recorded so
    # far when it started: the node running then gets this step index).
    step: Optional[int] = None
    # Node id (in the run's graph) that needed it: the node whose saved tensor
    # was unpacked first (non-reentrant) or the CheckpointFunctionBackward
    # node (reentrant). None when that node was not captured.
    trigger: Optional[Id] = None
    ops: list[str] = msgspec.field(default_factory=list)  # aten ops re-run, in order
    # Beside `ops`, one entry per op: the node whose tensors that op makes
    # again - non-reentrant: the node (in Checkpoint.graph) the same op of the
    # forward made, whose saved-tensor placeholders it refills; reentrant: the
    # node (in `graph`) the re-run made. None where the op made no captured
    # node (a view torch does not record, an op on tensors without grad).
    # Empty in traces made before it existed: the app then lights no node.
    op_nodes: list[Optional[Id]] = msgspec.field(default_factory=list)
    # Non-reentrant: torch stopped the re-run early, once every tensor the
    # segment had saved was recovered, and fewer ops ran than in the forward
    # (the rest of `forward_ops` never ran again).
    early_stopped: bool = False
    # "Type: message" when the re-run raised something other than torch's own
    # early-stop signal.
    error: Optional[str] = None
    # Reentrant only: the graph the re-run built (id in Trace.graphs, origin
    # "recompute") and the steps of the nested backward torch ran on it,
    # inside the outer run's CheckpointFunctionBackward step (`step`).
    graph: Optional[Id] = None
    steps: list[InnerStep] = msgspec.field(default_factory=list)
    # Dropout masks the re-run drew (see Checkpoint.masks).
    masks: list[MaskRecord] = msgspec.field(default_factory=list)


class Checkpoint(_Part):
    id: Id  # "c1", "c2", ... in call order
    kind: str  # one of KINDS
    function: Optional[str] = None  # module path (e.g. "model.blocks.0") or the function's qualname
    line: Optional[int] = None  # the script's line of the call
    # The captured graph holding the segment's nodes and their ids in it
    # (reentrant: the one CheckpointFunctionBackward node). Empty when no
    # backward captured them.
    graph: Optional[Id] = None
    nodes: list[Id] = msgspec.field(default_factory=list)
    # What checkpoint keeps instead of the activations: the tensor arguments,
    # summarised at the call.
    inputs: list[Optional[TensorSummary]] = msgspec.field(default_factory=list)
    forward_ops: list[str] = msgspec.field(default_factory=list)
    # Beside `forward_ops`: the node (in `graph`) each op made, None where it
    # made no captured node (see Recomputation.op_nodes). Empty in older traces.
    forward_op_nodes: list[Optional[Id]] = msgspec.field(default_factory=list)
    # torch restores the forward's RNG state for each re-run (Dropout draws the
    # same mask again); False: the re-run draws new random numbers.
    preserve_rng_state: bool = True
    recomputations: list[Recomputation] = msgspec.field(default_factory=list)
    # The forward raised (the script saw the exception unchanged): "Type: message".
    error: Optional[str] = None
    # Dropout masks the original forward drew, in order (compare with each
    # Recomputation.masks: equal with preserve_rng_state=True).
    masks: list[MaskRecord] = msgspec.field(default_factory=list)


# One per checkpoint call in Trace.checkpoints: ids, re-run indices and kept
# summaries follow from the annotations above (engine/trace/features.py).
CHECKPOINT_FEATURE = declare("checkpoint", Checkpoint, "checkpoints")

# Saved tensors of a non-reentrant segment sit behind checkpoint's unpack
# hook: capture marks them skipped with this reason (engine/worker/capture.py).
SAVED_SKIP = declare_skip("checkpoint", "inside a non-reentrant checkpoint segment (reading it would "
                          "re-run the forward)", hook_module="torch.utils.checkpoint")
