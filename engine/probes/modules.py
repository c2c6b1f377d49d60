"""Which nn.Module's forward made each node, and the modules' outputs.

Installs the ModuleTracker's global module forward hooks (see
worker/module_tracker.py) and tells capture how to ask it: `module_of(node)`
for each node's module path and call number, and the number of module calls
so far (none: capture skips the lookups). Each module's output is also
handed to capture (`CaptureState.note_output`) so the op node that made it
can show it, although the script never named it.
"""

from __future__ import annotations

from autogradviz.engine.probes.base import CORE_ORDER, Probe


class ModulesProbe(Probe):
    name = "modules"
    order = CORE_ORDER

    def install(self, ctx) -> None:
        super().install(ctx)
        ns = ctx.namespace
        # (worker/module_tracker.py and module_table.py, lent through the context)
        tracker = self.tracker = ctx.services.module_tracker(lambda: ns, ctx.filename,
                                                            on_output=ctx.state.note_output)
        ctx.state.module_of = tracker.module_of
        ctx.state.module_calls = lambda: tracker.calls
        tracker.install()
        # The layer table (Trace.modules), counted from the tracker's hook.
        self.table = ctx.services.module_table(tracker.path_of)
        self.table.install(tracker)

    def contribute(self, trace) -> None:
        table = getattr(self, "table", None)
        if table is not None:
            trace.modules = table.records()

    def remove(self) -> None:
        table = getattr(self, "table", None)
        if table is not None:
            table.remove()
        tracker = getattr(self, "tracker", None)
        if tracker is not None:
            tracker.remove()
        super().remove()
