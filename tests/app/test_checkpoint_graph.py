"""Checkpoint segments on the graph and the recompute phase, with the real
worker: a region per recorded checkpoint, one "not stored" placeholder per
activation the segment did not store (counted here, independently, with
torch's saved_tensors_hooks on the same block run without checkpoint),
stepping through a recompute lights the region exactly when the trace says
(ops in the recorded order, forward and back), the exports draw the region
and the GIF has the recompute frames."""

from __future__ import annotations

import pytest
import torch
from PIL import Image

from autogradviz.app.export import render as ex
from autogradviz.app.graph.checkpoint_regions import drawn_box, region_title
from autogradviz.app.graph.recompute_frames import MAX_OP_FRAMES

from test_graph_support import wait_layout

MLP = """\
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
block = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Dropout(0.25), nn.Linear(8, 4))
head = nn.Linear(4, 1)
x = torch.randn(2, 4, requires_grad=True)
h = checkpoint(block, x, use_reentrant=False)
loss = head(torch.tanh(h)).sum()
loss.backward()
"""

REENTRANT = """\
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
blocks = nn.ModuleList([nn.Sequential(nn.Linear(3, 3), nn.Tanh()) for _ in range(2)])
x = torch.randn(2, 3, requires_grad=True)
h = x * 2
for b in blocks:
    h = checkpoint(b, h, use_reentrant=True)
h.sum().backward()
"""


def saved_count(make_block, x) -> int:
    """Tensors the block saves for backward, run plainly (no checkpoint)."""
    n = [0]

    def pack(t):
        n[0] += 1
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        make_block()(x)
    return n[0]


def run_in(qtbot, w, source):
    w.editor.setPlainText(source)
    with qtbot.waitSignals([w.runFinished, w.graph_view.layoutFinished], timeout=60_000):
        w.run_script()
    wait_layout(qtbot, w.graph_view)
    assert w.session.trace.error is None, w.session.trace.error
    return w.session.trace


def expected_frames(r) -> int:
    """Frames of one recomputation, from its record: the trigger, each op
    (at most MAX_OP_FRAMES), the early stop, each nested backward step."""
    return 1 + min(len(r.ops), MAX_OP_FRAMES) + int(r.early_stopped) + len(r.steps)


@pytest.fixture
def window(main_window, qtbot):
    main_window.resize(1300, 900)
    qtbot.waitExposed(main_window)
    return main_window


