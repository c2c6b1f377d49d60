"""Replay a recorded backward run: the state of the graph after k steps.

The worker records each backward call once (`BackwardRun.steps` in the engine's
real order, with the gradients each node received and sent, plus hook and
retain_grad events). The stepper, the exporter and the tests only need to ask
"what does the graph look like after k steps?" - `state_at(trace, run, k)`.

Step numbering: step 0 is before the first node ran; step k (1..n) is right
after the k-th recorded step ran, and that node is the *current* one (it just
executed: its gradients are the newest on the graph); step n is after all.
`state_at` is a pure function of k: moving back in time undoes exactly what
moving forward did, because nothing is mutated - each state is rebuilt from
per-run cumulative tables computed once per (trace, run) and cached beside
the trace (`_CACHE`, freed with it; the trace itself holds only its own fields).

No torch and no Qt here: the GUI process and the exporter import this.
"""

from __future__ import annotations

import weakref

from dataclasses import dataclass, field
from typing import Optional

from autogradviz.engine.trace.model import BackwardRun, Event, Graph, Node, Step, TensorSummary, Trace

DONE = "done"
CURRENT = "current"
PENDING = "pending"

# Event kinds that are a hook firing (as opposed to a retain_grad fill).
HOOK_KINDS = ("tensor_hook", "node_prehook", "node_hook", "post_accumulate_grad_hook")


@dataclass
class StepState:
    run: int
    step: int  # 0 = before the first step, n = after all
    current: Optional[str] = None
    status: dict[str, str] = field(default_factory=dict)
    # Edge index in Graph.edges -> gradient that flowed along it (dst -> src).
    edge_grads: dict[int, TensorSummary] = field(default_factory=dict)
    # Leaf (AccumulateGrad) node id -> the leaf's .grad as of this step.
    leaf_grads: dict[str, TensorSummary] = field(default_factory=dict)
    # Node id -> value a retain_grad() fill stored in that tensor's .grad.
    retained: dict[str, TensorSummary] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)  # fired so far
    new_events: list[Event] = field(default_factory=list)  # fired at this step
    # The number of steps in the run, and node id -> its Step for
    # the nodes executed so far (the inspector shows what each received/sent).
    n_steps: int = 0
    node_steps: dict[str, Step] = field(default_factory=dict)


class _RunTables:
    """Cumulative tables for one run, so each `state_at` call is a few slices."""

    def __init__(self, graph: Graph, run: BackwardRun):
        self.run = run
        self.node_ids = [n.id for n in graph.nodes]
        self.leaf_ids = {n.id for n in graph.nodes if n.kind == "leaf"}
        steps = list(run.steps)
        self.steps = steps
        self.n = len(steps)
        edges_by_dst: dict[str, list[int]] = {}
        for i, e in enumerate(graph.edges):
            edges_by_dst.setdefault(e.dst, []).append(i)
        # position (1-based step number) of each Step.index, for event mapping
        pos_of_index = {s.index: k + 1 for k, s in enumerate(steps)}
        # per step: edge gradients it sent, leaf grad it set
        self.edge_updates: list[list[tuple[int, TensorSummary]]] = []
        self.leaf_updates: list[Optional[tuple[str, TensorSummary]]] = []
        for s in steps:
            ups = []
            for ei in edges_by_dst.get(s.node, ()):
                slot = graph.edges[ei].slot
                if 0 <= slot < len(s.grad_inputs) and (g := s.grad_inputs[slot]) is not None:
                    ups.append((ei, g))
            self.edge_updates.append(ups)
            leaf = None
            if s.node in self.leaf_ids:
                # AccumulateGrad runs once per leaf per run; right after it the
                # leaf's .grad is what the run ends with (prior accumulation
                # included), so prefer the recorded final value.
                g = run.leaf_grads.get(s.node)
                if g is None and s.grad_outputs:
                    g = s.grad_outputs[0]
                if g is not None:
                    leaf = (s.node, g)
            self.leaf_updates.append(leaf)
        # retain_grad fills: recorded as events; for a retaining node without
        # such an event, the fill is what the node received (the engine fills
        # .grad after the tensor hooks, right before the node runs), so an
        # equivalent event is made up here and flagged in its name
        events_in = list(run.events)
        has_event = {ev.node for ev in events_in if ev.kind == "retain_grad"}
        labels = {n.id: n.label for n in graph.nodes}
        retaining = {n.id for n in graph.nodes if n.retains_grad and n.kind != "leaf"} - has_event
        for s in steps:
            if s.node in retaining and s.grad_outputs and s.grad_outputs[0] is not None:
                events_in.append(Event(step=s.index, kind="retain_grad", node=s.node,
                                       name=labels.get(s.node), received=s.grad_outputs[0]))
        # events ordered by the step they belong to (stable within a step)
        keyed = []
        for order, ev in enumerate(events_in):
            pos = pos_of_index.get(ev.step)
            if pos is None:  # unknown index: clamp into range
                pos = min(max(int(ev.step), 1), max(self.n, 1))
            keyed.append((pos, order, ev))
        keyed.sort(key=lambda t: (t[0], t[1]))
        self.events = [ev for _, _, ev in keyed]
        self.event_pos = [p for p, _, _ in keyed]
        # events_upto[k] = number of events fired in steps 1..k
        self.events_upto = [0] * (self.n + 1)
        j = 0
        for k in range(self.n + 1):
            while j < len(self.event_pos) and self.event_pos[j] <= k:
                j += 1
            self.events_upto[k] = j
        self.hook_steps = sorted({p for p, _, ev in keyed if ev.kind in HOOK_KINDS})
        self.event_steps = sorted({p for p, _, _ in keyed})

    def state(self, run_index: int, k: int) -> StepState:
        n = self.n
        k = max(0, min(int(k), n))
        status = dict.fromkeys(self.node_ids, PENDING)
        node_steps: dict[str, Step] = {}
        for s in self.steps[:k]:
            status[s.node] = DONE
            node_steps[s.node] = s
        current = None
        if k > 0:
            current = self.steps[k - 1].node
            status[current] = CURRENT
        edge_grads: dict[int, TensorSummary] = {}
        leaf_grads: dict[str, TensorSummary] = {}
        for i in range(k):
            for ei, g in self.edge_updates[i]:
                edge_grads[ei] = g
            lu = self.leaf_updates[i]
            if lu is not None:
                leaf_grads[lu[0]] = lu[1]
        if k == n and n > 0:
            leaf_grads.update(self.run.leaf_grads)
        events = self.events[: self.events_upto[k]]
        new_events = self.events[self.events_upto[k - 1] : self.events_upto[k]] if k > 0 else []
        retained: dict[str, TensorSummary] = {}
        for ev in events:
            if ev.kind == "retain_grad":
                val = ev.returned if ev.returned is not None else ev.received
                if val is not None:
                    retained[ev.node] = val
        return StepState(
            run=run_index, step=k, current=current, status=status,
            edge_grads=edge_grads, leaf_grads=leaf_grads, retained=retained,
            events=events, new_events=new_events, n_steps=n, node_steps=node_steps,
        )


