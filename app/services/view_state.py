"""What the window shows, as plain Python: which trace, graph, backward run and
step, the selected node and the display options (saved tensors, collapsed and
unrolled module groups, folding, direction, expanded checkpoints).

No Qt here (napari's EventedModel is the model): a change calls the callbacks
connected to its event, in order, synchronously, so the state can be driven
and tested without a QApplication. `TraceSession` (app/session.py) is the
thin Qt adapter that forwards these events as signals to the widgets. Moving
the step recomputes the replay state once (`engine.trace.replay.state_at`, a
pure function of the step) and announces it.

Events and their arguments: "trace" (), "graph" (graph id), "run" (run
index), "step" (step), "selected" (node id or None), "show_saved" (bool),
"layout_options" () — any option that asks for a new layout.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from autogradviz.engine.trace import replay
from autogradviz.engine.trace.model import BackwardRun, Graph, Node, Trace
from autogradviz.engine.trace.replay import StepState

EVENTS = ("trace", "graph", "run", "step", "selected", "show_saved", "layout_options")

# expand(trace, graph, expanded checkpoint ids) -> the graph with their inner graphs drawn in
Expand = Callable[[Trace, Graph, set], Graph]


class Events:
    """Callbacks by event name; `emit` calls them in the order they connected."""

    def __init__(self, names: tuple[str, ...]):
        self._callbacks: dict[str, list[Callable[..., None]]] = {n: [] for n in names}

    def connect(self, name: str, callback: Callable[..., None]) -> None:
        self._callbacks[name].append(callback)

    def disconnect(self, name: str, callback: Callable[..., None]) -> None:
        self._callbacks[name].remove(callback)

    def emit(self, name: str, *args: Any) -> None:
        for callback in list(self._callbacks[name]):
            callback(*args)


class ViewState:
    """The one owner of the view state (see the module docstring)."""

    def __init__(self, expand: Optional[Expand] = None):
        self.events = Events(EVENTS)
        self._expand = expand  # draws expanded checkpoints' inner graphs (None: never expanded)
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
        self._expanded: set[str] = set()  # reentrant checkpoints drawn with their inner graph
        self._expanded_graph: Optional[tuple] = None  # ((graph id, frozenset), Graph) made once

    # -- reading --------------------------------------------------------------------------------
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

    @property
    def fold_repeated(self) -> bool:
        """Fold N identical sibling modules into one ×N (engine/layout/repeats.py)."""
        return self._fold_repeated

    @property
    def direction(self) -> str:
        """"TB" (forward flows down) or "LR" (left to right, for long chains)."""
        return self._direction

    def layout_options(self) -> dict[str, Any]:
        """The layout options of the current picture, as `LayoutOptions` fields."""
        # a rolled module (N calls) is drawn as its first call's graph with a loop "×N"
        return {"collapsed": self.collapsed, "unrolled": self.unrolled, "show_saved": self._show_saved,
                "rolled_view": "inner", "fold_repeated": "auto" if self._fold_repeated else "off",
                "direction": self._direction}

    @property
    def graph(self) -> Optional[Graph]:
        if self._trace is None or not self._graph_id:
            return None
        try:
            g = self._trace.graph(self._graph_id)
        except KeyError:
            return None
        return self._with_inner_graphs(g) if self._expanded and self._expand is not None else g

    def _with_inner_graphs(self, g: Graph) -> Graph:
        key = (g.id, frozenset(self._expanded))
        cached = self._expanded_graph
        if cached is None or cached[0] != key:
            assert self._expand is not None and self._trace is not None
            cached = self._expanded_graph = (key, self._expand(self._trace, g, set(self._expanded)))
        return cached[1]

    @property
    def expanded_checkpoints(self) -> set[str]:
        """Reentrant checkpoints whose node is drawn expanded into its inner graph."""
        return set(self._expanded)

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

    # -- changing what is shown -----------------------------------------------------------------
    def set_trace(self, trace: Optional[Trace]) -> None:
        """Show `trace` (None: nothing): its first run, else its first graph."""
        self._trace = trace
        self._selected = None
        self._collapsed = None
        self._unrolled = None
        self._expanded = set()
        self._expanded_graph = None
        self._graph_id = ""
        self._run_index = -1
        self._step = 0
        self._state = None
        self._nodes = {}
        emit = self.events.emit
        emit("trace")
        if trace is None:
            emit("graph", "")
            emit("run", -1)
            emit("step", 0)
            emit("selected", None)
            return
        if trace.backward_runs:
            self.select_run(0, force=True)
        elif trace.graphs:
            self.select_graph(trace.graphs[0].id, force=True)
        else:
            emit("graph", "")
            emit("run", -1)
            emit("step", 0)
        emit("selected", None)

    def _set_graph(self, graph_id: str, force: bool = False) -> bool:
        if graph_id == self._graph_id and not force:
            return False
        if graph_id != self._graph_id:
            self._collapsed = None
            self._unrolled = None
        self._graph_id = graph_id
        self._index_nodes()
        if self._selected not in self._nodes:
            self._selected = None
        self.events.emit("graph", graph_id)
        return True

    def _index_nodes(self) -> None:
        g = self.graph
        self._nodes = {n.id: n for n in g.nodes} if g is not None else {}

    def select_graph(self, graph_id: str, force: bool = False) -> None:
        if self._trace is None:
            return
        if not self._set_graph(graph_id, force):
            return
        runs = self.runs_for_graph(graph_id)
        self._run_index = runs[0] if runs else -1
        self.events.emit("run", self._run_index)
        self._set_step(0, force=True)

    def select_run(self, index: int, force: bool = False) -> None:
        if self._trace is None or not 0 <= index < len(self._trace.backward_runs):
            return
        if index == self._run_index and not force:
            return
        run = self._trace.backward_runs[index]
        self._run_index = index
        self._set_graph(run.graph, force=force)
        self.events.emit("run", index)
        self._set_step(0, force=True)

    def set_step(self, k: int) -> None:
        self._set_step(k)

    def _set_step(self, k: int, force: bool = False) -> None:
        k = max(0, min(int(k), self.step_count))
        if k == self._step and not force and self._state is not None:
            return
        self._step = k
        if self._trace is not None and self._run_index >= 0:
            self._state = replay.state_at(self._trace, self._run_index, k)
        else:
            self._state = None
        self.events.emit("step", k)

    def select_node(self, node_id: Optional[str]) -> None:
        if node_id is not None and node_id not in self._nodes:
            node_id = None
        if node_id == self._selected:
            return
        self._selected = node_id
        self.events.emit("selected", node_id)

    # -- display options ------------------------------------------------------------------------
    def set_show_saved(self, on: bool) -> None:
        if bool(on) != self._show_saved:
            self._show_saved = bool(on)
            self.events.emit("show_saved", self._show_saved)
            self.events.emit("layout_options")

    def set_fold_repeated(self, on: bool) -> None:
        """Fold repeated layers (on) or draw each. Turning it on folds again
        the runs unfolded one by one, and the module groups start afresh."""
        if bool(on) != self._fold_repeated:
            self._fold_repeated = bool(on)
            self._collapsed = self._unrolled = None  # the paths inside folds change names
            self.events.emit("layout_options")

    def set_direction(self, direction: str) -> None:
        direction = "LR" if direction == "LR" else "TB"
        if direction != self._direction:
            self._direction = direction
            self.events.emit("layout_options")

    def set_layout_groups(self, collapsed: set[str], unrolled: set[str]) -> None:
        """Lay out again with exactly these module paths collapsed and these
        repeated modules drawn one call at a time (see LayoutOptions)."""
        self._collapsed = set(collapsed)
        self._unrolled = set(unrolled)
        self.events.emit("layout_options")

    def set_checkpoint_expanded(self, checkpoint_id: str, on: bool) -> None:
        """Draw a reentrant checkpoint's inner graph in the picture (or not)."""
        if (checkpoint_id in self._expanded) == bool(on):
            return
        (self._expanded.add if on else self._expanded.discard)(checkpoint_id)
        self._index_nodes()
        self.events.emit("layout_options")
