"""GraphView + GraphScene with real traces (made by run_script in a subprocess).

The graph must show exactly the trace: one item (or per-use copies) per node
with its labels; stepping moves highlights and gradient labels exactly as the
trace says, and back again; hover, search, click, theme and failed layouts.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRectF, Qt

from autogradviz.app.graph.items import summary_text

from test_graph_support import (
    LESSON, NO_BACKWARD, SHARED, node_by_label, stop_view, trace_of, view, wait_layout,  # noqa: F401 (view: a fixture)
)


def show(qtbot, view, source):
    trace = trace_of(source)
    with qtbot.waitSignal(view.layoutFinished, timeout=30_000):
        view.session.set_trace(trace)
    wait_layout(qtbot, view)
    return trace


def test_items_and_labels_equal_the_trace(qtbot, view):
    trace = show(qtbot, view, LESSON)
    g = view.session.graph
    scene = view.graph_scene()
    assert set(scene.node_items) == {n.id for n in g.nodes}
    for n in g.nodes:
        for item in scene.node_items[n.id]:
            if n.label:
                assert n.label in item.box.lines
            assert n.op in item.box.lines
    # one drawn edge per trace edge (all groups expanded for this small graph)
    assert set(scene.trace_edge_items) == set(range(len(g.edges)))
    assert trace.backward_runs and view.session.run_index == 0


def _expected(trace, run_index, k):
    """What the trace itself says after k steps (independently of engine.replay)."""
    run = trace.backward_runs[run_index]
    g = trace.graph(run.graph)
    executed = [s.node for s in run.steps[:k]]
    grads = {}
    for s in run.steps[:k]:
        for i, e in enumerate(g.edges):
            if e.dst == s.node and e.slot < len(s.grad_inputs) and s.grad_inputs[e.slot] is not None:
                grads[i] = summary_text(s.grad_inputs[e.slot])
    return executed, grads


def test_stepping_forward_and_back_matches_the_trace(qtbot, view):
    trace = show(qtbot, view, LESSON)
    session, scene = view.session, view.graph_scene()
    n = session.step_count
    assert n == len(trace.backward_runs[0].steps) > 0
    g = session.graph
    small = len(scene.layout.boxes) <= 60
    for k in list(range(n + 1)) + list(range(n, -1, -1)):
        session.set_step(k)
        executed, grads = _expected(trace, 0, k)
        for node in g.nodes:
            want = "pending"
            if node.id in executed:
                want = "current" if node.id == executed[-1] else "done"
            for item in scene.node_items[node.id]:
                assert item.status == want, (k, node.op)
        for i, items in scene.trace_edge_items.items():
            for ei in items:
                assert ei.has_grad == (i in grads)
                label = scene.grad_labels.get(ei.pos_index)
                shown = label is not None and label.isVisible()
                if i in grads and small:
                    assert shown and label.text() == grads[i], (k, i)
                if i not in grads:
                    assert not shown
    session.set_step(0)
    assert not any(c.isVisible() for c in scene.callouts.values())


def test_leaf_grad_retain_and_hook_callouts(qtbot, view):
    trace = show(qtbot, view, LESSON)
    session, scene = view.session, view.graph_scene()
    session.set_step(session.step_count)
    run = trace.backward_runs[0]
    x = node_by_label(trace, run.graph, "x")
    y = node_by_label(trace, run.graph, "y")
    cx = scene.callouts[x.id]
    assert cx.isVisible() and summary_text(run.leaf_grads[x.id]) in cx.text()
    cy = scene.callouts[y.id]
    assert cy.isVisible() and "retained" in cy.text()
    assert "double" in cy.text()  # the hook's name and what it saw/returned
    session.set_step(0)
    assert not cx.isVisible() and not cy.isVisible()


def test_hover_lights_copies_inputs_and_outputs(qtbot, view):
    trace = show(qtbot, view, SHARED)
    scene = view.graph_scene()
    x = node_by_label(trace, trace.backward_runs[0].graph, "x")
    copies = scene.node_items[x.id]
    assert len(copies) == 2  # x is used by two operations: drawn once per use
    first, second = copies
    # a real mouse move over the first copy
    centre = view.view.mapFromScene(first.sceneBoundingRect().center())
    qtbot.mouseMove(view.view.viewport(), centre)
    qtbot.waitUntil(lambda: first.hovered, timeout=3000)
    assert "AccumulateGrad" in first.toolTip() and "leaf" in first.toolTip()
    assert second.lit
    consumers = [scene.key_items[e.ledge.dst] for e in scene.out_edges[first.key]]
    assert consumers and all(c.lit for c in consumers)
    scene.node_hovered(first, False)
    assert not second.lit and not any(c.lit for c in consumers)


def test_click_selects_node(qtbot, view):
    trace = show(qtbot, view, LESSON)
    scene = view.graph_scene()
    y = node_by_label(trace, trace.backward_runs[0].graph, "y")
    item = scene.node_items[y.id][0]
    view.view.centerOn(item)
    pos = view.view.mapFromScene(item.sceneBoundingRect().center())
    with qtbot.waitSignal(view.session.nodeSelected, timeout=3000) as blocker:
        qtbot.mouseClick(view.view.viewport(), Qt.LeftButton, pos=pos)
    assert blocker.args == [y.id]
    assert item.selected_flag
    # a click on empty space clears the selection
    empty = view.view.mapFromScene(scene.itemsBoundingRect().bottomRight()) + QPoint(40, 40)
    with qtbot.waitSignal(view.session.nodeSelected, timeout=3000) as blocker:
        qtbot.mouseClick(view.view.viewport(), Qt.LeftButton, pos=empty)
    assert blocker.args == [None] and not item.selected_flag


def test_search_finds_nodes_next_previous(qtbot, view):
    trace = show(qtbot, view, LESSON)
    qtbot.keyClick(view.view, Qt.Key_F, Qt.ControlModifier)
    assert view.search_bar.isVisible()
    qtbot.keyClicks(view.search_edit, "loss")
    loss = node_by_label(trace, trace.backward_runs[0].graph, "loss")
    assert view.search_hits() == [loss.id]
    assert view.session.selected_node == loss.id
    assert all(it.search_hit for it in view.graph_scene().node_items[loss.id])
    view.search_edit.clear()
    qtbot.keyClicks(view.search_edit, "mulbackward")
    hits = view.search_hits()
    assert len(hits) == 2  # y = x * w and loss = z * 3
    first = view.session.selected_node
    qtbot.keyClick(view.search_edit, Qt.Key_Return)
    assert view.session.selected_node != first
    view.search_previous()
    assert view.session.selected_node == first
    view.search_edit.clear()
    qtbot.keyClicks(view.search_edit, "no-such-node")
    assert view.search_hits() == [] and view.search_bar.count.text()


def test_zoom_fit_and_theme(qtbot, view):
    show(qtbot, view, LESSON)
    before = view.view.transform().m11()
    view.zoom_in()
    assert view.view.transform().m11() > before
    view.zoom_out()
    view.zoom_out()
    assert view.view.transform().m11() < before
    view.fit()
    rect = view.graph_scene().itemsBoundingRect()
    assert view.visible_scene_rect().contains(rect.center())
    view.session.set_step(2)
    statuses = {k: [i.status for i in v] for k, v in view.graph_scene().node_items.items()}
    view.set_theme("dark")
    assert view.graph_scene().style.name == "dark"
    assert {k: [i.status for i in v] for k, v in view.graph_scene().node_items.items()} == statuses


def test_failed_layout_keeps_previous_picture(qtbot, view, monkeypatch):
    show(qtbot, view, LESSON)
    before = set(view.graph_scene().node_items)
    import autogradviz.app.services.layout_runner as lr

    def boom(*a, **k):
        raise RuntimeError("layout exploded")

    monkeypatch.setattr(lr, "layout_graph", boom)
    with qtbot.waitSignal(view.layoutFailed, timeout=10_000) as blocker:
        view.session.set_show_saved(True)
    assert "layout exploded" in blocker.args[0]
    assert view.message.isVisible() and "previous picture" in view.message.text()
    assert set(view.graph_scene().node_items) == before


def test_forward_only_script_still_shows_graph(qtbot, view):
    trace = show(qtbot, view, NO_BACKWARD)
    assert not trace.backward_runs and trace.graphs
    assert view.session.run_index == -1 and view.session.state is None
    assert len(view.graph_scene().node_items) == len(view.session.graph.nodes)
    assert all(i.status is None for items in view.graph_scene().node_items.values() for i in items)


def test_show_saved_relayouts_with_saved_boxes(qtbot, view):
    show(qtbot, view, LESSON)
    with qtbot.waitSignal(view.layoutFinished, timeout=30_000):
        view.set_show_saved(True)
    wait_layout(qtbot, view)
    saved = [b for b in view.graph_scene().layout.boxes if b.kind == "saved"]
    assert saved, "MulBackward0 saves its inputs: saved boxes expected"
    assert all(view.graph_scene().key_items[b.key].isVisible() for b in saved)


def test_show_saved_has_one_owner_the_session(qtbot, view):
    """The box, the view's old entry point and the session agree because the
    box only shows the session's option (no copy to keep in step)."""
    show(qtbot, view, LESSON)
    with qtbot.waitSignal(view.layoutFinished, timeout=30_000):
        view.session.set_show_saved(True)
    assert view.saved_box.isChecked()
    with qtbot.waitSignal(view.layoutFinished, timeout=30_000):
        view.saved_box.setChecked(False)
    assert view.session.show_saved is False
    assert not [b for b in view.graph_scene().layout.boxes if b.kind == "saved"]
    with qtbot.waitSignal(view.session.showSavedChanged, timeout=1000) as blocker:
        view.set_show_saved(True)
    assert blocker.args == [True] and view.saved_box.isChecked()
    wait_layout(qtbot, view)


