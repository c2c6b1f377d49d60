"""engine.replay against torch itself.

Traces come from `run_script` (in-process); the expected values are
computed independently in the test with plain torch (hooks, .grad,
autograd.grad), never read back from the trace.
"""

from __future__ import annotations

import pytest
import torch

from autogradviz.engine.trace import replay
from autogradviz.engine.worker.runner import run_script

LESSON = """\
import torch
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
y = x * w
y.retain_grad()
def double(g):
    return g * 2
y.register_hook(double)
z = y.sum()
loss = z * 3
loss.backward()
"""

MLP = """\
import torch
x = torch.tensor([[1.0, -2.0], [0.5, 3.0]])
W = torch.tensor([[0.1, 0.2, -0.3], [0.4, -0.5, 0.6]], requires_grad=True)
b = torch.tensor([0.01, -0.02, 0.03], requires_grad=True)
h = x @ W + b
a = h.tanh()
loss = (a * a).mean()
loss.backward()
"""

GRAD = """\
import torch
p = torch.tensor([1.0, -1.0, 2.0], requires_grad=True)
q = p.exp()
s = q.sum()
(gp,) = torch.autograd.grad(s, [p])
"""


def _trace(src):
    result = run_script(src, filename="<test>")
    assert result.trace.error is None, result.trace.error
    return result.trace


def _node(trace, run, label):
    g = trace.graph(trace.backward_runs[run].graph)
    found = [n for n in g.nodes if n.label == label]
    assert found, f"no node labelled {label!r}"
    return found[0]


def _edges_from(trace, run, node_id):
    g = trace.graph(trace.backward_runs[run].graph)
    return [i for i, e in enumerate(g.edges) if e.src == node_id]


def _close(summary, tensor):
    assert summary is not None
    assert not summary.truncated
    assert list(summary.shape) == list(tensor.shape)
    assert summary.values == pytest.approx(tensor.detach().flatten().tolist(), rel=1e-5, abs=1e-6)


def test_lesson_against_torch():
    trace = _trace(LESSON)
    # independent torch: the same computation, with our own hooks
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    y = x * w
    y.retain_grad()
    seen = {}
    y.register_hook(lambda g: seen.setdefault("y_in", g.clone()))  # before the user's hook
    y.register_hook(lambda g: g * 2)
    loss = y.sum() * 3
    loss.backward()

    n = replay.step_count(trace, 0)
    end = replay.state_at(trace, 0, n)
    xn, wn, yn = _node(trace, 0, "x"), _node(trace, 0, "w"), _node(trace, 0, "y")
    _close(end.leaf_grads[xn.id], x.grad)
    _close(end.leaf_grads[wn.id], w.grad)
    # the gradient that travelled into y (before the hook doubled it)
    (e_y,) = _edges_from(trace, 0, yn.id)
    _close(end.edge_grads[e_y], seen["y_in"])
    # retain_grad: y.grad as torch has it (after the hook)
    _close(end.retained[yn.id], y.grad)
    # the hook event: saw the incoming gradient, returned the doubled one
    hooks = [e for e in end.events if e.kind == "tensor_hook" and e.node == yn.id]
    assert hooks and hooks[0].name == "double"
    _close(hooks[0].received, seen["y_in"])
    _close(hooks[0].returned, seen["y_in"] * 2)
    # before y's node ran none of this was visible
    k_y = next(i for i, s in enumerate(trace.backward_runs[0].steps) if s.node == yn.id) + 1
    before = replay.state_at(trace, 0, k_y - 1)
    assert yn.id not in before.retained and not [e for e in before.events if e.node == yn.id]
    assert xn.id not in before.leaf_grads and before.status[yn.id] == "pending"
    at = replay.state_at(trace, 0, k_y)
    assert at.current == yn.id and any(e.node == yn.id for e in at.new_events)


def test_mlp_edges_carry_torch_gradients():
    trace = _trace(MLP)
    x = torch.tensor([[1.0, -2.0], [0.5, 3.0]])
    W = torch.tensor([[0.1, 0.2, -0.3], [0.4, -0.5, 0.6]], requires_grad=True)
    b = torch.tensor([0.01, -0.02, 0.03], requires_grad=True)
    h = x @ W + b
    a = h.tanh()
    loss = (a * a).mean()
    dh, da = torch.autograd.grad(loss, [h, a], retain_graph=True)
    loss.backward()

    n = replay.step_count(trace, 0)
    end = replay.state_at(trace, 0, n)
    _close(end.leaf_grads[_node(trace, 0, "W").id], W.grad)
    _close(end.leaf_grads[_node(trace, 0, "b").id], b.grad)
    (e_h,) = _edges_from(trace, 0, _node(trace, 0, "h").id)  # h is used once (by tanh)
    _close(end.edge_grads[e_h], dh)
    # a is used twice (a * a): each edge carries half of dL/da, together all of it
    e_a = _edges_from(trace, 0, _node(trace, 0, "a").id)
    total = sum(torch.tensor(end.edge_grads[i].values).reshape(2, 3) for i in e_a)
    assert total.flatten().tolist() == pytest.approx(da.flatten().tolist(), rel=1e-5)


def test_every_step_moves_one_node_and_back_is_identical():
    trace = _trace(MLP)
    run = trace.backward_runs[0]
    g = trace.graph(run.graph)
    n = replay.step_count(trace, 0)
    forward = [replay.state_at(trace, 0, k) for k in range(n + 1)]
    for k, s in enumerate(forward):
        assert s.step == k
        counts = {v: list(s.status.values()).count(v) for v in ("done", "current", "pending")}
        assert counts["current"] == (1 if k else 0)
        assert counts["done"] == max(k - 1, 0)
        # gradients only on edges whose consumer already ran
        ran = {st.node for st in run.steps[:k]}
        assert all(g.edges[i].dst in ran for i in s.edge_grads)
    backward = [replay.state_at(trace, 0, k) for k in range(n, -1, -1)]
    assert backward[::-1] == forward


def test_autograd_grad_accumulates_nothing():
    trace = _trace(GRAD)
    assert trace.backward_runs and trace.backward_runs[0].kind == "grad"
    p = torch.tensor([1.0, -1.0, 2.0], requires_grad=True)
    (gp,) = torch.autograd.grad(p.exp().sum(), [p])
    n = replay.step_count(trace, 0)
    end = replay.state_at(trace, 0, n)
    assert end.leaf_grads == {}  # autograd.grad never runs AccumulateGrad
    pn = _node(trace, 0, "p")
    grads = [end.edge_grads[i] for i in _edges_from(trace, 0, pn.id) if i in end.edge_grads]
    assert grads, "the gradient reaching p is on p's edge"
    _close(grads[0], gp)
