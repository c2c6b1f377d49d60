"""Install, remove and collect a run's probes, whatever each of them does.

One probe's failure must neither reach the script nor leave torch patched:
a probe whose install raises is removed at once (it may have patched
something before failing) and takes no further part; the others are removed
newest first after the script; every failure becomes an internal note of the
run (`ProbeContext.internal_error`, stage "<probe>.install" / ".remove" /
".contribute" / ".create").
"""

from __future__ import annotations

from typing import Literal, Optional

from autogradviz.engine.probes import registry
from autogradviz.engine.probes.base import ProbeContext
from autogradviz.engine.worker.beneath_modes import beneath_modes


def context_for(recorder, progress=None) -> ProbeContext:
    """The ProbeContext of a run recorded by `recorder` (its trace, capture
    state, namespace and script file name)."""
    from autogradviz.engine.worker.progress import NO_PROGRESS
    return ProbeContext(trace=recorder.trace, state=recorder.state, namespace=recorder.namespace,
                        filename=recorder.filename, recorder=recorder,
                        progress=progress if progress is not None else NO_PROGRESS,
                        record_steps=recorder.record_steps)


class ProbeSet:
    """The probes of one run. Use `install()` / `remove()` / `contribute()`
    (the runner), or as a context manager (install ... remove)."""

    def __init__(self, ctx: ProbeContext, probes: Optional[list] = None):
        self.ctx = ctx
        ctx.probes = self
        self.probes: list = registry.create() if probes is None else probes  # (name, Probe or the error making it)
        self.installed: list = []
        self.removed: list = []  # newest first

    def install(self) -> None:
        ctx = self.ctx
        for name, probe in self.probes:
            if isinstance(probe, BaseException):
                ctx.internal_error(f"{name}.create", probe)
                continue
            try:
                probe.install(ctx)
            except Exception as exc:
                # Undo what it did before failing: a half-installed probe
                # must not stay active while the script runs.
                ctx.internal_error(f"{name}.install", exc)
                try:
                    probe.remove()
                except Exception as exc2:
                    ctx.internal_error(f"{name}.remove", exc2)
                continue
            self.installed.append((name, probe))

    def remove(self) -> None:
        while self.installed:
            name, probe = self.installed.pop()
            try:
                probe.remove()
            except Exception as exc:
                self.ctx.internal_error(f"{name}.remove", exc)
            self.removed.append((name, probe))

    @beneath_modes
    def contribute(self) -> None:
        """Each removed probe, in install order, adds its fields to the trace."""
        for name, probe in reversed(self.removed):
            try:
                probe.contribute(self.ctx.trace)
            except Exception as exc:
                self.ctx.internal_error(f"{name}.contribute", exc)

    def __enter__(self) -> "ProbeSet":
        self.install()
        return self

    def __exit__(self, *exc) -> Literal[False]:
        self.remove()
        return False
