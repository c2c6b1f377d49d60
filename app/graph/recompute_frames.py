"""The frames of a checkpoint recomputation, as the stepper and the GIF show them.

Gradient checkpointing does its extra work *inside* one backward step: when
the engine reaches a node that needs an activation the checkpoint did not
store (the trigger), torch re-runs the segment's forward - op after op -
and, for reentrant checkpoint, runs a nested backward through the graph that
re-run built. A step-by-step view that jumps from that step to the next
hides all of it, so the recompute gets frames of its own, between session
step `step` (the trigger has not run yet) and `step + 1` (it has):

1. the trigger node marked, the segment's region lit, nothing re-run yet;
2. one frame per re-run op, in the recorded order (`Recomputation.ops`;
   at most MAX_OP_FRAMES, evenly spaced for long segments);
3. non-reentrant early stop: a frame that marks where torch stopped;
4. reentrant: one frame per step of the nested backward
   (`Recomputation.steps`), the backward through the recomputed nodes.

Pure data from the trace: no Qt, no torch; the graph overlay
(checkpoint_regions.py), the stepper's phase (panels/checkpoint/
recompute_phase.py) and the GIF export all read these frames.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

MAX_OP_FRAMES = 40


@dataclass(frozen=True)
class PhaseFrame:
    checkpoint: str  # Checkpoint.id, e.g. "c1"
    number: int  # 1-based position of that checkpoint in Trace.checkpoints
    kind: str  # "reentrant" / "non_reentrant"
    function: Optional[str]
    step: int  # the recorded step (index) during which torch re-ran it
    trigger: Optional[str]  # node id (run's graph) that needed the activations
    ops: tuple  # the re-run's aten ops, in order
    forward_ops: tuple  # the original forward's
    op_index: int  # ops re-run so far (0 .. len(ops))
    early_stopped: bool  # the recomputation stopped early (non-reentrant)
    stopped: bool  # this frame shows the early stop
    inner_graph: Optional[str]  # reentrant: the graph the re-run built
    inner_nodes: tuple  # reentrant: node ids of the nested backward's steps, in order
    inner_ops: tuple  # their op names
    inner_index: int  # nested backward steps done so far (0 .. len(inner_nodes))
    masks_equal: Optional[bool]  # Dropout masks of the re-run equal the forward's (None: no masks)
    sub: int  # this frame's position among the recomputation's frames
    subs: int  # how many frames the recomputation has
    # beside `ops`: the node each op makes again (Recomputation.op_nodes;
    # non-reentrant: in the run's graph, reentrant: in `inner_graph`)
    op_nodes: tuple = ()
    # early stop: the node of the forward op during whose saving torch
    # stopped (its tensors were the last it recovered; that op is not in `ops`)
    stop_node: Optional[str] = None

    @property
    def phase(self) -> str:
        """"trigger", "rerun", "stopped" or "inner" (nested backward)."""
        if self.inner_index > 0:
            return "inner"
        if self.stopped:
            return "stopped"
        return "rerun" if self.op_index > 0 else "trigger"

    @property
    def current_op(self) -> Optional[str]:
        return self.ops[self.op_index - 1] if 0 < self.op_index <= len(self.ops) else None

    @property
    def current_node(self) -> Optional[str]:
        """The node the op re-running now makes again (None: between ops,
        or an op that made no captured node)."""
        if self.phase == "stopped":
            return self.stop_node
        if self.phase != "rerun" or not 0 < self.op_index <= len(self.op_nodes):
            return None
        return self.op_nodes[self.op_index - 1]

    def remade(self) -> set:
        """Nodes whose tensors the re-run has made again so far."""
        done = {n for n in self.op_nodes[:self.op_index] if n is not None}
        if self.stop_node is not None and (self.stopped or self.inner_index > 0):
            done.add(self.stop_node)
        return done


def fill_states(trace, checkpoint, state, frame) -> dict[str, str]:
    """{owner node id: "empty" | "filled" | "used"} for the nodes whose saved
    tensors `checkpoint` did not store, at replay `state` (and recompute
    `frame`, or None): empty until a re-run made them again, filled from the
    op that made them until the backward step that reads them ran, then used
    (torch frees them). Non-reentrant owners are nodes of the run's graph;
    reentrant ones of the re-run's inner graph, read by its nested backward."""
    out: dict[str, str] = {}
    if state is None:
        return out
    reruns = [r for r in checkpoint.recomputations if r.run == state.run and r.step is not None]
    if frame is not None and frame.checkpoint == checkpoint.id and frame.step == state.step:
        done_inner = set(frame.inner_nodes[:frame.inner_index])
        for n in frame.remade():
            out[n] = "used" if n in done_inner else "filled"
        return out
    past = [r for r in reruns if r.step < state.step]
    if not past:
        return out
    r = past[-1]
    for n in [*(getattr(r, "op_nodes", None) or ()), stop_node(checkpoint, r)]:
        if n is None:
            continue
        if checkpoint.kind == "reentrant":
            out[n] = "used"  # the nested backward read them inside step r.step
        else:
            out[n] = "filled" if state.status.get(n, "pending") == "pending" else "used"
    return out


