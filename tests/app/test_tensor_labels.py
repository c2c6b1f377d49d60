"""Gradients on the graph look like tensors, and labels do not cover each other.

Lesson 1 runs for real; at its last step every leaf's .grad callout and every
edge label must be apart (bounding rectangles that do not intersect), at six
view sizes (with flattened one-line labels and without the placement fix, two
of them collided), and 2-D gradients are drawn as small matrices (one line per
row), not flattened lists. A label that a callout comes to cover is placed again.
"""

from __future__ import annotations

import pathlib

import pytest

from autogradviz.app.graph.view import GraphView
from autogradviz.app.session import TraceSession
from autogradviz.engine.trace.tensor_text import inline_text, tensor_lines

from test_graph_support import stop_view, trace_of, wait_layout

LESSON_1 = next((pathlib.Path(__file__).parents[2] / "resources" / "lessons").glob("01_*.py"))


@pytest.fixture(params=[(655, 390), (760, 460), (900, 700), (500, 420), (600, 300), (1400, 900)])
def view(qtbot, request):
    session = TraceSession()
    v = GraphView(session)
    qtbot.addWidget(v)
    v.resize(*request.param)
    v.show()
    yield v
    stop_view(qtbot, v)


def test_lesson_one_last_step_labels_do_not_collide(qtbot, view):
    trace = trace_of(LESSON_1.read_text())
    with qtbot.waitSignal(view.layoutFinished, timeout=30_000):
        view.session.set_trace(trace)
    wait_layout(qtbot, view)
    session = view.session
    for k in range(session.step_count + 1):  # step through as a learner would
        session.set_step(k)
    scene = view.graph_scene()
    callouts = [c for c in scene.callouts.values() if c.isVisible()]
    labels = [lab for lab in scene.grad_labels.values() if lab.isVisible()]
    leaves = {n.id for n in session.graph.nodes if n.kind == "leaf"}
    assert leaves & {nid for nid, c in scene.callouts.items() if c.isVisible()}, "no .grad callout shown"
    assert labels, "no gradient label shown"
    shown = callouts + labels
    for i, a in enumerate(shown):
        for b in shown[i + 1:]:
            ra, rb = a.sceneBoundingRect(), b.sceneBoundingRect()
            assert not ra.intersects(rb), (a.lines, b.lines, ra, rb)
    # x.grad is a 2x2 matrix: its callout has a name line and one line per row
    x = next(n for n in session.graph.nodes if n.label == "x")
    lines = scene.callouts[x.id].lines
    assert lines[0] == "x.grad =" and len(lines) == 3, lines
    grad = session.state.leaf_grads[x.id]
    assert lines[1:] == tensor_lines(grad, 9)


@pytest.fixture
def one_view(qtbot):
    v = GraphView(TraceSession())
    qtbot.addWidget(v)
    v.resize(760, 460)
    v.show()
    yield v
    stop_view(qtbot, v)


def test_a_label_under_a_callout_is_placed_again(qtbot, one_view):
    view = one_view
    trace = trace_of(LESSON_1.read_text())
    with qtbot.waitSignal(view.layoutFinished, timeout=30_000):
        view.session.set_trace(trace)
    wait_layout(qtbot, view)
    session = view.session
    session.set_step(session.step_count)
    scene = view.graph_scene()
    callout = next(c for c in scene.callouts.values() if c.isVisible())
    label = next(lab for lab in scene.grad_labels.values() if lab.isVisible())
    label.setPos(callout.sceneBoundingRect().topLeft())  # as if placed before the callout appeared
    assert label.sceneBoundingRect().intersects(callout.sceneBoundingRect())
    scene.apply_step(session.state)  # the same step again: nothing changed but the overlap
    assert not label.sceneBoundingRect().intersects(callout.sceneBoundingRect())


