"""Whether saved-tensor hooks were ever active during the script.

Non-reentrant checkpoint, `save_on_cpu` and the user's own
`torch.autograd.graph.saved_tensors_hooks` all enter through that context
manager's `__enter__`. Until one has (or one was active when the script
started), no saved tensor can carry an unpack hook, and capture skips
checking every saved tensor for one (a measurable part of capture time on
big graphs).
"""

from __future__ import annotations

import functools

import torch

from autogradviz.engine.probes.base import CORE_ORDER, Probe


class SavedTensorsHooksProbe(Probe):
    name = "saved_tensors_hooks"
    order = CORE_ORDER

    def install(self, ctx) -> None:
        super().install(ctx)
        self.seen = torch._C._autograd._top_saved_tensors_default_hooks(False) is not None
        ctx.state.saved_hooks_seen = lambda: self.seen
        probe = self

        def make(orig):
            @functools.wraps(orig)
            def __enter__(self_h, *a, **k):
                probe.seen = True
                return orig(self_h, *a, **k)
            return __enter__

        self.patches.wrap(torch.autograd.graph.saved_tensors_hooks, "__enter__", make)
