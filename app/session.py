"""The session every widget shares: the Qt side of the view state.

What is shown (trace, graph, run, step, selected node, display options) is
owned by a plain-Python `ViewState` (app/services/view_state.py, no Qt,
testable alone); this QObject is its thin adapter: it forwards the state's
events as signals (widgets never talk to each other and keep no copies; they
change the state here and subscribe to these signals, model first, view
second) and adds what needs Qt or the worker: the values fetched from the
worker and their cache, numeric-check and re-run requests, the line a panel
asks the editor to show, big traces freed a moment later, and each declared
feature's step phase (app/features/).
"""

from __future__ import annotations

from typing import Any, Mapping, Optional

from PySide6.QtCore import QObject, QTimer, Signal

from autogradviz.app.features import feature, features
from autogradviz.app.services.view_state import ViewState
from autogradviz.engine.trace.codec import from_builtins
from autogradviz.engine.trace.gc_pause import freeze, thaw
from autogradviz.engine.trace.model import TensorSummary, Trace


BIG_TRACE = 2000  # nodes + steps from which the trace's objects are frozen (see set_trace)


def _is_big(trace: Trace) -> bool:
    n = sum(len(g.nodes) for g in trace.graphs)
    n += sum(len(r.steps) for r in trace.backward_runs)
    return n >= BIG_TRACE


def _forward(name: str, doc: Optional[str] = None) -> property:
    """A read-only property of the session that reads the view state's."""
    return property(lambda self: getattr(self.view, name), doc=doc or getattr(ViewState, name).__doc__)


