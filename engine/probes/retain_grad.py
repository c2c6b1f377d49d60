"""Which tensors called `retain_grad()`.

Torch keeps no list of them; the recorder needs one to read each retain_grad
fill after a backward call (an event on the step of the tensor's node) and
capture to mark the node `retains_grad`. The tensors are held weakly
(`CaptureState.retained`), so recording keeps none of them alive.
"""

from __future__ import annotations

import functools

import torch

from autogradviz.engine.probes.base import CORE_ORDER, Probe


class RetainGradProbe(Probe):
    name = "retain_grad"
    order = CORE_ORDER

    def install(self, ctx) -> None:
        super().install(ctx)
        retained = ctx.state.retained

        def make(orig):
            @functools.wraps(orig)
            def retain_grad(self_t):
                r = orig(self_t)
                try:
                    if self_t.grad_fn is not None:
                        retained.add(self_t)
                except Exception:
                    pass
                return r
            return retain_grad

        if hasattr(torch.Tensor, "retain_grad"):
            self.patches.wrap(torch.Tensor, "retain_grad", make)
