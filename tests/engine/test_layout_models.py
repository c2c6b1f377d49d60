"""Layout of real traces (torch models traced in-process by run_script):
an MLP, a small TransformerEncoder and an RNNCell unrolled 20 and 100 steps."""

from __future__ import annotations

import pytest

from autogradviz.engine.layout import LayoutOptions, layout_graph, prepare

from test_layout import _expanded_equals_original, check_layout, edges_through_boxes

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


GPT = """
import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)
W, V, T = 16, 50, 6


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(W, 3 * W)
        self.proj = nn.Linear(W, W)

    def forward(self, x):
        q, k, v = self.qkv(x).split(W, dim=2)
        att = (q @ k.transpose(-2, -1)).softmax(dim=-1)
        return self.proj(att @ v)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1, self.attn, self.ln_2 = nn.LayerNorm(W), Attention(), nn.LayerNorm(W)
        self.mlp = nn.Sequential(nn.Linear(W, 4 * W), nn.GELU(), nn.Linear(4 * W, W))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(V, W), nn.Embedding(T, W)
        self.h = nn.ModuleList(Block() for _ in range(3))
        self.ln_f = nn.LayerNorm(W)
        self.lm_head = nn.Linear(W, V, bias=False)
        self.lm_head.weight = self.wte.weight

    def forward(self, idx):
        x = self.wte(idx) + self.wpe(torch.arange(idx.shape[1]))
        for block in self.h:
            x = block(x)
        return self.lm_head(self.ln_f(x))


model = GPT()
idx = torch.randint(0, V, (1, T))
loss = F.cross_entropy(model(idx).view(-1, V), idx.view(-1))
loss.backward()
"""


def graph_of(source):
    from autogradviz.engine.worker.runner import run_script

    run = run_script(source, "model.py")
    trace = run.trace
    assert trace.error is None, trace.error
    assert trace.backward_runs, "no backward run recorded"
    return trace.graph(trace.backward_runs[0].graph)


@pytest.mark.parametrize("name,source", [("mlp", MLP), ("transformer", TRANSFORMER), ("gpt", GPT),
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


@pytest.mark.parametrize("engine", ["layered", "graphviz"])
def test_real_gpt_expanded_frames_and_routes(engine):
    """The GPT-2 shape traced for real (nested modules three deep, residual
    connections, a tied weight), every group expanded: sibling frames never
    overlap, nested ones nest, no box overlaps another or a foreign frame
    (check_layout), and our layout's edges cross no box."""
    g = graph_of(GPT)
    paths = {p for n in g.nodes if n.module
             for p in (".".join(n.module.split(".")[: i + 1]) for i in range(n.module.count(".") + 1))}
    r = layout_graph(g, LayoutOptions(engine=engine, group="modules", collapsed=set(), unrolled=paths))
    check_layout(g, r)
    frames = [x for x in r.groups if not x.collapsed]
    mods = {x.module.removeprefix("model.") for x in frames}  # named by variable, or not
    assert {"h.0", "h.1", "h.2", "h.2.attn.qkv"} <= mods
    if engine == "layered":
        assert edges_through_boxes(r) == []
