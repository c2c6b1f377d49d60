"""Layout engine on synthetic graphs shaped like real traces (no Qt, no torch).

Checks what the GUI and the exporter rely on: every box placed at finite
coordinates, no two boxes overlapping, every drawn edge routed, per-use leaf
copies mapping back to one trace node, grouping/rolling round-tripping to the
original graph, the wasm Graphviz working with no `dot` on PATH, and the time
limit falling back to the layered layout.
"""

from __future__ import annotations

import math
import os

import pytest

from autogradviz.engine.layout import (LayoutCancelled, LayoutOptions, graphviz_backend,
                                       layout_graph, prepare)
import synthetic_graphs as S  # (tests/synthetic_graphs.py)
from autogradviz.engine.layout.model import LayoutBox
from autogradviz.engine.trace.model import Edge, Graph, Node
from autogradviz.engine.layout import text_metrics as tm


def check_layout(graph, result):
    """The invariants every layout must satisfy."""
    assert result.boxes, "no boxes"
    keys = [b.key for b in result.boxes]
    assert len(keys) == len(set(keys)), "duplicate draw keys"
    node_ids = {n.id for n in graph.nodes}
    for b in result.boxes:
        for v in (b.x, b.y, b.w, b.h):
            assert math.isfinite(v)
        assert b.w > 0 and b.h > 0
        assert b.x >= -1e-6 and b.y >= -1e-6
        assert b.x + b.w <= result.width + 1e-6 and b.y + b.h <= result.height + 1e-6
        if b.kind != "group":
            assert b.node in node_ids
        if b.copy_of is not None:
            assert b.copy_of == b.node
        # text fits the box (the metrics are what the box was sized for)
        w, h = tm.box_size(b.lines)
        assert w <= b.w + 0.5 and h <= b.h + 0.5
    assert_no_overlap(result.boxes)
    keyset = set(keys)
    for e in result.edges:
        assert e.src in keyset and e.dst in keyset
        assert len(e.points) >= 2, f"edge {e.src}->{e.dst} has no route"
        for x, y in e.points:
            assert math.isfinite(x) and math.isfinite(y)
        if e.spline:
            assert (len(e.points) - 1) % 3 == 0
    # every trace edge is drawn once, or hidden inside one collapsed group box
    drawn = [i for e in result.edges for i in e.trace_edges]
    assert len(drawn) == len(set(drawn))
    check_frames(result)


def _nested(outer_id: str, inner_id: str) -> bool:
    """Group ids extend their parent's id (`prepare`), so nesting is a prefix."""
    return inner_id.startswith(outer_id + "/")


def _intersect(a, b, eps=0.5) -> bool:
    return (a.x < b.x + b.w - eps and b.x < a.x + a.w - eps
            and a.y < b.y + b.h - eps and b.y < a.y + a.h - eps)


def _inside(inner, outer, eps=0.5) -> bool:
    return (outer.x - eps <= inner.x and inner.x + inner.w <= outer.x + outer.w + eps
            and outer.y - eps <= inner.y and inner.y + inner.h <= outer.y + outer.h + eps)


def check_frames(result):
    """Module frames: an expanded group's frame holds its boxes and its child
    frames; frames that are not nested never intersect, and no box
    intersects the frame of a group it is not in."""
    frames = [g for g in result.groups if not g.collapsed and g.members]
    for g in frames:
        assert g.w > 0 and g.h > 0, f"frame {g.id} has no size"
        for v in (g.x, g.y, g.w, g.h):
            assert math.isfinite(v)
    for i, a in enumerate(frames):
        for b in frames[i + 1:]:
            if _nested(a.id, b.id):
                assert _inside(b, a), f"frame {b.id} sticks out of its parent {a.id}"
            elif _nested(b.id, a.id):
                assert _inside(a, b), f"frame {a.id} sticks out of its parent {b.id}"
            else:
                assert not _intersect(a, b), (f"frames overlap: {a.id} {a.x, a.y, a.w, a.h} / "
                                              f"{b.id} {b.x, b.y, b.w, b.h}")
    if len(result.boxes) * len(frames) > 2_000_000:
        return  # the pairwise check below would take too long
    for bx in result.boxes:
        for g in frames:
            if bx.group is not None and (bx.group == g.id or _nested(g.id, bx.group)):
                assert _inside(bx, g), f"box {bx.key} sticks out of its group {g.id}"
            else:
                assert not _intersect(bx, g), f"box {bx.key} overlaps the frame of {g.id}"


