"""Merge a child process's trace into the parent's one trace.

Each process the script starts records its own partial trace
(engine/worker/child_main.py); ids there ("g1", "n7", "c1", "t3") are only
unique inside that process. `merge_child` appends the child's graphs, runs,
checkpoints (with their re-runs' inner steps), GradScaler events, memory
timelines and modules to the parent's trace with every id
prefixed (e.g. "p4242.n7") and every index that points into a list of the
trace (a run's `index`, a recomputation's `run`, `scaled_by`) shifted, so the
merged trace obeys the same rules as a one-process trace
(docs/trace-format.md). Tensor ids are dropped: a child's tensors died with
it, so their full values cannot be fetched. Plain data: no torch, no Qt.
"""

from __future__ import annotations

from typing import Optional

from autogradviz.engine.trace.memory import MemoryRecord
from autogradviz.engine.trace.model import Trace


def merge_child(trace: Trace, child: Trace, prefix: str, rank: Optional[int], pid: Optional[int]) -> None:  # noqa: C901 - over the cap before it was set; to be split (issue 22)
    """Append `child`'s records to `trace`, ids prefixed with `prefix`; runs
    without a rank of their own get `rank` (the child's index), and `pid`."""
    p = prefix.__add__
    run_base = len(trace.backward_runs)
    scaler_base = len(trace.scaler_events)
    for g in child.graphs:
        g.id = p(g.id)
        g.roots = [p(r) for r in g.roots]
        for n in g.nodes:
            n.id = p(n.id)
            _drop_ids(n.tensor)
            for s in n.saved:
                _drop_ids(s.tensor)
        for e in g.edges:
            e.src, e.dst = p(e.src), p(e.dst)
        trace.graphs.append(g)
    for run in child.backward_runs:
        run.index += run_base
        run.graph = p(run.graph)
        if run.rank is None:
            run.rank = rank
        if run.pid is None:
            run.pid = pid
        if run.scaled_by is not None:
            run.scaled_by += scaler_base
        for st in run.steps:
            st.node = p(st.node)
            for x in (*st.grad_outputs, *st.grad_inputs):
                _drop_ids(x)
        for ev in run.events:
            ev.node = p(ev.node) if ev.node else ev.node
            _drop_ids(ev.received)
            _drop_ids(ev.returned)
        run.leaf_grads = {p(k): v for k, v in run.leaf_grads.items()}
        run.result_nodes = [p(n) if n else n for n in run.result_nodes]
        for v in run.leaf_grads.values():
            _drop_ids(v)
        for r in run.results:
            _drop_ids(r)
        trace.backward_runs.append(run)
    for c in child.checkpoints:
        c.id = p(c.id)
        c.graph = p(c.graph) if c.graph else c.graph
        c.nodes = [p(n) for n in c.nodes]
        for r in c.recomputations:
            if r.run is not None:
                r.run += run_base
            r.trigger = p(r.trigger) if r.trigger else r.trigger
            r.graph = p(r.graph) if r.graph else r.graph
            for st in r.steps:
                st.node = p(st.node)
                for x in (*st.grad_outputs, *st.grad_inputs):
                    _drop_ids(x)
        trace.checkpoints.append(c)
    for ev in child.scaler_events:
        ev.scaler = p(ev.scaler)
        ev.optimizer = p(ev.optimizer) if ev.optimizer else ev.optimizer
        trace.scaler_events.append(ev)
    _merge_memory(trace, child, p, run_base)
    # The layer table: a child (mp.spawn) usually runs the parent's model
    # code, so a module path already listed is not listed twice.
    known = {m.path for m in trace.modules}
    trace.modules.extend(m for m in child.modules if m.path not in known)
    trace.backward_calls += child.backward_calls
    trace.runs_truncated = trace.runs_truncated or child.runs_truncated
    for text, note in zip(child.notes, child.note_codes):
        trace.notes.append(text)
        trace.note_codes.append(note)


def _merge_memory(trace: Trace, child: Trace, p, run_base: int) -> None:
    """The child's activation timelines and checkpoint segments, ids prefixed."""
    mem = child.memory
    if mem is None:
        return
    for mr in mem.runs:
        mr.run += run_base
        mr.graph = p(mr.graph)
        for pt in mr.points:
            pt.node = p(pt.node) if pt.node else pt.node
            pt.checkpoint = p(pt.checkpoint) if pt.checkpoint else pt.checkpoint
    for seg in mem.segments:
        seg.checkpoint = p(seg.checkpoint)
    if trace.memory is None:
        trace.memory = MemoryRecord(checkpoints_direct=mem.checkpoints_direct)
    trace.memory.runs.extend(mem.runs)
    trace.memory.segments.extend(mem.segments)


def _drop_ids(summary) -> None:
    if summary is not None:
        summary.id = None
