"""Exports are the screen: every lesson, at the start, middle and end of its
first backward run, exported as SVG holds exactly the scene's drawn items
(boxes with their text, state and badges, edges with their state, gradient
labels and callouts with their text); rasters hold every callout (bounds)
and honour the scale (PNG and GIF); the CLI's `--step N` draws the app's
picture at step N.

One warm worker runs every lesson once (module fixture), as
tests/engine/test_lessons_in_worker.py does.
"""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from autogradviz.engine.layout import LayoutOptions, layout_graph

NS = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def traces(lesson_traces):
    return lesson_traces


def _scene(trace, theme="light"):
    from autogradviz.app.graph.scene import GraphScene
    from autogradviz.app.graph.style import style_for

    run = trace.backward_runs[0]
    graph = trace.graph(run.graph)
    scene = GraphScene(None, style_for(theme))
    scene.trace = trace
    scene.set_graph(graph, layout_graph(graph, LayoutOptions()))
    return scene


def _steps(trace):
    from autogradviz.engine.trace import replay

    n = replay.step_count(trace, 0)
    return sorted({1, max(1, n // 2), n}) if n else [0]


def scene_items(scene):
    """What the scene draws: {node id: (classes, texts)}, {edge id: classes},
    sorted [(kind, lines)] of labels and callouts."""
    from autogradviz.app.export.scene_svg import edge_classes, node_classes, visible_labels
    from autogradviz.app.graph.group_text import display_lines
    from autogradviz.engine.layout.svg_export import _id

    roots = set(scene.graph.roots)
    nodes = {}
    for item in scene.key_items.values():
        if not item.isVisible():
            continue
        badges = (["H"] if item.hooks else []) + (["R"] if item.retain else [])
        nodes[_id("node-", item.key)] = (node_classes(item, roots),
                                          tuple(display_lines(item.box.kind, item.box.lines or [])) + tuple(badges))
    edges = {f"edge-{e.pos_index}": edge_classes(e) for e in scene.edge_items if e.isVisible()}
    labels = sorted((lab.kind, tuple(lab.lines)) for _, lab in visible_labels(scene))
    return nodes, edges, labels


def svg_items(path):
    root = ET.parse(path).getroot()
    nodes, edges, labels = {}, {}, []
    for g in root.iter(NS + "g"):
        cls = g.get("class", "").split()
        if not cls:
            continue
        if cls[0] == "node":
            texts = [t.text or "" for t in g.iter(NS + "text")]
            nodes[g.get("id")] = (" ".join(cls), tuple(texts))
        elif cls[0] == "edge":
            edges[g.get("id")] = " ".join(cls)
        elif cls[0] == "label":
            labels.append((cls[1], tuple(t.text or "" for t in g.iter(NS + "text"))))
    return nodes, edges, sorted(labels)


def test_svg_of_every_lesson_at_three_steps_is_the_screen(qapp, traces, tmp_path):
    from autogradviz.app.export import render as ex
    from autogradviz.app.export.scene_svg import visible_labels
    from autogradviz.engine.trace import replay

    assert len(traces) >= 20
    callouts_seen = 0
    for name, trace in traces.items():
        scene = _scene(trace)
        try:
            for k in _steps(trace):
                scene.apply_step(replay.state_at(trace, 0, k))
                out = tmp_path / f"{name}-{k}.svg"
                ex.export_scene(scene, str(out))
                want = scene_items(scene)
                got = svg_items(out)
                assert got[0] == want[0], f"{name} step {k}: boxes differ"
                assert got[1] == want[1], f"{name} step {k}: edges differ"
                assert got[2] == want[2], f"{name} step {k}: labels/callouts differ"
                callouts_seen += sum(1 for kind, _ in want[2] if kind != "grad")
                # the export's bounds hold every callout and label (nothing cut off)
                rect = ex.content_rect(scene)
                for _, lab in visible_labels(scene):
                    assert rect.contains(lab.sceneBoundingRect()), f"{name} step {k}: {lab.lines} cut off"
        finally:
            scene.clear()
    assert callouts_seen > 20


def test_lesson1_step4_png_holds_the_retained_callout_and_scale(qapp, traces, tmp_path):
    from PIL import Image

    from autogradviz.app.export import render as ex
    from autogradviz.app.export.scene_svg import visible_labels
    from autogradviz.engine.trace import replay

    trace = traces["01_leaf_vs_nonleaf"]
    scene = _scene(trace)
    n = replay.step_count(trace, 0)
    scene.apply_step(replay.state_at(trace, 0, min(4, n)))
    shown = [lab for _, lab in visible_labels(scene)]
    assert any("(retained)" in line for lab in shown for line in lab.lines)
    rect = ex.content_rect(scene)
    for lab in shown:
        assert rect.contains(lab.sceneBoundingRect())
    for scale in (1.0, 2.0):
        out = tmp_path / f"s{scale}.png"
        info = ex.export_scene(scene, str(out), scale=scale)
        assert Image.open(out).size == (info.width, info.height)
        assert abs(info.width - rect.width() * scale) <= 1
        assert abs(info.height - rect.height() * scale) <= 1
    # GIF: the scale is honoured (was capped at 1), every frame holds the last frame's callouts
    sizes = {}
    for scale in (1.0, 2.0):
        out = tmp_path / f"s{scale}.gif"
        ex.export_scene(scene, str(out), scale=scale, trace=trace, run_index=0)
        sizes[scale] = Image.open(out).size
    assert abs(sizes[2.0][0] - 2 * sizes[1.0][0]) <= 2
    scene.apply_step(replay.state_at(trace, 0, n))
    last = ex.content_rect(scene)
    assert sizes[1.0][0] >= round(last.width()) and sizes[1.0][1] >= round(last.height())


def test_cli_step_svg_is_the_app_picture(qapp, traces, tmp_path):
    from autogradviz.app.export import render as ex
    from autogradviz.engine.trace import replay

    trace = traces["01_leaf_vs_nonleaf"]
    saved = tmp_path / "t.json"
    saved.write_text(trace.to_json(), encoding="utf-8")
    n = replay.step_count(trace, 0)
    cli = tmp_path / "cli.svg"
    p = subprocess.run([sys.executable, "-m", "autogradviz", "export", str(saved), "-o", str(cli),
                        "--step", str(n)], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    scene = _scene(trace)
    scene.apply_step(replay.state_at(trace, 0, n))
    app = tmp_path / "app.svg"
    ex.export_scene(scene, str(app))
    assert svg_items(cli) == svg_items(app)
    assert any(kind == "callout" for kind, _ in svg_items(cli)[2])
