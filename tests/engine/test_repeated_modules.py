"""Deep networks fold: N identical sibling modules drawn once, ×N, and unfold to the graph.

A real 12-layer nn.TransformerEncoder fed by a projection (traced in-process by the runner)
folds into one group ×12 whose drawn boxes stand for every layer's nodes;
each node knows which copy it is; unfolding gives back the very graph. The
left-to-right option lays the graph out left to right in both engines.
"""

from __future__ import annotations

import pytest

from autogradviz.engine.layout import LayoutOptions, layout_graph
import synthetic_graphs as synthetic  # (tests/synthetic_graphs.py)
from autogradviz.engine.layout.prepare import prepare
from autogradviz.engine.worker.runner import run_script

ENCODER = """\
import torch
from torch import nn
torch.manual_seed(0)
layer = nn.TransformerEncoderLayer(d_model=16, nhead=2, dim_feedforward=32, batch_first=True)
enc = nn.TransformerEncoder(layer, num_layers=12, enable_nested_tensor=False)
proj = nn.Linear(16, 16)
x = torch.randn(2, 5, 16)
loss = enc({inp}).pow(2).mean()
loss.backward()
"""
FOLD = "enc.layers.0\u201311"


def _graph(projected: bool):
    """The encoder fed through a projection (as an embedding feeds it in a
    real model: every layer gets an input that needs a gradient), or fed x."""
    trace = run_script(ENCODER.format(inp="proj(x)" if projected else "x"), "/tmp/repeated_enc.py", record_steps=False,
                       record_values=False).trace
    assert trace.error is None
    return trace.graphs[0]


@pytest.fixture(scope="module")
def encoder():
    return _graph(True)


def _layer(n) -> int:
    parts = (n.module or "").split(".")
    return int(parts[2]) if len(parts) > 2 and parts[:2] == ["enc", "layers"] else -1


def test_twelve_layers_are_one_folded_group_x12(encoder):
    g = encoder
    assert len(g.nodes) > 900
    res = layout_graph(g, LayoutOptions(rolled_view="inner"))
    assert res.repeats == {FOLD: [f"enc.layers.{k}" for k in range(12)]}
    folded = [x for x in res.groups if x.repeat > 1]
    assert [(x.module, x.repeat, x.module_class, x.collapsed) for x in folded] == [
        (FOLD, 12, "TransformerEncoderLayer", False)]
    # no layer is drawn on its own: every box is the representative's, or outside the layers
    assert not any(x.module.startswith("enc.layers.") and "\u2013" not in x.module for x in res.groups)
    loops = [e for e in res.edges if e.loop]
    assert loops and all(e.loop == 12 for e in loops)
    # readable: folded until few boxes remain
    assert len(res.boxes) <= 60
    note = next(c for c in res.note_codes if c.code == "large_graph")
    assert note.params["repeats"] == [FOLD]


def test_every_node_is_drawn_or_stands_in_as_its_copy(encoder):
    g = encoder
    dg = prepare(g, group="modules", collapsed=set(), unrolled=set(), rolled_view="inner",
                 fold_repeated="on")
    drawn = {dn.key: dn for dn in dg.nodes}
    nodes = {n.id: n for n in g.nodes}
    copied = {dn.copy_of for dn in dg.nodes if dn.copy_of}
    for n in g.nodes:
        k = _layer(n)
        if k >= 0 and n.kind == "op":
            assert dg.copies[n.id] == [FOLD, k], n.id  # which copy runs when n runs
        if n.id in drawn or n.id in copied:
            continue
        key = dg.stand_ins[n.id]  # a later layer's node: its counterpart in layer 0 is drawn
        assert k > 0 and nodes[drawn[key].node].op == n.op
        assert _layer(nodes[drawn[key].node]) == 0
    # every trace edge on exactly one drawn edge
    seen = sorted([i for e in dg.edges for i in e.trace_edges] + dg.internal_edges)
    assert seen == list(range(len(g.edges)))
    # the drawn boxes are one layer's worth (plus what is outside the layers)
    per_layer = sum(1 for n in g.nodes if _layer(n) == 0)
    assert len(dg.nodes) < per_layer + 20 < len(g.nodes) / 5


def test_unfolding_gives_back_the_full_graph(encoder):
    g = encoder
    full = prepare(g, group="modules", collapsed=set(), unrolled={FOLD}, rolled_view="inner",
                   fold_repeated="on")
    assert not full.stand_ins and not any(e.loop for e in full.edges)
    assert {dn.node for dn in full.nodes} == {n.id for n in g.nodes}
    assert FOLD in full.unrolled and full.repeats == {FOLD: [f"enc.layers.{k}" for k in range(12)]}
    assert {x.module for x in full.groups} >= {f"enc.layers.{k}" for k in range(12)}
    seen = sorted([i for e in full.edges for i in e.trace_edges] + full.internal_edges)
    assert seen == list(range(len(g.edges)))
    # folding turned off draws every layer too
    off = prepare(g, group="modules", collapsed=set(), unrolled=set(), fold_repeated="off")
    assert {dn.node for dn in off.nodes} == {n.id for n in g.nodes} and not off.repeats


