"""Run a script "without checkpoint": `checkpoint(fn, *args, **kw)` becomes `fn(*args, **kw)`.

The Memory panel's comparison (and `autogradviz trace --no-checkpoint`) runs
the same script a second time with this probe added (run request option
`no_checkpoint`, engine/protocol/messages.py), so the two activation curves
come from two real runs, not from arithmetic on one. It is not in the
registry: the runner adds it only when asked (`add_to`). It installs last
and replaces the module attribute `torch.utils.checkpoint.checkpoint` (which
the script imports after install, and which `checkpoint_sequential` calls by
that name for every segment but the last), so no other probe sees a
checkpoint call. Checkpoint's own keyword arguments are dropped; every other
keyword goes to the function, as non-reentrant checkpoint passes it.
"""

from __future__ import annotations

from autogradviz.engine.probes.base import FEATURE_ORDER, Probe

# torch.utils.checkpoint.checkpoint's own keyword arguments (torch 2.x)
CHECKPOINT_KEYWORDS = ("use_reentrant", "preserve_rng_state", "context_fn", "determinism_check",
                       "debug", "early_stop")


class DirectCheckpointProbe(Probe):
    name = "direct_checkpoint"
    order = FEATURE_ORDER + 1000  # outermost: nothing below sees the call

    def __init__(self):
        super().__init__()
        self.calls = 0

    def install(self, ctx) -> None:
        super().install(ctx)
        import torch.utils.checkpoint as tuc

        self.patches.wrap(tuc, "checkpoint", self._direct)

    def _direct(self, original):
        probe = self

        def checkpoint(function, *args, **kwargs):
            probe.calls += 1
            for name in CHECKPOINT_KEYWORDS:
                kwargs.pop(name, None)
            return function(*args, **kwargs)

        checkpoint.__wrapped__ = original
        for attr in ("__name__", "__qualname__", "__doc__"):
            setattr(checkpoint, attr, getattr(original, attr, None))
        return checkpoint


def add_to(probe_set) -> None:
    """Add the direct-call probe to a run's ProbeSet (before install) and tell
    the memory probe, whose record then says `checkpoints_direct`."""
    for _, probe in probe_set.probes:
        if getattr(probe, "name", None) == "memory":
            probe.direct = True
    probe_set.probes.append(("direct_checkpoint", DirectCheckpointProbe()))
    probe_set.probes.sort(key=lambda e: getattr(e[1], "order", 0))
