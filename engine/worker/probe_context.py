"""The ProbeContext of a run: what the worker hands every probe at install.

The probes (engine/probes) never import the worker: what they use of it -
hook bookkeeping, capture, the module tracker, the script's lines - reaches
them here, as `ProbeContext.services` (engine/probes/base.py says what each
one is). So the worker depends on the probes and not the other way round.
"""

from __future__ import annotations

from autogradviz.engine.probes.base import ProbeContext, ProbeServices
from autogradviz.engine.worker import capture, hook_events, recorder
from autogradviz.engine.worker.beneath_modes import beneath_modes
from autogradviz.engine.worker.module_table import ModuleTable
from autogradviz.engine.worker.module_tracker import ModuleTracker
from autogradviz.engine.worker.progress import NO_PROGRESS
from autogradviz.engine.worker.source_lines import SourceLines

class _ChildProcesses:
    """The worker's child-process machinery, each part imported when the
    child-processes probe first asks (most scripts start no child)."""

    @property
    def os_fork(self):
        from autogradviz.engine.worker import os_fork
        return os_fork

    @property
    def ChildRelay(self):  # noqa: N802 (the class, by its name)
        from autogradviz.engine.worker.children import ChildRelay
        return ChildRelay

    @property
    def RELAY_KEY_ENV(self) -> str:  # noqa: N802 (the constant, by its name)
        from autogradviz.engine.worker.children import RELAY_KEY_ENV
        return RELAY_KEY_ENV

    def end_leftover_children(self) -> None:
        from autogradviz.engine.worker.children import end_leftover_children
        end_leftover_children()

    def launch_recorded(self, *args):
        from autogradviz.engine.worker.fork_child import launch_recorded
        return launch_recorded(*args)

    @property
    def CHILD_CONFIG_ATTR(self) -> str:  # noqa: N802 (the constant, by its name)
        from autogradviz.engine.worker.forkserver_main import CHILD_CONFIG_ATTR
        return CHILD_CONFIG_ATTR


SERVICES = ProbeServices(
    hook_events=hook_events,
    beneath_modes=beneath_modes,
    no_progress=NO_PROGRESS,
    capture_pending=capture.capture_pending,
    root_edges=capture.root_edges,
    current_node=recorder._current_node,
    remove_own=recorder._remove_own,
    recorder_module=recorder,
    saved_attrs=capture._saved_attrs,
    hook_reason=capture._hook_reason,
    user_line=recorder.user_line,
    module_tracker=ModuleTracker,
    module_table=ModuleTable,
    source_lines=SourceLines,
    child_processes=_ChildProcesses(),
)


def context_for(rec, progress=None) -> ProbeContext:
    """The ProbeContext of a run recorded by `rec` (a Recorder: its trace,
    capture state, namespace and script file name)."""
    return ProbeContext(trace=rec.trace, state=rec.state, namespace=rec.namespace,
                        filename=rec.filename, recorder=rec,
                        progress=progress if progress is not None else NO_PROGRESS,
                        record_steps=rec.record_steps, services=SERVICES)
