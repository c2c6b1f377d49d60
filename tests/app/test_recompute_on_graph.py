"""The checkpoint recomputation animated on the graph itself, with the real
main window and the real worker running lessons 30 and 32: at each frame of
the recompute phase the node lit is the one the trace says the re-run op
makes again (and that node's op is the op's own: an independent check of the
link); the "not stored" ghosts fill in as their node's op re-runs and empty
once backward read them; the editor's arrow is on the `checkpoint(...)` line;
the stepper's handle walks the sub-ticks; a region holds exactly its segment
(geometry on the laid-out scene). And "Show saved tensors" draws tensors only
(shape and value), keeping lesson 1 taller than wide."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from PySide6.QtGui import QPainterPath

from autogradviz.app.graph.checkpoint_regions import drawn_box

from test_graph_support import wait_layout

LESSONS = Path(__file__).resolve().parents[2] / "resources" / "lessons"


def run_lesson(qtbot, w, name: str):
    w.editor.setPlainText((LESSONS / f"{name}.py").read_text(encoding="utf-8"))
    with qtbot.waitSignals([w.runFinished, w.graph_view.layoutFinished], timeout=90_000):
        w.run_script()
    wait_layout(qtbot, w.graph_view)
    assert w.session.trace.error is None, w.session.trace.error
    return w.session.trace


def call_line(name: str) -> int:
    """The lesson's first `checkpoint(` call line, read from its text."""
    lines = (LESSONS / f"{name}.py").read_text(encoding="utf-8").splitlines()
    return next(i for i, t in enumerate(lines, 1) if re.search(r"=\s*checkpoint\(", t))


def op_matches_node(op: str, node_op: str) -> bool:
    """"aten.addmm.default" made an "AddmmBackward0" node."""
    name = op.split(".")[1].rstrip("_").replace("_", "")
    return node_op.lower().startswith(name.lower()) and "Backward" in node_op


@pytest.fixture
def window(main_window, qtbot):
    main_window.resize(1400, 900)
    qtbot.waitExposed(main_window)
    return main_window


def walk_phase(w, r):
    """Every position from step r.step through its phase to r.step + 1:
    (frame or None, lit node, {ghost owner: fill}, timeline position, arrow line)."""
    overlay = w.graph_view.graph_scene().checkpoint_overlay
    w.session.set_step(r.step)
    seen = []
    while True:
        f = w.session.recompute.frame
        fills = {}
        for ghosts in overlay.placeholders.values():
            for g in ghosts:
                fills.setdefault(g.owner, set()).add(g.fill)
        lit = overlay.rerun.node_id if overlay.rerun is not None else None
        assert lit == overlay.lit_node()
        seen.append((f, lit, {k: v.pop() for k, v in fills.items() if len(v) == 1},
                     w.stepper.timeline.position(), w.editor.step_line))
        assert all(len(v) <= 1 for v in fills.values())  # one owner's tensors fill together
        if w.session.step > r.step:
            return seen
        w.stepper.go_forward()


