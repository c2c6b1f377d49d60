"""Capture: deep graphs, checkpoint segments, saved-tensor hooks, summaries."""

from __future__ import annotations

import math

import pytest
import torch

from autogradviz.engine.worker.runner import run_script
from autogradviz.engine.worker.summarize import Summarizer, full_summary, summarize
from autogradviz.engine.trace.model import MAX_INLINE_VALUES

from torch_reference import graph_nodes

FILENAME = "/virtual/capture.py"


def _walk_ops(root):
    return [n.name() for n in graph_nodes([root])]


def test_ten_thousand_node_graph_traces():
    src = """
import torch
x = torch.randn(3, requires_grad=True)
h = x
for i in range(5000):
    h = torch.sin(h) * 1.001
loss = h.sum()
loss.backward(retain_graph=True)
"""
    r = run_script(src, filename=FILENAME)
    tr = r.trace
    assert tr.error is None, tr.error
    g = tr.graph(tr.backward_runs[0].graph)
    n = len(_walk_ops(r.namespace["loss"]))
    assert n > 10_000
    assert len(g.nodes) == n and len(g.edges) == n - 1
    assert len(tr.backward_runs[0].steps) == n
    ref = r.namespace["x"].grad
    leaf = next(nd for nd in g.nodes if nd.label == "x")
    assert tr.backward_runs[0].leaf_grads[leaf.id].values == pytest.approx(ref.tolist())


CHECKPOINT = """
import torch
from torch.utils.checkpoint import checkpoint
torch.manual_seed(0)
calls = 0
def segment(a):
    global calls
    calls += 1
    return (a.sin() * a).cos()
x = torch.randn(5, requires_grad=True)
y = checkpoint(segment, x, use_reentrant={reentrant})
loss = (y * 2).sum()
loss.backward()
"""


@pytest.mark.parametrize("reentrant", [False, True])
def test_checkpoint_is_not_recomputed_by_recording(reentrant):
    src = CHECKPOINT.format(reentrant=reentrant)
    ref_ns: dict = {"__name__": "__main__"}
    exec(compile(src, "<ref>", "exec"), ref_ns)
    r = run_script(src, filename=FILENAME)
    tr = r.trace
    assert tr.error is None, tr.error
    assert r.namespace["calls"] == ref_ns["calls"]  # no extra forward re-runs
    assert torch.allclose(r.namespace["x"].grad, ref_ns["x"].grad)
    run = tr.backward_runs[0]
    assert len(tr.backward_runs) == 1  # the reentrant inner backward is part of this run
    g = tr.graph(run.graph)
    leaf = next(n for n in g.nodes if n.label == "x")
    assert run.leaf_grads[leaf.id].values == pytest.approx(ref_ns["x"].grad.tolist())
    if not reentrant:
        inside = [n for n in g.nodes if n.in_checkpoint]
        assert {n.op for n in inside} >= {"CosBackward0", "MulBackward0", "SinBackward0"}
        for n in inside:
            tensors = [s for s in n.saved if s.tensor is not None]
            assert tensors == []
            assert any(s.skipped and "checkpoint" in s.skipped for s in n.saved)
            assert {s.skipped_code for s in n.saved if s.skipped} == {"checkpoint"}
        outside = next(n for n in g.nodes if n.op == "MulBackward0" and not n.in_checkpoint)
        assert not outside.in_checkpoint
        assert any("checkpoint" in note for note in tr.notes)
        k = next(i for i, note in enumerate(tr.notes) if "checkpoint" in note)
        assert tr.note_codes[k].code == "checkpoint_not_read"
        assert tr.note_codes[k].params == {"nodes": len(inside)}
        # the steps still cover every node, in the engine's order
        assert len(run.steps) == len(g.nodes)


def test_user_saved_tensor_hooks_are_not_triggered():
    src = """
import torch
unpacked = 0
def pack(t):
    return t
def unpack(t):
    global unpacked
    unpacked += 1
    return t
x = torch.randn(4, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    y = (x.exp() * x).sum()
y.backward()
"""
    ref: dict = {}
    exec(src, ref)
    r = run_script(src, filename=FILENAME)
    assert r.trace.error is None
    assert r.namespace["unpacked"] == ref["unpacked"]
    g = r.trace.graphs[0]
    mul = next(n for n in g.nodes if n.op == "MulBackward0")
    assert all(s.tensor is None for s in mul.saved)
    assert any(s.skipped and "saved_tensors_hooks" in s.skipped for s in mul.saved)
    assert {s.skipped_code for s in mul.saved if s.skipped} == {"saved_tensors_hooks"}


def test_saved_values_read_after_free_are_marked():
    src = """
import torch
x = torch.randn(3, requires_grad=True)
y = x.exp()
y.sum().backward()
z = y * 2
"""
    r = run_script(src, filename=FILENAME)
    ns_graph = [g for g in r.trace.graphs if g.origin == "namespace"][0]
    exp = next(n for n in ns_graph.nodes if n.op == "ExpBackward0")
    assert exp.saved and all(s.skipped and "freed" in s.skipped for s in exp.saved)
    assert all(s.skipped_code == "freed" for s in exp.saved)


def test_retains_grad_and_hooks_on_nodes():
    src = """
import torch
x = torch.randn(3, requires_grad=True)
y = x * 2
y.retain_grad()
def my_hook(g):
    return None
y.register_hook(my_hook)
x.register_post_accumulate_grad_hook(lambda p: None)
y.sum().backward()
"""
    r = run_script(src, filename=FILENAME)
    g = r.trace.graphs[0]
    y = next(n for n in g.nodes if n.label == "y")
    x = next(n for n in g.nodes if n.label == "x")
    assert y.retains_grad and y.hooks == ["my_hook"]
    assert x.hooks == ["<lambda>"]
    run = r.trace.backward_runs[0]
    kinds = [e.kind for e in run.events]
    assert kinds == ["tensor_hook", "retain_grad", "post_accumulate_grad_hook"]
    pag = run.events[2]
    assert pag.node == x.id
    assert pag.received.values == pytest.approx(r.namespace["x"].grad.tolist())