def test_misspelled_layout_option_is_an_error_not_ignored(qtbot, view):
    from autogradviz.app.services.layout_runner import LayoutRunner

    show(qtbot, view, LESSON)
    runner = LayoutRunner()
    with pytest.raises(ValueError, match="show_saves"):
        runner.start(view.session.graph, {"show_saves": True})
    assert not runner.is_running()


def test_large_graph_banner_is_made_from_the_note_code(qtbot, view):
    """The banner's text comes from the layout's note code and parameters."""
    trace = show(qtbot, view, RNN_LONG)
    codes = view.graph_scene().layout.note_codes
    code, params = codes[0]
    assert code == "large_graph" and params["rolled"] == {"cell": 320}
    text = view.banner_text()
    assert f"({params['nodes']} nodes)" in text and f"{params['boxes']} boxes" in text
    assert "×N" in text and trace.graphs


MODEL = """\
import torch
from torch import nn
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
out = model(torch.randn(3, 4))
loss = out.pow(2).mean()
loss.backward()
"""


def test_collapse_and_expand_a_module_group(qtbot, view):
    trace = show(qtbot, view, MODEL)
    scene = view.graph_scene()
    frames = [g for g in scene.layout.groups if not g.collapsed and g.module_class == "Linear"]
    assert frames, [(g.module, g.module_class) for g in scene.layout.groups]
    module = frames[0].module
    # collapse the first Linear (what clicking its frame title does)
    with qtbot.waitSignal(view.layoutFinished, timeout=30_000):
        scene.group_clicked(module, True)
    wait_layout(qtbot, view)
    scene = view.graph_scene()
    boxes = [b for b in scene.layout.boxes if b.kind == "group"]
    assert len(boxes) == 1
    box_item = scene.key_items[boxes[0].key]
    # stepping still works: the collapsed box shows its members' progress
    members = set(next(g for g in scene.layout.groups if g.id == boxes[0].key).members)
    view.session.set_step(view.session.step_count)
    last = trace.backward_runs[0].steps[-1].node
    assert box_item.status == ("current" if last in members else "done")
    view.session.set_step(0)
    assert box_item.status == "pending"
    # searching finds nodes hidden inside the collapsed group: the group box lights up
    member = trace.graph(view.session.graph_id).nodes
    member = next(n for n in member if n.id in members and n.op == "AccumulateGrad")
    view.show_search()
    qtbot.keyClicks(view.search_edit, member.label or member.op)
    assert member.id in view.search_hits()
    assert box_item.search_hit
    view.hide_search()
    # clicking the collapsed box expands it again
    view.view.centerOn(box_item)
    pos = view.view.mapFromScene(box_item.sceneBoundingRect().center())
    with qtbot.waitSignal(view.layoutFinished, timeout=30_000):
        qtbot.mouseClick(view.view.viewport(), Qt.LeftButton, pos=pos)
    wait_layout(qtbot, view)
    assert not [b for b in view.graph_scene().layout.boxes if b.kind == "group"]
    assert set(view.graph_scene().node_items) == {n.id for n in trace.graph(view.session.graph_id).nodes}


