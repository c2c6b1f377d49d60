"""Trace records of the memory probe (`Trace.memory`, docs/trace-format.md).

What a backward pass needs kept, in bytes, as the script ran: for every
recorded backward run an activation timeline (the bytes held for backward
after each forward op that saved tensors, during each checkpoint re-run and
after each backward step), the four parts of training memory at three moments
of the iteration, and per checkpoint call the bytes its segment did not store.
Every number is measured in the worker (engine/probes/memory.py says how);
plain data here: no torch, no Qt. All sizes are bytes of tensor storage,
each storage counted once however many tensors view it.
"""

from __future__ import annotations

from typing import Optional

import msgspec

from autogradviz.engine.trace.features import Id, RunIndex, declare
from autogradviz.engine.trace.part import _Part

PHASES = ("forward", "recompute", "backward")


class MemoryPoint(_Part):
    """The bytes held for backward at one moment of a run."""

    phase: str  # one of PHASES
    bytes: int = 0
    # forward: the node (of the run's graph) whose saved tensors were just
    # added, or null for a checkpoint's kept inputs; backward: the node of
    # the step just finished; recompute: the step's node that triggered it.
    node: Optional[Id] = None
    # recompute and backward: index of the step in BackwardRun.steps (a
    # recompute point: the step during which torch re-ran the segment, at
    # its peak - before that step's node ran and freed anything).
    step: Optional[int] = None
    # recompute: Checkpoint.id re-run; forward: the checkpoint whose kept
    # inputs were added (non-reentrant keeps its arguments, not activations).
    checkpoint: Optional[Id] = None


class MemoryParts(_Part):
    """The four parts of training memory at one moment (bytes)."""

    # what the script's modules and optimizers hold: nn.Parameter leaves of the
    # graph and every tensor in an optimizer's param_groups
    parameters: int = 0
    gradients: int = 0  # their .grad
    optimizer_states: int = 0  # tensors in every optimizer's `state` seen so far
    activations: int = 0  # held for backward (the timeline's value then)
    # torch.cuda.memory_allocated / max_memory_allocated then, when the run
    # used CUDA (null on the CPU).
    cuda_allocated: Optional[int] = None
    cuda_max_allocated: Optional[int] = None
    # the graph's other leaves that require grad (an input `x` made with
    # requires_grad=True, not a parameter) and their .grad: not in the four
    # parts (older traces counted them in parameters and gradients)
    other_leaves: int = 0
    other_leaf_gradients: int = 0


class MemoryRun(_Part):
    run: RunIndex  # index in Trace.backward_runs
    graph: Id
    # forward points in the order the ops ran (autograd sequence numbers),
    # then per step any recompute point and the point after it.
    points: list[MemoryPoint] = msgspec.field(default_factory=list)
    peak: int = 0
    # retain_graph (or create_graph): the nodes kept their saved tensors.
    retain_graph: bool = False
    end_of_forward: Optional[MemoryParts] = None  # just before the backward call
    after_backward: Optional[MemoryParts] = None  # just after it returned
    after_step: Optional[MemoryParts] = None  # after the first optimizer step() that followed


class SegmentMemory(_Part):
    """What one checkpoint call did not store, and what its re-runs stored again."""

    checkpoint: Id  # Checkpoint.id
    # Non-reentrant: bytes of the tensors the segment's ops asked to save and
    # checkpoint dropped (placeholders kept instead); reentrant: measured at
    # its first re-run (the forward ran under no_grad and saved nothing).
    not_stored: int = 0
    tensors: int = 0  # how many tensors that was
    # bytes each re-run stored (in the order of Checkpoint.recomputations)
    recomputed: list[int] = msgspec.field(default_factory=list)
    # bytes of the arguments the call kept instead (held for backward)
    kept_inputs: int = 0


class MemoryRecord(_Part):
    runs: list[MemoryRun] = msgspec.field(default_factory=list)
    segments: list[SegmentMemory] = msgspec.field(default_factory=list)
    # The run request asked for checkpoint(fn, ...) to be called as fn(...)
    # (the "without checkpoint" comparison): no segment was checkpointed.
    checkpoints_direct: bool = False


# Trace.memory (one record): a child's timelines and segments join the
# parent's, ids and run indices as the annotations say (engine/trace/features.py).
MEMORY_FEATURE = declare("memory", MemoryRecord, "memory")
