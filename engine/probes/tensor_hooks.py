"""The user's tensor hooks and post-accumulate-grad hooks.

`Tensor.register_hook` and `Tensor.register_post_accumulate_grad_hook` are
wrapped so that the hook torch stores is a wrapper of ours: while a backward
call is being recorded it records an Event (see worker/hook_events.py) and
calls the user's hook unchanged; outside a recorded call it only calls it.
Each hooked tensor is also remembered (weakly, with the hook's name) so
capture can badge its node with the hook before any hook fires.
"""

from __future__ import annotations

import functools
import weakref

import torch

from autogradviz.engine.probes.base import CORE_ORDER, Probe
from autogradviz.engine.trace.model import Event


class TensorHooksProbe(Probe):
    name = "tensor_hooks"
    order = CORE_ORDER

    def install(self, ctx) -> None:
        super().install(ctx)
        probe = self

        def register_hook(orig):
            @functools.wraps(orig)
            def register_hook(self_t, hook):
                return orig(self_t, probe.wrap_tensor_hook(self_t, hook))
            return register_hook

        def register_pag(orig):
            @functools.wraps(orig)
            def register_post_accumulate_grad_hook(self_t, hook):
                return orig(self_t, probe.wrap_pag_hook(self_t, hook))
            return register_post_accumulate_grad_hook

        self.patches.wrap(torch.Tensor, "register_hook", register_hook)
        if hasattr(torch.Tensor, "register_post_accumulate_grad_hook"):
            self.patches.wrap(torch.Tensor, "register_post_accumulate_grad_hook", register_pag)

    def _remember(self, t, name: str) -> None:
        try:
            self.ctx.state.tensor_hooks.append((weakref.ref(t), name))
        except Exception:
            pass

    def wrap_tensor_hook(self, t, hook):
        he = self.ctx.services.hook_events  # (the worker's hook bookkeeping, lent through the context)
        name = he.hook_name(hook)
        target = he.hook_target(t)
        self._remember(t, name)
        rec = self.ctx.recorder
        summ = self.ctx.summ

        def user_hook(grad):
            act = rec.active
            if act is None:
                return hook(grad)
            try:
                seen = he.before_user(summ, (grad,))
            except Exception:
                seen = []
            try:
                res = hook(grad)
            except BaseException as e:
                he.user_failed(act, "tensor_hook", he.node_id(act, target), name, e,
                               seen[0][2] if seen else None, [x[2] for x in seen], [])
                raise
            try:
                he.after_user(act, seen)
                returned = summ.summarize(res) if isinstance(res, torch.Tensor) else None
                act.events.append(Event(
                    len(act.raw), "tensor_hook", he.node_id(act, target) or "",
                    name, seen[0][2] if seen else None, returned, res is not None))
            except Exception:
                pass
            return res

        try:
            functools.update_wrapper(user_hook, hook, updated=())
        except Exception:
            pass
        user_hook._agv_hook_name = name
        return user_hook

    def wrap_pag_hook(self, t, hook):
        he = self.ctx.services.hook_events
        name = he.hook_name(hook)
        target = he.hook_target(t)
        self._remember(t, name)
        rec = self.ctx.recorder
        summ = self.ctx.summ

        def user_pag_hook(tensor):
            act = rec.active
            if act is None:
                return hook(tensor)
            try:
                received = summ.summarize(tensor.grad)
            except Exception:
                received = None
            try:
                res = hook(tensor)
            except BaseException as e:
                he.user_failed(act, "post_accumulate_grad_hook", he.node_id(act, target), name, e,
                               received, [], [])
                raise
            try:
                act.events.append(Event(
                    len(act.raw), "post_accumulate_grad_hook",
                    he.node_id(act, target) or "", name, received))
            except Exception:
                pass
            return res

        user_pag_hook._agv_hook_name = name
        return user_pag_hook
