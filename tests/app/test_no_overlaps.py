"""No overlaps in the graph (issue 18): every lesson, at the start, middle
and end of its first backward run, and a 300-step RNN, drawn by the real
scene in light and dark, in English and zh_CN, has no two texts or boxes on
top of each other: node boxes (with their text and R/H badges), edge
gradient labels, `.grad` and hook callouts, module frame titles, loop
badges ("×300"), checkpoint region title tabs and "not stored" ghosts; and
none of them crosses a module frame's border (a text half in a frame and
half out of it reads as the frame's, or is cut by its line).

The rectangles are measured from the items as Qt draws them, not from the
placement code's own bookkeeping: a label's box (`sceneBoundingRect` of
what it paints), each text line's bounding rectangle as QFontMetricsF lays
it out in the rectangle the item draws it in (clipped like drawText clips),
QGraphicsSimpleTextItem badges by their `sceneBoundingRect`; every
rectangle shrunk by 1 px of tolerance. One warm worker runs every lesson
once (module fixture), as tests/app/test_export_screen.py does.
"""

from __future__ import annotations


import pytest

from autogradviz.engine.layout import LayoutOptions, layout_graph

RNN_300 = """\
import torch
import torch.nn as nn
torch.manual_seed(0)
STEPS = 300
cell = nn.RNNCell(16, 32)
xs = torch.randn(STEPS, 4, 16)
h = torch.zeros(4, 32)
for t in range(STEPS):
    h = cell(xs[t], h)
loss = h.pow(2).mean()
loss.backward()
"""


@pytest.fixture(scope="module")
def traces(lesson_traces):
    """Every lesson (shared with the export tests) and a 300-step RNN."""
    from autogradviz.engine.protocol.client import WorkerClient

    out = dict(lesson_traces)
    with WorkerClient() as client:
        client.start()
        res = client.run(RNN_300, filename="/tmp/rnn_300.py", timeout=300)
    assert res.trace is not None and res.trace.backward_runs
    out["rnn_300"] = res.trace
    return out


# The pictures drawn: as the app draws a new trace (its session's layout
# options: rolled modules as their first call with a loop "×N"), and with
# every module group expanded (frames, titles, the RNN's loop badge).
PICTURES = {"app": {}, "expanded": {"collapsed": set()}}


def _scene(trace, theme="light", picture="app"):
    from autogradviz.app.graph.scene import GraphScene
    from autogradviz.app.graph.style import style_for
    from autogradviz.app.session import TraceSession

    run = trace.backward_runs[0]
    graph = trace.graph(run.graph)
    scene = GraphScene(None, style_for(theme))
    scene.trace = trace
    options = {**TraceSession().layout_options(), **PICTURES[picture]}
    scene.set_graph(graph, layout_graph(graph, LayoutOptions(**options)))
    return scene


