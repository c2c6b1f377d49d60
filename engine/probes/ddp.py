"""DDP's gradient all-reduces, as events in each rank's backward run.

DistributedDataParallel's reducer (C++) all-reduces a *bucket* of gradients
as soon as every gradient in it is ready, while the backward pass is still
running: communication overlaps computation. The learner sees that as one
"allreduce" event per bucket in the run, at the step (the AccumulateGrad of
the bucket's last gradient) during which it fired, with the bucket's local
values (`received`: this rank's gradients) and the averaged result
(`returned`).

How we see it without changing a number: the reducer calls a registered
communication hook per bucket. Before the first forward of a DDP model with
no hook of the user's, we register `observed_allreduce`, which does exactly
what the reducer's built-in path does - scale by 1/world_size with a multiply
(the reducer multiplies while copying gradients into the bucket: `mul_out(
bucket, grad, 1/div_factor)`; torch's Python `allreduce_hook` divides
instead, which can differ in the last bit for world sizes that are not powers
of two), then an all-reduce SUM - and notes the event. A hook the user
registers themselves is wrapped instead (the same function is called with
the same arguments; its future passes through). Builtin C++ hooks
(`_register_builtin_comm_hook`) cannot be observed and are left alone.
The test compares each rank's gradients with plain `python script.py`.
"""

from __future__ import annotations

import functools
import threading
import weakref

import torch

from autogradviz.engine.probes.base import Probe
from autogradviz.engine.trace.model import Event


class DdpAllReduceProbe(Probe):
    name = "ddp_allreduce"

    def install(self, ctx) -> None:
        super().install(ctx)
        self._results: list = []  # (event, tensor after the all-reduce)
        self._lock = threading.Lock()
        self._events: list = []  # (run, event)
        try:
            import torch.distributed as dist
            if not dist.is_available():
                return
            from torch.nn.parallel import DistributedDataParallel as DDP
        except Exception:
            return
        observed: weakref.WeakSet = weakref.WeakSet()  # DDP models whose buckets we observe (or the user's hook does)
        probe = self

        def register(orig):
            @functools.wraps(orig)
            def register_comm_hook(self_ddp, state, hook):
                observed.add(self_ddp)
                return orig(self_ddp, state, probe._wrap(hook))
            return register_comm_hook

        def register_builtin(orig):
            @functools.wraps(orig)
            def _register_builtin_comm_hook(self_ddp, *args, **kwargs):
                observed.add(self_ddp)  # (C++: not observable; never add ours after it)
                return orig(self_ddp, *args, **kwargs)
            return _register_builtin_comm_hook

        def forward(orig):
            @functools.wraps(orig)
            def ddp_forward(self_ddp, *args, **kwargs):
                if self_ddp not in observed:
                    observed.add(self_ddp)
                    try:
                        if not self_ddp._comm_hooks and self_ddp.reducer is not None:
                            dist._register_comm_hook(self_ddp.reducer, self_ddp.process_group,
                                                     probe._wrap(_allreduce_as_reducer, "allreduce"))
                    except Exception as exc:
                        ctx.internal_error("ddp_allreduce.register", exc)
                return orig(self_ddp, *args, **kwargs)
            return ddp_forward

        self.patches.wrap(DDP, "register_comm_hook", register)
        self.patches.wrap(DDP, "_register_builtin_comm_hook", register_builtin)
        self.patches.wrap(DDP, "forward", forward)

    def _wrap(self, hook, name=None):
        """`hook`, calling `_seen` for each bucket and keeping its result."""
        probe = self
        label = name or getattr(hook, "__qualname__", None) or "comm_hook"

        @functools.wraps(hook)
        def observed_hook(state, bucket):
            event = probe._seen(bucket, label)
            fut = hook(state, bucket)
            if event is None:
                return fut

            def keep(f):
                value = f.value()
                t = value[0] if isinstance(value, (list, tuple)) and value else value
                if isinstance(t, torch.Tensor):
                    with probe._lock:
                        probe._results.append((event, t.detach().clone()))
                return value
            return fut.then(keep)
        return observed_hook

    def _seen(self, bucket, label):
        """An event in the run being recorded (None: no run is being recorded)."""
        try:
            rec = self.ctx.recorder
            act = rec.active
            if act is None or act.run is None:
                return None
            node = torch._C._current_autograd_node()
            names = self.ctx.state.param_names
            params = [names.get(id(p), "") for p in bucket.parameters()]
            ev = Event(len(act.raw), "allreduce", act.ids.get(node, "") if node is not None else "",
                       name=label, received=self.ctx.summ.request(bucket.buffer(), snapshot=True),
                       bucket=int(bucket.index()), params=params)
            act.events.append(ev)
            self._events.append((act.run, ev))
            return ev
        except Exception as exc:
            self.ctx.internal_error("ddp_allreduce.event", exc)
            return None

    def contribute(self, trace) -> None:
        _end_process_group()
        for ev, t in self._results:
            ev.returned = self.ctx.summ.request(t)
        for run, ev in self._events:  # fired after the last step (a final callback): the last step
            if run.steps and ev.step >= len(run.steps):
                ev.step = len(run.steps) - 1


def _end_process_group() -> None:
    """A process group the script left initialised ends with the run, as it
    would with the interpreter: the worker's next run starts without one."""
    try:
        import torch.distributed as dist
        if dist.is_available() and dist.is_initialized():
            dist.destroy_process_group()
    except Exception:
        pass


def _allreduce_as_reducer(process_group, bucket):
    """What DDP's reducer does with a bucket when no hook is registered
    (see the module docstring): multiply by 1/world_size, all-reduce SUM."""
    import torch.distributed as dist

    group = process_group if process_group is not None else dist.group.WORLD
    buffer = bucket.buffer()
    buffer.mul_(1.0 / group.size())
    return dist.all_reduce(buffer, group=group, async_op=True).get_future().then(lambda fut: fut.value()[0])