def test_lesson_30_recompute_lights_each_op_fills_ghosts_moves_arrow_and_slider(window, qtbot):
    w = window
    trace = run_lesson(qtbot, w, "30_checkpoint_mlp")
    (c,) = trace.checkpoints
    (r,) = [r for r in c.recomputations if r.run == w.session.run_index]
    graph = trace.graph(c.graph)
    ops = {n.id: n.op for n in graph.nodes}
    # the trace ties each re-run op to the node it makes again, in the segment
    assert len(r.op_nodes) == len(r.ops) and r.early_stopped
    for op, nid in zip(r.ops, r.op_nodes):
        assert nid in c.nodes and op_matches_node(op, ops[nid]), (op, nid)
    stop = c.forward_op_nodes[len(r.ops)]  # torch stopped while saving for this op
    assert op_matches_node(c.forward_ops[len(r.ops)], ops[stop]) and stop == r.trigger
    owners = {g.owner for g in w.graph_view.graph_scene().checkpoint_overlay.placeholders[c.id]}
    assert owners and owners <= set(c.nodes)

    seen = walk_phase(w, r)
    before, frames, after = seen[0], seen[1:-1], seen[-1]
    assert before[0] is None and before[1] is None and set(before[2].values()) == {"empty"}
    # lit: nothing at the trigger frame, then each op's node, then the stop node
    assert [s[1] for s in frames] == [None, *r.op_nodes, stop]
    for f, _lit, fills, _pos, _line in frames:
        remade = set(r.op_nodes[:f.op_index]) | ({stop} if f.phase == "stopped" else set())
        assert fills == {o: "filled" if o in remade else "empty" for o in owners}, f.phase
    # the arrow on the checkpoint(...) call (the block's ops have no line of their own)
    assert {s[4] for s in frames} == {call_line("30_checkpoint_mlp")} == {c.line}
    # the slider walks the sub-ticks: strictly between the two steps, increasing
    pos = [s[3] for s in frames]
    assert before[3] == r.step and after[3] == r.step + 1
    assert all(r.step < p < r.step + 1 for p in pos) and pos == sorted(set(pos))
    # after the phase the trigger has read its tensors (emptied); the others wait for their steps
    assert after[2][r.trigger] == "used"
    assert all(after[2][o] == "filled" for o in owners - {r.trigger})
    w.session.set_step(w.session.step_count)
    overlay = w.graph_view.graph_scene().checkpoint_overlay
    assert {g.fill for g in overlay.placeholders[c.id]} == {"used"}
    # back to before the phase: nothing lit, nothing filled
    w.session.set_step(0)
    assert overlay.rerun is None and {g.fill for g in overlay.placeholders[c.id]} == {"empty"}


def test_regions_hold_exactly_their_segment(window, qtbot):
    """A region holds its segment's nodes and the parameters only they use
    (the checkpointed block's weights, in its module frames), nothing else:
    not the input `x`, no other node or leaf, not even a corner. And it
    never cuts a module frame's border: each frame is wholly inside the
    outline, wholly outside it, or holds the whole region."""
    w = window
    for name in ("30_checkpoint_mlp", "32_reentrant_vs_non_reentrant", "33_dropout_rng_state",
                 "34_selective_checkpoint"):
        trace = run_lesson(qtbot, w, name)
        scene = w.graph_view.graph_scene()
        overlay = scene.checkpoint_overlay
        graph = trace.graph(w.session.graph_id)
        nodes = {n.id: n for n in graph.nodes}
        drawn = [c for c in trace.checkpoints if c.graph == w.session.graph_id and c.nodes]
        assert drawn and set(overlay.regions) == {c.id for c in drawn}
        for c in drawn:
            users = {}
            for e in graph.edges:
                users.setdefault(e.src, set()).add(e.dst)
            # its own parameters, counted here from the graph: a leaf naming a module, used only inside
            own = {nid for nid, n in nodes.items() if n.kind == "leaf" and n.module and users.get(nid)
                   and users[nid] <= set(c.nodes)}
            path = overlay.regions[c.id].frame_path()
            for nid, items in scene.node_items.items():
                box = drawn_box(items[0])
                if nid in c.nodes or nid in own:
                    assert path.contains(box), (name, c.id, nid)
                else:  # no leaf, no node of the rest of the graph, not even a corner
                    assert not path.intersects(box), (name, c.id, nid)
            for g in overlay.placeholders[c.id]:
                assert path.contains(g.sceneBoundingRect().adjusted(1.5, 1.5, -1.5, -1.5))
            inputs = [n for n in nodes.values() if n.kind == "leaf" and not n.module
                      and users.get(n.id, set()) & set(c.nodes)]
            for n in inputs:  # the input x is drawn outside the region
                assert not path.intersects(drawn_box(scene.node_items[n.id][0])), (name, n.id)
            region = path.boundingRect()
            for frame in scene.group_items:
                r = frame.sceneBoundingRect()
                border = QPainterPath()
                border.addRect(r)
                whole = path.contains(r) or not path.intersects(border) or r.contains(region)
                assert whole, (name, c.id, frame.group.module, "the region cuts its frame")


