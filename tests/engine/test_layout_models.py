"""Layout of real traces (torch models traced in-process by run_script):
an MLP, a small TransformerEncoder and an RNNCell unrolled 20 and 100 steps."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

from autogradviz.engine.layout import LayoutOptions, layout_graph, prepare  # noqa: E402

from test_layout import _expanded_equals_original, check_layout  # noqa: E402

MLP = """
import torch
import torch.nn as nn
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
loss = model(torch.randn(5, 8)).pow(2).mean()
loss.backward()
"""

TRANSFORMER = """
import torch
import torch.nn as nn
torch.manual_seed(0)
layer = nn.TransformerEncoderLayer(d_model=16, nhead=2, dim_feedforward=32, batch_first=True,
                                   dropout=0.0)
encoder = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
loss = encoder(torch.randn(2, 5, 16)).pow(2).mean()
loss.backward()
"""

RNN = """
import torch
import torch.nn as nn
torch.manual_seed(0)
cell = nn.RNNCell(4, 8)
h = torch.zeros(2, 8)
for t in range({steps}):
    h = cell(torch.randn(2, 4), h)
loss = h.pow(2).mean()
loss.backward()
"""


def graph_of(source):
    from autogradviz.engine.runner import run_script

    run = run_script(source, "model.py")
    trace = run.trace
    assert trace.error is None, trace.error
    assert trace.backward_runs, "no backward run recorded"
    return trace.graph(trace.backward_runs[0].graph)


@pytest.mark.parametrize("name,source", [("mlp", MLP), ("transformer", TRANSFORMER),
                                         ("rnn20", RNN.format(steps=20)),
                                         ("rnn100", RNN.format(steps=100))])
def test_real_models_lay_out(name, source):
    g = graph_of(source)
    assert len(g.nodes) > 5
    for engine in ("auto", "layered"):
        r = layout_graph(g, LayoutOptions(engine=engine))
        check_layout(g, r)
    # expanding everything gives back the traced graph exactly
    paths = set()
    for n in g.nodes:
        if n.module:
            parts = n.module.split(".")
            paths |= {".".join(parts[: i + 1]) for i in range(len(parts))}
    _expanded_equals_original(g, prepare(g, group="modules", collapsed=set(), unrolled=paths))


def test_rnn_weights_are_drawn_per_use():
    g = graph_of(RNN.format(steps=20))
    r = layout_graph(g, LayoutOptions(group="none"))
    check_layout(g, r)
    w = [n for n in g.nodes if n.label and n.label.endswith("weight_hh")]
    assert len(w) == 1
    copies = [b for b in r.boxes if b.node == w[0].id]
    assert len(copies) >= 19 and all(b.copy_of == w[0].id for b in copies)


def test_transformer_groups_by_module():
    g = graph_of(TRANSFORMER)
    r = layout_graph(g, LayoutOptions(group="modules"))
    check_layout(g, r)
    mods = {grp.module for grp in r.groups}
    assert any(m.endswith("layers.0") for m in mods) and any(m.endswith("layers.1") for m in mods)


def test_rnn_calls_inferred_rolled_and_unrolled():
    """Without module_call, the 20 calls of the cell are found from the graph's
    shape: rolled into one "×20" box, or unrolled into 20 frames."""
    from autogradviz.engine.layout.calls import infer_calls

    g = graph_of(RNN.format(steps=20))
    for n in g.nodes:  # as from a recorder that does not fill module_call
        n.module_call = None
    calls = infer_calls(g)
    assert set(calls) == {"cell"}
    assert sorted(set(calls["cell"].values())) == list(range(20))
    rolled = layout_graph(g, LayoutOptions(group="modules", collapsed=set(), unrolled=set()))
    check_layout(g, rolled)
    box = next(b for b in rolled.boxes if b.kind == "group")
    assert "\u00d720" in box.lines[1]
    unrolled = layout_graph(g, LayoutOptions(group="modules", collapsed=set(), unrolled={"cell"}))
    check_layout(g, unrolled)
    assert sum(1 for grp in unrolled.groups if grp.module == "cell") == 20
    assert unrolled.unrolled == ["cell"]


def test_no_false_split_of_distinct_modules():
    from autogradviz.engine.layout.calls import infer_calls

    g = graph_of(TRANSFORMER)
    calls = infer_calls(g)
    # every repeated pattern here lives under distinct paths (layers.0, layers.1)
    assert not any(p.endswith(("layers.0", "layers.1")) for p in calls)


def test_rnn_calls_from_module_call_match_inference():
    from autogradviz.engine.layout.calls import infer_calls

    g = graph_of(RNN.format(steps=20))
    cell_nodes = [n for n in g.nodes if n.module == "cell" and n.kind != "leaf"]
    assert all(n.module_call is not None for n in cell_nodes)
    by_call = {}
    for n in cell_nodes:
        by_call.setdefault(n.module_call, set()).add(n.id)
    for n in g.nodes:
        n.module_call = None
    inferred = {}
    for nid, k in infer_calls(g)["cell"].items():
        inferred.setdefault(k, set()).add(nid)
    assert sorted(map(sorted, by_call.values())) == sorted(map(sorted, inferred.values()))