def test_a_first_layer_fed_an_input_without_gradient_folds_too():
    """The issue's encoder fed x itself, which needs no gradient: layer 0
    records 73 nodes, not 76 (the transpose, clone and view of its input exist
    only when the input needs a gradient). Modulo that first use it is the
    same layer: all 12 fold (×12), drawn as layer 1, layer 0's nodes standing
    for their counterparts there; unfolding gives back every node."""
    g = _graph(False)
    assert len(g.nodes) == 911  # the encoder
    per_layer = [sum(1 for n in g.nodes if _layer(n) == k) for k in range(12)]
    assert per_layer == [73] + [76] * 11
    res = layout_graph(g, LayoutOptions(rolled_view="inner"))
    assert res.repeats == {FOLD: [f"enc.layers.{k}" for k in range(12)]}
    assert [(x.module, x.repeat) for x in res.groups if x.repeat > 1] == [(FOLD, 12)]
    assert not any(x.module.startswith("enc.layers.") and "\u2013" not in x.module for x in res.groups)
    dg = prepare(g, group="modules", collapsed=set(), unrolled=set(), rolled_view="inner", fold_repeated="on")
    drawn = {dn.key: dn for dn in dg.nodes}
    nodes = {n.id: n for n in g.nodes}
    assert {_layer(nodes[dn.node]) for dn in dg.nodes if dn.node in nodes} <= {-1, 1}  # layer 1 is drawn
    for n in g.nodes:
        k = _layer(n)
        if k >= 0 and n.kind == "op":
            assert dg.copies[n.id] == [FOLD, k], n.id
        if k not in (-1, 1):  # every other layer's node stands for the same op in layer 1
            twin = nodes[drawn[dg.stand_ins[n.id]].node]
            assert twin.op == n.op and _layer(twin) == 1 and twin.module.split(".")[3:] == n.module.split(".")[3:]
    seen = sorted([i for e in dg.edges for i in e.trace_edges] + dg.internal_edges)
    assert seen == list(range(len(g.edges)))
    full = prepare(g, group="modules", collapsed=set(), unrolled={FOLD}, rolled_view="inner", fold_repeated="on")
    assert not full.stand_ins and {dn.node for dn in full.nodes} == {n.id for n in g.nodes}


def test_a_first_layer_that_really_differs_stays_apart():
    """Layer 0 with a parameter the others lack is not a first use: it stays apart."""
    g = synthetic.transformer(4)
    extra = next(n for n in g.nodes if n.op == "NativeLayerNormBackward0" and n.module.startswith("encoder.layers.0"))
    w = type(extra)(id="extra_w", kind="leaf", op="AccumulateGrad", label="extra", module=None)
    g.nodes.append(w)
    g.edges.append(type(g.edges[0])(src="extra_w", dst=extra.id, input_nr=0, slot=5))
    dg = prepare(g, rolled_view="inner", fold_repeated="on")
    assert [(x.module, x.repeat) for x in dg.groups if x.repeat > 1] == [("encoder.layers.1\u20133", 3)]


def test_siblings_with_work_between_them_do_not_fold():
    """fc0, fc1, ... are the same Linear but a ReLU outside them sits between:
    folded, the picture would draw a cycle."""
    g = synthetic.mlp(layers=8)
    dg = prepare(g, group="modules", collapsed=set(), unrolled=set(), fold_repeated="on")
    assert not dg.repeats and not dg.stand_ins


def _centres(res):
    return {b.key: (b.x + b.w / 2, b.y + b.h / 2) for b in res.boxes}


@pytest.mark.parametrize("engine", ["graphviz", "layered"])
def test_left_to_right_lays_the_graph_out_left_to_right(engine):
    chain = synthetic.rnn(steps=12, with_calls=False)  # a long chain
    tb = layout_graph(chain, LayoutOptions(engine=engine, group="none"))
    lr = layout_graph(chain, LayoutOptions(engine=engine, group="none", direction="LR"))
    assert tb.direction == "TB" and lr.direction == "LR"
    assert tb.height > tb.width and lr.width > lr.height
    g = synthetic.mlp(layers=6)  # with module frames
    tb = layout_graph(g, LayoutOptions(engine=engine))
    lr = layout_graph(g, LayoutOptions(engine=engine, direction="LR"))
    for res, axis in ((tb, 1), (lr, 0)):
        c = _centres(res)
        for e in res.edges:  # forward flows down (TB) / to the right (LR)
            assert c[e.dst][axis] > c[e.src][axis], (engine, res.direction, e.src, e.dst)
            # edges run from box to box
            assert e.points[0] != e.points[-1]
    # every box inside its module's frame, title strip clear of the boxes
    frames = {x.id: x for x in lr.groups if not x.collapsed}
    for b in lr.boxes:
        if b.group in frames:
            f = frames[b.group]
            assert f.x <= b.x and b.x + b.w <= f.x + f.w + 0.5
            assert f.y + 14 <= b.y and b.y + b.h <= f.y + f.h + 0.5


def test_an_unknown_direction_is_an_error():
    with pytest.raises(ValueError, match="direction"):
        layout_graph(synthetic.mlp(layers=2), LayoutOptions(direction="up"))


def test_many_layers_fold_whatever_their_node_ids():
    """Inputs on the same slot are matched in edge order, not by node id
    ("n1001" sorts before "n999"): all 59 layers after the first fold into
    one frame, not two runs nor a closed box. Layer 0 is fed the leaf x (a
    first use): it folds too, x drawn outside the frame."""
    g = synthetic.transformer(60)
    dg = prepare(g, rolled_view="inner")
    folded = [(x.module, x.repeat, x.collapsed) for x in dg.groups if x.repeat > 1]
    assert folded == [("encoder.layers.0\u201359", 60, False)]
    x = next(dn for dn in dg.nodes if dn.kind == "leaf" and dn.node == "n0")
    assert "\u2013" not in x.group
    assert dg.stand_ins