def test_lesson_32_reentrant_rerun_lights_its_node(window, qtbot):
    w = window
    trace = run_lesson(qtbot, w, "32_reentrant_vs_non_reentrant")
    scene = w.graph_view.graph_scene()
    for c in [c for c in trace.checkpoints if c.recomputations]:
        (r,) = c.recomputations
        inner = {n.id: n.op for n in trace.graph(r.graph).nodes} if r.graph else {}
        made = {n.id: n.op for n in trace.graph(c.graph).nodes}
        for op, nid in zip(r.ops, r.op_nodes):
            assert op_matches_node(op, (inner if c.kind == "reentrant" else made)[nid]), (op, nid)
        seen = walk_phase(w, r)
        frames = [s for s in seen[1:-1] if s[0].phase == "rerun"]
        # reentrant: its inner graph is folded into the CheckpointFunctionBackward box, which stands for it
        want = [nid if nid in scene.node_items else c.nodes[0] for nid in r.op_nodes]
        assert [s[1] for s in frames] == want
        assert {s[4] for s in seen[1:-1]} == {c.line}
        assert seen[-1][3] == r.step + 1
        # the ghosts fill as their op re-runs (reentrant: owners are the inner graph's
        # nodes) and, for reentrant, empty as the nested backward reads them
        owners = {g.owner for g in scene.checkpoint_overlay.placeholders[c.id]}
        assert owners and owners <= set(r.op_nodes) | {None}
        for f, _lit, fills, _pos, _line in seen[1:-1]:
            read = set(f.inner_nodes[:f.inner_index])
            fills = {o: v for o, v in fills.items() if o in owners}  # (this checkpoint's)
            assert fills == {o: ("used" if o in read else "filled") if o in r.op_nodes[:f.op_index] else "empty"
                             for o in owners}, (c.id, f.phase, f.op_index, f.inner_index)
        if c.kind == "reentrant":  # after its step: read by the nested backward, freed
            assert {v for o, v in seen[-1][2].items() if o in owners} == {"used"}


def test_show_saved_tensors_draws_tensors_only_and_stays_vertical(window, qtbot):
    w = window
    trace = run_lesson(qtbot, w, "01_leaf_vs_nonleaf")
    view = w.graph_view
    with qtbot.waitSignal(view.layoutFinished, timeout=30_000):
        w.session.set_show_saved(True)
    wait_layout(qtbot, view)
    scene = view.graph_scene()
    saved = [it for it in scene.key_items.values() if it.box.kind == "saved"]
    graph = trace.graph(w.session.graph_id)
    tensors = {(n.id, sv.name) for n in graph.nodes for sv in n.saved if sv.tensor is not None}
    others = {sv.name for n in graph.nodes for sv in n.saved if sv.tensor is None}
    assert saved and tensors
    for it in saved:
        owner = it.box.node
        text = "\n".join(it.box.lines)
        names = {name for nid, name in tensors if nid == owner}
        assert names and all(f"{name} (" in text for name in names)  # name, shape...
        assert not any(line.split(" ")[0] in others - names for line in it.box.lines)
    # ...and the value read: lesson 1's saved tensors are small, their numbers are in the box
    assert any(re.search(r"\d\.\d", line) for it in saved for line in it.box.lines[1:])
    # the non-tensor attributes (pow's exponent) are in the Inspector instead
    owner = next(n for n in graph.nodes if any(sv.tensor is None and sv.value is not None for sv in n.saved))
    w.session.select_node(owner.id)
    shown = w.panels.widget("inspector").saved_label.text()
    assert all(sv.name in shown for sv in owner.saved if sv.tensor is None and sv.value is not None)
    boxes = [drawn_box(items[0]) for items in scene.node_items.values() if items] + [drawn_box(it) for it in saved]
    whole = boxes[0]
    for b in boxes[1:]:
        whole = whole.united(b)
    assert whole.height() > whole.width()