def test_non_reentrant_region_placeholders_phase_and_exports(window, qtbot, tmp_path):
    w = window
    tr_ = run_in(qtbot, w, MLP)
    scene = w.graph_view.graph_scene()
    overlay = scene.checkpoint_overlay
    (c,) = tr_.checkpoints
    assert set(overlay.regions) == {"c1"}
    region = overlay.regions["c1"]
    assert region.title == region_title(1, c) == "checkpoint 1 · non-reentrant · block"
    # the region holds every drawn node of the segment, inside its frame
    # (the hull around them) and not only its bounding rectangle
    for nid in c.nodes:
        assert _inside(region, drawn_box(scene.node_items[nid][0]))
    # ...and no node outside the segment has its centre inside the frame
    # its title covers no node outside it
    outside = [items[0].sceneBoundingRect() for nid, items in scene.node_items.items() if nid not in c.nodes]
    assert not any(region.label_rect().intersects(r) for r in outside)
    ops = {n.id for n in tr_.graph(c.graph).nodes if n.kind != "leaf"}
    for nid, items in scene.node_items.items():
        if nid not in c.nodes and nid in ops:
            assert not region.frame_path().contains(drawn_box(items[0]).center()), nid

    # placeholders: one per tensor the block saves, counted by torch here
    def block():
        torch.manual_seed(0)
        import torch.nn as nn
        return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Dropout(0.25), nn.Linear(8, 4))
    want = saved_count(block, torch.randn(2, 4, requires_grad=True))
    assert want > 0 and len(overlay.placeholders["c1"]) == want

    # stepping: the region is lit exactly between step r.step and r.step + 1
    (r,) = c.recomputations
    n = w.session.step_count
    stepper = w.stepper
    w.session.set_step(0)
    seen = []  # (session step, lit?, op shown)
    guard = 0
    while True:
        f = w.session.recompute.frame
        seen.append((w.session.step, region.active, f.current_op if f else None, f.phase if f else None))
        assert region.active is (f is not None)
        assert (overlay.ring is not None) is (f is not None)
        if w.session.step >= n:
            break
        stepper.go_forward()
        guard += 1
        assert guard < 500
    lit = [s for s in seen if s[1]]
    assert len(lit) == expected_frames(r)
    assert {s[0] for s in lit} == {r.step}
    # ops re-run in the recorded order, then the early stop
    assert [s[2] for s in lit if s[3] == "rerun"] == list(r.ops)
    assert [s[3] for s in lit][-1] == ("stopped" if r.early_stopped else "rerun")
    assert len(seen) == n + 1 + expected_frames(r)
    # and back: the same positions in reverse
    back = []
    while True:
        f = w.session.recompute.frame
        back.append((w.session.step, region.active, f.current_op if f else None, f.phase if f else None))
        if w.session.step == 0 and f is None:
            break
        stepper.go_back()
    assert back == seen[::-1]
    # Play animates forward -> backward -> recompute -> backward: every frame, in order
    frames = []
    w.session.recompute.changed.connect(lambda f: frames.append(f))
    w.session.set_step(0)
    stepper.speed.setValue(20)
    stepper.toggle_play()
    qtbot.waitUntil(lambda: not stepper.is_playing(), timeout=20_000)
    assert w.session.step == n
    shown = [f for f in frames if f is not None]
    assert [(f.phase, f.current_op) for f in shown] == [(s[3], s[2]) for s in lit]
    # scrubbing elsewhere leaves the phase
    w.session.recompute.enter(r.step, 2)
    assert region.active
    w.session.set_step(n)
    assert not region.active and w.session.recompute.frame is None

    # exports draw the region; the GIF has the recompute frames
    svg = tmp_path / "g.svg"
    ex.export_scene(scene, str(svg), "svg")
    assert "checkpoint 1 · non-reentrant · block" in svg.read_text(encoding="utf-8")
    gif = tmp_path / "g.gif"
    info = ex.write_gif(scene, tr_, 0, str(gif))
    with Image.open(gif) as im:
        assert im.n_frames == info.frames == n + expected_frames(r)


def test_reentrant_regions_and_nested_backward_frames(window, qtbot):
    w = window
    tr_ = run_in(qtbot, w, REENTRANT)
    overlay = w.graph_view.graph_scene().checkpoint_overlay
    assert set(overlay.regions) == {"c1", "c2"}
    for k, c in enumerate(tr_.checkpoints, 1):
        assert overlay.regions[c.id].title == f"checkpoint {k} · reentrant · blocks.{k - 1}"
        # not stored: what the re-run's inner graph saved; counted by torch here
        lin = torch.nn.Linear(3, 3)
        want = saved_count(lambda: torch.nn.Sequential(lin, torch.nn.Tanh()), torch.randn(2, 3, requires_grad=True))
        assert len(overlay.placeholders[c.id]) == want
    # the re-runs' inner graphs are not offered as graphs of their own
    combo = w.stepper.run_combo
    assert [combo.itemData(i) for i in range(combo.count())] == [0]
    # the phase of each checkpoint ends with its nested backward, node by node
    for c in tr_.checkpoints:
        (r,) = c.recomputations
        w.session.recompute.enter(r.step, 0)
        inner = []
        while w.session.recompute.frame is not None:
            f = w.session.recompute.frame
            assert overlay.regions[c.id].active and f.checkpoint == c.id
            if f.phase == "inner":
                inner.append(f.inner_nodes[f.inner_index - 1])
            w.stepper.go_forward()
        assert inner == [s.node for s in r.steps] and inner
        assert w.session.step == r.step + 1