def test_big_graph_overview_and_minimap(qtbot, view):
    import synthetic_graphs as synthetic  # (tests/synthetic_graphs.py)
    from autogradviz.engine.trace.model import Trace

    g = synthetic.random_dag(2500, seed=1)
    with qtbot.waitSignal(view.layoutFinished, timeout=60_000):
        view.session.set_trace(Trace(graphs=[g]))
    wait_layout(qtbot, view)
    scene = view.graph_scene()
    assert scene.overview is not None
    view.fit()
    assert scene.overview_mode and not scene.layer.isVisible() and scene.overview.isVisible()
    assert view.minimap is not None
    for _ in range(12):
        view.zoom_in()
    assert not scene.overview_mode and scene.layer.isVisible()
    assert view.minimap.isVisible()
    # clicking the minimap moves the main view there
    before = view.visible_scene_rect().center()
    qtbot.mouseClick(view.minimap, Qt.LeftButton, pos=QPoint(5, 5))
    assert view.visible_scene_rect().center() != before


def test_cancel_layout_keeps_previous_picture(qtbot, view, monkeypatch):
    show(qtbot, view, LESSON)
    before = set(view.graph_scene().node_items)
    import time as _time

    import autogradviz.app.services.layout_runner as lr
    from autogradviz.engine.layout import LayoutCancelled

    def slow(graph, options, progress=None, cancelled=None):
        while not cancelled():
            _time.sleep(0.01)
        raise LayoutCancelled()

    monkeypatch.setattr(lr, "layout_graph", slow)
    with qtbot.waitSignal(view.layoutStarted, timeout=5000):
        view.session.set_show_saved(True)
    assert view.busy.isVisible()
    with qtbot.waitSignal(view.layoutFailed, timeout=10_000) as blocker:
        qtbot.mouseClick(view.cancel_btn, Qt.LeftButton)
    assert "cancelled" in blocker.args[0].lower()
    assert not view.busy.isVisible() and view.message.isVisible()
    assert set(view.graph_scene().node_items) == before
    qtbot.waitUntil(lambda: not view.runner.is_running(), timeout=5000)


