"""The pieces of one recording, around whatever runs the user's code.

A run is recorded the same way wherever the code runs: the worker's runner
(runner.py, the script as `__main__` in a run child) and the in-process
`autogradviz.record()` block (engine/api/recording.py) both build a
`Recording`: the trace, the summarizer and capture state, the recorder and
every registered probe (probe_set.py). `install()` before the user's code,
`remove()` after it - whatever it did - and `finish()` builds the rest of
the trace: what the recorder left for later, graphs of tensors left in the
namespace, each probe's fields and the run's notes. One place, so that the
two ways of recording cannot drift apart.
"""

from __future__ import annotations

from typing import Optional

import torch

from autogradviz.engine.probes.probe_set import ProbeSet
from autogradviz.engine.worker.probe_context import context_for
from autogradviz.engine.trace.gc_pause import gc_paused
from autogradviz.engine.trace.model import Trace
from autogradviz.engine.worker.beneath_modes import beneath_modes
from autogradviz.engine.worker.capture import CaptureState, capture, root_edges
from autogradviz.engine.worker.progress import Progress, ProgressCallback
from autogradviz.engine.worker.recorder import Recorder
from autogradviz.engine.worker.summarize import Summarizer, TensorStore


class Recording:
    """Trace, capture state, recorder and probes of one run (see the module
    docstring). `filename`: the code's file name as compiled (its frames are
    the user's lines); `namespace`: the user's names, live."""

    def __init__(self, trace: Trace, namespace: dict, filename: Optional[str], record_steps: bool = True,
                 record_values: bool = True, max_runs: Optional[int] = None,
                 on_progress: Optional[ProgressCallback] = None, store: Optional[TensorStore] = None,
                 shorten_floats: bool = False):
        self.trace = trace
        self.namespace = namespace
        self.store = store if store is not None else TensorStore()
        self.summ = Summarizer(self.store)
        self.summ.values = record_values
        if shorten_floats:  # (a trace that is only sent: summarize.Summarizer.shorten)
            self.summ.shorten = True
            trace.float_digits = "dtype"
        self.progress = Progress(on_progress)
        self.state = state = CaptureState(self.summ)
        state.read_saved = record_values
        trace.values_recorded = record_values
        state.progress = self.summ.progress = self.progress
        trace.graphs = state.graphs  # the same list: graphs appear as they are captured
        self.recorder = Recorder(trace, state, namespace, user_filename=filename, record_steps=record_steps,
                                 **({"max_runs": max_runs} if max_runs is not None else {}))
        self.ctx = context_for(self.recorder, self.progress)
        self.probes = ProbeSet(self.ctx)

    def install(self) -> None:
        self.probes.install()

    def remove(self) -> None:
        self.probes.remove()

    def finish(self, namespace: Optional[dict] = None) -> Trace:
        """After `remove()`: the rest of the trace. `namespace`: where to
        look for tensors left with an uncaptured graph (default: the run's).
        Cyclic GC paused meanwhile: the probes' fields (the memory timeline's
        dicts per node) are made while the whole trace is alive, and every
        collection they set off would walk it again (a 50,000-node trace:
        about a tenth of the run child's time); what was made goes to the
        oldest generation unscanned (gc_pause.resume_gc)."""
        with gc_paused(promote=True):
            return self._finish(namespace)

    def _finish(self, namespace: Optional[dict] = None) -> Trace:
        recorder, state, ctx, summ, trace = self.recorder, self.state, self.ctx, self.summ, self.trace
        try:  # what the recorder left for after the code (see Recorder._finish)
            recorder.finalize()
        except Exception as exc:
            ctx.internal_error("finalize", exc)
        try:
            namespace_graphs(recorder, state, self.namespace if namespace is None else namespace)
        except Exception as exc:
            ctx.internal_error("namespace_graphs", exc)
        summ.flush()
        self.probes.contribute()
        summ.flush()  # (what the probes asked for)
        # (the notes' English texts: engine/trace/notes.py)
        if state.checkpoint_skips:
            trace.add_note("checkpoint_not_read", nodes=state.checkpoint_skips)
        if trace.runs_truncated:
            trace.add_note("runs_truncated", calls=trace.backward_calls, recorded=len(trace.backward_runs))
        if recorder.turns.missed:
            trace.add_note("runs_unrecorded_threads", calls=recorder.turns.missed)
        for stage, text in recorder.errors + ctx.errors:
            trace.add_note("internal_error", stage=stage, error=text)
        # Nothing is captured after this: the cycles through the probes
        # (state -> probe -> context -> recorder -> state, probe set <->
        # context) are cut, so the run is freed as soon as it is dropped.
        state.release_probes()
        ctx.probes = None
        return trace


@beneath_modes  # (the script's Tensor subclasses see none of our reads)
def namespace_graphs(recorder: Recorder, state: CaptureState, namespace: dict) -> None:
    """A graph (origin "namespace") for each tensor left in `namespace` whose
    graph no backward call captured."""
    names = recorder.names(None)
    roots = []
    seen = set()
    for val in list(namespace.values()):
        vals = []
        if isinstance(val, torch.Tensor):
            vals = [val]
        elif isinstance(val, (list, tuple)):
            vals = [v for v in val[:1000] if isinstance(v, torch.Tensor)]
        elif isinstance(val, dict) and val is not namespace:
            try:
                vals = [v for v in list(val.values())[:1000] if isinstance(v, torch.Tensor)]
            except Exception:
                vals = []
        for t in vals:
            gf = t.grad_fn
            if gf is None or gf in seen or state.is_captured(gf):
                continue
            seen.add(gf)
            roots.extend(root_edges(t))
    if roots:
        capture(state, roots, names, origin="namespace", reuse=False)