def _seg_hits(x0, y0, x1, y1, b, shrink=1.0) -> bool:
    """Does segment (x0,y0)-(x1,y1) pass through box b's interior (shrunk)?"""
    lo_x, lo_y, hi_x, hi_y = b.x + shrink, b.y + shrink, b.x + b.w - shrink, b.y + b.h - shrink
    dx, dy = x1 - x0, y1 - y0
    t0, t1 = 0.0, 1.0
    for p, q in ((-dx, x0 - lo_x), (dx, hi_x - x0), (-dy, y0 - lo_y), (dy, hi_y - y0)):
        if p == 0:
            if q < 0:
                return False
        else:
            r = q / p
            if p < 0:
                if r > t1:
                    return False
                t0 = max(t0, r)
            else:
                if r < t0:
                    return False
                t1 = min(t1, r)
    return t1 - t0 > 1e-9


def edges_through_boxes(result) -> list:
    """(edge, box key) for every drawn edge that crosses a box other than its
    own ends (polylines; splines are checked through their control polygon's
    samples)."""
    cell = 200.0
    grid: dict = {}
    for b in result.boxes:
        for gx in range(int(b.x // cell), int((b.x + b.w) // cell) + 1):
            for gy in range(int(b.y // cell), int((b.y + b.h) // cell) + 1):
                grid.setdefault((gx, gy), []).append(b)
    bad = []
    for e in result.edges:
        pts = e.points
        if e.spline:
            pts = [_bezier(pts[k:k + 4], s / 8) for k in range(0, len(pts) - 1, 3) for s in range(9)]
        for (x0, y0), (x1, y1) in zip(pts, pts[1:]):
            seen = set()
            for gx in range(int(min(x0, x1) // cell), int(max(x0, x1) // cell) + 1):
                for gy in range(int(min(y0, y1) // cell), int(max(y0, y1) // cell) + 1):
                    for b in grid.get((gx, gy), ()):
                        if b.key in seen or b.key in (e.src, e.dst):
                            continue
                        seen.add(b.key)
                        if _seg_hits(x0, y0, x1, y1, b):
                            bad.append((f"{e.src}->{e.dst}", b.key))
    return bad


def _bezier(p, t):
    mt = 1 - t
    return (mt ** 3 * p[0][0] + 3 * mt * mt * t * p[1][0] + 3 * mt * t * t * p[2][0] + t ** 3 * p[3][0],
            mt ** 3 * p[0][1] + 3 * mt * mt * t * p[1][1] + 3 * mt * t * t * p[2][1] + t ** 3 * p[3][1])


def assert_no_overlap(boxes):
    """Sweep line over x: O(n log n + overlaps), fine for 10,000 boxes."""
    items = sorted(boxes, key=lambda b: b.x)
    active = []
    for b in items:
        active = [a for a in active if a.x + a.w > b.x + 1e-6]
        for a in active:
            if a.y < b.y + b.h - 1e-6 and b.y < a.y + a.h - 1e-6:
                raise AssertionError(f"boxes overlap: {a.key} {a.x, a.y, a.w, a.h} / "
                                     f"{b.key} {b.x, b.y, b.w, b.h}")
        active.append(b)


WORKLOADS = {
    "mlp": lambda: S.mlp(4),
    "transformer": lambda: S.transformer(2),
    "rnn20": lambda: S.rnn(20),
    "rnn100": lambda: S.rnn(100),
    "dag2000": lambda: S.random_dag(2000),
}


@pytest.mark.parametrize("name", list(WORKLOADS))
@pytest.mark.parametrize("engine", ["auto", "layered"])
def test_layout_invariants(name, engine):
    g = WORKLOADS[name]()
    r = layout_graph(g, LayoutOptions(engine=engine))
    check_layout(g, r)
    assert r.engine
    assert r.seconds >= 0


NESTED = {
    "gpt3": (lambda: S.gpt(3), {"h.1", "h.0.attn"}),
    "transformer3": (lambda: S.transformer(3), {"encoder.layers.1"}),
    "rnn12": (lambda: S.rnn(12), {"cell"}),
    "mlp3": (lambda: S.mlp(3), {"fc1"}),
}


def _all_paths(g):
    paths = set()
    for n in g.nodes:
        if n.module:
            parts = n.module.split(".")
            paths |= {".".join(parts[: i + 1]) for i in range(len(parts))}
    return paths


def _nested_options(g, how, some):
    if how == "expanded":  # every group open, every repeated call drawn
        return dict(group="modules", collapsed=set(), unrolled=_all_paths(g))
    if how == "some collapsed":
        return dict(group="modules", collapsed=some, unrolled=_all_paths(g))
    return dict(group="auto")


@pytest.mark.parametrize("how", ["expanded", "some collapsed", "auto"])
@pytest.mark.parametrize("engine", ["layered", "graphviz"])
@pytest.mark.parametrize("name", list(NESTED))
def test_module_frames_never_overlap(name, engine, how):
    """Sibling module frames (GPT blocks, an RNN cell's unrolled calls) never
    intersect, nested ones nest, and no box overlaps a frame it is not in
    (check_frames, part of check_layout)."""
    make, some = NESTED[name]
    g = make()
    r = layout_graph(g, LayoutOptions(engine=engine, **_nested_options(g, how, some)))
    check_layout(g, r)
    assert r.engine.startswith("layered" if engine == "layered" else "graphviz")
    frames = [x for x in r.groups if not x.collapsed]
    if how == "expanded":
        assert len(frames) >= 3
        if name == "gpt3":  # h > h.0 > h.0.attn > h.0.attn.qkv
            assert any(x.module == "h.2.attn.qkv" for x in frames)
            assert any(_nested("g:h", x.id) for x in frames)
        if name == "rnn12":
            assert sum(x.module == "cell" for x in frames) == 12


@pytest.mark.parametrize("how", ["expanded", "some collapsed", "auto"])
@pytest.mark.parametrize("name", list(NESTED) + ["dag2000", "rnn100 flat"])
def test_layered_edges_go_around_boxes(name, how):
    """Our layout routes every edge between boxes, never through one: stubs
    inside a box's own column, dummy columns through ranks, straight lines
    only across the gaps between ranks."""
    if name == "dag2000":
        g, some = S.random_dag(2000), set()
    elif name == "rnn100 flat":
        g, some = S.rnn(100), set()
    else:
        make, some = NESTED[name]
        g = make()
    opts = _nested_options(g, how, some) if name != "rnn100 flat" else dict(group="none")
    r = layout_graph(g, LayoutOptions(engine="layered", **opts))
    check_layout(g, r)
    assert edges_through_boxes(r) == []


@pytest.mark.parametrize("name", ["gpt3", "transformer3", "rnn12"])
def test_layered_edges_enter_frames_beside_their_titles(name):
    """An edge into a module frame crosses its border right of the title
    (the frame's title strip is also the click target that collapses it)."""
    make, _ = NESTED[name]
    g = make()
    r = layout_graph(g, LayoutOptions(engine="layered", **_nested_options(g, "expanded", set())))
    check_layout(g, r)
    crossed = 0
    for grp in r.groups:
        if grp.collapsed:
            continue
        title = "\u25be " + grp.module + (f" ({grp.module_class})" if grp.module_class else "")
        strip = LayoutBox("title", "op", None, grp.x, grp.y, 6 + 5.5 * len(title), 16)
        for e in r.edges:
            for (x0, y0), (x1, y1) in zip(e.points, e.points[1:]):
                assert not _seg_hits(x0, y0, x1, y1, strip, shrink=0.0), (grp.module, e.src, e.dst)
            crossed += any(abs(y - grp.y) < 0.5 and grp.x < x < grp.x + grp.w for x, y in e.points)
    assert crossed  # edges do enter frames through their top border


def test_back_edges_after_collapsing_go_around_boxes():
    """Collapsing a module whose nodes are interleaved with outside ops makes
    a cycle (m -> b -> m); the reversed edge leaves and enters beside the
    boxes, upwards, and crosses none."""
    nodes = [Node("x0", "AccumulateGrad", "leaf", label="w")]
    edges = []
    prev = "x0"
    for i in range(6):  # m.op_i -> outside_i -> m.op_{i+1} ...
        nodes += [Node(f"m{i}", "MulBackward0", "op", module="m"), Node(f"o{i}", "AddBackward0", "op")]
        edges += [Edge(prev, f"m{i}"), Edge(f"m{i}", f"o{i}")]
        prev = f"o{i}"
    g = Graph(id="cyc", nodes=nodes, edges=edges, roots=[prev])
    r = layout_graph(g, LayoutOptions(engine="layered", group="modules", collapsed={"m"},
                                      unrolled=set()))
    assert len([b for b in r.boxes if b.kind == "group"]) == 1
    check_layout(g, r)
    assert edges_through_boxes(r) == []
    assert any(e.points[-1][1] < e.points[0][1] for e in r.edges), "expected an upward (back) edge"


@pytest.mark.parametrize("engine", ["graphviz", "layered"])
def test_groups_and_frames(engine):
    g = S.transformer(2)
    r = layout_graph(g, LayoutOptions(engine=engine, group="modules"))
    check_layout(g, r)
    mods = {grp.module for grp in r.groups}
    assert "encoder.layers.0" in mods and "encoder.layers.1.self_attn" in mods
    byid = {b.key: b for b in r.boxes}
    for grp in r.groups:
        assert not grp.collapsed
        assert grp.w > 0 and grp.h > 0
        # the frame encloses its members' boxes
        for b in r.boxes:
            if b.group == grp.id:
                assert grp.x <= b.x + 0.5 and b.x + b.w <= grp.x + grp.w + 0.5
                assert grp.y <= b.y + 0.5 and b.y + b.h <= grp.y + grp.h + 0.5
    assert byid


def test_collapsed_group_is_one_box():
    g = S.transformer(2)
    r = layout_graph(g, LayoutOptions(group="modules", collapsed={"encoder.layers.0"}))
    check_layout(g, r)
    boxes = [b for b in r.boxes if b.kind == "group"]
    assert len(boxes) == 1
    b = boxes[0]
    assert b.lines[0] == "encoder.layers.0"
    assert b.lines[1] == "TransformerEncoderLayer"
    assert b.lines[2].endswith("nodes")
    grp = next(x for x in r.groups if x.id == b.key)
    assert grp.collapsed and grp.members
    assert "encoder.layers.0" in r.collapsed
    # nothing inside the collapsed group is drawn on its own
    inside = set(grp.members)
    assert not any(bb.node in inside and bb.kind != "leaf" for bb in r.boxes if bb.kind != "group")


def test_per_use_leaves_map_back():
    g = S.rnn(20)
    r = layout_graph(g, LayoutOptions(group="none"))
    check_layout(g, r)
    leaf = next(n for n in g.nodes if n.label == "cell.weight_ih")
    copies = [b for b in r.boxes if b.node == leaf.id]
    assert len(copies) == 20
    assert all(b.copy_of == leaf.id for b in copies)
    assert len({b.key for b in copies}) == 20
    # without per-use leaves: exactly one box per trace node
    r2 = layout_graph(g, LayoutOptions(group="none", per_use_leaves=False, engine="layered"))
    check_layout(g, r2)
    assert sorted(b.node for b in r2.boxes) == sorted(n.id for n in g.nodes)


def _expanded_equals_original(g, dg):
    """All boxes map back to trace nodes, every node drawn, every trace edge on
    exactly one drawn edge whose ends map back to its ends."""
    assert not any(dn.kind == "group" for dn in dg.nodes)
    assert {dn.node for dn in dg.nodes} == {n.id for n in g.nodes}
    owner = {dn.key: dn.node for dn in dg.nodes}
    seen = []
    for de in dg.edges:
        for i in de.trace_edges:
            te = g.edges[i]
            assert (owner[de.src], owner[de.dst]) == (te.src, te.dst)
            seen.append(i)
    assert sorted(seen) == list(range(len(g.edges)))
    assert not dg.internal_edges


@pytest.mark.parametrize("maker", [lambda: S.rnn(50), lambda: S.transformer(3), lambda: S.mlp(3)])
def test_grouping_round_trip(maker):
    g = maker()
    rolled = prepare(g, group="auto", collapsed=set(), unrolled=set())
    # rolling hides nodes, and every trace edge is either drawn or internal
    drawn = sorted([i for e in rolled.edges for i in e.trace_edges] + rolled.internal_edges)
    assert drawn == list(range(len(g.edges)))
    everything = {n.module.split(".")[0] for n in g.nodes if n.module}
    paths = set()
    for n in g.nodes:
        if n.module:
            parts = n.module.split(".")
            paths |= {".".join(parts[: i + 1]) for i in range(len(parts))}
    assert everything <= paths
    expanded = prepare(g, group="modules", collapsed=set(), unrolled=paths)
    _expanded_equals_original(g, expanded)
    flat = prepare(g, group="none")
    _expanded_equals_original(g, flat)


def test_rolling_rnn_cell():
    g = S.rnn(30)
    dg = prepare(g, group="modules", collapsed=set(), unrolled=set())
    groups = [x for x in dg.groups if x.repeat > 1]
    assert len(groups) == 1 and groups[0].repeat == 30 and groups[0].collapsed
    box = next(dn for dn in dg.nodes if dn.key == groups[0].id)
    assert "\u00d730" in box.lines[1]
    assert set(groups[0].members) == {n.id for n in g.nodes if n.module == "cell"} | \
        {n.id for n in g.nodes if n.kind == "leaf"}
    r = layout_graph(g, LayoutOptions(group="modules", collapsed=set(), unrolled=set()))
    check_layout(g, r)
    # unrolled: one frame per call
    dg2 = prepare(g, group="modules", collapsed=set(), unrolled={"cell"})
    assert sum(1 for x in dg2.groups if x.module == "cell") == 30
    assert dg2.unrolled == {"cell"}


def test_without_module_call_groups_by_path():
    g = S.rnn(10, with_calls=False)
    dg = prepare(g, group="modules")
    assert [x.module for x in dg.groups] == ["cell"]


def test_auto_collapses_large_graphs():
    g = S.rnn(100)
    assert len(g.nodes) > 300
    r = layout_graph(g)
    check_layout(g, r)
    assert len(r.boxes) <= 320
    assert any(x.collapsed for x in r.groups)
    assert r.notes
    small = layout_graph(S.rnn(10))
    assert not any(x.collapsed for x in small.groups)


def test_show_saved_boxes():
    from autogradviz.engine.trace.model import SavedValue, TensorSummary
    g = S.mlp(2)
    op = next(n for n in g.nodes if n.op == "AddmmBackward0")
    op.saved = [SavedValue("mat1", TensorSummary([4, 4], "torch.float32", "cpu")),
                SavedValue("alpha", value=1)]
    r = layout_graph(g, LayoutOptions(show_saved=True, group="none"))
    check_layout(g, r)
    # one box per operation listing its saved tensors; a non-tensor value
    # (alpha) is the Inspector's, never a box of the graph
    saved = [b for b in r.boxes if b.kind == "saved"]
    assert len(saved) == 1 and saved[0].node == op.id
    assert any("mat1" in line and "(4, 4)" in line for line in saved[0].lines)
    assert not any("alpha" in line for b in saved for line in b.lines)
    assert sum(1 for e in r.edges if e.dst == op.id and not e.trace_edges) == 1


def test_wasm_backend_without_system_dot(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setenv("AUTOGRADVIZ_GRAPHVIZ", "wasm")
    info = graphviz_backend()
    assert info.name == "wasm" and info.version
    assert graphviz_backend.name == "wasm"
    g = S.transformer(2)
    r = layout_graph(g, LayoutOptions(engine="graphviz", group="modules"))
    check_layout(g, r)
    assert "wasm" in r.engine
    assert any(e.spline for e in r.edges)


def test_time_limit_falls_back_to_layered(monkeypatch):
    monkeypatch.setenv("AUTOGRADVIZ_GRAPHVIZ", "wasm")
    g = S.rnn(150)
    r = layout_graph(g, LayoutOptions(engine="graphviz", group="none", time_limit_s=0.001))
    check_layout(g, r)
    assert r.engine == "layered"
    assert any("longer than" in n for n in r.notes)
    # the same note as a code for the GUI, at the same index as the English text
    i = next(i for i, n in enumerate(r.notes) if "longer than" in n)
    assert r.note_codes[i] == ("graphviz_timeout", {"limit_s": 0.001})


def test_notes_come_as_codes_beside_the_english_text():
    """The GUI reads codes and parameters, never the English sentences."""
    r = layout_graph(S.rnn(100))
    assert len(r.note_codes) == len(r.notes) >= 1
    code, params = r.note_codes[0]
    assert code == "large_graph" and "Large graph" in r.notes[0]
    assert params["nodes"] == len(S.rnn(100).nodes) and params["boxes"] == len(r.boxes)
    assert f"({params['nodes']} nodes)" in r.notes[0] and f"{params['boxes']} boxes drawn" in r.notes[0]
    small = layout_graph(S.rnn(10))
    assert small.notes == [] and small.note_codes == []


def test_unknown_engine_or_option_name_is_an_error():
    from autogradviz.engine.layout import check_option_names

    with pytest.raises(ValueError, match="grapviz"):
        layout_graph(S.rnn(3), LayoutOptions(engine="grapviz"))
    with pytest.raises(ValueError, match="show_saves"):
        check_option_names(["collapsed", "show_saves"])
    check_option_names(["collapsed", "unrolled", "show_saved", "engine", "group"])


def test_cancel_stops_graphviz_and_layered(monkeypatch):
    import time
    monkeypatch.setenv("AUTOGRADVIZ_GRAPHVIZ", "wasm")
    # a rolled RNN cell is a hub box with 200 edges: dot needs seconds on it
    g = S.rnn(100)
    t0 = time.monotonic()
    with pytest.raises(LayoutCancelled):
        layout_graph(g, LayoutOptions(engine="graphviz", group="modules", collapsed=set(),
                                      unrolled=set()),
                     cancelled=lambda: time.monotonic() - t0 > 0.3)
    # (how soon after the request: benchmarks/bench_unit_timings.py)
    calls = {"n": 0}

    def cancelled():
        calls["n"] += 1
        return calls["n"] > 2

    with pytest.raises(LayoutCancelled):
        layout_graph(S.random_dag(500), LayoutOptions(engine="layered"), cancelled=cancelled)
    # the wasm runner still works after an interrupted render
    r = layout_graph(S.mlp(2), LayoutOptions(engine="graphviz"))
    assert "wasm" in r.engine


def test_progress_reported():
    seen = []
    layout_graph(S.rnn(10), progress=lambda f, m: seen.append((f, m)))
    fr = [f for f, _ in seen]
    assert fr[0] == 0.0 and fr[-1] == 1.0 and fr == sorted(fr)


def test_cycles_after_collapsing_are_laid_out():
    # a node outside the group both consumes and feeds the group -> cycle
    from autogradviz.engine.trace.model import Edge, Graph, Node
    g = Graph(id="c", nodes=[Node("a", "A", "op", module="m"), Node("b", "B", "op"),
                             Node("c", "C", "op", module="m")],
              edges=[Edge("a", "b"), Edge("b", "c")])
    for engine in ("layered", "graphviz"):
        r = layout_graph(g, LayoutOptions(engine=engine, group="modules", collapsed={"m"}))
        check_layout(g, r)
        assert len(r.boxes) == 2


def test_empty_graph():
    from autogradviz.engine.trace.model import Graph
    r = layout_graph(Graph(id="e"))
    assert r.boxes == [] and r.edges == []


@pytest.mark.slow
def test_synthetic_10k_layered_is_laid_out():
    # (how fast: benchmarks/bench_unit_timings.py, target < 2 s)
    g = S.random_dag(10000)
    r = layout_graph(g, LayoutOptions(engine="layered"))
    check_layout(g, r)


def test_system_dot_is_killed_at_the_time_limit(tmp_path, monkeypatch):
    """A `dot` on PATH that hangs: stopped at the limit, layered layout used."""
    import time

    fake = tmp_path / "dot"
    fake.write_text('#!/bin/sh\nif [ "$1" = "-V" ]; then echo "dot - graphviz version 9.9.9 (0)" >&2; '
                    'exit 0; fi\nsleep 30\n')
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.delenv("AUTOGRADVIZ_GRAPHVIZ", raising=False)
    info = graphviz_backend()
    assert info.name == "system dot" and info.path == str(fake)
    t = time.monotonic()
    r = layout_graph(S.mlp(2), LayoutOptions(engine="graphviz", time_limit_s=0.5))
    assert time.monotonic() - t < 25  # killed, not waited for (its sleep is 30 s); speed: bench_unit_timings.py
    assert r.engine == "layered" and any("longer than" in n for n in r.notes)
    check_layout(S.mlp(2), r)


def test_unrolled_calls_are_numbered():
    g = S.rnn(5)
    r = layout_graph(g, LayoutOptions(group="modules", collapsed={"cell"}, unrolled={"cell"}))
    check_layout(g, r)
    calls = sorted(grp.call for grp in r.groups if grp.module == "cell")
    assert calls == [0, 1, 2, 3, 4]
    assert all(grp.calls == 5 for grp in r.groups if grp.module == "cell")
    b = next(b for b in r.boxes if b.kind == "group" and "call 3/5" in " ".join(b.lines))
    assert b.lines[0] == "cell"


# (a layout in a thread leaves the main thread running: benchmarks/bench_unit_timings.py)


def _doctor(env_path: str, choice: str | None = None):
    import subprocess
    import sys

    env = dict(os.environ, PATH=env_path)
    env.pop("AUTOGRADVIZ_GRAPHVIZ", None)
    if choice is not None:
        env["AUTOGRADVIZ_GRAPHVIZ"] = choice
    p = subprocess.run([sys.executable, "-m", "autogradviz", "doctor"], capture_output=True, text=True,
                       env=env, timeout=180)
    lines = {ln.split()[0]: ln.split(None, 1)[1] for ln in p.stdout.splitlines() if ln.split()}
    return p, lines


def test_doctor_names_the_graphviz_it_uses_its_version_and_cuda(tmp_path, monkeypatch):
    """`autogradviz doctor`: which Graphviz (system dot or wasm), its version,
    and whether CUDA is visible."""
    p, lines = _doctor(str(tmp_path / "no-bin"))
    assert "graphviz" in lines and "cuda" in lines, p.stdout + p.stderr
    monkeypatch.setenv("AUTOGRADVIZ_GRAPHVIZ", "wasm")
    wasm = graphviz_backend()
    assert wasm.name == "wasm" and wasm.version
    assert lines["graphviz"].startswith(f"wasm {wasm.version} (")
    assert lines["cuda"].startswith(("available", "not available"))
    # a system `dot` on PATH is preferred, and its own version is reported
    fake = tmp_path / "bin" / "dot"
    fake.parent.mkdir()
    fake.write_text('#!/bin/sh\nif [ "$1" = "-V" ]; then echo "dot - graphviz version 9.9.9 (0)" >&2; '
                    'exit 0; fi\nexit 1\n')
    fake.chmod(0o755)
    p, lines = _doctor(str(fake.parent))
    assert lines["graphviz"] == f"system dot 9.9.9 ({fake})", p.stdout
    # the system dot demanded but missing: says so, and what is used instead
    p, lines = _doctor(str(tmp_path / "no-bin"), choice="system")
    assert lines["graphviz"] == "none (no system dot); the built-in layered layout is used", p.stdout