def stop_node(checkpoint, r) -> Optional[str]:
    """Where re-run `r` stopped early: the node whose saves completed the set
    (the forward op after the last re-run one; docs/trace-format.md)."""
    made = getattr(checkpoint, "forward_op_nodes", None) or ()
    return made[len(r.ops)] if r.early_stopped and len(r.ops) < len(made) else None


def masks_equal(checkpoint, recomputation) -> Optional[bool]:
    """Whether the re-run drew the forward's random masks (None: no masks)."""
    a, b = list(checkpoint.masks or []), list(recomputation.masks or [])
    if not a and not b:
        return None
    n = min(len(a), len(b))
    return all(a[i].digest == b[i].digest for i in range(n)) and n > 0


def _op_stops(n: int) -> list[int]:
    if n <= MAX_OP_FRAMES:
        return list(range(1, n + 1))
    return sorted({max(1, round(n * (i + 1) / MAX_OP_FRAMES)) for i in range(MAX_OP_FRAMES)})


def frames_of(trace, checkpoint, number: int, r) -> list[PhaseFrame]:
    """The frames of one Recomputation `r` of `checkpoint`."""
    inner_nodes: tuple = ()
    inner_ops: tuple = ()
    if r.graph and r.steps:
        try:
            ops = {n.id: n.op for n in trace.graph(r.graph).nodes}
        except KeyError:
            ops = {}
        inner_nodes = tuple(s.node for s in r.steps)
        inner_ops = tuple(ops.get(s.node, s.node) for s in r.steps)
    same = masks_equal(checkpoint, r)
    plan: list[tuple[int, bool, int]] = [(0, False, 0)]  # (op_index, stopped, inner_index)
    plan += [(i, False, 0) for i in _op_stops(len(r.ops))]
    if r.early_stopped:
        plan.append((len(r.ops), True, 0))
    plan += [(len(r.ops), False, i) for i in range(1, len(inner_nodes) + 1)]
    base = dict(checkpoint=checkpoint.id, number=number, kind=checkpoint.kind, function=checkpoint.function,
                step=r.step, trigger=r.trigger, ops=tuple(r.ops), forward_ops=tuple(checkpoint.forward_ops),
                early_stopped=r.early_stopped, inner_graph=r.graph, inner_nodes=inner_nodes,
                inner_ops=inner_ops, masks_equal=same, subs=len(plan),
                op_nodes=tuple(getattr(r, "op_nodes", None) or ()), stop_node=stop_node(checkpoint, r))
    return [PhaseFrame(op_index=o, stopped=s, inner_index=i, sub=k, **base) for k, (o, s, i) in enumerate(plan)]


def run_frames(trace, run_index: int) -> dict[int, list[PhaseFrame]]:
    """{recorded step index: the frames of every recomputation triggered
    during it, in the order they happened} for backward run `run_index`."""
    out: dict[int, list[PhaseFrame]] = {}
    if trace is None:
        return out
    found = []
    for number, c in enumerate(getattr(trace, "checkpoints", None) or [], 1):
        for order, r in enumerate(c.recomputations):
            if r.run == run_index and r.step is not None:
                found.append((r.step, number, order, c, r))
    # (re-runs inside one step: in the order of the checkpoints' calls; rare)
    for step, number, _order, c, r in sorted(found, key=lambda f: (f[0], f[1], f[2])):
        out.setdefault(step, []).extend(frames_of(trace, c, number, r))
    return out


def sequence(trace, run_index: int, n_steps: int) -> list[tuple[int, Optional[PhaseFrame]]]:
    """Every position of a run, in playing order: (session step, frame or
    None). The frames of step s come right after (s, None): torch re-ran the
    segment while the step with index s was running."""
    frames = run_frames(trace, run_index)
    seq: list[tuple[int, Optional[PhaseFrame]]] = []
    for k in range(n_steps + 1):
        seq.append((k, None))
        for f in frames.get(k, ()):
            seq.append((k, f))
    return seq