# Step tables per trace, kept here rather than on the trace (a trace is plain
# data: the contract between processes, never a place for a reader's caches).
# Keyed by id() with a weak reference whose callback drops the entry when the
# trace is freed, so a replaced trace takes its tables with it.
_CACHE: dict[int, tuple[weakref.ref, dict[int, _RunTables]]] = {}


def _cache_for(trace: Trace, create: bool = True) -> Optional[dict[int, _RunTables]]:
    key = id(trace)
    entry = _CACHE.get(key)
    if entry is not None and entry[0]() is trace:
        return entry[1]
    if not create:
        return None
    tables: dict[int, _RunTables] = {}
    _CACHE[key] = (weakref.ref(trace, lambda _ref: _forget(key, _ref)), tables)
    return tables


def _forget(key: int, ref: weakref.ref) -> None:
    entry = _CACHE.get(key)
    if entry is not None and entry[0] is ref:
        del _CACHE[key]


def _tables(trace: Trace, run_index: int) -> _RunTables:
    cache = _cache_for(trace)
    assert cache is not None  # (create=True: always a dict)
    t = cache.get(run_index)
    if t is None:
        run = trace.backward_runs[run_index]
        try:
            graph = trace.graph(run.graph)
        except KeyError:  # a damaged trace: replay the steps without a graph
            ids = list(dict.fromkeys(s.node for s in run.steps))
            graph = Graph(id=run.graph, nodes=[Node(i, "?", "op") for i in ids])
        t = _RunTables(graph, run)
        cache[run_index] = t
    return t


def prepare(trace: Trace, run_index: int = 0) -> None:
    """Build run `run_index`'s tables now, so the first `state_at` is cheap.

    The app calls this on its trace-parsing thread: on a 10,000-step run the
    tables take ~50 ms, which would otherwise stall the GUI when the trace
    arrives. Does nothing when there is no such run."""
    if 0 <= run_index < len(trace.backward_runs):
        _tables(trace, run_index)


def is_prepared(trace: Trace, run_index: int = 0) -> bool:
    """Whether run `run_index`'s tables are built already (see `prepare`)."""
    return run_index in (_cache_for(trace, create=False) or {})


def step_count(trace: Trace, run_index: int) -> int:
    """Number of steps of a run (its states are 0..n)."""
    return len(trace.backward_runs[run_index].steps)


def state_at(trace: Trace, run_index: int, step: int) -> StepState:
    """State of run `run_index` after `step` steps (clamped into 0..n)."""
    if not 0 <= run_index < len(trace.backward_runs):
        raise IndexError(f"no backward run {run_index}")
    return _tables(trace, run_index).state(run_index, step)


def event_steps(trace: Trace, run_index: int) -> list[int]:
    """Step numbers (1..n) at which at least one event fired."""
    return list(_tables(trace, run_index).event_steps)


def hook_steps(trace: Trace, run_index: int) -> list[int]:
    """Step numbers (1..n) at which a hook (not a retain_grad fill) fired."""
    return list(_tables(trace, run_index).hook_steps)


def event_step_numbers(trace: Trace, run_index: int) -> list[tuple[int, Event]]:
    """All events of a run with the step number (1..n) they appear at."""
    t = _tables(trace, run_index)
    return list(zip(t.event_pos, t.events))
