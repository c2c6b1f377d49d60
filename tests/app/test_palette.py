"""One palette (engine/layout/palette.py) for the screen and every export:
the graph style, the DOT export, the semantic SVG export and the scene's SVG
all show its colours, and none of them keeps a copy of its own."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
from PySide6.QtGui import QColor

from autogradviz.app.export.scene_svg import style_sheet
from autogradviz.app.graph.style import NodeLook, style_for
from autogradviz.engine.layout import LayoutOptions, layout_graph
from autogradviz.engine.layout.dot_export import dot_source
from autogradviz.engine.layout.palette import PALETTES, palette
from autogradviz.engine.layout.svg_export import svg_source
from autogradviz.engine.trace.model import Edge, Graph, Node

ROOT = Path(__file__).resolve().parents[2]
THEMES = ["light", "dark"]


def _graph() -> Graph:
    return Graph(id="g0", nodes=[Node(id="n0", op="AccumulateGrad", kind="leaf", label="w"),
                                 Node(id="n1", op="MulBackward0", kind="op"),
                                 Node(id="n2", op="SumBackward0", kind="op")],
                 edges=[Edge(src="n0", dst="n1"), Edge(src="n1", dst="n2")], roots=["n2"])


@pytest.mark.parametrize("theme", THEMES)
def test_the_screens_style_is_the_palette(theme):
    st, p = style_for(theme), palette(theme)
    colours = {}
    for f in dataclasses.fields(st):
        v = getattr(st, f.name)
        if isinstance(v, NodeLook):
            colours[f.name] = (v.fill.name(), v.border.name(), v.text.name())
        elif isinstance(v, QColor):
            colours[f.name] = v.name()
    assert colours == p  # every colour of the screen, and nothing the screen does not use


@pytest.mark.parametrize("theme", THEMES)
def test_the_dot_export_is_the_palette(theme):
    g = _graph()
    dot = dot_source(g, layout_graph(g, LayoutOptions(engine="layered")), theme=theme)
    p = palette(theme)
    fills = dict(re.findall(r'^  "(n\d)" \[.*fillcolor="(#\w+)", color="#\w+"', dot, re.M))
    borders = dict(re.findall(r'^  "(n\d)" \[.*fillcolor="#\w+", color="(#\w+)"', dot, re.M))
    assert fills == {"n0": p["leaf"][0], "n1": p["op"][0], "n2": p["output"][0]}
    assert borders == {"n0": p["leaf"][1], "n1": p["op"][1], "n2": p["output"][1]}
    assert f'bgcolor="{p["background"]}"' in dot
    assert f'fontcolor="{p["text"]}"' in dot
    assert f'edge [color="{p["edge"]}"' in dot


@pytest.mark.parametrize("theme", THEMES)
def test_the_svg_exports_are_the_palette(theme):
    g = _graph()
    p = palette(theme)
    svg = svg_source(g, layout_graph(g, LayoutOptions(engine="layered")), theme=theme)
    for cls, key in (("leaf", "leaf"), ("op", "op"), ("output", "output"), ("saved", "saved")):
        assert f".node.{cls} rect{{fill:{p[key][0]};stroke:{p[key][1]}}}" in svg
    assert f".node.group rect{{fill:{p['group_fill']};stroke:{p['group_border']}}}" in svg
    assert f".node.current rect{{stroke:{p['current']};" in svg
    assert f".node.done rect{{stroke:{p['done_border']}}}" in svg
    assert f".edge.grad path{{stroke:{p['edge_grad']};" in svg
    assert f'fill="{p["background"]}"' in svg
    # the scene's SVG (and web page) takes the screen's style, so the palette too
    css = style_sheet(style_for(theme))
    for cls, key in (("leaf", "leaf"), ("op", "op"), ("output", "output"), ("saved", "saved")):
        assert f".node.{cls} .box{{fill:{p[key][0]};stroke:{p[key][1]};" in css
    assert f"stroke:{p['edge_grad']}" in css and f"stroke:{p['current']}" in css


def test_no_module_keeps_a_copy_of_the_palette():
    colours = {c for p in PALETTES.values() for v in p.values() for c in ((v,) if isinstance(v, str) else v)}
    for rel in ("app/graph/style.py", "engine/layout/dot_export.py", "engine/layout/svg_export.py",
                "app/export/scene_svg.py"):
        text = (ROOT / rel).read_text(encoding="utf-8").lower()
        copies = sorted(c for c in colours if c in text)
        assert not copies, f"{rel} spells palette colours itself: {copies}"
