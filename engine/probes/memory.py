"""Memory probe: what the backward pass keeps, measured as the script runs (`Trace.memory`).

For every recorded backward run an activation timeline (bytes held for
backward after each forward op, during each checkpoint re-run, after each
backward step), the four parts of training memory (parameters, gradients,
optimizer states, activations) at the end of forward, after backward and
after the optimizer step, and per checkpoint call the bytes it did not store.

How it measures without changing what the script computes:

- The obvious tool, a `saved_tensors_hooks` pair around the whole script,
  is NOT used: while any such pair is active torch no longer checks saved
  tensors' versions, so a script that modifies a saved tensor in place would
  silently get wrong gradients instead of its "modified by an inplace
  operation" error (verified on torch 2.13). Instead the probe reads the saved
  tensors the capture reads anyway just before each backward call (capture's
  `on_saved` callback: one storage pointer and size per saved tensor), orders
  the nodes by their autograd sequence number (the order the forward made
  them) and applies torch's rule that a node's saved tensors are released
  right after it runs, unless retain_graph.
- What checkpoint does is observed at checkpoint's own hooks, each left
  doing exactly what it did: `_checkpoint_hook`'s pack hook sees every tensor
  a non-reentrant segment asks to save (and drops: "not stored");
  `_CheckpointFrame.save_inputs` the arguments it keeps instead (released when
  torch frees the frame: a weakref finalizer says when); `_recomputation_hook`'s
  pack hook every tensor a re-run stores again (released when torch drops its
  handle on unpacking: finalizer on the handle). A reentrant re-run saves into an ordinary inner graph: after the
  function returns, that graph's saved tensors are read (never one under an
  unpack hook, which would run it).
- Optimizer steps: torch's global `register_optimizer_step_post_hook`.

Storages are counted once (by `untyped_storage().data_ptr()`); a storage of
a leaf tensor that requires grad (a parameter, or a view of one such as the
`weight.t()` a Linear saves) belongs to the parameters part, not to the
activations. Saved tensors under the script's own saved_tensors_hooks are not
read (capture leaves them alone) and so not counted.

Cost: the timeline is always on; per backward call one storage lookup per
saved tensor capture reads and per leaf and gradient (the leaves are the
capture's, no walk of our own); the rest happens after the script
(benchmarks/bench_memory.py). Scripts without checkpoint pay nothing else.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any, Optional

from autogradviz.engine.probes.base import FEATURE_ORDER, Probe
from autogradviz.engine.trace.gc_pause import gc_paused
from autogradviz.engine.trace.memory import (MemoryParts, MemoryRecord, SegmentMemory)


class _Segment:
    """One checkpoint call as the memory probe sees it."""

    __slots__ = ("id", "reentrant", "start", "end", "not_stored", "kept", "frame_seq", "frame_freed",
                 "recomputes", "has_frame", "thread")

    def __init__(self, cid: str, reentrant: bool, start: int):
        self.id = cid
        self.reentrant = reentrant
        self.start, self.end = start, start
        self.not_stored: dict[int, int] = {}  # ptr -> bytes
        self.kept: dict[int, int] = {}  # kept arguments: ptr -> bytes
        self.has_frame = False
        self.frame_seq = start
        self.frame_freed: Optional[tuple] = None  # (run, step) when torch freed the frame
        self.recomputes: list[_Recompute] = []
        self.thread = threading.get_ident()  # the caller's (sequence numbers count per thread)


class _Recompute:
    __slots__ = ("seg", "run", "step", "stored", "entries")

    def __init__(self, seg: _Segment, run, step):
        self.seg, self.run, self.step = seg, run, step
        self.stored: dict[int, int] = {}  # ptr -> bytes
        # non-reentrant: one [ptr, (run, step) when torch dropped it, or None]
        # per tensor torch stored (one storage may be stored for several nodes)
        self.entries: list[list] = []


class _Call:
    """One backward/grad call that was recorded as a run."""

    __slots__ = ("run", "retain", "before", "after", "after_step", "leaves")

    def __init__(self, run, retain, before, after, leaves):
        self.run, self.retain, self.before, self.after = run, retain, before, after
        self.after_step = None
        self.leaves = leaves


def _run_of(runs: list, first: int, graph) -> "int | None":
    """Index of the run this backward call recorded: the one of its captured
    graph (other threads' calls may have added runs meanwhile), looked for
    among the runs added since the call began."""
    for i in range(len(runs) - 1, first - 1, -1):
        if runs[i].graph == graph:
            return i
    return None


class MemoryProbe(Probe):
    name = "memory"
    # installs before the checkpoint probe, so that probe's wrapper of
    # checkpoint() lies around this one and sees the user's own function
    order = FEATURE_ORDER - 1

    def __init__(self) -> None:
        super().__init__()
        global _TENSOR
        import torch

        _TENSOR = (torch.Tensor,)
        # id(node), storage pointer, bytes per saved tensor capture read, one
        # flat list: plain ints, nothing for the cyclic GC to track (capture
        # holds the nodes for the whole run, so their ids stay theirs)
        self._raw_saved: list[int] = []
        self._segments: list[_Segment] = []
        self._calls: list[_Call] = []
        self._local = threading.local()
        self._optimizers: "weakref.WeakSet" = weakref.WeakSet()
        self._handles: list = []
        self._installed = False
        self.direct = False  # set by the runner for a run without checkpoint
        self._cuda = False
        self._me: list[Optional[MemoryProbe]] = [self]  # (emptied by remove())

    # -- probe interface ------------------------------------------------------------------
    def install(self, ctx) -> None:
        super().install(ctx)
        import torch
        import torch.optim.optimizer as topt

        ctx.state.on_saved = self._on_saved
        self._installed = True
        try:  # (is_available() would initialise CUDA in every run's process, which a
            # fork of the worker must not need; contribute reads the CUDA figures
            # only when the script itself initialised CUDA)
            self._cuda = bool(torch.backends.cuda.is_built())
        except Exception:
            self._cuda = False
        # (positions of retain_graph and create_graph in each signature)
        self.patches.wrap(torch.Tensor, "backward", lambda o: self._wrap_backward(o, 2, 3))
        self.patches.wrap(torch.autograd, "backward", lambda o: self._wrap_backward(o, 2, 3))
        self.patches.wrap(torch.autograd, "grad", lambda o: self._wrap_backward(o, 3, 4))
        recorder_mod = ctx.services.recorder_module  # (lent through the context)

        # the graph the recorder captures just before the real backward: its
        # leaves, without a walk of our own
        self.patches.wrap(recorder_mod, "capture_pending", self._wrap_capture)
        self._handles.append(topt.register_optimizer_step_post_hook(self._after_step))
        # every optimizer the script makes holds parameters from then on (also
        # before its first step: a plain tensor given to it is a parameter)
        self.patches.wrap(topt.Optimizer, "__init__", self._wrap_optimizer_init)
        try:
            self._install_checkpoint()
        except Exception as exc:  # another torch: no segment data, the rest works
            ctx.internal_error("memory.checkpoint", exc)

    def remove(self) -> None:
        self._installed = False
        self._me[0] = None
        if self.ctx is not None and getattr(self.ctx.state, "on_saved", None) == self._on_saved:
            self.ctx.state.on_saved = None
        for h in self._handles:
            h.remove()
        self._handles.clear()
        super().remove()

    def fork_marks(self) -> dict[str, int]:
        return {"memory.segments": len(self._segments)}  # (memory.runs: by their run index)

    def contribute(self, trace) -> None:
        from autogradviz.engine.probes.memory_timeline import build_runs

        record = MemoryRecord(checkpoints_direct=self.direct)
        saved: dict = {}  # id(node) -> {ptr: bytes}
        raw = iter(self._raw_saved)
        for node, ptr, nbytes in zip(raw, raw, raw):
            d = saved.get(node)
            if d is None:
                saved[node] = {ptr: nbytes}
            else:
                d[ptr] = nbytes
        self._raw_saved = []
        record.runs = build_runs(trace, self.ctx.state, self._calls, saved, self._segments)
        for seg in self._segments:
            record.segments.append(SegmentMemory(
                checkpoint=seg.id, not_stored=sum(seg.not_stored.values()), tensors=len(seg.not_stored),
                recomputed=[sum(r.stored.values()) for r in seg.recomputes],
                kept_inputs=sum(seg.kept.values())))
            if seg.reentrant and seg.recomputes:
                seg_rec = record.segments[-1]
                seg_rec.not_stored = seg_rec.recomputed[0]
                seg_rec.tensors = len(seg.recomputes[0].stored)
        if record.runs or record.segments or self.direct:
            trace.memory = record
        # what was observed is in the record now: hold none of it (or the
        # tensors and graphs it refers to) any longer
        self._calls, self._segments = [], []

    # -- saved tensors read by capture -------------------------------------------------------
    def _on_saved(self, entries: list) -> None:
        """Called by capture once with id(node), storage pointer, storage
        bytes (three flat ints) for every saved tensor it read (capture reads
        the storages in its own loop: the hot path); per-node sets and the
        parameters among them are sorted out after the script, by storage."""
        self._raw_saved.extend(entries)

    def _wrap_capture(self, original):
        # The wrapper reaches the probe through a cell that remove() empties:
        # whoever saved this wrapper while it was installed (a benchmark
        # timing capture does) must not keep the run's graphs alive with it.
        me = self._me

        def capture_pending(*args, **kwargs):
            result = original(*args, **kwargs)
            probe = me[0]
            if probe is None:
                return result
            local = probe._local
            if getattr(local, "busy", False) and probe._installed:
                try:
                    leaves = _leaves_of(result[2])
                    local.leaves = leaves
                    local.graph = getattr(result[0], "id", None)  # (the run this call records)
                    local.before = probe._parts(leaves)  # the backward has not run yet
                except Exception as exc:
                    probe.ctx.internal_error("memory.capture", exc)
            return result

        return capture_pending

    # -- backward calls: the parts before and after -------------------------------------------
    def _runs_full(self) -> bool:
        """Every run there is to record is recorded (the recorder counts the
        rest): no parts to read before and after this call."""
        ctx = self.ctx
        try:
            return len(ctx.trace.backward_runs) >= ctx.recorder.max_runs
        except Exception:
            return False

    def _wrap_backward(self, original, retain_at: int, create_at: int):
        probe = self

        def call(*args, **kwargs):
            local = probe._local
            if getattr(local, "busy", False) or not probe._installed or probe._runs_full():
                return original(*args, **kwargs)  # (nothing of this call is recorded)
            local.busy = True
            try:
                try:
                    runs = len(probe.ctx.trace.backward_runs)
                    local.leaves = local.before = local.graph = None
                    retain = _retains(args, kwargs, retain_at, create_at)
                except Exception as exc:
                    probe.ctx.internal_error("memory.backward", exc)
                    return original(*args, **kwargs)
                try:
                    return original(*args, **kwargs)
                finally:
                    # (the cyclic GC paused: a pass over the graph just recorded,
                    # set off by our few allocations, would land in the
                    # script's backward call instead of wherever it falls)
                    with gc_paused():
                        try:
                            leaves = local.leaves
                            index = _run_of(probe.ctx.trace.backward_runs, runs, local.graph)
                            if index is not None and leaves is not None:
                                probe._calls.append(_Call(index, retain, local.before,
                                                          probe.ctx.services.beneath_modes(probe._parts)(leaves),
                                                          [weakref.ref(t) for t in leaves]))
                            local.leaves = local.before = None
                        except Exception as exc:
                            probe.ctx.internal_error("memory.backward", exc)
            finally:
                local.busy = False

        call.__wrapped__ = original  # type: ignore[attr-defined]  # (functools.wraps' attribute, set by hand)
        for attr in ("__name__", "__qualname__", "__doc__"):
            setattr(call, attr, getattr(original, attr, None))
        return call

    def _wrap_optimizer_init(self, original):
        probe = self

        def __init__(optimizer, *args, **kwargs):
            original(optimizer, *args, **kwargs)
            if probe._installed:
                try:
                    probe._optimizers.add(optimizer)
                except Exception as exc:
                    probe.ctx.internal_error("memory.optimizer", exc)

        __init__.__wrapped__ = original
        return __init__

    def _after_step(self, optimizer, args, kwargs) -> None:
        if not self._installed:
            return
        try:
            self._optimizers.add(optimizer)
            if self._calls and self._calls[-1].after_step is None:
                last = self._calls[-1]
                leaves = [t for t in (r() for r in last.leaves) if t is not None]
                last.after_step = self._parts(leaves)
        except Exception as exc:
            self.ctx.internal_error("memory.optimizer", exc)

    def _parts(self, leaves) -> MemoryParts:
        """Parameters, gradients and optimizer states now (activations are
        filled from the timeline after the script). Parameters are what the
        script's modules and optimizers hold (nn.Parameter, or a tensor in an
        optimizer's param_groups); any other leaf of the graph that requires grad
        (an input `x`) and its .grad are counted apart, as other leaves."""
        import torch

        params: dict[int, int] = {}
        grads: dict[int, int] = {}
        others: dict[int, int] = {}
        other_grads: dict[int, int] = {}
        held = {}
        for opt in list(self._optimizers):
            for group in opt.param_groups:
                for p in group.get("params", ()):
                    held[id(p)] = p
        tensors = dict(held)
        for t in leaves:
            tensors.setdefault(id(t), t)
        for key, p in tensors.items():
            is_param = key in held or isinstance(p, torch.nn.Parameter)
            st = _storage(p)
            if st is not None:
                (params if is_param else others)[st[0]] = st[1]
            g = p.grad
            st = _storage(g) if g is not None else None
            if st is not None:
                (grads if is_param else other_grads)[st[0]] = st[1]
        for ptr in list(others):  # a storage shared with a parameter is the parameter's
            if ptr in params:
                del others[ptr]
        for ptr in list(other_grads):
            if ptr in grads:
                del other_grads[ptr]
        states: dict[int, int] = {}
        for opt in list(self._optimizers):
            for state in opt.state.values():
                for v in (state.values() if isinstance(state, dict) else ()):
                    st = _storage(v)
                    if st is not None:
                        states[st[0]] = st[1]
        parts = MemoryParts(parameters=sum(params.values()), gradients=sum(grads.values()),
                            optimizer_states=sum(states.values()), other_leaves=sum(others.values()),
                            other_leaf_gradients=sum(other_grads.values()))
        try:
            if self._cuda and torch.cuda.is_initialized():
                parts.cuda_allocated = int(torch.cuda.memory_allocated())
                parts.cuda_max_allocated = int(torch.cuda.max_memory_allocated())
        except Exception:
            pass
        return parts

    # -- checkpoint ------------------------------------------------------------------------------
    def _install_checkpoint(self) -> None:
        import torch.utils.checkpoint as tuc

        # The classes below live until the cyclic GC frees them: they reach
        # the probe only through the cell remove() empties, so they keep no
        # run's trace and graphs alive meanwhile.
        me = self._me
        self.patches.wrap(tuc, "checkpoint", self._wrap_checkpoint)

        ck_base: Any = tuc._checkpoint_hook

        class _ObservedCheckpointHook(ck_base):
            """torch's own hook; its pack hook also tells the probe what it drops."""

            def __init__(self, frame):
                super().__init__(frame)
                dropping = self.pack_hook

                def pack_hook(x):
                    probe = me[0]
                    if probe is not None:
                        probe._not_stored(x)
                    return dropping(x)

                self.pack_hook = pack_hook

        rc_base: Any = tuc._recomputation_hook

        class _ObservedRecomputationHook(rc_base):
            """torch's own hook; its pack hook also tells the probe what it stored again."""

            def __init__(self, target_frame_ref, gid):
                super().__init__(target_frame_ref, gid)
                storing = self.pack_hook

                def pack_hook(x):
                    probe = me[0]
                    if probe is None:
                        return storing(x)
                    frame = target_frame_ref()
                    k = frame.recomp_counter.get(gid, 0) if frame is not None else None
                    # (torch stores x detached: ask before whether it is a parameter)
                    param = _is_param(x)
                    try:
                        return storing(x)
                    finally:
                        if not param:
                            probe._stored_again(frame, gid, k)

                self.pack_hook = pack_hook

        for cls, base in ((_ObservedCheckpointHook, ck_base), (_ObservedRecomputationHook, rc_base)):
            cls.__name__ = cls.__qualname__ = base.__name__
            cls.__module__ = base.__module__
        self.patches.set(tuc, "_checkpoint_hook", _ObservedCheckpointHook)
        self.patches.set(tuc, "_recomputation_hook", _ObservedRecomputationHook)
        if hasattr(tuc._CheckpointFrame, "save_inputs"):
            # (torch 2.11 has no save_inputs: seen on an H200 image, where this
            # probe then failed to install at all; the kept inputs go unattributed)
            self.patches.wrap(tuc._CheckpointFrame, "save_inputs", self._wrap_save_inputs)

    def _wrap_checkpoint(self, original):
        me = self._me  # (emptied by remove(): a script keeps this wrapper, not the probe)

        def checkpoint(function, *args, **kwargs):
            probe = me[0]
            if probe is None:
                return original(function, *args, **kwargs)
            local = probe._local
            if not probe._installed or getattr(local, "recomputing", 0):
                return original(function, *args, **kwargs)
            seg = _Segment(f"c{len(probe._segments) + 1}", kwargs.get("use_reentrant") is not False, _seq())
            probe._segments.append(seg)
            try:
                for a in (*args, *kwargs.values()):
                    st = _storage(a)
                    if st is not None and not _is_param(a):
                        seg.kept[st[0]] = st[1]
            except Exception as exc:
                probe.ctx.internal_error("memory.checkpoint", exc)
            calls = [0]

            def observed(*a, **k):
                n = calls[0]
                calls[0] += 1
                if n == 0 or not probe._installed:
                    return function(*a, **k)
                return probe._recompute(seg, function, a, k)

            outer = getattr(local, "segment", None)
            local.segment = seg
            try:
                return original(observed, *args, **kwargs)
            finally:
                local.segment = outer
                seg.end = _seq()

        checkpoint.__wrapped__ = original
        for attr in ("__name__", "__qualname__", "__doc__"):
            setattr(checkpoint, attr, getattr(original, attr, None))
        return checkpoint

    def _wrap_save_inputs(self, original):
        me = self._me

        def save_inputs(frame, *args):
            result = original(frame, *args)
            probe = me[0]
            seg = getattr(probe._local, "segment", None) if probe is not None else None
            if seg is not None and probe._installed:
                try:
                    seg.has_frame = True
                    seg.frame_seq = _seq()
                    weakref.finalize(frame, probe._frame_freed, seg)
                except Exception as exc:
                    probe.ctx.internal_error("memory.frame", exc)
            return result

        return save_inputs

    def _frame_freed(self, seg: _Segment) -> None:
        try:
            pos = self.ctx.position()
            seg.frame_freed = (pos.run, pos.step)
        except Exception:
            pass

    def _not_stored(self, x) -> None:
        seg = getattr(self._local, "segment", None)
        if seg is None or not self._installed:
            return
        try:
            st = _storage(x)
            if st is not None and not _is_param(x):
                seg.not_stored[st[0]] = st[1]
        except Exception as exc:
            self.ctx.internal_error("memory.not_stored", exc)

    def _recompute(self, seg: _Segment, function, a, k):
        """A re-run of a checkpointed function, called by torch."""
        pos = self.ctx.position()
        rec = _Recompute(seg, pos.run, pos.step)
        seg.recomputes.append(rec)
        local = self._local
        local.recomputing = getattr(local, "recomputing", 0) + 1
        outer = getattr(local, "recompute", None)
        local.recompute = rec
        start = _seq()
        try:
            out = function(*a, **k)
        finally:
            local.recomputing -= 1
            local.recompute = outer
        if seg.reentrant:
            try:
                rec.stored = _inner_saved(out, start, self.ctx.services)
            except Exception as exc:
                self.ctx.internal_error("memory.recompute", exc)
        return out

    def _stored_again(self, frame, gid, k) -> None:
        """After torch's recomputation pack hook: the tensor it stored (if any)."""
        rec = getattr(self._local, "recompute", None)
        if rec is None or frame is None or k is None or not self._installed:
            return
        try:
            if k >= len(frame.weak_holders):
                return
            holder = frame.weak_holders[k]()
            handle = holder.handles.get(gid) if holder is not None else None
            store = frame.recomputed.get(gid)
            t = store.get(handle) if handle is not None and store is not None else None
            st = _storage(t)
            if st is None:
                return
            rec.stored[st[0]] = st[1]
            entry = [st[0], None]
            rec.entries.append(entry)
            # torch drops its reference when the handle goes (the tensor
            # itself may live on: the script's own input, say)
            weakref.finalize(handle, self._freed_again, entry)
        except Exception as exc:
            self.ctx.internal_error("memory.recompute", exc)

    def _freed_again(self, entry: list) -> None:
        try:
            pos = self.ctx.position()
            entry[1] = (pos.run, pos.step)
        except Exception:
            pass


# -- helpers -------------------------------------------------------------------------------------
_TENSOR: tuple = ()  # (torch.Tensor,) once a probe is made (this module imports no torch)


def _storage(t) -> Optional[tuple[int, int]]:
    """(data pointer, bytes) of a tensor's storage; None for anything else."""
    if not isinstance(t, _TENSOR):
        return None
    try:
        s = t.untyped_storage()
        return s.data_ptr(), s.nbytes()
    except Exception:  # sparse, meta-less wrappers: no plain storage
        return None


def _is_param(t) -> bool:
    """A leaf that requires grad, or a view of one (the parameters part)."""
    base = t._base if t._base is not None else t
    return base.requires_grad and base.grad_fn is None


def _seq() -> int:
    import torch

    return torch._C._autograd._get_sequence_nr()


def _leaves_of(cap) -> list:
    """The leaf tensors (AccumulateGrad variables) of a captured graph."""
    order = cap.order
    found = []
    for i in cap.leaf_indices:
        try:
            v = order[i].variable
        except Exception:
            continue
        if v is not None:
            found.append(v)
    return found


def _retains(args, kwargs, retain_at: int, create_at: int) -> bool:
    """The call keeps the graph's saved tensors (retain_graph; when not given,
    create_graph), read from the positions torch's signature gives them."""
    retain = args[retain_at] if len(args) > retain_at else kwargs.get("retain_graph")
    create = args[create_at] if len(args) > create_at else kwargs.get("create_graph", False)
    return bool(create) if retain is None else bool(retain)


def _inner_saved(out, start: int, services) -> dict[int, int]:
    """{ptr: bytes} saved by the graph a reentrant re-run built (nodes made
    since sequence number `start`); never reads a value under an unpack hook."""
    _hook_reason, _saved_attrs = services.hook_reason, services.saved_attrs

    roots = [t.grad_fn for t in _tensors(out) if t.grad_fn is not None]
    seen = set(roots)
    todo = list(roots)
    stored: dict[int, int] = {}
    while todo:
        n = todo.pop()
        try:
            if n._sequence_nr() < start:
                continue
        except Exception:
            continue
        for _, attr, raw_attr in _saved_attrs(n):
            if raw_attr is not None and _hook_reason(getattr(n, raw_attr, None)) is not None:
                continue
            try:
                v = getattr(n, attr)
            except Exception:
                continue
            for t in (v if isinstance(v, (list, tuple)) else (v,)):
                st = _storage(t)
                if st is not None and not _is_param(t):
                    stored[st[0]] = st[1]
        for nxt, _ in n.next_functions:
            if nxt is not None and nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return stored


def _tensors(value) -> list:
    import torch

    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [v for v in value if isinstance(v, torch.Tensor)]
    return []
