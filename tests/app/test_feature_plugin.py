"""A GUI feature plugs in with one declaration (app/features/): a dummy
feature with a panel, a graph overlay, stepper marks, an event text and a
note text, registered here, appears in a real window on a real trace (a
lesson recorded by the real worker) — its overlay's items in the scene, one
per node the backward run visits, following the step; its marks on the
stepper's timeline with their tooltips; its dock; its note text — and is gone
from the next window once unregistered. The built-in features are declared
the same way, and the core names none of them."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QPoint, QRectF, Qt
from PySide6.QtGui import QColor, QHelpEvent, QPen
from PySide6.QtWidgets import QApplication, QDockWidget, QGraphicsEllipseItem, QLabel, QToolTip

from autogradviz.app import features
from autogradviz.app.features import FeatureSpec, GraphOverlay, PanelSpec, StepMark
from autogradviz.app.theme import ThemeManager
from autogradviz.app.window.main_window import MainWindow
from autogradviz.engine.trace.model import Note

from test_graph_support import wait_layout

LESSON = Path(__file__).resolve().parents[2] / "resources" / "lessons" / "02_intermediate_gradients.py"
RING = 1001  # QGraphicsItem data key the dummy overlay tags its rings with


class Rings(GraphOverlay):
    """A ring around each box whose node the backward run steps through; the
    current step's ring drawn thick."""

    def __init__(self, scene):
        super().__init__(scene)
        self.rings: dict[str, QGraphicsEllipseItem] = {}
        self.followed = 0

    def build(self, trace) -> None:
        run = trace.backward_runs[0] if trace is not None and trace.backward_runs else None
        for step in run.steps if run is not None else ():
            items = self.scene.node_items.get(step.node)
            if items and step.node not in self.rings:
                ring = QGraphicsEllipseItem(items[0].sceneBoundingRect().adjusted(-6, -6, 6, 6))
                ring.setData(RING, step.node)
                self.scene.addItem(ring)
                self.rings[step.node] = ring

    def clear(self) -> None:
        for ring in self.rings.values():
            self.scene.removeItem(ring)
        self.rings = {}

    def follow_step(self) -> None:
        self.followed += 1
        current = self.scene.state.current if self.scene.state is not None else None
        for nid, ring in self.rings.items():
            ring.setPen(QPen(ring.pen().color(), 4 if nid == current else 1))

    def avoid_rects(self) -> list[QRectF]:
        return [r.sceneBoundingRect() for r in self.rings.values()]


def every_other_step(trace, run_index: int) -> list[StepMark]:
    """A mark after every odd step, naming the op that ran."""
    run = trace.backward_runs[run_index]
    graph = trace.graph(run.graph)
    ops = {n.id: n.op for n in graph.nodes}
    return [StepMark(k + 0.5, "below", f"dummy mark after step {k}: {ops.get(run.steps[k - 1].node)}", "#123456")
            for k in range(1, len(run.steps) + 1, 2)]


DUMMY = FeatureSpec(
    id="dummy",
    panel=PanelSpec("dummyFeature", "Lessons", lambda c: QLabel("dummy feature", c.parent),
                    Qt.DockWidgetArea.LeftDockWidgetArea,
                    show_when=lambda t: bool(getattr(t, "backward_runs", None)), tab_with="lessons"),
    overlay=Rings,
    stepper_marks=every_other_step,
    note_texts={"dummy_note": lambda p: f"dummy note with {p.get('n')}" if "n" in p else None},
)


def painted_near(widget, x: float, color: str) -> bool:
    """Whether the widget, as painted now, has a pixel of `color` within 4 px of column x."""
    image = widget.grab().toImage()
    want = QColor(color)
    return any(image.pixelColor(int(x) + dx, y) == want
               for dx in range(-4, 5) for y in range(image.height()) if 0 <= int(x) + dx < image.width())


def make_window(qtbot, worker) -> tuple[MainWindow, ThemeManager]:
    theme = ThemeManager()
    w = MainWindow(theme_manager=theme, worker=worker, start_worker=False, restore_autosave=False)
    qtbot.addWidget(w)
    w.ask_unsaved = lambda: "discard"
    w.resize(1400, 900)  # (room for the stepper's timeline)
    w.show()
    qtbot.waitExposed(w)
    return w, theme


