"""Finite differences from the worker agree with torch's gradient, computed here.

The worker re-runs the script under its tape and differentiates the checked
loss numerically (engine/worker/finite_diff.py); the test computes the same
gradient with torch on its own (running the script in this process, or the
formula on the recorded values) and with the trace's recorded gradient.
"""

from __future__ import annotations

import torch

TRAINING = """
import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(3)
model = nn.Sequential(nn.Linear(4, 5), nn.Tanh(), nn.Linear(5, 3))
x = torch.randn(6, 4)
y = torch.tensor([0, 1, 2, 0, 1, 2])
grads = []
for step in range(3):
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    grads.append(model[0].weight.grad.clone())
    print("loss", loss.item())
    with torch.no_grad():  # an optimizer's step: in place, between the backward calls
        for p in model.parameters():
            p -= 0.5 * p.grad
            p.grad = None
"""

UNSEEDED = """
import torch
w = torch.randn(3, 2, requires_grad=True)
h = w * 2
h[0, 0] = 5.0
loss = (h ** 3).sum() + w.exp().mean()
loss.backward()
"""

TOO_BIG = """
import torch
big = torch.zeros(40, 30, requires_grad=True)
(big * 2).sum().backward()
"""


def _leaf_label(trace, run, suffix):
    graph = trace.graph(trace.backward_runs[run].graph)
    return next(n.label for n in graph.nodes if n.kind == "leaf" and n.label and n.label.endswith(suffix))


def test_training_loop_second_step_agrees_with_torch(worker):
    out = worker.run(TRAINING, filename="train.py", timeout=120)
    assert out.trace.error is None
    label = _leaf_label(out.trace, 1, "0.weight")
    reply = worker.check_gradient(label, run=1)
    assert "error" not in reply, reply
    fd = torch.tensor(reply["fd"], dtype=torch.float64).reshape(reply["shape"])
    ns: dict = {"__name__": "__main__"}
    exec(compile(TRAINING, "train.py", "exec"), ns)  # torch's gradient, computed here
    expected = ns["grads"][1].double()
    assert torch.allclose(fd, expected, rtol=1e-4, atol=1e-6), (fd - expected).abs().max()
    assert abs(reply["loss"] - reply["loss_recorded"]) < 1e-5
    # and it is not the first step's gradient: the check is about the run asked for
    assert not torch.allclose(fd, ns["grads"][0].double(), rtol=1e-4, atol=1e-6)
    # the first run: nn.Linear's initialisation (init.kaiming_uniform_(tensor=...), in place) is not replayed
    first = worker.check_gradient(label, run=0)
    fd0 = torch.tensor(first["fd"], dtype=torch.float64).reshape(first["shape"])
    assert torch.allclose(fd0, ns["grads"][0].double(), rtol=1e-4, atol=1e-6)


def test_random_leaf_without_seed_and_in_place_writes(worker):
    out = worker.run(UNSEEDED, filename="unseeded.py", timeout=120)
    assert out.trace.error is None
    w_node = next(n for n in out.trace.graphs[0].nodes if n.label == "w")
    w = torch.tensor(w_node.tensor.values, dtype=torch.float64).reshape(w_node.tensor.shape).requires_grad_()
    h = w * 2
    h = h.clone()
    h[0, 0] = 5.0
    ((h ** 3).sum() + w.exp().mean()).backward()  # torch's gradient at the recorded w
    reply = worker.check_gradient("w", run=0)
    assert "error" not in reply, reply
    fd = torch.tensor(reply["fd"], dtype=torch.float64).reshape(w.shape)
    assert torch.allclose(fd, w.grad, rtol=1e-5, atol=1e-6), (fd, w.grad)
    recorded = out.trace.backward_runs[0].leaf_grads[w_node.id].values
    assert torch.allclose(fd.reshape(-1), torch.tensor(recorded, dtype=torch.float64), rtol=1e-4, atol=1e-4)


def test_checks_that_cannot_be_made_say_why(worker):
    out = worker.run(TOO_BIG, filename="big.py", timeout=120)
    assert out.trace.error is None
    assert worker.check_gradient("big", run=0)["error"] == "too_many"
    assert worker.check_gradient("nothing_named_so", run=0)["error"] == "leaf_not_found"
    assert worker.check_gradient("big", run=5)["error"] == "backward_not_reached"


GRAD_CALL = """
import torch
a = torch.tensor([0.3, -1.2, 2.0], requires_grad=True)
b = torch.tensor([[1.0, 2.0, 0.5]], requires_grad=True)
out = torch.sin(a) * b
(g,) = torch.autograd.grad(out, a, grad_outputs=torch.tensor([[2.0, -1.0, 0.5]]))
"""


def test_autograd_grad_with_grad_outputs(worker):
    out = worker.run(GRAD_CALL, filename="grad_call.py", timeout=120)
    assert out.trace.error is None
    reply = worker.check_gradient("a", run=0)
    assert "error" not in reply, reply
    a = torch.tensor([0.3, -1.2, 2.0], dtype=torch.float64, requires_grad=True)
    b = torch.tensor([[1.0, 2.0, 0.5]], dtype=torch.float64)
    (expected,) = torch.autograd.grad(torch.sin(a) * b, a, grad_outputs=torch.tensor([[2.0, -1.0, 0.5]],
                                                                                     dtype=torch.float64))
    assert torch.allclose(torch.tensor(reply["fd"], dtype=torch.float64), expected, rtol=1e-6, atol=1e-8)
