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

# (a run's ProbeContext is made by the worker: engine/worker/probe_context.py)


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

    def contribute(self) -> None:
        """Each removed probe, in install order, adds its fields to the trace
        (beneath the script's torch modes and subclasses: their logs never
        show our reads)."""
        services = self.ctx.services
        if services is not None:
            services.beneath_modes(self._contribute)()
        else:
            self._contribute()

    def _contribute(self) -> None:
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
