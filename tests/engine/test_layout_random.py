"""Property test: random autograd-shaped graphs with random module paths and
calls always lay out validly (no overlapping boxes or sibling frames; our
layout's edges cross no box, even around the cycles collapsing makes) and
round-trip through grouping and rolling."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autogradviz.engine.layout import LayoutOptions, layout_graph, prepare
from autogradviz.engine.trace.model import Edge, Graph, Node

from test_layout import _expanded_equals_original, check_layout, edges_through_boxes

MODULES = [None, "a", "a.x", "a.y", "b", "b.x.z"]


@st.composite
def graphs(draw):
    n = draw(st.integers(2, 40))
    nodes, edges = [], []
    for i in range(n):
        leaf = i > 0 and draw(st.booleans()) and draw(st.booleans())
        mod = draw(st.sampled_from(MODULES))
        call = draw(st.one_of(st.none(), st.integers(0, 3)))
        nodes.append(Node(id=f"n{i}", op="AccumulateGrad" if leaf else f"Op{i % 5}Backward0",
                          kind="leaf" if leaf else "op", module=mod, module_call=call if mod else None,
                          label=draw(st.one_of(st.none(), st.text("abc.", min_size=1, max_size=8)))))
    for i in range(1, n):
        if nodes[i].kind == "leaf":
            continue
        for j in draw(st.lists(st.integers(0, i - 1), max_size=3, unique=True)):
            edges.append(Edge(src=nodes[j].id, dst=nodes[i].id, slot=len(edges) % 3))
    return Graph(id="r", nodes=nodes, edges=edges, roots=[nodes[-1].id])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs(), st.sampled_from(["auto", "none", "modules"]), st.booleans(),
       st.sampled_from([None, set(), {"a"}, {"a.x", "b"}]), st.sampled_from([None, set(), {"a", "b"}]))
def test_random_graphs_layered(g, group, per_use, collapsed, unrolled):
    r = layout_graph(g, LayoutOptions(engine="layered", group=group, per_use_leaves=per_use,
                                      collapsed=collapsed, unrolled=unrolled))
    check_layout(g, r)  # boxes, routes, module frames never overlapping unless nested
    assert edges_through_boxes(r) == []
    dg = prepare(g, group=group, per_use_leaves=per_use, collapsed=collapsed, unrolled=unrolled)
    drawn = sorted([i for e in dg.edges for i in e.trace_edges] + dg.internal_edges)
    assert drawn == list(range(len(g.edges)))
    full = prepare(g, group="modules", collapsed=set(), unrolled=set(MODULES[1:]) | {"b.x"},
                   per_use_leaves=per_use)
    _expanded_equals_original(g, full)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs(), st.sampled_from(["auto", "modules"]))
def test_random_graphs_graphviz(g, group):
    r = layout_graph(g, LayoutOptions(engine="graphviz", group=group))
    check_layout(g, r)
