"""Merge a child process's trace into the parent's one trace.

Each process the script starts records its own partial trace
(engine/worker/child_main.py); ids there ("g1", "n7", "c1", "t3") are only
unique inside that process. `merge_child` appends the child's graphs and runs
(the core, here) and the records of every declared feature
(engine/trace/features.py: checkpoints with their re-runs' inner steps,
GradScaler events, memory timelines, modules, and any feature declared
later) to the parent's trace with every id prefixed (e.g. "p4242.n7") and
every index that points into a list of the trace (a run's `index`, a
recomputation's `run`, `scaled_by`) shifted, so the merged trace obeys the
same rules as a one-process trace (docs/trace-format.md). Which fields of a
feature's records are ids and indices is read from their annotations, never
listed here. Tensor ids are dropped: a child's tensors died with it, so
their full values cannot be fetched. Plain data: no torch, no Qt.
"""

from __future__ import annotations

from typing import Optional

from autogradviz.engine.trace import features
from autogradviz.engine.trace.model import Trace


def merge_child(trace: Trace, child: Trace, prefix: str, rank: Optional[int], pid: Optional[int]) -> None:
    """Append `child`'s records to `trace`, ids prefixed with `prefix`; runs
    without a rank of their own get `rank` (the child's index), and `pid`."""
    p = prefix.__add__
    # every list of the trace an index can point into, as long as it was before the merge
    bases = {name: len(v) for name in Trace.__struct_fields__ if isinstance(v := getattr(trace, name), list)}
    _merge_graphs(trace, child, p)
    _merge_runs(trace, child, p, bases, rank, pid)
    for feature in features.separate():
        _merge_feature(feature, trace, child, p, bases)
    trace.backward_calls += child.backward_calls
    trace.runs_truncated = trace.runs_truncated or child.runs_truncated
    for text, note in zip(child.notes, child.note_codes):
        trace.notes.append(text)
        trace.note_codes.append(note)
    trace.note_records.extend(child.note_list())


def _merge_graphs(trace: Trace, child: Trace, p) -> None:
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


def _merge_runs(trace: Trace, child: Trace, p, bases: dict, rank: Optional[int], pid: Optional[int]) -> None:
    for run in child.backward_runs:
        run.index += bases["backward_runs"]
        run.graph = p(run.graph)
        if run.rank is None:
            run.rank = rank
        if run.pid is None:
            run.pid = pid
        if run.scaled_by is not None:
            run.scaled_by += bases["scaler_events"]
        for st in run.steps:
            st.node = p(st.node) if st.node else st.node
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


def _merge_feature(feature: features.TraceFeature, trace: Trace, child: Trace, p, bases: dict) -> None:
    """A declared feature's records of `child` into `trace`: ids and indices
    as the record's annotations say, summaries without their fetch ids. A
    feature holding one record joins the child's lists to the parent's."""
    theirs = feature.get(child)
    if theirs is None or (isinstance(theirs, list) and not theirs):
        return
    for record in feature.records(child):
        features.relabel(record, p, bases)
        for s in features.summaries(record):
            _drop_ids(s)
    ours = feature.get(trace)
    if isinstance(theirs, list):
        ours = [] if ours is None else ours
        if feature.unique_by:
            known = {getattr(r, feature.unique_by) for r in ours}
            theirs = [r for r in theirs if getattr(r, feature.unique_by) not in known]
        ours.extend(theirs)  # (in place: the parent's list object stays the one it has)
        feature.set(trace, ours)
    elif ours is None:
        feature.set(trace, theirs)
    else:  # one record each: the child's lists after the parent's
        for name in feature.record.__struct_fields__:
            mine = getattr(ours, name)
            if isinstance(mine, list):
                mine.extend(getattr(theirs, name))


def _drop_ids(summary) -> None:
    if summary is not None:
        summary.id = None
