"""Checkpoint probe: one `checkpoints` entry per `torch.utils.checkpoint.checkpoint` call.

Gradient checkpointing is invisible in an ordinary recording: the graph looks
the same, and the forward that torch silently runs again inside backward leaves
no step of its own. This probe wraps the module attribute
`torch.utils.checkpoint.checkpoint` (what scripts call, and what
`checkpoint_sequential` calls by its module-level name for every segment but the
last) and hands torch, instead of the user's function, a thin wrapper around it.
torch calls that wrapper exactly when it calls the user's function: once for the
original forward, and once more for every recomputation - for reentrant
checkpoint from CheckpointFunction.backward, for non-reentrant from the unpack
hook of the first saved tensor a backward needs. So one mechanism observes both
kinds, and the user's own `context_fn` (and `debug=True`, which refuses any
other context_fn) is passed to torch untouched.

Around each call of the function a TorchDispatchMode lists the aten ops that
run (`str(func)`), without torch's `aten.detach.default` bookkeeping. Modes nest
and a mode only forwards each op unchanged, so the script's own modes (and
selective checkpointing's) see what they saw before, and results are identical.
A recomputation also records where the backward was (`ProbeContext.position`),
which node asked for it (`torch._C._current_autograd_node()` while the engine
runs it) and whether torch stopped it early (its private
`_StopRecomputationError` passing through the wrapper, re-raised unchanged).

One rule of reentrant checkpoint fails silently: only tensors returned
directly (the result, or elements of a returned tuple) are outputs of torch's
autograd Function; a tensor in a dict or list comes back as the no_grad forward
made it, without a gradient. The probe sees what torch handed back: when an
input required grad (grad mode on) and the result holds floating-point tensors, none of which
requires grad, the trace gets a note "checkpoint_output_loses_grad" with the
line - nothing is guessed about results whose tensors it cannot see.

What the probe never does: read a saved tensor or `_saved_*` attribute (that
would itself re-run a non-reentrant segment), call the function itself, or
change arguments, results and exceptions. The segment's nodes are found after
the script from autograd sequence numbers: every node created while the
checkpoint call ran has a number in [before, after) of that call
(`torch._C._autograd._get_sequence_nr()`), the same trick as the module
tracker's - no graph walk, no node held.
"""

from __future__ import annotations

import bisect
import sys
import threading
from types import FrameType
from typing import Optional

from autogradviz.engine.probes.base import Probe
from autogradviz.engine.trace.checkpoint import Checkpoint, Recomputation