# -- summaries ------------------------------------------------------------------
def test_summary_small_complete_with_stats():
    t = torch.tensor([[1.0, -2.0], [3.0, 4.0]])
    s = summarize(t)
    assert s.shape == [2, 2] and s.dtype == "float32" and s.device == "cpu"
    assert s.values == [1.0, -2.0, 3.0, 4.0] and not s.truncated and s.numel == 4
    assert s.min == -2.0 and s.max == 4.0 and s.mean == pytest.approx(t.mean().item())
    assert s.norm == pytest.approx(torch.linalg.vector_norm(t).item())
    assert s.id is None


def test_summary_large_truncated_and_fetchable():
    t = torch.linspace(-1, 1, 1000)
    summ = Summarizer()
    s = summ.request(t)
    summ.flush()
    assert s.truncated and s.values == t[:MAX_INLINE_VALUES].tolist() and s.numel == 1000
    assert s.min == -1.0 and s.max == 1.0
    assert s.mean == pytest.approx(t.mean().item(), abs=1e-6)
    assert summ.store.get(s.id) is not None
    full = full_summary(summ.store.get(s.id))
    assert full.values == t.tolist()


def test_summary_snapshot_survives_in_place_change():
    p = torch.zeros(100)
    summ = Summarizer()
    s = summ.request(p, snapshot=True)
    p.add_(5)
    summ.flush()
    assert s.max == 0.0


def test_summary_other_dtypes():
    b = summarize(torch.tensor([True, False]))
    assert b.values == [True, False] and b.mean is None and b.max == 1.0
    i = summarize(torch.arange(100))
    assert i.truncated and i.min == 0 and i.max == 99 and i.mean is None and i.norm is None
    h = summarize(torch.ones(3, dtype=torch.float16))
    assert h.values == [1.0, 1.0, 1.0] and h.mean == 1.0
    n = summarize(torch.tensor([1.0, float("nan")]))
    assert math.isnan(n.min) and math.isnan(n.mean)
    c = summarize(torch.tensor([1 + 2j]))
    assert c.values == [[1.0, 2.0]]
    e = summarize(torch.zeros(0, 3))
    assert e.values == [] and e.min is None and e.shape == [0, 3]
    sc = summarize(torch.tensor(3.5))
    assert sc.shape == [] and sc.values == [3.5]


@pytest.mark.parametrize("make", [
    lambda: torch.randn(300, 200).t(),
    lambda: torch.randn(5, 3, 100)[:, 1],
    lambda: torch.randn(2, 40).t(),
    lambda: torch.ones(1, 1000).expand(50, 1000),
    lambda: torch.randn(10, 10, 10).permute(2, 0, 1),
    lambda: torch.randn(3, 1000)[:, ::7],
])
def test_summary_of_non_contiguous_tensors(make):
    t = make()
    s = summarize(t)
    assert s.values == t.reshape(-1)[:MAX_INLINE_VALUES].tolist()
    assert s.min == t.min().item() and s.max == t.max().item()
    assert s.mean == pytest.approx(t.mean().item(), abs=1e-5)
    assert s.norm == pytest.approx(torch.linalg.vector_norm(t).item(), rel=1e-5)


def test_labels_in_containers_and_module_outputs():
    src = """
import torch
import torch.nn as nn
torch.manual_seed(0)
net = nn.Linear(3, 2)
x = torch.randn(4, 3, requires_grad=True)
parts = {'sq': x ** 2, 'cube': x ** 3}
pair = (x.sin(), x.cos())
loss = net(parts['sq'] + pair[0]).sum()
loss.backward()
"""
    r = run_script(src, filename=FILENAME)
    assert r.trace.error is None
    g = r.trace.graphs[0]
    labels = {n.label: n for n in g.nodes if n.label}
    assert {"parts['sq']", "pair[0]", "net.weight", "net.bias", "x", "loss"} <= set(labels)
    # a parameter belongs to the module that holds it, under the same path as that module's ops
    assert labels["net.weight"].module == "net" and labels["net.weight"].module_class == "Linear"
    # the Linear's output is nobody's variable, but the module tracker saw it
    addmm = next(n for n in g.nodes if n.op == "AddmmBackward0")
    assert addmm.label is None and addmm.module == "net" and addmm.module_class == "Linear"
    out = r.namespace["net"](r.namespace["parts"]["sq"] + r.namespace["pair"][0])
    assert addmm.tensor is not None and addmm.tensor.values == pytest.approx(out.reshape(-1).tolist())


def test_module_output_changed_in_place_is_not_shown_as_the_earlier_output():
    src = """
import torch
import torch.nn as nn
torch.manual_seed(1)
net = nn.Sequential(nn.Linear(3, 4), nn.ReLU(inplace=True))
x = torch.randn(5, 3)
net(x).sum().backward()
"""
    r = run_script(src, filename=FILENAME)
    g = r.trace.graphs[0]
    addmm = next(n for n in g.nodes if n.op == "AddmmBackward0")
    relu = next(n for n in g.nodes if n.op == "ReluBackward0")
    assert addmm.tensor is None  # its output was overwritten by the in-place ReLU
    net, x = r.namespace["net"], r.namespace["x"]
    assert relu.tensor.values == pytest.approx(net(x).reshape(-1).tolist())
    assert relu.module == "net.1" and addmm.module == "net.0"