def test_dropping_the_trace_during_layout_reports_no_failure(qtbot, view, monkeypatch):
    """A run that ends without a trace drops the graph being laid out: that
    cancel is no failure (it showed "The graph could not be laid out" in red)."""
    import time as _time

    import autogradviz.app.services.layout_runner as lr
    from autogradviz.engine.layout import LayoutCancelled

    def slow(graph, options, progress=None, cancelled=None):
        while not cancelled():
            _time.sleep(0.01)
        raise LayoutCancelled()

    monkeypatch.setattr(lr, "layout_graph", slow)
    trace = trace_of(LESSON)
    with qtbot.waitSignal(view.layoutStarted, timeout=5000):
        view.session.set_trace(trace)
    with qtbot.assertNotEmitted(view.layoutFailed, wait=500), \
            qtbot.waitSignal(view.layoutDropped, timeout=5000):  # (the status bar stops saying "Laying out")
        view.session.set_trace(None)
        qtbot.waitUntil(lambda: not view.runner.is_running(), timeout=5000)
    assert not view.busy.isVisible() and "cancelled" not in view.message.text().lower()


def test_stepper_keys_on_the_graph_view(qtbot, view):
    from autogradviz.app.panels.stepper import StepperPanel

    stepper = StepperPanel(view.session)
    qtbot.addWidget(stepper)
    stepper.install_shortcuts(view)
    show(qtbot, view, LESSON)
    view.activateWindow()
    view.view.setFocus()
    qtbot.waitUntil(lambda: view.view.hasFocus(), timeout=3000)
    qtbot.keyClick(view.view, Qt.Key_Right)
    qtbot.keyClick(view.view, Qt.Key_Right)
    assert view.session.step == 2
    qtbot.keyClick(view.view, Qt.Key_Left)
    assert view.session.step == 1
    qtbot.keyClick(view.view, Qt.Key_End)
    assert view.session.step == view.session.step_count
    qtbot.keyClick(view.view, Qt.Key_Home)
    assert view.session.step == 0
    stepper.stop()