class CheckpointProbe(Probe):
    """Wraps torch.utils.checkpoint.checkpoint while installed."""

    name = "checkpoint"

    def __init__(self) -> None:
        super().__init__()
        self.records: list[Checkpoint] = []
        # per record: (first, end) autograd sequence numbers of its forward
        self._ranges: list[tuple[int, int]] = []
        self._threads: list[int] = []  # per record: the thread that called it
        # per record: the sequence number current when each forward op reached
        # dispatch; per recomputation (record, re-run, numbers): the same for
        # its ops (op_nodes, see _map_op_nodes)
        self._forward_seqs: list[list[int]] = []
        self._rerun_seqs: list[tuple] = []
        self._local = threading.local()
        self._installed = False
        self._tracker = None
        # (line, output type) of reentrant calls whose result lost its gradient
        self.lost_grad: list[tuple[Optional[int], str]] = []

    # -- probe interface -----------------------------------------------------------
    def install(self, ctx) -> None:
        super().install(ctx)
        import torch.utils.checkpoint as tuc

        self._tracker = getattr(getattr(ctx.state, "module_of", None), "__self__", None)
        self.patches.wrap(tuc, "checkpoint", self._wrap)
        # reentrant re-runs: their nested backward (probes/checkpoint_inner.py)
        import torch

        from autogradviz.engine.probes.checkpoint_inner import wrap_backward

        self.patches.wrap(torch.autograd, "backward", wrap_backward(self))
        self._installed = True

    def remove(self) -> None:
        self._installed = False
        super().remove()

    def fork_marks(self) -> dict[str, int]:
        return {"checkpoints": len(self.records)}

    def contribute(self, trace) -> None:
        try:
            self._map_nodes()
        except Exception as exc:  # the records stay, without their nodes
            self.ctx.internal_error("checkpoint.nodes", exc)
        try:
            self._map_op_nodes()
        except Exception as exc:  # the re-runs stay, without their nodes
            self.ctx.internal_error("checkpoint.op_nodes", exc)
        trace.checkpoints = list(self.records)
        for line, kind in self.lost_grad:  # (the text: engine/trace/notes.py)
            trace.add_note("checkpoint_output_loses_grad", line=line, output_type=kind)

    # -- the wrapped call -----------------------------------------------------------
    def _wrap(self, original):
        probe = self

        def checkpoint(function, *args, **kwargs):
            if not probe._installed or getattr(probe._local, "recomputing", 0):
                # A checkpoint inside a segment being recomputed: that call
                # was recorded (or not) in the original forward.
                return original(function, *args, **kwargs)
            try:
                rec, observed = probe._begin(function, args, kwargs)
            except Exception as exc:  # our failure: the call runs unobserved
                probe.ctx.internal_error("checkpoint.call", exc)
                return original(function, *args, **kwargs)
            # in call order (an outer call before the calls nested in it)
            k = len(probe.records)
            probe.records.append(rec)
            probe._ranges.append((_get_seq(), -1))
            probe._threads.append(threading.get_ident())  # (sequence numbers count per thread)
            try:
                grad_on = _grad_enabled()
                result = original(observed, *args, **kwargs)
                if rec.kind == "reentrant" and grad_on:
                    probe._check_output(rec, args, result)
                return result
            except BaseException as exc:
                rec.error = _error_text(exc)
                raise
            finally:
                probe._ranges[k] = (probe._ranges[k][0], _get_seq())

        checkpoint.__wrapped__ = original
        checkpoint.__name__ = getattr(original, "__name__", "checkpoint")
        checkpoint.__qualname__ = getattr(original, "__qualname__", "checkpoint")
        checkpoint.__doc__ = getattr(original, "__doc__", None)
        return checkpoint

    def _begin(self, function, args, kwargs):
        """The record of this call and the function torch gets instead of the user's."""
        import torch

        use_reentrant = kwargs.get("use_reentrant")
        # torch 2.x: not given means reentrant (after a warning)
        kind = "non_reentrant" if use_reentrant is False else "reentrant"
        from torch.utils._python_dispatch import _disable_current_modes

        summ = self.ctx.summ
        # Summarising runs tensor ops (detach, view, ...): a TorchDispatchMode of
        # the script's (or an outer checkpoint's op log) must not see them.
        with _disable_current_modes():
            inputs = [summ.summarize(a) for a in (*args, *kwargs.values()) if isinstance(a, torch.Tensor)]
        rec = Checkpoint(id=f"c{len(self.records) + 1}", kind=kind, function=self._describe(function),
                         line=self._line(), inputs=inputs,
                         preserve_rng_state=bool(kwargs.get("preserve_rng_state", True)))
        probe = self
        calls = [0]
        self._forward_seqs.append([])
        seqs = self._forward_seqs[-1]

        def observed(*a, **k):
            n = calls[0]
            calls[0] += 1
            if n == 0:  # the original forward
                log = _OpLog(rec.masks, seqs)
                try:
                    with log:
                        return function(*a, **k)
                finally:
                    rec.forward_ops = log.names()
            if not probe._installed:  # after the script (the trace is made): record nothing
                return function(*a, **k)
            return probe._recompute(rec, function, a, k)

        _copy_names(observed, function)
        return rec, observed

    def _check_output(self, rec: Checkpoint, args, result) -> None:
        """Note a reentrant call whose result lost its gradient (module docstring)."""
        try:
            import torch

            if not any(isinstance(a, torch.Tensor) and a.requires_grad for a in args):
                return
            # (an integer result, e.g. indices, has no gradient to lose)
            tensors = [t for t in _tensors_in(result) if t.is_floating_point() or t.is_complex()]
            if tensors and not any(t.requires_grad for t in tensors):
                self.lost_grad.append((rec.line, type(result).__name__))
        except Exception as exc:
            self.ctx.internal_error("checkpoint.output", exc)

    def _recompute(self, rec: Checkpoint, function, a, k):
        """A re-run of the checkpointed function, called by torch."""
        import torch

        r = Recomputation()
        try:
            pos = self.ctx.position()
            r.run = pos.run
            r.step = pos.step if pos.run is not None else None
            act = self.ctx.recorder.active
            node = torch._C._current_autograd_node()
            if act is not None and node is not None:
                r.trigger = act.ids.get(node)
        except Exception as exc:
            self.ctx.internal_error("checkpoint.recompute", exc)
        local = self._local
        local.inner = None
        local.recomputing = getattr(local, "recomputing", 0) + 1
        seqs: list[int] = []
        self._rerun_seqs.append((rec, r, seqs, _get_seq()))
        log = _OpLog(r.masks, seqs)
        stopped = False
        try:
            with log:
                out = function(*a, **k)
            if rec.kind == "reentrant" and r.run is not None and self.ctx.record_steps:
                local.inner = r  # torch's nested backward comes next
            return out
        except BaseException as exc:
            if type(exc).__name__ == "_StopRecomputationError":
                stopped = True
            else:
                r.error = _error_text(exc)
            raise
        finally:
            local.recomputing -= 1
            r.ops = log.names()
            # torch's stop signal comes from the pack hook of the last tensor
            # the segment saved, also when that was the last op's output:
            # "early" only when ops of the forward were really left out.
            r.early_stopped = stopped and len(r.ops) < len(rec.forward_ops)
            rec.recomputations.append(r)

    # -- what was checkpointed, and where ---------------------------------------------
    def _describe(self, fn) -> Optional[str]:
        """Module path for a module (or a bound method of one), the module
        range of a checkpoint_sequential segment, else the qualname."""
        import functools

        import torch

        if isinstance(fn, functools.partial):
            fn = fn.func
        if isinstance(fn, torch.nn.Module):
            return self._module_path(fn)
        owner = getattr(fn, "__self__", None)
        if isinstance(owner, torch.nn.Module):
            path = self._module_path(owner)
            name = getattr(fn, "__name__", "")
            return path if name == "forward" else f"{path}.{name}"
        qualname = getattr(fn, "__qualname__", None) or type(fn).__qualname__
        if qualname.startswith("checkpoint_sequential.") and getattr(fn, "__closure__", None):
            cells = dict(zip(fn.__code__.co_freevars, (c.cell_contents for c in fn.__closure__)))
            try:
                funcs, start, end = cells["functions"], cells["start"], cells["end"]
                first, last = self._describe(funcs[start]), self._describe(funcs[end])
                return first if start == end else f"{first}..{last}"
            except Exception:
                pass
        return qualname

    def _module_path(self, module) -> str:
        tracker = self._tracker
        if tracker is not None:
            try:
                return tracker._path_of(module)
            except Exception:
                pass
        return type(module).__name__

    def _line(self) -> Optional[int]:
        """The innermost line of the script's own file that led to this call."""
        filename = self.ctx.filename
        f: Optional[FrameType] = sys._getframe(2)
        while f is not None:
            if filename is not None and f.f_code.co_filename == filename:
                return f.f_lineno
            f = f.f_back
        return None

    # -- after the script --------------------------------------------------------------
    def _map_nodes(self) -> None:
        """Each record's `graph` and `nodes`: the first captured graph holding
        nodes made during its call (by sequence number), and their ids there."""
        if not self.records:
            return
        order = sorted(range(len(self._ranges)), key=lambda k: self._ranges[k][0])
        starts = [self._ranges[k][0] for k in order]
        # max end over order[:j+1]: stops the walk back over nested calls early
        reach, top = [], -1
        for k in order:
            top = max(top, self._ranges[k][1])
            reach.append(top)
        records, threads = self.records, self._threads
        # a graph's nodes were made in the thread that called its backward
        thread_of = {run.graph: run.thread_id for run in self.ctx.trace.backward_runs}
        for cap in self.ctx.state.captures:
            gid = cap.graph.id
            ids = cap.ids
            thread = thread_of.get(gid)
            for node in cap.order:
                try:
                    seq = node._sequence_nr()
                except Exception:
                    continue
                j = bisect.bisect_right(starts, seq) - 1
                while j >= 0 and reach[j] > seq:
                    k = order[j]
                    if seq < self._ranges[k][1] and (thread is None or threads[k] == thread):
                        rec = records[k]
                        if rec.graph is None:
                            rec.graph = gid
                        if rec.graph == gid:
                            rec.nodes.append(ids[node])
                    j -= 1


    def _map_op_nodes(self) -> None:
        """Each re-run's `op_nodes`: the node each re-run op makes again.

        An op's autograd wrapper makes its node (taking the next sequence
        number) before the op reaches dispatch, where the op log notes the
        number current then: a number above the previous op's names the node
        this op made (that number minus one); an equal one: the op made none.
        Non-reentrant re-runs repeat the forward's ops in order, so op i
        refills what the forward's op i made (in the segment's graph);
        reentrant re-runs make new nodes, captured in their inner graph."""
        if not self.records and not self._rerun_seqs:  # (nothing to map: no walk over every node)
            return
        by_seq: dict[int, dict[str, str]] = {}
        for cap in self.ctx.state.captures:
            gid = cap.graph.id
            for node in cap.order:
                try:
                    by_seq.setdefault(node._sequence_nr(), {})[gid] = cap.ids[node]
                except Exception:
                    continue

        def nodes_of(seqs: list[int], start: int, gid: Optional[str]) -> list[Optional[str]]:
            out: list[Optional[str]] = []
            prev = start
            for seq in seqs:
                made = seq > prev
                out.append(by_seq.get(seq - 1, {}).get(gid) if made and gid else None)
                prev = seq
            return out

        for k, (rec, seqs) in enumerate(zip(self.records, self._forward_seqs)):
            rec.forward_op_nodes = nodes_of(seqs, self._ranges[k][0], rec.graph)
        for rec, r, seqs, start in self._rerun_seqs:
            if rec.kind == "reentrant":
                r.op_nodes = nodes_of(seqs, start, r.graph)
                continue
            made = rec.forward_op_nodes
            r.op_nodes = [made[i] if i < len(made) and i < len(rec.forward_ops) and op == rec.forward_ops[i]
                          else None for i, op in enumerate(r.ops)]


