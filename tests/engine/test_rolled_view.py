"""The rolled view: one call's graph with a loop-back edge xN, and back to every call.

A real 1,000-step RNNCell trace (the recorder's module_call) and the same
graph with the calls inferred from its shape; the folded drawing is checked
against the trace it stands for, and unrolling gives back the original graph.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from autogradviz.engine.layout import LayoutOptions, layout_graph
from autogradviz.engine.layout.prepare import prepare
from autogradviz.engine.layout.svg_export import svg_source
from autogradviz.engine.worker.runner import run_script

STEPS = 1000
RNN = f"""\
import torch
torch.manual_seed(0)
cell = torch.nn.RNNCell(3, 4)
h = torch.zeros(2, 4)
xs = torch.randn({STEPS}, 2, 3)
for t in range({STEPS}):
    h = cell(xs[t], h)
loss = h.pow(2).sum()
loss.backward()
"""


@pytest.fixture(scope="module")
def rnn_graph():
    trace = run_script(RNN, "/tmp/rolled_rnn.py", record_steps=False, record_values=False).trace
    assert trace.error is None
    return trace.graphs[0]


def _check_folded(g, dg):
    nodes = {n.id: n for n in g.nodes}
    drawn = {dn.key: dn for dn in dg.nodes}
    # every trace node is drawn, or stands in the picture as a drawn node of the same op
    copied = {dn.copy_of for dn in dg.nodes if dn.copy_of}
    stands: dict = {}
    for k, key in dg.stand_ins.items():
        stands.setdefault(k.split("#use")[0], []).append(key)
    for n in g.nodes:
        if n.id in drawn:
            continue
        assert n.id in copied or n.id in stands, n.id
        for key in stands.get(n.id, ()):
            assert nodes[drawn[key].node].op == n.op
    # every trace edge on exactly one drawn edge (or inside a collapsed box)
    seen = sorted([i for e in dg.edges for i in e.trace_edges] + dg.internal_edges)
    assert seen == list(range(len(g.edges)))
    return drawn


def _fold_unfold(g):
    dg = prepare(g, group="modules", collapsed=set(), unrolled=set(), rolled_view="inner")
    drawn = _check_folded(g, dg)
    cell = [x for x in dg.groups if x.module == "cell"]
    assert len(cell) == 1 and cell[0].repeat == STEPS and not cell[0].collapsed
    ops_drawn = sorted(drawn[k].kind + ":" + (g_op(g, drawn[k].node) or "") for k in drawn
                       if drawn[k].group == cell[0].id)
    one_call = sorted(n.op for n in g.nodes if n.module == "cell" and n.kind == "op")
    assert len(one_call) == 6 * STEPS  # two addmm, two t, add, tanh per call
    assert [o for o in ops_drawn if o.startswith("op:")] == sorted(
        "op:" + op for op in set(one_call) for _ in range(one_call.count(op) // STEPS))
    loops = [e for e in dg.edges if e.loop]
    assert len(loops) == 1 and loops[0].loop == STEPS
    assert len(loops[0].trace_edges) == STEPS - 1  # call k's h into call k+1
    src, dst = drawn[loops[0].src], drawn[loops[0].dst]
    assert g_op(g, src.node) == "TanhBackward0" and g_op(g, dst.node) == "AddmmBackward0"
    # expanding (unrolling) gives every call back: the original graph, node for node
    paths = {"cell"}
    full = prepare(g, group="modules", collapsed=set(), unrolled=paths, rolled_view="inner")
    assert not full.stand_ins and not any(e.loop for e in full.edges)
    assert {dn.node for dn in full.nodes} == {n.id for n in g.nodes}
    owner = {dn.key: dn.node for dn in full.nodes}
    for de in full.edges:
        for i in de.trace_edges:
            assert (owner[de.src], owner[de.dst]) == (g.edges[i].src, g.edges[i].dst)
    assert sorted(i for de in full.edges for i in de.trace_edges) == list(range(len(g.edges)))


_OPS: dict = {}


def g_op(g, nid):
    ops = _OPS.get(id(g))
    if ops is None:
        ops = _OPS[id(g)] = {n.id: n.op for n in g.nodes}
    return ops.get(nid)


def test_rolled_rnn_is_one_call_with_a_loop_and_unrolls_to_every_call(rnn_graph):
    _fold_unfold(rnn_graph)


def test_the_same_without_module_call_numbers(rnn_graph):
    import msgspec
    g = msgspec.structs.replace(rnn_graph, nodes=[msgspec.structs.replace(n, module_call=None)
                                                   for n in rnn_graph.nodes])
    _fold_unfold(g)


def test_the_rolled_view_in_the_svg(rnn_graph):
    lay = layout_graph(rnn_graph, LayoutOptions(group="auto", rolled_view="inner"))
    assert len(lay.boxes) < 20
    root = ET.fromstring(svg_source(rnn_graph, lay))
    ns = "{http://www.w3.org/2000/svg}"
    loops = [g for g in root.iter(ns + "g") if "loop" in (g.get("class") or "").split()]
    assert len(loops) == 1
    assert [t.text for t in loops[0].findall(ns + "text")] == [f"\u00d7{STEPS}"]
    frames = [g for g in root.iter(ns + "g") if "rolled" in (g.get("class") or "").split()]
    assert len(frames) == 1 and f"\u00d7{STEPS}" in frames[0].find(ns + "text").text
