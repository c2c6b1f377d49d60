"""The activation timeline of each backward run, from what the memory probe observed.

Kept apart from the probe (engine/probes/memory.py), which only observes
while the script runs; this module runs after the script and turns the
observations into `MemoryRun`s. Inputs per run: the storages each node of the
captured graph saved (read by capture just before the backward call), the
nodes' autograd sequence numbers (the forward's order), the steps the
recorder saw (the engine's real order), the checkpoint frames torch kept
(non-reentrant: the kept arguments, freed when torch freed the frame) and
the tensors each re-run stored (freed when torch dropped them).

Held bytes are reference-counted per storage: a storage saved by three nodes
is counted once and released when the last of them has run. Rules, each
torch's own:
- a node's saved tensors are released right after it runs, unless the call
  retained the graph; a node that never ran keeps them until the graph dies;
- a non-reentrant frame dies after the step whose node released the last
  placeholder (its finalizer fires after that step's post-hook: the recorded
  position is one step later);
- a non-reentrant re-run's tensors are dropped while the node that unpacks
  them runs; a reentrant re-run's inner graph is gone when its
  CheckpointFunctionBackward step ends.
A backward step that released nothing gets no point (the value holds).
"""

from __future__ import annotations

from operator import itemgetter

from autogradviz.engine.trace.memory import MemoryPoint, MemoryRun


class _Held:
    """Bytes held, storages reference-counted."""

    def __init__(self):
        self.count: dict[int, int] = {}
        self.size: dict[int, int] = {}
        self.bytes = 0

    def add(self, stores: dict) -> None:
        count = self.count
        for ptr, nbytes in stores.items():
            c = count.get(ptr, 0)
            if c == 0:
                self.size[ptr] = nbytes
                self.bytes += nbytes
            count[ptr] = c + 1

    def drop(self, stores) -> None:
        count = self.count
        for ptr in stores:
            c = count.get(ptr, 0)
            if c == 1:
                del count[ptr]
                self.bytes -= self.size.pop(ptr)
            elif c > 1:
                count[ptr] = c - 1


def build_runs(trace, state, calls, saved: dict, segments: list) -> list[MemoryRun]:
    caps = {cap.graph.id: cap for cap in getattr(state, "captures", [])}
    out = []
    for call in calls:
        if call.run >= len(trace.backward_runs):
            continue
        run = trace.backward_runs[call.run]
        cap = caps.get(run.graph)
        if cap is None:
            continue
        mr = _one_run(run, cap, call, saved, segments)
        mr.end_of_forward, mr.after_backward, mr.after_step = call.before, call.after, call.after_step
        fwd = [p.bytes for p in mr.points if p.phase == "forward"]
        end_fwd = fwd[-1] if fwd else 0
        last = mr.points[-1].bytes if mr.points else 0
        for parts, value in ((mr.end_of_forward, end_fwd), (mr.after_backward, last), (mr.after_step, last)):
            if parts is not None:
                parts.activations = value
        out.append(mr)
    return out


def _one_run(run, cap, call, saved: dict, segments: list) -> MemoryRun:
    """The points of one run: the forward's (saved tensors and kept
    checkpoint inputs added in sequence order), then the backward's."""
    mr = MemoryRun(run=run.index, graph=run.graph, retain_graph=call.retain)
    seqs = _sequence_numbers(cap.order)
    lo = min(seqs) if seqs else 0
    hi = max(seqs) if seqs else -1
    own_by_id, events = _saved_events(cap, seqs, saved)
    thread = run.thread_id  # (another thread's segments share sequence numbers with this one's)
    frames = [seg for seg in segments if seg.has_frame and seg.kept and lo <= seg.start <= hi
              and (thread is None or getattr(seg, "thread", thread) == thread)
              and any(seg.start <= s < seg.end for s in seqs)]
    for seg in frames:
        events.append((seg.frame_seq, 0, seg, seg.kept))
    events.sort(key=_EVENT_ORDER)
    held = _Held()
    _forward_points(mr.points, events, held)
    _backward_points(mr.points, run, call, own_by_id, segments, frames, held)
    mr.peak = max(p.bytes for p in mr.points)
    return mr


_EVENT_ORDER = itemgetter(0, 1)


def _sequence_numbers(nodes) -> list:
    """Each node's autograd sequence number (-1 where it has none)."""
    try:
        return [n._sequence_nr() for n in nodes]
    except Exception:
        pass
    seqs = []
    for n in nodes:
        try:
            seqs.append(n._sequence_nr())
        except Exception:
            seqs.append(-1)
    return seqs