class _OpLog:
    """A TorchDispatchMode (made on first use: importing this module needs no
    torch) that lists the aten ops run inside it and changes nothing; the
    random draws' masks go to `masks` (probes/checkpoint_masks.py)."""

    _mode_class = None

    def __init__(self, masks: Optional[list] = None, seqs: Optional[list] = None):
        cls = _OpLog._mode_class
        if cls is None:
            cls = _OpLog._mode_class = _make_mode_class()
        self.funcs: list = []
        self.mode = cls(self.funcs, masks, seqs)

    def __enter__(self):
        self.mode.__enter__()
        return self

    def __exit__(self, *exc):
        return self.mode.__exit__(*exc)

    def names(self) -> list[str]:
        return [str(f) for f in self.funcs]


def _make_mode_class():
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode

    from autogradviz.engine.probes.checkpoint_masks import is_mask_op, mask_record

    detach = torch.ops.aten.detach.default
    get_seq = torch._C._autograd._get_sequence_nr
    random_ops = set()
    for packet in (torch.ops.aten.bernoulli_, torch.ops.aten.bernoulli, torch.ops.aten.native_dropout):
        for overload in packet.overloads():
            op = getattr(packet, overload)
            if is_mask_op(str(op)):
                random_ops.add(op)

    class OpLogMode(TorchDispatchMode):
        def __init__(self, funcs, masks, seqs):
            super().__init__()
            self.funcs = funcs
            self.masks = masks
            self.seqs = seqs

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            if func is not detach:  # checkpoint's own bookkeeping
                self.funcs.append(func)
                if self.seqs is not None:  # (the node this op made, if any: _map_op_nodes)
                    self.seqs.append(get_seq())
            out = func(*args, **(kwargs or {}))
            if func in random_ops and self.masks is not None:
                try:
                    m = mask_record(str(func), out)
                    if m is not None:
                        self.masks.append(m)
                except Exception:  # a mask we cannot read: the op's result is unchanged
                    pass
            return out

    return OpLogMode


def _tensors_in(value, limit: int = 1000) -> list:
    """The tensors in `value`: itself, or inside (nested) tuples, lists and
    dict values; at most `limit` containers are opened."""
    import torch

    found, todo, opened = [], [value], 0
    while todo and opened < limit:
        v = todo.pop()
        if isinstance(v, torch.Tensor):
            found.append(v)
        elif isinstance(v, (tuple, list)):
            opened += 1
            todo.extend(v)
        elif isinstance(v, dict):
            opened += 1
            todo.extend(v.values())
    return found


def _grad_enabled() -> bool:
    import torch

    return torch.is_grad_enabled()


def _get_seq() -> int:
    import torch

    return torch._C._autograd._get_sequence_nr()


def _copy_names(wrapper, fn) -> None:
    for attr in ("__name__", "__qualname__", "__doc__"):
        try:
            setattr(wrapper, attr, getattr(fn, attr, None) or getattr(type(fn), attr, None))
        except Exception:
            pass


def _error_text(exc: BaseException) -> str:
    msg = str(exc)
    return f"{type(exc).__name__}: {msg}" if msg else type(exc).__name__