def test_matrix_text_follows_the_values():
    from autogradviz.engine.trace.model import TensorSummary
    s = TensorSummary(shape=[2, 3], dtype="float32", device="cpu", values=[1.0, -2.5, 3.0, 4.0, 5.0, 6.25], numel=6)
    rows = tensor_lines(s, 9)
    assert len(rows) == 2 and rows[0].startswith("⎡") and rows[1].endswith("⎦")
    assert [r.strip("⎡⎤⎣⎦").replace("\u2007", " ").split() for r in rows] == [["1.0", "-2.5", "3.0"],
                                                                             ["4.0", "5.0", "6.25"]]
    assert inline_text(s) == "[[1.0, -2.5, 3.0], [4.0, 5.0, 6.25]]"
    s3 = TensorSummary(shape=[2, 1, 2], dtype="float32", device="cpu", values=[1.0, 2.0, 3.0, 4.0], numel=4)
    assert [r.split("]")[0] for r in tensor_lines(s3, 9)] == ["[0", "[1"]  # last two dims, with an index
    big = TensorSummary(shape=[10, 10], dtype="float32", device="cpu", values=[0.0] * 64, truncated=True,
                        numel=100, norm=3.0)
    assert tensor_lines(big, 9) == ["(10, 10) norm 3.0"]


LESSON_9 = next((pathlib.Path(__file__).parents[2] / "resources" / "lessons").glob("09_*.py"))


@pytest.mark.parametrize("size", [(655, 505), (760, 460), (900, 700)])
def test_callouts_and_labels_stay_clear_of_the_legend_and_the_minimap(qtbot, size):
    """The attention lesson's keys.grad callout went left of its box, under
    the legend drawn over the view (the right side is taken by queries)."""
    view = GraphView(TraceSession())
    qtbot.addWidget(view)
    view.resize(*size)
    view.show()
    try:
        trace = trace_of(LESSON_9.read_text())
        with qtbot.waitSignal(view.layoutFinished, timeout=30_000):
            view.session.set_trace(trace)
        wait_layout(qtbot, view)
        session = view.session
        for k in range(session.step_count + 1):
            session.set_step(k)
        scene = view.graph_scene()
        v = view.view
        overlays = [w for w in (view.legend, view.minimap) if w.isVisible()]
        assert view.legend in overlays, "the legend is shown at this size"
        callouts = [c for c in scene.callouts.values() if c.isVisible()]
        assert len(callouts) >= 2  # keys.grad and queries.grad

        def on_screen(item):
            r = v.mapFromScene(item.sceneBoundingRect()).boundingRect()
            return r.translated(v.viewport().pos())  # (overlays are placed in the view's frame)

        for c in callouts:
            for w in overlays:
                assert not on_screen(c).intersects(w.geometry()), (c.lines, w, on_screen(c), w.geometry())
        # an edge label too, where its edge is clear of them (a fit can leave
        # the end of a tall graph under the legend: its labels cannot move away)
        edges = {e.pos_index: e for e in scene.edge_items}
        checked = 0
        for pos, lab in scene.grad_labels.items():
            edge = edges.get(pos)
            if lab.isVisible() and edge is not None:
                if not any(on_screen(edge).intersects(w.geometry()) for w in overlays):
                    checked += 1
                    assert not any(on_screen(lab).intersects(w.geometry()) for w in overlays), lab.lines
        assert checked >= 5
    finally:
        stop_view(qtbot, view)


LESSON_32 = next((pathlib.Path(__file__).parents[2] / "resources" / "lessons").glob("32_*.py"))


def test_labels_keep_off_the_checkpoint_regions_titles(qtbot, one_view):
    """Two checkpoint regions (lesson 32): stepping through, the gradient
    labels and callouts keep off the regions' title tabs ("checkpoint 2 ·
    non-reentrant · block")."""
    view = one_view
    trace = trace_of(LESSON_32.read_text())
    with qtbot.waitSignal(view.layoutFinished, timeout=30_000):
        view.session.set_trace(trace)
    wait_layout(qtbot, view)
    session, scene = view.session, view.graph_scene()
    titles = [r.mapRectToScene(r.label_rect()) for r in scene.checkpoint_overlay.regions.values()]
    assert len(titles) == 2
    shown, covered = 0, 0.0
    for k in range(session.step_count + 1):
        session.set_step(k)
        items = [it for it in list(scene.grad_labels.values()) + list(scene.callouts.values()) if it.isVisible()]
        shown += len(items)
        for it in items:
            for t in titles:
                r = it.sceneBoundingRect().intersected(t)
                covered += 0.0 if r.isEmpty() else r.width() * r.height()
    assert shown
    # summed over every step and every label: at most a sliver of one tab
    # (placement weighs this against covering boxes and other labels; before
    # the titles counted at all, 20,563 px² were covered, about 8 whole tabs)
    assert covered < 0.25 * min(t.width() * t.height() for t in titles), covered
