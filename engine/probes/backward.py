"""Backward and grad calls: the three entry points of a backward pass.

`Tensor.backward`, `torch.autograd.backward` and `torch.autograd.grad` are
replaced by wrappers that hand the real function and the user's arguments
to `Recorder.call`, which captures the graph, records the steps and calls
the real function exactly once with the same arguments. Nested calls
(Tensor.backward calls torch.autograd.backward; a reentrant checkpoint calls
it inside the outer backward) go straight to the real function.
"""

from __future__ import annotations

import functools

import torch

from autogradviz.engine.probes.base import CORE_ORDER, Probe


class BackwardProbe(Probe):
    name = "backward"
    order = CORE_ORDER

    def install(self, ctx) -> None:
        super().install(ctx)
        call = ctx.recorder.call

        def tensor_backward(orig):
            @functools.wraps(orig)
            def backward(self_t, *args, **kwargs):
                return call("backward", orig, (self_t,), self_t, args, kwargs)
            return backward

        def autograd_backward(orig):
            @functools.wraps(orig)
            def backward(tensors, *args, **kwargs):
                return call("backward", orig, (tensors,), tensors, args, kwargs)
            return backward

        def autograd_grad(orig):
            @functools.wraps(orig)
            def grad(outputs, *args, **kwargs):
                return call("grad", orig, (outputs,), outputs, args, kwargs)
            return grad

        self.patches.wrap(torch.Tensor, "backward", tensor_backward)
        self.patches.wrap(torch.autograd, "backward", autograd_backward)
        self.patches.wrap(torch.autograd, "grad", autograd_grad)
