"""The view state is plain Python (app/services/view_state.py): it imports no
Qt, and driven alone on a real recorded trace (tests/data/trace_v1.json, two
backward runs on two graphs) it announces each change through its callbacks
in the order the widgets rely on; the Qt session forwards exactly those as
signals."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from autogradviz.app.services.view_state import ViewState
from autogradviz.engine.trace import replay
from autogradviz.engine.trace.model import Trace

TRACE = Path(__file__).resolve().parents[1] / "data" / "trace_v1.json"
EVENTS = ("trace", "graph", "run", "step", "selected", "show_saved", "layout_options")


def recorded(view: ViewState) -> list[tuple]:
    log: list[tuple] = []
    for name in EVENTS:
        view.events.connect(name, lambda *args, name=name: log.append((name, *args)))
    return log


def test_the_view_state_imports_no_qt():
    code = ("import sys; import autogradviz.app.services.view_state; "
            "print(sorted(m for m in sys.modules if m.startswith('PySide6')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_changes_are_announced_in_order_without_qt():
    trace = Trace.from_json(TRACE.read_text(encoding="utf-8"))
    first, second = trace.backward_runs
    view = ViewState()
    log = recorded(view)
    view.set_trace(trace)
    assert log == [("trace",), ("graph", first.graph), ("run", 0), ("step", 0), ("selected", None)]
    assert view.step_count == len(first.steps) and view.state is not None

    log.clear()
    view.set_step(2)
    assert log == [("step", 2)]
    assert view.state.current == first.steps[1].node  # step k: the k-th recorded node ran
    assert view.state == replay.state_at(trace, 0, 2)
    view.set_step(2)  # no change, no event
    view.set_step(10_000)  # clamped to the last step
    assert log == [("step", 2), ("step", len(first.steps))]

    log.clear()
    node = first.steps[0].node
    view.select_node(node)
    view.select_node("not a node")
    assert log == [("selected", node), ("selected", None)]

    log.clear()
    view.select_run(1)
    assert log == [("graph", second.graph), ("run", 1), ("step", 0)]
    assert view.run is second and view.graph.id == second.graph

    log.clear()
    view.set_layout_groups({"a"}, set())
    view.set_show_saved(True)
    view.set_fold_repeated(False)
    view.set_direction("LR")
    assert log == [("layout_options",), ("show_saved", True), ("layout_options",), ("layout_options",),
                   ("layout_options",)]
    assert view.collapsed is None  # unfolding renames the paths inside folds: groups start afresh
    assert view.layout_options()["direction"] == "LR" and view.layout_options()["fold_repeated"] == "off"

    log.clear()
    view.set_trace(None)
    assert log == [("trace",), ("graph", ""), ("run", -1), ("step", 0), ("selected", None)]
    assert view.graph is None and view.step_count == 0


def test_the_session_forwards_the_view_states_events_as_signals(qtbot):
    from autogradviz.app.session import TraceSession

    trace = Trace.from_json(TRACE.read_text(encoding="utf-8"))
    session = TraceSession()
    signals: list[tuple] = []
    session.traceChanged.connect(lambda: signals.append(("trace",)))
    session.graphChanged.connect(lambda g: signals.append(("graph", g)))
    session.runChanged.connect(lambda i: signals.append(("run", i)))
    session.stepChanged.connect(lambda k: signals.append(("step", k)))
    session.nodeSelected.connect(lambda n: signals.append(("selected", n)))
    events = recorded(session.view)
    session.set_trace(trace)
    session.set_step(3)
    session.select_run(1)
    assert signals == events and len(signals) == 9
    assert session.step == session.view.step == 0 and session.run is trace.backward_runs[1]
