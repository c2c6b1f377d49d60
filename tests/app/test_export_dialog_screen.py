"""The Export dialog's run exports are the screen at each step.

The slides, GIF and web page of the dialog used to be drawn on a view-less
copy of the scene. Now they are drawn on the view's own scene, so its folded
repeats, callouts, theme and language are those of the screen. A real
GraphView shows a five-layer encoder (its layers folded into one
frame) in the dark theme and in Simplified Chinese; the dialog writes the
run as a folder of SVG slides; at three steps the slide's drawn items
(boxes with texts, states and badges, edges, labels and callouts) equal
what the screen's scene draws at that step, and the view is left at the
step it showed.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from autogradviz.app.export.dialog import ExportDialog
from autogradviz.app.export.scene_svg import label_data, visible_labels

from test_export_screen import scene_items, svg_items
from test_graph_support import trace_of, view, wait_layout  # noqa: F401 (view: a fixture)

ENCODER = """\
import torch
from torch import nn
torch.manual_seed(0)
layer = nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, batch_first=True)
enc = nn.TransformerEncoder(layer, num_layers=5, enable_nested_tensor=False)
x = torch.randn(1, 3, 8, requires_grad=True)
h = enc(x)
h.retain_grad()
loss = h.pow(2).mean()
loss.backward()
"""

NS = "{http://www.w3.org/2000/svg}"


def _label_places(path) -> list:
    out = []
    for g in ET.parse(path).getroot().iter(NS + "g"):
        cls = g.get("class", "").split()
        if cls[:1] == ["label"]:
            r = g.find(NS + "rect")
            out.append((cls[1], round(float(r.get("x"))), round(float(r.get("y")))))
    return sorted(out)


def test_dialog_slides_equal_the_screen_at_three_steps(qtbot, view, tmp_path):
    from autogradviz.app import i18n

    trace = trace_of(ENCODER)
    with qtbot.waitSignal(view.layoutFinished, timeout=60_000):
        view.session.set_trace(trace)
    wait_layout(qtbot, view)
    view.set_theme("dark")
    assert i18n.set_language("zh_CN", save=False)
    try:
        scene = view.graph_scene()
        assert any(gi.group.repeat > 1 for gi in scene.group_items)  # the layers are folded
        n = len(trace.backward_runs[0].steps)
        view.session.set_step(3)
        d = ExportDialog(view, view.session)
        qtbot.addWidget(d)
        d.set_format("svg")
        d.every_step.setChecked(True)
        info = d.export_to(str(tmp_path / "slides.svg"))
        assert info is not None, d.message.text()
        assert scene.state.step == 3  # the view is back at its step
        folder = tmp_path / "slides"
        width = max(3, len(str(n)))
        for k in sorted({1, n // 2, n}):
            view.session.set_step(k)
            qtbot.waitUntil(lambda k=k: scene.state is not None and scene.state.step == k, timeout=5_000)
            path = folder / f"step-{k:0{width}d}.svg"
            want, got = scene_items(scene), svg_items(path)
            assert got == want, f"step {k}: the slide differs from the screen"
            text = path.read_text(encoding="utf-8")
            assert "theme-dark" in text
            # and each label where the screen placed it (clear of the view's legend and minimap)
            assert _label_places(path) == sorted(
                (d["kind"], round(d["x"]), round(d["y"])) for d in map(label_data, (lab for _, lab in
                                                                                     visible_labels(scene))))
        # the callouts the screen shows at the end are in the last slide, in Chinese where translated
        assert any(kind != "grad" for kind, _ in want[2])
    finally:
        i18n.set_language("en", save=False)