def test_keys_wheel_and_double_click(qtbot, view):
    show(qtbot, view, LESSON)
    view.view.setFocus()
    z0 = view.view.transform().m11()
    qtbot.keyClick(view.view, Qt.Key_Plus)
    z1 = view.view.transform().m11()
    assert z1 > z0
    qtbot.keyClick(view.view, Qt.Key_Minus)
    assert view.view.transform().m11() < z1
    # double-click centres the clicked point
    vp = view.view.viewport()
    target = QPoint(vp.width() // 4, vp.height() // 4)
    scene_pt = view.view.mapToScene(target)
    qtbot.mouseDClick(vp, Qt.LeftButton, pos=target)
    centre = view.visible_scene_rect().center()
    assert abs(centre.x() - scene_pt.x()) < 30 and abs(centre.y() - scene_pt.y()) < 30
    # the user moved: a resize no longer refits
    assert not view._auto_fit


def test_apply_none_clears_the_replay_look(qtbot, view):
    show(qtbot, view, LESSON)
    scene = view.graph_scene()
    view.session.set_step(view.session.step_count)
    assert any(lbl.isVisible() for lbl in scene.grad_labels.values())
    scene.apply_step(None)
    assert all(i.status is None for items in scene.node_items.values() for i in items)
    assert not any(lbl.isVisible() for lbl in scene.grad_labels.values())
    assert not any(c.isVisible() for c in scene.callouts.values())


CHAIN_600 = """\
import torch
x = torch.ones(3, requires_grad=True)
h = x
for i in range(300):
    h = h * 1.01 + 0.1
loss = h.sum()
loss.backward()
"""


def test_fit_keeps_a_long_chain_readable_and_fit_again_shows_all(qtbot, view):
    from autogradviz.app.graph.fit import MIN_READABLE_ZOOM

    trace = show(qtbot, view, CHAIN_600)
    g = view.session.graph
    assert len(g.nodes) >= 600
    lay = view.graph_scene().layout
    assert lay.height > 20 * lay.width  # a long narrow chain
    view.fit()
    scale = view.view.transform().m11()
    assert scale >= MIN_READABLE_ZOOM  # not a hairline: the boxes' text can be read
    # the output, where backward starts, is in sight; the minimap shows the rest
    root = view.graph_scene().node_items[g.roots[0]][0]
    assert view.visible_scene_rect().contains(root.sceneBoundingRect())
    assert view.minimap.isVisible()
    # stepping starts right there
    view.session.set_step(1)
    assert trace.backward_runs[0].steps[0].node == g.roots[0] and root.status == "current"
    # the Fit button again: all of it
    qtbot.mouseClick(view.fit_btn, Qt.LeftButton)
    assert view.view.transform().m11() < MIN_READABLE_ZOOM
    assert view.visible_scene_rect().contains(QRectF(0, 0, lay.width, lay.height))
    # and again: back to the readable fit
    qtbot.mouseClick(view.fit_btn, Qt.LeftButton)
    assert view.view.transform().m11() == pytest.approx(scale)


RNN_LONG = """\
import torch
from torch import nn
torch.manual_seed(0)
cell = nn.RNNCell(3, 4)
h = torch.zeros(1, 4)
for t in range(320):
    h = cell(torch.ones(1, 3), h)
loss = h.pow(2).sum()
loss.backward()
"""


def test_unroll_a_rolled_module_one_box_per_call_and_roll_it_back(qtbot, view):
    trace = show(qtbot, view, RNN_LONG)
    scene = view.graph_scene()
    rolled = [g for g in scene.layout.groups if g.repeat > 1]
    assert len(rolled) == 1 and rolled[0].module == "cell" and rolled[0].repeat == 320
    # rolled: the first call's graph in a frame "×320", the loop-back edge marked ×320
    assert not rolled[0].collapsed
    cell_nodes = {n.id for n in view.session.graph.nodes if n.module == "cell" and n.kind == "op"}
    drawn = {nid for nid in scene.node_items if nid in cell_nodes}
    assert len(drawn) * 320 == len(cell_nodes)
    loops = [e for e in scene.layout.edges if e.loop]
    assert len(loops) == 1 and loops[0].loop == 320
    # stepping lights the box that stands for the node running now (in any call)
    view.session.set_step(4)
    cur = view.session.state.current
    assert cur in cell_nodes and cur not in drawn
    assert scene.stand_in_items[cur].status == "current"
    view.session.set_step(0)
    # the frame's menu unrolls it: one collapsed box per call
    unroll = next(fn for t, fn in scene.group_actions(rolled[0]) if "320" in t and "Unroll" in t)
    with qtbot.waitSignal(view.layoutFinished, timeout=60_000):
        unroll()
    wait_layout(qtbot, view)
    scene = view.graph_scene()
    calls = [g for g in scene.layout.groups if g.module == "cell"]
    assert len(calls) == 320 and all(g.collapsed and g.repeat == 1 for g in calls)
    assert sorted(g.call for g in calls) == list(range(320))
    assert view.session.unrolled == {"cell"} and "cell" in view.session.collapsed
    assert "cell" in scene.layout.unrolled
    # stepping: the call running now is the current box
    view.session.set_step(3)
    cur = view.session.state.current
    assert scene.group_boxes[cur].status == "current"
    # expanding a call box expands the calls
    with qtbot.waitSignal(view.layoutFinished, timeout=60_000):
        scene.item_clicked(scene.key_items[calls[5].id])
    wait_layout(qtbot, view)
    scene = view.graph_scene()
    frames = [g for g in scene.layout.groups if g.module == "cell"]
    assert frames and not any(g.collapsed for g in frames)
    assert set(scene.node_items) == {n.id for n in view.session.graph.nodes}
    # collapsing back: one box per call again
    with qtbot.waitSignal(view.layoutFinished, timeout=60_000):
        scene.group_clicked("cell", True)
    wait_layout(qtbot, view)
    scene = view.graph_scene()
    assert len([g for g in scene.layout.groups if g.module == "cell" and g.collapsed]) == 320
    # and rolled back into the "×320" view (the context menu's "Roll the calls...")
    call = next(g for g in scene.layout.groups if g.module == "cell")
    texts = [t for t, _ in scene.group_actions(call)]
    assert any("320" in t for t in texts)
    roll = next(fn for t, fn in scene.group_actions(call) if "320" in t and "Roll" in t)
    with qtbot.waitSignal(view.layoutFinished, timeout=60_000):
        roll()
    wait_layout(qtbot, view)
    scene = view.graph_scene()
    rolled = [g for g in scene.layout.groups if g.repeat > 1]
    assert len(rolled) == 1 and rolled[0].module == "cell" and rolled[0].repeat == 320
    assert trace.backward_runs


NODE_HOOKS = """\
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 3
def seen(grad_inputs, grad_outputs):
    return None
y.grad_fn.register_hook(seen)
def before(grad_outputs):
    return (grad_outputs[0] * 10,)
y.grad_fn.register_prehook(before)
loss = y.sum()
loss.backward()
"""


def _has_colour(img, colour, tol=40) -> bool:
    from PySide6.QtGui import QColor

    for yy in range(img.height()):
        for xx in range(img.width()):
            c = QColor(img.pixel(xx, yy))
            if (abs(c.red() - colour.red()) + abs(c.green() - colour.green())
                    + abs(c.blue() - colour.blue())) < tol:
                return True
    return False


def test_node_hooks_show_a_badge_and_fire_in_a_callout(qtbot, view):
    from PySide6.QtGui import QImage, QPainter

    trace = show(qtbot, view, NODE_HOOKS)
    scene = view.graph_scene()
    run = trace.backward_runs[0]
    y = node_by_label(trace, run.graph, "y")
    assert set(y.hooks) == {"seen", "before"}  # what the trace says...
    item = scene.node_items[y.id][0]
    assert item.hooks  # ...is what the box shows: a hook badge
    view.session.set_step(view.session.step_count)  # (not faded as pending)
    r = item.sceneBoundingRect()
    img = QImage(int(r.width() * 2), int(r.height() * 2), QImage.Format_ARGB32)
    img.fill(scene.style.background)
    p = QPainter(img)
    scene.render(p, source=r)
    p.end()
    assert _has_colour(img, scene.style.badge_hook)
    # the tooltip (made on the first hover) names the hooks
    view.view.centerOn(item)
    qtbot.mouseMove(view.view.viewport(), view.view.mapFromScene(item.sceneBoundingRect().center()))
    qtbot.waitUntil(lambda: item.hovered, timeout=3000)
    assert "seen" in item.toolTip() and "before" in item.toolTip()
    # the step where y's node runs: both hooks fire, each with what it saw
    k = next(i + 1 for i, s in enumerate(run.steps) if s.node == y.id)
    kinds = {ev.kind for ev in run.events if ev.node == y.id}
    assert kinds == {"node_prehook", "node_hook"}
    view.session.set_step(k - 1)
    c = scene.callouts.get(y.id)
    assert c is None or not c.isVisible()
    view.session.set_step(k)
    c = scene.callouts[y.id]
    assert c.isVisible() and c.kind == "hook"
    pre = next(ev for ev in run.events if ev.kind == "node_prehook")
    post = next(ev for ev in run.events if ev.kind == "node_hook")
    text = c.text()
    assert "before" in text and summary_text(pre.received) in text
    assert "seen" in text and summary_text(post.received) in text
    assert summary_text(pre.returned) in text  # the pre-hook replaced the gradient
    view.session.set_step(0)
    assert not c.isVisible()


def test_a_broken_layout_package_fails_loudly_not_with_a_lesser_picture():
    """An ImportError of engine/layout reaches whoever imports the runner (it
    used to be caught, with a makeshift third layout drawn instead)."""
    import subprocess
    import sys

    code = ("import sys\n"
            "sys.modules['autogradviz.engine.layout'] = None  # importing it raises ImportError\n"
            "try:\n"
            "    import autogradviz.app.services.layout_runner\n"
            "except ImportError as exc:\n"
            "    print('ImportError', exc)\n"
            "else:\n"
            "    print('imported')\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"})
    assert proc.stdout.startswith("ImportError") and "autogradviz.engine.layout" in proc.stdout, \
        (proc.stdout, proc.stderr[-1000:])
    from autogradviz.app.services import layout_runner

    assert not hasattr(layout_runner, "placeholder_layout")


