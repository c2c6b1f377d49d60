"""A deep network in the graph view: folded layers, the copy that runs, unfolding, titles, left to right.

A real 12-layer nn.TransformerEncoder (traced in a subprocess) in a real
GraphView: at Fit its boxes are readable; stepping lights the folded box
standing for the node that runs and the frame's title names the copy;
clicking the folded frame's title unfolds every layer and its menu folds
them back; frame titles are elided in the middle, never cut at the end;
"Left to right" (View menu and toolbar) lays the graph out left to right
and is kept for the next launch.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontInfo, QFontMetricsF

from autogradviz.app.graph.fold_items import fold_actions

from test_graph_support import stop_view, trace_of, view, wait_layout  # noqa: F401 (view: a fixture)

ENCODER = """\
import torch
from torch import nn
torch.manual_seed(0)
layer = nn.TransformerEncoderLayer(d_model=16, nhead=2, dim_feedforward=32, batch_first=True)
enc = nn.TransformerEncoder(layer, num_layers=12, enable_nested_tensor=False)
proj = nn.Linear(16, 16)
x = torch.randn(2, 5, 16)
loss = enc(proj(x)).pow(2).mean()
loss.backward()
"""
FOLD = "enc.layers.0\u201311"


def show(qtbot, view, source: str = ENCODER):
    trace = trace_of(source)
    with qtbot.waitSignal(view.layoutFinished, timeout=60_000):
        view.session.set_trace(trace)
    wait_layout(qtbot, view)
    return trace


def _frame(scene, module):
    return next(gi for gi in scene.group_items if gi.group.module == module)


def test_folded_encoder_is_readable_at_fit_and_stepping_names_the_copy(qtbot, view):
    trace = show(qtbot, view)
    session, scene = view.session, view.graph_scene()
    frame = _frame(scene, FOLD)
    assert frame.group.repeat == 12 and "\u00d712" in frame.title
    # Fit: box text at least 10 px on screen
    view.fit()
    qtbot.waitUntil(lambda: view.view.transform().m11() > 0, timeout=10_000)
    px = QFontInfo(scene.style.font()).pixelSize() * view.view.transform().m11()
    assert px >= 10, px
    nodes = {n.id: n for n in session.graph.nodes}
    run = trace.backward_runs[0]
    for layer in (7, 0, 11):
        k = next(i for i, st in enumerate(run.steps)
                 if (nodes[st.node].module or "").startswith(f"enc.layers.{layer}.")
                 and nodes[st.node].kind == "op")
        session.set_step(k + 1)  # step k + 1: the node of step k runs now
        cur = session.state.current
        assert nodes[cur].module.startswith(f"enc.layers.{layer}.")
        item = scene.stand_in_items.get(cur) or scene.node_items[cur][0]
        qtbot.waitUntil(lambda: item.status == "current", timeout=10_000)
        want = f"copy {layer + 1} of 12: enc.layers.{layer}"
        assert frame.running == want and f"copy {layer + 1} of 12" in frame.shown_title()
    session.set_step(0)
    assert frame.running == ""


def test_the_encoder_fed_x_folds_all_twelve_and_layer_0_lights_its_twin(qtbot, view):
    """Fed x (no gradient), layer 0 records fewer nodes; it folds with the
    others all the same, and its steps light their twins in the drawn layer."""
    trace = show(qtbot, view, ENCODER.replace("enc(proj(x))", "enc(x)"))
    session, scene = view.session, view.graph_scene()
    frame = _frame(scene, FOLD)
    assert frame.group.repeat == 12 and "\u00d712" in frame.title
    nodes = {n.id: n for n in session.graph.nodes}
    run = trace.backward_runs[0]
    for layer in (0, 1, 11):
        k = max(i for i, st in enumerate(run.steps)  # (backward runs layer 0 last)
                if (nodes[st.node].module or "").startswith(f"enc.layers.{layer}.") and nodes[st.node].kind == "op")
        session.set_step(k + 1)
        cur = session.state.current
        item = scene.stand_in_items.get(cur) or scene.node_items[cur][0]
        qtbot.waitUntil(lambda: item.status == "current", timeout=10_000)
        assert frame.running == f"copy {layer + 1} of 12: enc.layers.{layer}"


def test_clicking_the_folded_title_unfolds_every_layer_and_the_menu_folds_back(qtbot, view):
    show(qtbot, view)
    scene = view.graph_scene()
    g = view.session.graph
    frame = _frame(scene, FOLD)
    view.view.centerOn(frame.sceneBoundingRect().topLeft())
    title = frame.mapToScene(frame.title_rect().center())
    with qtbot.waitSignal(view.layoutFinished, timeout=60_000):
        qtbot.mouseClick(view.view.viewport(), Qt.LeftButton, pos=view.view.mapFromScene(title))
    wait_layout(qtbot, view)
    scene = view.graph_scene()
    assert FOLD in view.session.unrolled
    assert not any(gi.group.repeat > 1 for gi in scene.group_items)
    assert set(scene.node_items) == {n.id for n in g.nodes}  # the full graph, node for node
    assert set(scene.trace_edge_items) == set(range(len(g.edges)))
    layer5 = _frame(scene, "enc.layers.5")
    acts = fold_actions(scene, layer5.group)
    assert len(acts) == 1 and "\u00d712" in acts[0][0]
    with qtbot.waitSignal(view.layoutFinished, timeout=60_000):
        acts[0][1]()
    wait_layout(qtbot, view)
    assert _frame(view.graph_scene(), FOLD).group.repeat == 12


def test_frame_titles_are_elided_in_the_middle_never_at_the_end(qtbot, view):
    show(qtbot, view)
    scene = view.graph_scene()
    fm = QFontMetricsF(scene.style.small_font(bold=True))
    for gi in scene.group_items:
        shown = gi.shown_title()
        width = gi.title_rect().adjusted(6, 1, -4, 0).width()
        assert fm.horizontalAdvance(shown) <= width + 0.5, shown
        assert shown.endswith(gi.title[-3:]), (shown, gi.title)  # the end is kept
        if "\u2026" in shown:
            assert gi.title in gi.toolTip()  # the whole title in the tooltip
        else:
            assert shown.endswith(gi.title) or gi.running  # frames are as wide as their titles
    # a frame narrower than its title: the middle goes, the end stays
    from autogradviz.app.graph.items import GroupFrameItem
    from autogradviz.engine.layout.model import LayoutGroup

    narrow = GroupFrameItem(LayoutGroup(id="g:x", module="enc.layers.6", module_class="TransformerEncoderLayer",
                                        w=150, h=80), scene.style)
    shown = narrow.shown_title()
    assert "\u2026" in shown and shown.endswith("Layer)") and shown.startswith("\u25be enc.")
    assert fm.horizontalAdvance(shown) <= 150 and "enc.layers.6 (TransformerEncoderLayer)" in narrow.toolTip()


def test_left_to_right_from_the_toolbar(qtbot, view):
    show(qtbot, view)
    with qtbot.waitSignal(view.layoutFinished, timeout=60_000):
        view.tools.lr_box.setChecked(True)
    wait_layout(qtbot, view)
    lay = view.graph_scene().layout
    assert view.session.direction == "LR" and lay.direction == "LR"
    assert lay.width > lay.height
    centre = {b.key: b.x + b.w / 2 for b in lay.boxes}
    ahead = sum(centre[e.dst] > centre[e.src] for e in lay.edges if not e.loop)
    assert ahead >= 0.8 * sum(1 for e in lay.edges if not e.loop)  # (the folded layers make a cycle)


def test_left_to_right_and_folding_are_in_the_view_menu_and_kept(qtbot, shared_worker):
    from autogradviz.app.services import settings
    from autogradviz.app.theme import ThemeManager
    from autogradviz.app.window.main_window import MainWindow

    theme = ThemeManager()
    try:
        first = MainWindow(theme_manager=theme, worker=shared_worker, start_worker=False, restore_autosave=False)
        qtbot.addWidget(first)
        assert first.session.direction == "TB" and first.session.fold_repeated
        assert first.chrome.actions["left_to_right"] in first.chrome.view_menu.actions()
        first.chrome.actions["left_to_right"].trigger()
        first.chrome.actions["fold_repeated"].trigger()
        assert first.session.direction == "LR" and not first.session.fold_repeated
        assert first.graph_view.tools.lr_box.isChecked() and not first.graph_view.tools.fold_box.isChecked()
        first.close()
        second = MainWindow(theme_manager=theme, worker=shared_worker, start_worker=False, restore_autosave=False)
        qtbot.addWidget(second)
        assert second.session.direction == "LR" and not second.session.fold_repeated
        assert second.chrome.actions["left_to_right"].isChecked()
        assert not second.chrome.actions["fold_repeated"].isChecked()
        assert second.session.layout_options()["direction"] == "LR"
        second.graph_view.tools.lr_box.setChecked(False)  # the toolbar changes the menu too
        assert not second.chrome.actions["left_to_right"].isChecked()
        second.close()
    finally:
        settings.put("graph/direction", "TB")
        settings.put("graph/fold_repeated", True)
        theme.deleteLater()
