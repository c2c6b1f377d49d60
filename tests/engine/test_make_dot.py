"""`autogradviz.make_dot` (engine/api/make_dot.py): torchviz's call, our picture.

Parity on torchviz's own README examples: the DOT we write and the DOT
torchviz writes for the same graph have the same nodes and edges, as sets.
The two drawings differ in how they spell things, so ours is translated into
torchviz's terms (its node names are `id()`s of the autograd objects; ours
map to them through `node_objects`): our leaf box is torchviz's variable box
and its AccumulateGrad box (the edge between them included), our root is
its grad_fn box plus torchviz's box for the output tensor, and a node's
"saved" note lists what torchviz draws as one box per saved tensor. Labels
are compared too (op names, parameter names, shapes, saved names).
torchviz is the test extra's real package (pyproject.toml).
"""

from __future__ import annotations

import re

import pytest
import torch
from torch import nn

import autogradviz

torchviz = pytest.importorskip("torchviz")

_NODE = re.compile(r'^\s+"([^"]+)" \[label="((?:[^"\\]|\\.)*)".*?tooltip="([^"]+)"')
_EDGE = re.compile(r'^\s+"([^"]+)" -> "([^"]+)"')
_TV_NODE = re.compile(r'^\t(\d+) \[label=(?:"([^"]*)"|(\S+?))(?: fillcolor=(\S+))?\]$', re.S)
_TV_EDGE = re.compile(r'^\t(\d+) -> (\d+)( \[dir=none\])?')


def _size(t) -> str:
    return "(" + ", ".join(str(v) for v in t.shape) + ")"


def torchviz_sets(dot):
    """torchviz's DOT body as (nodes {id: label}, edges, saved edges)."""
    nodes, edges, saved = {}, set(), set()
    for line in dot.body:
        m = _TV_EDGE.match(line)
        if m:
            (saved if m.group(3) else edges).add((m.group(1), m.group(2)))
            continue
        m = _TV_NODE.match(line)
        if m:
            nodes[m.group(1)] = (m.group(2) if m.group(2) is not None else m.group(3)).replace("\n ", " ")
    return nodes, edges, saved


def our_sets(d, var):
    """Our DOT (`d.source`) in torchviz's terms (see the module docstring)."""
    key_node, boxes, edges_by_key = {}, set(), []
    for line in d.source.splitlines():
        m = _NODE.match(line)
        if m:
            key_node[m.group(1)] = m.group(3)
            boxes.add(m.group(1))
            continue
        m = _EDGE.match(line)
        if m:
            edges_by_key.append((m.group(1), m.group(2)))
    graph_nodes = {n.id: n for n in d.graph.nodes}
    obj = d.node_objects
    nodes, edges, saved = {}, set(), set()
    for key, nid in key_node.items():
        n, fn = graph_nodes[nid], obj[nid]
        if key.endswith("#saved"):
            for s in n.saved:
                if s.tensor is not None:
                    saved.add((str(id(fn)), s.name, f"({', '.join(str(v) for v in s.tensor.shape)})"))
            continue
        nodes[str(id(fn))] = n.op
        if n.kind == "leaf":
            shape = f"({', '.join(str(v) for v in n.tensor.shape)})"
            nodes[str(id(fn.variable))] = f"{n.label or ''} {shape}"
            edges.add((str(id(fn.variable)), str(id(fn))))
    for a, b in edges_by_key:
        if a.endswith("#saved") or b.endswith("#saved"):
            continue
        edges.add((str(id(obj[key_node[a]])), str(id(obj[key_node[b]]))))
    for t in (var if isinstance(var, tuple) else (var,)):
        assert str(id(t.grad_fn)) in nodes and d.node_objects[d.graph.roots[0]] is t.grad_fn
        nodes[str(id(t))] = f" {_size(t)}"  # (torchviz: the output tensor's box, unnamed)
        edges.add((str(id(t.grad_fn)), str(id(t))))
    return nodes, edges, saved