def _saved_events(cap, seqs: list, saved: dict) -> tuple[dict, list]:
    """({node id: its saved storages}, [(sequence number, 1, node id, storages)])
    for the nodes that saved something other than parameters (node ids are
    unique in a graph: a step's node id finds its storages): storages of
    the leaves that require grad (parameters, and views of them such as the
    weight.t() a Linear saves) are the parameters part, not activations."""
    params = set()
    for i in cap.leaf_indices:
        try:
            v = cap.order[i].variable
            if v is not None and v.requires_grad:
                params.add(v.untyped_storage().data_ptr())
        except Exception:
            pass
    own = {}  # node id -> its saved storages, parameters left out
    events: list[tuple] = []
    app = events.append
    disjoint = params.isdisjoint
    ids = cap.ids
    names = ids.names  # (every node's id, made once by materialize; None before it)
    get = saved.get
    order = cap.order
    # (map(id, ...) and a position: no Python call per node that saved nothing)
    for i, (key, s) in enumerate(zip(map(id, order), seqs)):
        st = get(key)
        if st:
            if not disjoint(st):
                st = {p: b for p, b in st.items() if p not in params}
                if not st:
                    continue
            nid = names[i] if names is not None else ids[order[i]]
            own[nid] = st
            app((s, 1, nid, st))
    return own, events


def _forward_points(points: list, events: list, held: _Held) -> None:
    """A point after each node's saved storages or frame's kept inputs are added."""
    count, size = held.count, held.size
    total = held.bytes
    app = points.append
    for _, kind, obj, st in events:
        for ptr, nbytes in st.items():  # (held.add, inline: once per saved storage)
            c = count.get(ptr, 0)
            if c == 0:
                size[ptr] = nbytes
                total += nbytes
            count[ptr] = c + 1
        if kind == 1:
            app(MemoryPoint("forward", total, obj))
        else:
            app(MemoryPoint("forward", total, checkpoint=obj.id))
    held.bytes = total
    if not points:
        points.append(MemoryPoint("forward", 0))


def _backward_points(points: list, run, call, own_by_id: dict, segments: list, frames: list,
                     held: _Held) -> None:
    """A point after each step that released something (and the last):
    its node's saved storages (unless the graph is retained), a re-run's
    tensors it unpacked, a checkpoint frame that died; a recompute's peak
    before the step's node ran."""
    recomputes: dict[int, list] = {}
    for seg in segments:
        for rec in seg.recomputes:
            if rec.run == run.index and rec.step is not None:
                recomputes.setdefault(rec.step, []).append(rec)
    frame_free: dict[int, list] = {}
    for seg in frames:
        if seg.frame_freed is not None and seg.frame_freed[0] == run.index:
            frame_free.setdefault(max(0, (seg.frame_freed[1] or 0) - 1), []).append(seg.kept)
    freed_again: dict[int, list] = {}  # step -> [[ptr, ...] to release after it]
    steps = run.steps
    last = len(steps) - 1
    drop = held.drop
    own = {} if call.retain else own_by_id
    if not recomputes and not frame_free:  # (no checkpoint here: only the nodes' own storages)
        _plain_backward_points(points, steps, own, held)
        return
    for k, step in enumerate(steps):
        before = held.bytes
        if recomputes and k in recomputes:
            _recompute(points, recomputes[k], run.index, k, step, held, freed_again)
        st = own.get(step.node)
        if st:
            drop(st)
        if freed_again:
            for ptrs in freed_again.pop(k, ()):
                drop(ptrs)
        if frame_free:
            for kept in frame_free.pop(k, ()):
                drop(kept)
        if held.bytes != before or k == last or (points and points[-1].phase == "recompute"):
            points.append(MemoryPoint("backward", held.bytes, step.node, k))


def _plain_backward_points(points: list, steps: list, own: dict, held: _Held) -> None:
    """_backward_points for a run without re-runs or checkpoint frames: each
    step releases its node's saved storages (held.drop inline: a 50,000-node
    chain's steps, 40 -> 25 ms)."""
    count, size = held.count, held.size
    total = held.bytes
    last = len(steps) - 1
    app = points.append
    get = own.get
    for k, step in enumerate(steps):
        st = get(step.node)
        if st:
            before = total
            for ptr in st:
                c = count.get(ptr, 0)
                if c == 1:
                    del count[ptr]
                    total -= size.pop(ptr)
                elif c > 1:
                    count[ptr] = c - 1
            if total != before:
                app(MemoryPoint("backward", total, step.node, k))
                continue
        if k == last:
            app(MemoryPoint("backward", total, step.node, k))
    held.bytes = total


def _recompute(points: list, recs: list, run_index: int, k: int, step, held: _Held,
               freed_again: dict) -> None:
    """The re-runs during step `k`: what each stored is held (a point at the
    peak); when it is released goes to `freed_again`."""
    for rec in recs:
        if rec.seg.reentrant:
            held.add(rec.stored)
            freed_again.setdefault(k, []).append(list(rec.stored))
        for ptr, where in rec.entries:
            held.add({ptr: rec.stored[ptr]})
            if where is not None and where[0] == run_index and where[1] is not None:
                freed_again.setdefault(max(k, where[1]), []).append([ptr])
        points.append(MemoryPoint("recompute", held.bytes, node=step.node, step=k, checkpoint=rec.seg.id))