OWN_LINES = """\
import torch
from torch.utils.checkpoint import checkpoint

def block(t):
    u = torch.sin(t)
    v = u * t
    return v.exp()

x = torch.randn(3, requires_grad=True)
h = checkpoint(block, x, use_reentrant=False)
(h * 2).sum().backward()
"""


def test_arrow_follows_the_segments_own_lines_as_they_re_run(window, qtbot):
    """A function of the script's: the arrow is on the `checkpoint(...)` line
    while nothing re-runs yet, then on each line of the function as its op re-runs."""
    w = window
    w.editor.setPlainText(OWN_LINES)
    with qtbot.waitSignals([w.runFinished, w.graph_view.layoutFinished], timeout=90_000):
        w.run_script()
    wait_layout(qtbot, w.graph_view)
    (c,) = w.session.trace.checkpoints
    (r,) = c.recomputations
    assert c.line == 10
    seen = walk_phase(w, r)
    lines = [(s[0].phase, s[4]) for s in seen[1:-1]]
    assert lines[0] == ("trigger", 10)
    rerun = [line for phase, line in lines if phase == "rerun"]
    # sin (line 5), mul (line 6), exp (line 7): in the order the ops re-ran
    want = [w.session.node(n).line if n else 10 for n in r.op_nodes]
    assert rerun == want and {5, 6, 7} <= set(rerun)


@pytest.mark.parametrize("size", [(1600, 1000), (1280, 800)])
def test_the_phase_panel_and_every_label_stay_in_the_fitted_view(main_window, qtbot, size):
    """Lesson 30 at the default framing, at both window sizes: through the
    recompute phase the ops panel sits inside what the picture already
    drew (showing it moves no view) and every box, module frame and the
    region stay in view; at every step each gradient label and callout
    shown is in view too (the view widens once for them rather than
    cutting one at the edge)."""
    w = main_window
    w.resize(*size)
    qtbot.waitExposed(w)
    trace = run_lesson(qtbot, w, "30_checkpoint_mlp")
    (c,) = trace.checkpoints
    (r,) = [r for r in c.recomputations if r.run == w.session.run_index]
    view, scene = w.graph_view, w.graph_view.graph_scene()
    overlay = scene.checkpoint_overlay

    def out_of_view(rects):
        vis = view.visible_scene_rect().adjusted(-1, -1, 1, 1)
        return [r for r in rects if not vis.contains(r)]

    def graph_rects():
        return ([drawn_box(v[0]) for v in scene.node_items.values() if v]
                + [g.sceneBoundingRect() for g in scene.group_items]
                + [reg.sceneBoundingRect() for reg in overlay.regions.values()])

    def label_rects():
        return [lab.mapRectToScene(lab._rect) for lab in (*scene.grad_labels.values(), *scene.callouts.values())
                if lab.isVisible() and lab.parentItem() is not None and lab.parentItem().isVisible()]

    w.session.set_step(r.step)
    panels = 0
    while w.session.step == r.step:
        w.stepper.go_forward()
        if overlay.panel is None:
            continue
        panels += 1
        panel = overlay.panel.mapRectToScene(overlay.panel._rect)
        # inside what was drawn without it (so showing it moved no view)
        drawn = [it.sceneBoundingRect() for it in scene.items() if it is not overlay.panel and it.isVisible()
                 and it.parentItem() is not overlay.panel]
        assert _union(drawn).contains(panel), panel
        assert not out_of_view(graph_rects() + [panel]), (size, w.session.recompute.frame)
    assert panels >= 4
    for k in range(w.session.step_count + 1):
        w.session.set_step(k)
        assert not out_of_view(graph_rects()), (size, k)
        assert not out_of_view(label_rects()), (size, k, out_of_view(label_rects()))


def _union(rects):
    from PySide6.QtCore import QRectF

    out = QRectF()
    for r in rects:
        out = out.united(r)
    return out
