"""Find a node, a run or a step in a trace from a short description.

A lesson's "what to look at" items name what they talk about the way a
learner reads the graph - "the node labelled `w`", "the `MulBackward0` of
run 2", "the step where `AccumulateGrad` runs" - not by node ids, which
depend on the run. `locate` turns such a description into a `Location` the
app can select, or None when the trace has no such thing (the lesson tests
check that every item of every lesson resolves). Plain data in and out: no
torch, no Qt.

A target is a dict with any of:
  "run": index into trace.backward_runs (search only that run's graph);
  "label": a node's label (variable or parameter name);
  "op": a node's op (`MulBackward0`, `AccumulateGrad`);
  "step_op": go to the step of that run where a node with this op runs
             (the last such step: the end of the pass for AccumulateGrad);
  "checkpoint": N - the region of the N-th checkpoint call ("checkpoint N"
             in the graph, Trace.checkpoints[N - 1]): its graph and run, its
             first node, and `checkpoint` set to its id;
  "recompute": true (with "checkpoint") - the step during which torch re-ran
             that checkpoint (its first Recomputation): `step` is the
             position just before the triggering node runs, where the
             stepper's recompute phase begins, and `recompute` is set;
  "panel": a panel id (answered by the app, not here).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from autogradviz.engine.trace.model import Graph, Node, Trace


@dataclass(frozen=True)
class Location:
    """Where a target is: a graph, maybe a run, maybe a node, maybe a step
    (`step` counts steps done: the stepper's position just after that step)."""

    graph: str
    run: Optional[int] = None
    node: Optional[str] = None
    step: Optional[int] = None
    checkpoint: Optional[str] = None  # a checkpoint region's id ("c1")
    recompute: bool = False  # `step` opens that checkpoint's recompute phase


def _matches(node: Node, label: Optional[str], op: Optional[str]) -> bool:
    return (label is None or node.label == label) and (op is None or node.op == op)


def _runs(trace: Trace, run: Optional[int]) -> list[int]:
    if run is None:
        return list(range(len(trace.backward_runs)))
    return [run] if 0 <= run < len(trace.backward_runs) else []


def _locate_checkpoint(trace: Trace, number, recompute: bool) -> Optional[Location]:
    checkpoints = getattr(trace, "checkpoints", None) or []
    if not isinstance(number, int) or isinstance(number, bool) or not 1 <= number <= len(checkpoints):
        return None
    c = checkpoints[number - 1]
    if recompute:
        done = [r for r in c.recomputations if r.run is not None and r.step is not None
                and 0 <= r.run < len(trace.backward_runs)]
        if not done:
            return None
        r = done[0]
        return Location(graph=trace.backward_runs[r.run].graph, run=r.run, node=r.trigger, step=r.step,
                        checkpoint=c.id, recompute=True)
    if c.graph is None or not c.nodes:
        return None
    run = next((i for i, b in enumerate(trace.backward_runs) if b.graph == c.graph), None)
    return Location(graph=c.graph, run=run, node=c.nodes[0], checkpoint=c.id)


def locate(trace: Trace, target: dict) -> Optional[Location]:
    """The Location `target` describes in `trace`, or None."""
    if "checkpoint" in target:
        return _locate_checkpoint(trace, target["checkpoint"], bool(target.get("recompute")))
    run = target.get("run")
    label, op, step_op = target.get("label"), target.get("op"), target.get("step_op")
    if run is not None and not isinstance(run, int):
        return None
    if step_op is not None:
        for r in _runs(trace, run):
            backward = trace.backward_runs[r]
            graph = trace.graph(backward.graph)
            ops = {n.id: n.op for n in graph.nodes}
            hits = [i for i, s in enumerate(backward.steps) if ops.get(s.node) == step_op]
            if hits:
                i = hits[-1]
                return Location(graph=backward.graph, run=r, node=backward.steps[i].node, step=i + 1)
        return None
    if label is None and op is None:
        if run is not None and _runs(trace, run):
            return Location(graph=trace.backward_runs[run].graph, run=run)
        return None
    graphs: list[tuple[Optional[int], Graph]]
    if run is not None:
        graphs = [(r, trace.graph(trace.backward_runs[r].graph)) for r in _runs(trace, run)]
    else:
        # Prefer a graph that a backward run went through (it can be stepped).
        stepped = {b.graph: i for i, b in reversed(list(enumerate(trace.backward_runs)))}
        graphs = sorted(((stepped.get(g.id), g) for g in trace.graphs), key=lambda e: e[0] is None)
    for run_index, graph in graphs:
        for node in graph.nodes:
            if _matches(node, label, op):
                return Location(graph=graph.id, run=run_index, node=node.id)
    return None
