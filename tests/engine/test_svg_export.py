"""The semantic SVG: one titled g.node per box, one g.edge per edge, CSS classes, real text.

A real trace (worker-free run_script of a small module script), a real layout,
and the SVG parsed back with xml.etree and compared with the layout and the trace.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from autogradviz.engine.layout import LayoutOptions, layout_graph
from autogradviz.engine.layout.svg_export import svg_source
from autogradviz.engine.trace import replay
from autogradviz.engine.worker.runner import run_script

NS = "{http://www.w3.org/2000/svg}"
SCRIPT = '''\
import torch
import torch.nn as nn
model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
x = torch.randn(5, 3)
out = model(x)
loss = (out - 1).pow(2).mean()
loss.backward()
'''


@pytest.fixture(scope="module")
def traced():
    trace = run_script(SCRIPT, "/tmp/svg_model.py").trace
    assert trace.error is None
    return trace, trace.graph(trace.backward_runs[0].graph)


def _groups(root, cls):
    return [g for g in root.iter(NS + "g") if cls in (g.get("class") or "").split()]


@pytest.mark.parametrize("group", ["none", "modules"])
def test_one_titled_node_group_per_box_and_one_edge_group_per_edge(traced, group):
    trace, graph = traced
    layout = layout_graph(graph, LayoutOptions(group=group))
    root = ET.fromstring(svg_source(graph, layout))
    nodes = _groups(root, "node")
    assert len(nodes) == len(layout.boxes)
    assert len(_groups(root, "edge")) == len(layout.edges)
    ids = [g.get("id") for g in nodes]
    assert len(set(ids)) == len(ids)
    by_node = {n.id: n for n in graph.nodes}
    for g, box in zip(nodes, layout.boxes):
        title = g.find(NS + "title").text
        texts = [t.text for t in g.findall(NS + "text")]
        assert texts == box.lines  # real text, as drawn
        assert g.find(NS + "rect") is not None
        node = by_node.get(box.node or box.copy_of)
        if node is not None:
            assert f"op: {node.op}" in title
            if node.label:
                assert f"label: {node.label}" in title
            if node.line is not None:
                assert f"line {node.line}: {node.code}" in title
            kind = g.get("class").split()[1]
            assert kind == ("leaf" if node.kind == "leaf" else "output" if node.id in graph.roots else "op")
    style = root.find(NS + "style").text
    for cls in (".node.leaf", ".node.op", ".node.output", ".edge path"):
        assert cls in style


def test_a_step_marks_node_states_and_gradients(traced):
    trace, graph = traced
    layout = layout_graph(graph, LayoutOptions(group="none"))
    state = replay.state_at(trace, 0, 2)
    root = ET.fromstring(svg_source(graph, layout, state=state))
    classes = {g.get("data-node"): g.get("class").split() for g in _groups(root, "node")}
    assert "current" in classes[state.current]
    assert sum("done" in c for c in classes.values()) == 1  # (the first step's node)
    assert sum("pending" in c for c in classes.values()) >= 1
    grads = _groups(root, "edge")
    assert any("grad" in g.get("class").split() for g in grads)