def run_lesson(qtbot, w) -> object:
    w.editor.setPlainText(LESSON.read_text(encoding="utf-8"))
    with qtbot.waitSignals([w.runFinished, w.graph_view.layoutFinished], timeout=60_000):
        w.run_script()
    wait_layout(qtbot, w.graph_view)
    qtbot.waitUntil(lambda: not w.graph_view.builder.building(), timeout=10_000)
    trace = w.session.trace
    assert trace.error is None and trace.backward_runs
    return trace


@pytest.fixture
def dummy_feature():
    features.register_feature(DUMMY)
    yield DUMMY
    features.unregister_feature("dummy")


def test_a_dummy_feature_plugs_in_with_one_declaration(qtbot, shared_worker, dummy_feature):
    w, theme = make_window(qtbot, shared_worker)
    try:
        trace = run_lesson(qtbot, w)
        run = trace.backward_runs[0]
        scene = w.graph_view.graph_scene()
        # the overlay: one ring per node the run steps through, in the scene
        overlay = scene.overlays["dummy"]
        assert isinstance(overlay, Rings)
        visited = {s.node for s in run.steps if s.node in scene.node_items}
        assert visited and set(overlay.rings) == visited
        in_scene = {it.data(RING) for it in scene.items() if it.data(RING) is not None}
        assert in_scene == visited
        # ... following the step (the scene asks every overlay)
        w.session.set_step(1)
        qtbot.waitUntil(lambda: overlay.rings[run.steps[0].node].pen().widthF() == 4, timeout=5000)
        # the marks on the stepper: where the declaration says, with its tooltips
        stepper = w.panels.widget("stepper")
        marks = stepper.marks.of("dummy")
        odd = list(range(1, len(run.steps) + 1, 2))
        assert [m.position for m in marks] == [k + 0.5 for k in odd]
        assert stepper.marks.overlay.isVisible()
        tl = stepper.timeline
        assert painted_near(tl, tl._x(1.5), "#123456") and not painted_near(tl, tl._x(2.5), "#123456")
        first_op = next(n.op for n in trace.graph(run.graph).nodes if n.id == run.steps[0].node)
        assert stepper.marks.text_near(tl._x(1.5)) == f"dummy mark after step 1: {first_op}"
        pos = QPoint(int(tl._x(1.5)), tl.height() // 2)
        QApplication.sendEvent(tl, QHelpEvent(QEvent.Type.ToolTip, pos, tl.mapToGlobal(pos)))
        qtbot.waitUntil(lambda: "dummy mark after step 1" in QToolTip.text(), timeout=2000)
        QToolTip.hideText()
        # its panel, shown for this trace
        dock = next(d for d in w.findChildren(QDockWidget) if d.objectName() == "dummyFeatureDock")
        assert not dock.isHidden() and dock.widget().text() == "dummy feature"
        # its note text in the Output pane's words
        assert w.runs.note_text(Note(code="dummy_note", params={"n": 3}), "english") == "dummy note with 3"
        assert w.runs.note_text(Note(code="dummy_note", params={}), "english") == "english"
    finally:
        w.close()
        theme.deleteLater()
    features.unregister_feature("dummy")
    w2, theme2 = make_window(qtbot, shared_worker)
    try:
        run_lesson(qtbot, w2)
        assert "dummy" not in w2.graph_view.graph_scene().overlays
        assert w2.panels.widget("stepper").marks.of("dummy") == []
        assert "dummyFeatureDock" not in {d.objectName() for d in w2.findChildren(QDockWidget)}
    finally:
        w2.close()
        theme2.deleteLater()


def test_builtin_features_are_declared_and_unique():
    ids = [f.id for f in features.features()]
    assert ids[:5] == ["gradScaler", "checkpoint", "modules", "memory", "ddp"]
    with pytest.raises(ValueError):
        features.register_feature(FeatureSpec(id="checkpoint"))
    checkpoint = features.feature("checkpoint")
    assert checkpoint.overlay is not None and checkpoint.stepper_marks is not None
    assert checkpoint.step_phase is not None and "checkpoint_not_read" in checkpoint.note_texts
    assert "allreduce" in features.feature("ddp").event_texts


def test_declaring_the_features_imports_no_panel_charts():
    """Reading the declarations (the graph scene and a CLI export do) must
    not import the panels' chart library: pyqtgraph cost a CLI export of a
    GPT-2 trace 0.54 s of its 1.1 s when the GradScaler and Memory panels
    were imported with their declarations."""
    import subprocess
    import sys

    code = ("import sys; from autogradviz.app import features; features.features(); "
            "print(sorted(m for m in sys.modules if m.startswith(('pyqtgraph', 'autogradviz.app.panels.memory', "
            "'autogradviz.app.panels.grad_scaler'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