class TraceSession(QObject):
    traceChanged = Signal()
    graphChanged = Signal(str)
    runChanged = Signal(int)
    stepChanged = Signal(int)
    nodeSelected = Signal(object)  # node id or None
    valuesRequested = Signal(str)
    valuesArrived = Signal(str, object)  # tensor id, TensorSummary or error text
    showSavedChanged = Signal(bool)
    # Finite differences for a leaf: the request (leaf, run, grad_tensor) and the
    # worker's `gradient_check` reply (docs/worker-protocol.md).
    gradientCheckRequested = Signal(dict)
    gradientCheckArrived = Signal(dict)
    gradientCheckProgress = Signal(int, int)  # (loss evaluations done, of how many)
    # The learner confirmed running this script file again (a saved trace's own
    # script, for "Check numerically"): the window opens it and runs it.
    rerunRequested = Signal(str)
    # A panel asks to show a line of the script (a GradScaler call, a node's
    # line): the window scrolls the editor there without taking focus, so the
    # panel keeps its keys.
    lineRequested = Signal(int)
    # Any layout option changed (show saved, collapsed/unrolled groups): a new
    # layout of the graph is due.
    layoutOptionsChanged = Signal()

    def __init__(self, parent: Optional[QObject] = None, view: Optional[ViewState] = None):
        super().__init__(parent)
        self.view = view if view is not None else ViewState(expand=self._expand_checkpoints)
        for event, signal in (("trace", self.traceChanged), ("graph", self.graphChanged),
                              ("run", self.runChanged), ("step", self.stepChanged),
                              ("selected", self.nodeSelected), ("show_saved", self.showSavedChanged),
                              ("layout_options", self.layoutOptionsChanged)):
            self.view.events.connect(event, signal.emit)
        self.values_cache: dict[str, TensorSummary] = {}
        self._dropping: list[Trace] = []  # replaced big traces, freed shortly after
        self.saved_file: Optional[str] = None  # the trace shown was opened from this file
        self._parts: dict[str, Any] = {}  # feature id -> its step phase (see `part`)
        # {"source", "filename", "device"} of the last run sent to the worker
        # (the run controller sets it): the Memory panel runs it again without
        # checkpoint. A trace whose `script` differs did not come from it.
        self.run_request: Optional[dict] = None

    def _expand_checkpoints(self, trace, graph, expanded: set):
        from autogradviz.app.graph.inner_graph import expanded_graph

        return expanded_graph(trace, graph, expanded, self.tr("checkpoint {0} · recomputed").format)

    def request_line(self, line: int) -> None:
        """Ask the window to show script line `line` (1-based) in the editor."""
        if line and line > 0:
            self.lineRequested.emit(int(line))

    def part(self, feature_id: str):
        """Feature `feature_id`'s step phase for this session (its
        `FeatureSpec.step_phase`, app/features/), made on first use; None
        when the feature declares none."""
        if feature_id not in self._parts:
            spec = feature(feature_id)
            self._parts[feature_id] = spec.step_phase(self) if spec and spec.step_phase else None
        return self._parts[feature_id]

    def step_phases(self) -> list:
        """Every declared feature's step phase: the stepper offers each its
        moves first (positions between two backward steps)."""
        phases = (self.part(f.id) for f in features() if f.step_phase is not None)
        return [p for p in phases if p is not None]

    @property
    def recompute(self):
        """The checkpoint feature's recompute phase between two steps (frames
        the stepper plays and the graph lights; app/panels/checkpoint/
        recompute_phase.py): `part("checkpoint")`, kept for its many readers."""
        return self.part("checkpoint")

    # -- the view state, read (app/services/view_state.py) --------------------------------------
    trace = _forward("trace", "The trace shown, or None.")
    graph_id = _forward("graph_id", "The id of the graph shown (\"\": none).")
    run_index = _forward("run_index", "The backward run shown (-1: none).")
    step = _forward("step", "The step shown (0: before backward).")
    state = _forward("state", "The replay state at the step (engine/trace/replay.py).")
    selected_node = _forward("selected_node", "The selected node's id, or None.")
    show_saved = _forward("show_saved")
    collapsed = _forward("collapsed")
    unrolled = _forward("unrolled")
    fold_repeated = _forward("fold_repeated")
    direction = _forward("direction")
    graph = _forward("graph", "The graph shown (with expanded checkpoints' inner graphs), or None.")
    expanded_checkpoints = _forward("expanded_checkpoints")
    run = _forward("run", "The BackwardRun shown, or None.")
    step_count = _forward("step_count", "The number of steps of the run shown.")

    def layout_options(self) -> dict[str, Any]:
        return self.view.layout_options()

    def node(self, node_id: Optional[str]):
        return self.view.node(node_id)

    def runs_for_graph(self, graph_id: str) -> list[int]:
        return self.view.runs_for_graph(graph_id)

    def run_scale(self) -> Optional[float]:
        return self.view.run_scale()

    # -- the view state, changed ----------------------------------------------------------------
    def set_trace(self, trace: Optional[Trace], saved_file: Optional[str] = None) -> None:
        """Show `trace`: a run's (from the worker) or one opened from `saved_file`
        (no worker holds its tensors: full values cannot be fetched)."""
        self.saved_file = saved_file if trace is not None else None
        if trace is not None and _is_big(trace):
            # A big trace is a million small objects, just made by the parser.
            # Every cyclic-GC pass would rescan them (the replay tables took
            # 0.2 s instead of 0.04 s on a 10,000-node trace, and later full
            # passes stall the GUI for 0.1-0.4 s). They live as long as the
            # trace, and are freed normally (by reference counting) after:
            # take them out of the collector's sight (engine/trace/gc_pause.py).
            freeze("trace")
        old = self.view.trace
        if old is not None and old is not trace and _is_big(old):
            # Freeing a big trace (a million objects) takes 30-60 ms in one go:
            # not on top of everything the new trace's arrival does; a moment later
            self._dropping.append(old)
            QTimer.singleShot(400, self, self._drop_one)
        del old
        self.values_cache = {}
        self.view.set_trace(trace)

    def _drop_one(self) -> None:
        if self._dropping:
            self._dropping.pop(0)
        trace = self.view.trace
        if not self._dropping and not (trace is not None and _is_big(trace)):
            thaw("trace")  # no big trace left: its frozen objects go back to the collector

    def select_graph(self, graph_id: str, force: bool = False) -> None:
        self.view.select_graph(graph_id, force)

    def select_run(self, index: int, force: bool = False) -> None:
        self.view.select_run(index, force)

    def set_step(self, k: int) -> None:
        self.view.set_step(k)

    def select_node(self, node_id: Optional[str]) -> None:
        self.view.select_node(node_id)

    def set_show_saved(self, on: bool) -> None:
        self.view.set_show_saved(on)

    def set_fold_repeated(self, on: bool) -> None:
        self.view.set_fold_repeated(on)

    def set_direction(self, direction: str) -> None:
        self.view.set_direction(direction)

    def set_layout_groups(self, collapsed: set[str], unrolled: set[str]) -> None:
        self.view.set_layout_groups(collapsed, unrolled)

    def set_checkpoint_expanded(self, checkpoint_id: str, on: bool) -> None:
        self.view.set_checkpoint_expanded(checkpoint_id, on)

    # -- values fetched from the worker ---------------------------------------------
    def request_values(self, tensor_id: str) -> None:
        if tensor_id in self.values_cache:
            self.valuesArrived.emit(tensor_id, self.values_cache[tensor_id])
            return
        if self.saved_file:
            self.valuesArrived.emit(tensor_id, self.tr(
                "Full values are not available for a saved trace: only the values it holds (up to 64 "
                "elements per tensor) were saved. Run the script to fetch every value."))
            return
        self.valuesRequested.emit(tensor_id)

    def request_gradient_check(self, request: dict) -> None:
        self.gradientCheckRequested.emit(dict(request))

    def deliver_gradient_check(self, reply: dict) -> None:
        self.gradientCheckArrived.emit(dict(reply))

    def deliver_gradient_check_progress(self, params: Mapping[str, Any]) -> None:
        """The worker's `finite_differences` progress ({"done", "total"})."""
        try:
            done, total = int(params.get("done", 0)), int(params.get("total", 0))
        except (TypeError, ValueError, AttributeError):
            return
        if total > 0:
            self.gradientCheckProgress.emit(done, total)

    def deliver_values(self, tensor_id: str, summary: Any, error: Optional[str] = None) -> None:
        if isinstance(summary, dict):
            try:
                summary = from_builtins(TensorSummary, summary)
            except Exception as exc:  # malformed message: show it as an error
                summary, error = None, str(exc)
        if summary is not None:
            self.values_cache[tensor_id] = summary
            self.valuesArrived.emit(tensor_id, summary)
        else:
            self.valuesArrived.emit(tensor_id, error or self.tr("The values could not be fetched."))
