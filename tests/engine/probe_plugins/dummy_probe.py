"""A probe for the probe tests, shaped like the checkpoint recorder to come:
it wraps `torch.utils.checkpoint.checkpoint`, remembers where each call
happened relative to the backward calls (`ProbeContext.position`), and
contributes a note (code "dummy_probe") that says what it saw.

Every instance is kept in INSTANCES so a test in the same process can look
at it; a test of the worker process reads the note instead.
"""

from __future__ import annotations

import functools

import torch.utils.checkpoint

from autogradviz.engine.probes.base import Probe
from autogradviz.engine.trace import notes

INSTANCES: list = []
# A plugin registers its note codes (engine/trace/notes.py); the app shows its English text.
notes.register("dummy_probe", "dummy probe: {calls} checkpoint call(s)", calls=1, log=[], positions=[],
               restored=True, script_ran_before_install=False, script_ran_before_remove=True)


class DummyProbe(Probe):
    name = "dummy"

    def __init__(self):
        super().__init__()
        self.log: list[str] = []
        self.positions: list[tuple] = []
        INSTANCES.append(self)

    def install(self, ctx) -> None:
        super().install(ctx)
        self.log.append("install")
        self.script_ran_before_install = "x" in ctx.namespace
        probe = self

        def make(orig):
            @functools.wraps(orig)
            def checkpoint(*args, **kwargs):
                p = ctx.position()
                probe.positions.append((p.calls, p.run, p.step))
                return orig(*args, **kwargs)
            return checkpoint

        self.original = self.patches.wrap(torch.utils.checkpoint, "checkpoint", make)

    def remove(self) -> None:
        self.log.append("remove")
        self.script_ran_before_remove = "x" in self.ctx.namespace
        super().remove()
        self.restored = torch.utils.checkpoint.checkpoint is self.original

    def contribute(self, trace) -> None:
        self.log.append("contribute")
        trace.add_note("dummy_probe", calls=len(self.positions),
                       log=list(self.log), positions=[list(p) for p in self.positions],
                       restored=self.restored,
                       script_ran_before_install=self.script_ran_before_install,
                       script_ran_before_remove=self.script_ran_before_remove)