def test_reentrant_node_expands_into_its_inner_graph(window, qtbot):
    w = window
    tr_ = run_in(qtbot, w, REENTRANT)
    view = w.graph_view
    c = tr_.checkpoints[1]
    (r,) = c.recomputations
    inner = tr_.graph(r.graph)
    assert not any(n.id in view.graph_scene().node_items for n in inner.nodes)
    # a click on the region's title asks for it (the view's toggle), and the
    # picture then holds every node of the graph the re-run built, in the region
    with qtbot.waitSignal(view.layoutFinished, timeout=30_000):
        view.graph_scene().checkpoint_overlay.on_toggle(c.id)
    wait_layout(qtbot, view)
    scene = view.graph_scene()
    assert w.session.expanded_checkpoints == {c.id}
    region = scene.checkpoint_overlay.regions[c.id]
    assert region.expanded
    for n in inner.nodes:
        (item,) = scene.node_items[n.id]
        assert _inside(region, drawn_box(item))
    # the nested backward lights the inner nodes in the recorded order
    w.session.recompute.enter(r.step, 0)
    while w.session.recompute.frame is not None:
        f = w.session.recompute.frame
        if f.phase == "inner":
            current = [nid for nid in f.inner_nodes if scene.node_items[nid][0].status == "current"]
            assert current == [r.steps[f.inner_index - 1].node]
        w.stepper.go_forward()
    # outside the phase the inner nodes carry no step status
    assert all(scene.node_items[n.id][0].status is None for n in inner.nodes)


def _inside(region, rect) -> bool:
    """All of `rect` within the region's frame (the outline, not its bounding rectangle)."""
    return region.frame_rect().contains(rect) and region.frame_path().contains(rect)


def test_cli_export_draws_the_regions(tmp_path):
    """`autogradviz export script.py -o x.svg` (the real CLI and worker)
    draws each checkpoint's region with its title."""
    import os
    import subprocess
    import sys

    script = tmp_path / "ckpt.py"
    script.write_text(REENTRANT, encoding="utf-8")
    out = tmp_path / "x.svg"
    p = subprocess.run([sys.executable, "-m", "autogradviz", "export", str(script), "-o", str(out)],
                       capture_output=True, text=True, timeout=240,
                       env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert p.returncode == 0, p.stderr
    svg = out.read_text(encoding="utf-8")
    for k in (1, 2):
        assert f"checkpoint {k} · reentrant · blocks.{k - 1}" in svg
    assert svg.count('<g class="checkpoint-region"') == 2  # semantic: one group per region


def test_timeline_marks_each_recompute_where_the_trace_says(window, qtbot):
    """The stepper's timeline gets one amber mark per recomputation of the
    shown run, half-way between the trigger step's ticks, and its tooltip
    names the checkpoint and the ops it re-ran, as the trace records them."""
    w = window
    trace = run_in(qtbot, w, REENTRANT)
    stepper = w.panels.widget("stepper")
    marks = stepper.marks  # the checkpoint feature's (app/features/checkpoint.py)
    recs = [(k, c, r) for k, c in enumerate(trace.checkpoints, 1) for r in c.recomputations
            if r.run == w.session.run_index]
    assert len(recs) == 2  # two reentrant blocks, each re-run once
    triangles = [m.position for m in marks.of("checkpoint") if m.kind == "above"]
    assert sorted(triangles) == sorted(r.step + 0.5 for _, _, r in recs)
    ticks = [m for m in marks.of("checkpoint") if m.kind == "tick"]  # one per recompute frame
    assert len(ticks) == sum(expected_frames(r) for _, _, r in recs)
    assert marks.overlay.isVisible()
    for k, c, r in recs:
        text = marks.text_near(stepper.timeline._x(r.step + 0.5))
        assert f"Checkpoint {k}" in text and f"{len(r.ops)} op(s)" in text
    assert marks.text_near(stepper.timeline._x(0)) == ""  # no mark at the first tick
    run_in(qtbot, w, "import torch\nx = torch.ones(2, requires_grad=True)\n(x * 3).sum().backward()\n")
    assert marks.of("checkpoint") == [] and not marks.overlay.isVisible()