def _steps(trace):
    from autogradviz.engine.trace import replay

    n = replay.step_count(trace, 0)
    return sorted({1, max(1, n // 2), n}) if n else [0]


def _text_rect(font, rect, flags, text, item):
    """Where Qt draws `text` in `rect` (item coordinates), clipped to it as
    QPainter.drawText clips, in scene coordinates."""
    from PySide6.QtGui import QFontMetricsF

    r = QFontMetricsF(font).boundingRect(rect, int(flags), text).intersected(rect)
    return item.mapRectToScene(r)


def drawn_rects(scene):
    """[(owner, what, QRectF in the scene)] of every text and box drawn."""
    from PySide6.QtCore import QRectF, Qt
    from PySide6.QtGui import QFontMetricsF
    from PySide6.QtWidgets import QGraphicsSimpleTextItem

    from autogradviz.app.graph.group_text import display_lines
    from autogradviz.app.graph.items import GroupFrameItem

    st = scene.style
    out = []
    for item in scene.key_items.values():
        if not item.isVisible():
            continue
        owner = ("node", item.key)
        r = item._rect
        out.append((owner, "box", item.mapRectToScene(r)))
        lines = display_lines(item.box.kind, item.box.lines or [])
        lh = QFontMetricsF(st.font()).height()
        top = r.top() + (r.height() - lh * len(lines)) / 2
        for i, line in enumerate(lines):
            rect = QRectF(r.left() + 2, top + i * lh, r.width() - 4, lh)
            out.append((owner, "text", _text_rect(st.font(bold=i == 0), rect, Qt.AlignCenter, line, item)))
        bx = r.right() - 2
        for flag in (item.hooks, item.retain):
            if flag:
                out.append((owner, "badge", item.mapRectToScene(QRectF(bx - 14, r.top() - 8, 16, 16))))
                bx -= 18
    for lab in list(scene.grad_labels.values()) + list(scene.callouts.values()):
        if lab.isVisible() and lab.parentItem() is not None and lab.parentItem().isVisible():
            out.append((("label", id(lab)), lab.kind, lab.mapRectToScene(lab._rect)))
    for item in scene.items():
        if isinstance(item, GroupFrameItem) and item.isVisible():
            rect = item.title_rect().adjusted(6, 1, -4, 0)
            title = item.shown_title() if hasattr(item, "shown_title") else "▾ " + item.title
            out.append((("frame", id(item)), "frame title",
                        _text_rect(st.small_font(bold=True), rect, Qt.AlignLeft | Qt.AlignVCenter, title, item)))
            out += [(("frame", id(item)), "frame border", band) for band in _border_bands(item)]
        elif isinstance(item, QGraphicsSimpleTextItem) and item.isVisible():
            out.append((("badge", id(item)), "loop badge", item.sceneBoundingRect()))
    ov = scene.checkpoint_overlay
    for region in ov.regions.values():
        out.append((("region", id(region)), "region tab", region.mapRectToScene(region.label_rect())))
    for ghosts in ov.placeholders.values():
        for g in ghosts:
            if g.isVisible():
                out.append((("ghost", id(g)), "not stored", g.sceneBoundingRect()))
    return out


def _border_bands(frame):
    """A module frame's outline as four 3 px bands along its sides (scene
    coordinates; after the 1 px tolerance, the 1 px line itself): a text or
    box that crosses the border meets one of them, one wholly inside or
    outside the frame does not."""
    from PySide6.QtCore import QRectF

    r = frame.mapRectToScene(frame._rect)
    return [QRectF(r.left() - 1.5, r.top(), 3, r.height()), QRectF(r.right() - 1.5, r.top(), 3, r.height()),
            QRectF(r.left(), r.top() - 1.5, r.width(), 3), QRectF(r.left(), r.bottom() - 1.5, r.width(), 3)]


def overlaps(scene, extra=()):
    """Pairs of drawn rectangles (and `extra` ones) of different owners that
    intersect by more than 1 px on each side: [(what, text, what, text)]."""
    rects = [(o, w, r.adjusted(1, 1, -1, -1)) for o, w, r in [*drawn_rects(scene), *extra]]
    rects = [x for x in rects if x[2].width() > 0 and x[2].height() > 0]
    cell = 100.0
    grid: dict = {}
    for i, (_, _, r) in enumerate(rects):
        for cx in range(int(r.left() // cell), int(r.right() // cell) + 1):
            for cy in range(int(r.top() // cell), int(r.bottom() // cell) + 1):
                grid.setdefault((cx, cy), []).append(i)
    seen, out = set(), []
    for idxs in grid.values():
        for a in idxs:
            for b in idxs:
                if a >= b or (a, b) in seen:
                    continue
                seen.add((a, b))
                (oa, wa, ra), (ob, wb, rb) = rects[a], rects[b]
                if oa != ob and ra.intersects(rb):
                    out.append((wa, _describe(scene, oa), wb, _describe(scene, ob)))
    return out


def _describe(scene, owner):
    kind, key = owner
    if kind == "node":
        item = scene.key_items.get(key)
        return " ".join(item.box.lines or [key]) if item is not None else key
    if kind == "label":
        for lab in list(scene.grad_labels.values()) + list(scene.callouts.values()):
            if id(lab) == key:
                return " / ".join(lab.lines)
    return kind


def _count_all(traces, theme="light"):
    from autogradviz.engine.trace import replay

    found = {}
    for name, trace in traces.items():
        for picture in PICTURES:
            scene = _scene(trace, theme, picture)
            try:
                for k in _steps(trace):
                    scene.apply_step(replay.state_at(trace, 0, k))
                    bad = overlaps(scene)
                    if bad:
                        found[f"{name} ({picture}) step {k}"] = bad
            finally:
                scene.clear()
    return found


def _report(found) -> str:
    n = sum(len(v) for v in found.values())
    lines = [f"{n} overlaps in {len(found)} pictures"]
    for where, bad in list(found.items())[:25]:
        lines.append(f"  {where}: {bad[:3]}")
    return "\n".join(lines)


def test_no_overlaps_in_any_lesson_at_three_steps(qapp, traces):
    assert len(traces) >= 20
    found = _count_all(traces)
    assert not found, _report(found)


def test_no_overlaps_dark(qapp, traces):
    found = _count_all(traces, "dark")
    assert not found, _report(found)


def test_no_overlaps_in_zh_cn(qapp, traces):
    from autogradviz.app import i18n

    assert i18n.set_language("zh_CN", save=False)
    try:
        found = _count_all(traces)
    finally:
        i18n.set_language("en", save=False)
    assert not found, _report(found)


def test_a_label_with_no_free_place_beside_goes_on_a_leader_line_else_off_the_picture(qapp, traces):
    """Every place beside the edges and boxes taken: the labels go farther
    out on a leader line to their edge or box, clear of what is there; the
    whole scene taken: no label is drawn at all (its text stays in the
    edge's tooltip and in `placer.unplaced`), never one over another."""
    from PySide6.QtCore import QRectF

    from autogradviz.engine.trace import replay

    trace = traces["01_leaf_vs_nonleaf"]
    n = replay.step_count(trace, 0)
    scene = _scene(trace)
    try:
        scene.apply_step(replay.state_at(trace, 0, n))
        shown = [lab for lab in list(scene.grad_labels.values()) + list(scene.callouts.values()) if lab.isVisible()]
        assert len(shown) >= 4
        bounds = QRectF()
        for item in scene.key_items.values():
            bounds = bounds.united(item.sceneBoundingRect())
        bounds = bounds.adjusted(-60, -60, 60, 60)
        scene.placer.add_static(("test", "around the graph"), bounds)  # as if drawn there
        scene.apply_step(replay.state_at(trace, 0, 0))
        scene.apply_step(replay.state_at(trace, 0, n))
        shown = [lab for lab in list(scene.grad_labels.values()) + list(scene.callouts.values()) if lab.isVisible()]
        assert len(shown) >= 4
        for lab in shown:
            assert not lab.sceneBoundingRect().intersects(bounds), lab.lines
            a, b = lab.leader_line()
            assert lab.sceneBoundingRect().adjusted(-3, -3, 3, 3).contains(a)
            assert bounds.contains(b)  # on its edge or box, inside the taken area
        assert not overlaps(scene)
        scene.placer.add_static(("test", "everywhere"), QRectF(-1e5, -1e5, 2e5, 2e5))
        scene.apply_step(replay.state_at(trace, 0, 0))
        scene.apply_step(replay.state_at(trace, 0, n))
        assert not [lab for lab in scene.grad_labels.values() if lab.isVisible()]
        assert len(scene.placer.unplaced) >= 4
        edges = {e.pos_index: e for e in scene.edge_items}
        hidden = [pos for pos, lab in scene.grad_labels.items() if lab in scene.placer.unplaced]
        assert hidden
        for pos in hidden:
            assert "Gradient flowing backward along this edge" in edges[pos].toolTip()
    finally:
        scene.clear()


def test_labels_with_no_room_are_said_in_the_step_caption(qtbot, traces):
    """The stepper's caption names what the graph had no room for, and
    stops once there is room again (GraphScene.unplacedChanged, wired as
    the main window does)."""
    from PySide6.QtCore import QRectF

    from autogradviz.app.panels.stepper import StepperPanel
    from autogradviz.app.session import TraceSession

    trace = traces["01_leaf_vs_nonleaf"]
    session = TraceSession()
    stepper = StepperPanel(session)
    qtbot.addWidget(stepper)
    scene = _scene(trace)
    scene.unplacedChanged.connect(stepper.set_unplaced)
    try:
        session.set_trace(trace)
        n = session.step_count
        session.set_step(n)
        scene.apply_step(session.state)
        assert "No room on the graph" not in stepper.step_label.text()
        scene.placer.add_static(("test", "everywhere"), QRectF(-1e5, -1e5, 2e5, 2e5))
        session.set_step(0)
        scene.apply_step(session.state)
        session.set_step(n)
        scene.apply_step(session.state)
        caption = stepper.step_label.text()
        assert "No room on the graph for:" in caption
        assert "x.grad =" in caption and "y.grad (retained) =" in caption
        scene.placer.static.remove(("test", "everywhere"))
        session.set_step(0)
        scene.apply_step(session.state)
        assert "No room on the graph" not in stepper.step_label.text()
    finally:
        scene.clear()


def test_no_overlaps_during_the_recompute_phases(qapp, traces):
    """The checkpoint lessons' recompute frames (the region lit, the node
    re-running, the ghosts filling, the ops panel beside the region): the
    panel is one more box that nothing may cover, nor it anything."""
    from autogradviz.app.graph import recompute_frames
    from autogradviz.engine.trace import replay

    frames, found = 0, {}
    for name, trace in traces.items():
        if not getattr(trace, "checkpoints", None):
            continue
        for picture in PICTURES:
            scene = _scene(trace, "light", picture)
            overlay = scene.checkpoint_overlay
            try:
                for k, frame in recompute_frames.sequence(trace, 0, replay.step_count(trace, 0)):
                    if frame is None:
                        continue
                    scene.apply_step(replay.state_at(trace, 0, k))
                    overlay.show_frame(frame)
                    frames += 1
                    panel = overlay.panel
                    extra = [] if panel is None else [(("panel", 0), "ops panel", panel.mapRectToScene(panel._rect))]
                    bad = overlaps(scene, extra)
                    if bad:
                        found[f"{name} ({picture}) step {k} frame {frame.sub}"] = bad
            finally:
                overlay.show_frame(None)
                scene.clear()
    assert frames >= 20
    assert not found, _report(found)
