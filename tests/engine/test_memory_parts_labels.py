"""The memory probe's "parameters" and "gradients" count what the script's
modules and optimizers hold, not every leaf that requires grad: lesson 30's
input `x` (requires_grad=True, 32 floats) is an other leaf, counted apart.
The expected figures are computed here with torch from the live objects."""

from __future__ import annotations

import torch

from autogradviz.engine.worker.runner import run_script


def _nbytes(ts) -> int:
    return sum({t.untyped_storage().data_ptr(): t.untyped_storage().nbytes() for t in ts}.values())


def _lesson(name: str) -> str:
    from pathlib import Path

    return (Path(__file__).resolve().parents[2] / "resources" / "lessons" / name).read_text(encoding="utf-8")


def test_lesson_30_parameters_are_the_modules_and_the_input_is_apart():
    result = run_script(_lesson("30_checkpoint_mlp.py"), "/virtual/30_checkpoint_mlp.py")
    trace, ns = result.trace, result.namespace
    assert trace.error is None, trace.error
    params = [p for m in (ns["mlp"], ns["head"]) for p in m.parameters()]
    want_params = sum(p.numel() * p.element_size() for p in params)
    assert want_params == 612  # 153 floats: what a teacher counts by hand
    x = ns["x"]
    first = trace.memory.runs[0]
    assert first.end_of_forward.parameters == want_params
    assert first.end_of_forward.other_leaves == x.numel() * x.element_size() == 128
    assert first.after_backward.parameters == want_params
    # after the first backward every parameter and x have a gradient of their own size
    assert first.after_backward.gradients == want_params
    assert first.after_backward.other_leaf_gradients == 128


SCRIPT = """\
import torch
torch.manual_seed(0)
w = torch.randn(5, 3, requires_grad=True)       # a parameter only because the optimizer holds it
lin = torch.nn.Linear(3, 2)
opt = torch.optim.SGD([w] + list(lin.parameters()), lr=0.1)
inp = torch.randn(4, 5, requires_grad=True)     # an input
opt.zero_grad()
loss = lin(inp @ w).sum()
loss.backward()
opt.step()
"""


def test_optimizer_held_tensors_are_parameters_and_other_leaves_are_not():
    result = run_script(SCRIPT, "/virtual/params.py")
    trace, ns = result.trace, result.namespace
    assert trace.error is None, trace.error
    held = [p for g in ns["opt"].param_groups for p in g["params"]]
    run = trace.memory.runs[0]
    assert run.after_step.parameters == _nbytes(held)
    assert run.after_step.gradients == _nbytes(p.grad for p in held)
    inp = ns["inp"]
    assert run.after_step.other_leaves == _nbytes([inp])
    assert run.after_step.other_leaf_gradients == _nbytes([inp.grad])
    # before the optimizer's first step too: it holds w from the moment it was made
    assert run.end_of_forward.parameters == _nbytes(held)
    assert run.end_of_forward.other_leaves == _nbytes([inp])
    assert torch.equal(ns["w"], held[0])