def _torchviz_saved(tv_nodes, tv_saved):
    return {(fn, tv_nodes[val].split(" ")[0], tv_nodes[val].split(" ", 1)[1]) for fn, val in tv_saved}


def _readme_model():
    # torchviz's README, "Usage"
    model = nn.Sequential()
    model.add_module("W0", nn.Linear(8, 16))
    model.add_module("tanh", nn.Tanh())
    model.add_module("W1", nn.Linear(16, 1))
    x = torch.randn(1, 8)
    return model, model(x)


@pytest.mark.parametrize("options", [{}, {"show_attrs": True, "show_saved": True}])
def test_same_nodes_and_edges_as_torchviz_on_its_readme_examples(options):
    model, y = _readme_model()
    var = y.mean()
    params = dict(model.named_parameters())
    tv_nodes, tv_edges, tv_saved = torchviz_sets(torchviz.make_dot(var, params=params, **options))
    d = autogradviz.make_dot(var, params=params, **options)
    nodes, edges, saved = our_sets(d, var)
    saved_only = {v for _, v in tv_saved} - {x for e in tv_edges for x in e}  # (compared as `saved`)
    tv_nodes_ = {k: v for k, v in tv_nodes.items() if k not in saved_only}
    assert set(nodes) == set(tv_nodes_) and len(nodes) == 15  # (10 autograd nodes, 4 parameters, y.mean())
    assert edges == tv_edges
    # the same labels: op names (torchviz's attributes below them left out), parameter names and shapes
    assert nodes == {k: v.split("\n")[0] for k, v in tv_nodes_.items()}
    assert saved == _torchviz_saved(tv_nodes, tv_saved)
    assert bool(saved) == bool(options.get("show_saved"))


def test_parity_on_a_graph_with_a_shared_input_and_two_outputs():
    a = torch.randn(3, requires_grad=True)
    b = torch.randn(3, requires_grad=True)
    c = a * b
    outs = ((c + a).sum(), (c * c).exp().sum())
    tv_nodes, tv_edges, _ = torchviz_sets(torchviz.make_dot(outs, params={"a": a, "b": b}))
    d = autogradviz.make_dot(outs, params={"a": a, "b": b})
    nodes, edges, _ = our_sets(d, outs[0])
    nodes[str(id(outs[1]))] = f" {_size(outs[1])}"
    edges.add((str(id(outs[1].grad_fn)), str(id(outs[1]))))
    assert set(nodes) == set(tv_nodes) and edges == tv_edges


def test_it_behaves_as_a_digraph_where_torchviz_users_touch_it(tmp_path):
    model, y = _readme_model()
    d = autogradviz.make_dot(y.mean(), params=dict(model.named_parameters()))
    assert d.source.startswith("// Autograd graph") and "W0.weight" in d.source
    svg = d._repr_svg_()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg and "W1.bias" in svg
    assert d._repr_html_().startswith("<svg")
    out = d.render(str(tmp_path / "graph"), format="svg")
    assert out == str(tmp_path / "graph.svg") and (tmp_path / "graph").read_text() == d.source
    assert (tmp_path / "graph.svg").read_text().count('class="node') >= 10
    # (PNG and PDF are painted by the app's scene: tests/app/test_notebook.py)


def test_a_1000_step_rnn_is_no_recursion_error():
    torch.manual_seed(0)
    cell = nn.RNNCell(4, 8)
    h = torch.zeros(1, 8)
    xs = torch.randn(1000, 1, 4)
    for t in range(1000):
        h = cell(xs[t], h)
    with pytest.raises(RecursionError):  # (torchviz walks recursively)
        torchviz.make_dot(h.sum(), params=dict(cell.named_parameters()))
    d = autogradviz.make_dot(h.sum(), params=dict(cell.named_parameters()))
    assert len(d.graph.nodes) > 6000 - 10
    assert d.source.count("->") >= len(d.graph.edges) and "<svg" in d._repr_svg_()
