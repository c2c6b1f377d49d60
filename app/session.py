"""The view model every widget shares: which trace, graph, run and step, and
the view state (selected node, "show saved tensors", collapsed and unrolled
module groups: the layout options).

This is the one owner of that state: widgets never talk to each other and
keep no copies; they change it here and subscribe to its signals (model
first, view second). Moving the step recomputes the replay state once
(`engine.trace.replay.state_at`, a pure function of the step) and announces it.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional

from PySide6.QtCore import QObject, QTimer, Signal

from autogradviz.app.features import feature, features
from autogradviz.engine.trace import replay
from autogradviz.engine.trace.codec import from_builtins
from autogradviz.engine.trace.gc_pause import freeze, thaw
from autogradviz.engine.trace.replay import StepState
from autogradviz.engine.trace.model import (
    BackwardRun, Graph, Node, TensorSummary, Trace,
)


BIG_TRACE = 2000  # nodes + steps from which the trace's objects are frozen (see set_trace)


def _is_big(trace: Trace) -> bool:
    n = sum(len(g.nodes) for g in trace.graphs)
    n += sum(len(r.steps) for r in trace.backward_runs)
    return n >= BIG_TRACE


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

    def __init__(self, parent: Optional[QObject] = None):
        super().__init__(parent)
        self._trace: Optional[Trace] = None
        self._graph_id: str = ""
        self._run_index: int = -1
        self._step: int = 0
        self._state: Optional[StepState] = None
        self._selected: Optional[str] = None
        self._nodes: dict[str, Node] = {}
        self._collapsed: Optional[set[str]] = None  # None = the layout's default
        self._unrolled: Optional[set[str]] = None
        self._show_saved: bool = False
        self._fold_repeated: bool = True  # identical sibling modules drawn once, ×N (big graphs)
        self._direction: str = "TB"  # "LR": the graph laid out left to right
        self.values_cache: dict[str, TensorSummary] = {}
        self._dropping: list[Trace] = []  # replaced big traces, freed shortly after
        self.saved_file: Optional[str] = None  # the trace shown was opened from this file
        self._parts: dict[str, Any] = {}  # feature id -> its step phase (see `part`)
        # reentrant checkpoints drawn with their inner graph (app/graph/inner_graph.py)
        self._expanded: set[str] = set()
        self._expanded_graph = None  # (graph id, frozenset, Graph) made once
        # {"source", "filename", "device"} of the last run sent to the worker
        # (the run controller sets it): the Memory panel runs it again without
        # checkpoint. A trace whose `script` differs did not come from it.
        self.run_request: Optional[dict] = None

    def run_scale(self) -> Optional[float]:
        """The GradScaler scale the current run's gradients carry: the run began
        at a tensor `scaler.scale(loss)` returned (`BackwardRun.scaled_by`), so
        each gradient is this many times the real one. None otherwise."""
        run, trace = self.run, self._trace
        index = getattr(run, "scaled_by", None) if run is not None else None
        events = getattr(trace, "scaler_events", None) or []
        if index is None or not 0 <= index < len(events):
            return None
        return events[index].scale_before or None

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

    # -- read-only properties -------------------------------------------------
    @property
    def trace(self) -> Optional[Trace]:
        return self._trace

    @property
    def graph_id(self) -> str:
        return self._graph_id

    @property
    def run_index(self) -> int:
        return self._run_index

    @property
    def step(self) -> int:
        return self._step

    @property
    def state(self) -> Optional[StepState]:
        return self._state

    @property
    def selected_node(self) -> Optional[str]:
        return self._selected

    @property
    def show_saved(self) -> bool:
        """Draw the tensors each operation saved for backward."""
        return self._show_saved

    @property
    def collapsed(self) -> Optional[set[str]]:
        """Module paths drawn as one box (None: the layout decides)."""
        return None if self._collapsed is None else set(self._collapsed)

    @property
    def unrolled(self) -> Optional[set[str]]:
        """Repeated modules drawn one box per call (None: the layout decides)."""
        return None if self._unrolled is None else set(self._unrolled)

    def layout_options(self) -> dict[str, Any]:
        """The layout options of the current picture, as `LayoutOptions` fields."""
        # a rolled module (N calls) is drawn as its first call's graph with a loop "×N"
        return {"collapsed": self.collapsed, "unrolled": self.unrolled, "show_saved": self._show_saved,
                "rolled_view": "inner", "fold_repeated": "auto" if self._fold_repeated else "off",
                "direction": self._direction}

    @property
    def fold_repeated(self) -> bool:
        """Fold N identical sibling modules into one ×N (engine/layout/repeats.py)."""
        return self._fold_repeated

    @property
    def direction(self) -> str:
        """"TB" (forward flows down) or "LR" (left to right, for long chains)."""
        return self._direction

    @property
    def graph(self) -> Optional[Graph]:
        if self._trace is None or not self._graph_id:
            return None
        try:
            g = self._trace.graph(self._graph_id)
        except KeyError:
            return None
        return self._with_inner_graphs(g) if self._expanded else g

    def _with_inner_graphs(self, g: Graph) -> Graph:
        from autogradviz.app.graph.inner_graph import expanded_graph

        key = (g.id, frozenset(self._expanded))
        cached = self._expanded_graph
        if cached is None or cached[0] != key:
            title = self.tr("checkpoint {0} · recomputed").format
            cached = self._expanded_graph = (key, expanded_graph(self._trace, g, self._expanded, title))
        return cached[1]

    @property
    def expanded_checkpoints(self) -> set[str]:
        """Reentrant checkpoints whose node is drawn expanded into its inner graph."""
        return set(self._expanded)

    def set_checkpoint_expanded(self, checkpoint_id: str, on: bool) -> None:
        """Draw a reentrant checkpoint's inner graph in the picture (or not)."""
        if (checkpoint_id in self._expanded) == bool(on):
            return
        (self._expanded.add if on else self._expanded.discard)(checkpoint_id)
        g = self.graph
        self._nodes = {n.id: n for n in g.nodes} if g is not None else {}
        self.layoutOptionsChanged.emit()

    @property
    def run(self) -> Optional[BackwardRun]:
        if self._trace is None or self._run_index < 0:
            return None
        return self._trace.backward_runs[self._run_index]

    @property
    def step_count(self) -> int:
        r = self.run
        return len(r.steps) if r is not None else 0

    def node(self, node_id: Optional[str]) -> Optional[Node]:
        return self._nodes.get(node_id) if node_id else None

    def runs_for_graph(self, graph_id: str) -> list[int]:
        if self._trace is None:
            return []
        return [i for i, r in enumerate(self._trace.backward_runs) if r.graph == graph_id]

    # -- changing things --------------------------------------------------------
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
        old = self._trace
        if old is not None and old is not trace and _is_big(old):
            # Freeing a big trace (a million objects) takes 30-60 ms in one go:
            # not on top of everything the new trace's arrival does; a moment later
            self._dropping.append(old)
            QTimer.singleShot(400, self, self._drop_one)
        del old
        self._trace = trace
        self._selected = None
        self.values_cache = {}
        self._collapsed = None
        self._unrolled = None
        self._expanded = set()
        self._expanded_graph = None
        self._graph_id = ""
        self._run_index = -1
        self._step = 0
        self._state = None
        self._nodes = {}
        self.traceChanged.emit()
        if trace is None:
            self.graphChanged.emit("")
            self.runChanged.emit(-1)
            self.stepChanged.emit(0)
            self.nodeSelected.emit(None)
            return
        if trace.backward_runs:
            self.select_run(0, force=True)
        elif trace.graphs:
            self.select_graph(trace.graphs[0].id, force=True)
        else:
            self.graphChanged.emit("")
            self.runChanged.emit(-1)
            self.stepChanged.emit(0)
        self.nodeSelected.emit(None)

    def _drop_one(self) -> None:
        if self._dropping:
            self._dropping.pop(0)
        if not self._dropping and not (self._trace is not None and _is_big(self._trace)):
            thaw("trace")  # no big trace left: its frozen objects go back to the collector

    def _set_graph(self, graph_id: str, force: bool = False) -> bool:
        if graph_id == self._graph_id and not force:
            return False
        if graph_id != self._graph_id:
            self._collapsed = None
            self._unrolled = None
        self._graph_id = graph_id
        g = self.graph
        self._nodes = {n.id: n for n in g.nodes} if g is not None else {}
        if self._selected not in self._nodes:
            self._selected = None
        self.graphChanged.emit(graph_id)
        return True

    def select_graph(self, graph_id: str, force: bool = False) -> None:
        if self._trace is None:
            return
        changed = self._set_graph(graph_id, force)
        if not changed:
            return
        runs = self.runs_for_graph(graph_id)
        self._run_index = runs[0] if runs else -1
        self.runChanged.emit(self._run_index)
        self._set_step_internal(0, force=True)

    def select_run(self, index: int, force: bool = False) -> None:
        if self._trace is None or not 0 <= index < len(self._trace.backward_runs):
            return
        if index == self._run_index and not force:
            return
        run = self._trace.backward_runs[index]
        self._run_index = index
        self._set_graph(run.graph, force=force)
        self.runChanged.emit(index)
        self._set_step_internal(0, force=True)

    def set_step(self, k: int) -> None:
        self._set_step_internal(k)

    def _set_step_internal(self, k: int, force: bool = False) -> None:
        n = self.step_count
        k = max(0, min(int(k), n))
        if k == self._step and not force and self._state is not None:
            return
        self._step = k
        if self._trace is not None and self._run_index >= 0:
            self._state = replay.state_at(self._trace, self._run_index, k)
        else:
            self._state = None
        self.stepChanged.emit(k)

    def select_node(self, node_id: Optional[str]) -> None:
        if node_id is not None and node_id not in self._nodes:
            node_id = None
        if node_id == self._selected:
            return
        self._selected = node_id
        self.nodeSelected.emit(node_id)

    # -- layout options ------------------------------------------------------------
    def set_show_saved(self, on: bool) -> None:
        if bool(on) != self._show_saved:
            self._show_saved = bool(on)
            self.showSavedChanged.emit(self._show_saved)
            self.layoutOptionsChanged.emit()

    def set_fold_repeated(self, on: bool) -> None:
        """Fold repeated layers (on) or draw each. Turning it on folds again
        the runs unfolded one by one, and the module groups start afresh."""
        if bool(on) != self._fold_repeated:
            self._fold_repeated = bool(on)
            self._collapsed = self._unrolled = None  # the paths inside folds change names
            self.layoutOptionsChanged.emit()

    def set_direction(self, direction: str) -> None:
        direction = "LR" if direction == "LR" else "TB"
        if direction != self._direction:
            self._direction = direction
            self.layoutOptionsChanged.emit()

    def set_layout_groups(self, collapsed: set[str], unrolled: set[str]) -> None:
        """Lay out again with exactly these module paths collapsed and these
        repeated modules drawn one call at a time (see LayoutOptions)."""
        self._collapsed = set(collapsed)
        self._unrolled = set(unrolled)
        self.layoutOptionsChanged.emit()

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