BLOCKS_8 = """\
import torch
from torch import nn
torch.manual_seed(0)
model = nn.Sequential(*[nn.Sequential(nn.Linear(16, 16), nn.Tanh()) for _ in range(8)])
loss = model(torch.randn(4, 16)).sum()
loss.backward()
"""


def test_a_graph_too_big_both_ways_fits_readable_around_the_start(qtbot, view):
    """Eight Linear+Tanh blocks in module frames: 42 boxes laid out as a
    staircase of frames, far too big both ways for the canvas (whole, its
    box text would be ~3 px). Fit shows a readable part around the output,
    where backward starts, with the minimap for the rest; Fit again: all."""
    from autogradviz.app.graph.fit import MIN_READABLE_ZOOM, SLIVER_ZOOM

    view.resize(1030, 650)
    show(qtbot, view, BLOCKS_8)
    g, lay = view.session.graph, view.graph_scene().layout
    assert len(lay.boxes) <= 60
    view.fit()
    whole = min(1030 / lay.width, 650 / lay.height)
    assert whole < SLIVER_ZOOM, "the case needs a graph too big both ways"
    assert view.view.transform().m11() >= MIN_READABLE_ZOOM
    root = view.graph_scene().node_items[g.roots[0]][0]
    assert view.visible_scene_rect().contains(root.sceneBoundingRect())
    assert view.minimap.isVisible()
    qtbot.mouseClick(view.fit_btn, Qt.LeftButton)
    assert view.visible_scene_rect().contains(QRectF(0, 0, lay.width, lay.height))
