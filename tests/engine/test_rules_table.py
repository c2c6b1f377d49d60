"""The derivative-rule table is proved against torch, and torch's yaml formulas are found.

Small scripts run through the real worker; for every node the table covers,
the shown rule (engine/rules/table.py, bound to the recorded values by
engine/rules/bind.py) is evaluated with torch (tests/engine/rules_evaluate.py) and
must reproduce the grad_inputs torch recorded. Every op of the table must be
met at least once, so a rule cannot sit untested.
"""

from __future__ import annotations

import pytest
import torch

from autogradviz.engine.rules.bind import bind, line_text
from rules_evaluate import evaluate_slot, tensor_of  # (tests/engine/rules_evaluate.py)
from autogradviz.engine.rules.table import RULES
from autogradviz.engine.worker import derivatives_yaml

OPS_SCRIPT = """
import torch
import torch.nn.functional as F
torch.manual_seed(0)
a = torch.randn(2, 3, requires_grad=True)
b = torch.randn(2, 3, requires_grad=True)
w = torch.randn(3, 2, requires_grad=True)
bias = torch.randn(2, requires_grad=True)
p = torch.rand(2, 3, requires_grad=True)
bm = torch.randn(2, 2, 3, requires_grad=True)
bm2 = torch.randn(2, 3, 2, requires_grad=True)
emb = torch.randn(5, 3, requires_grad=True)
lnw = torch.randn(3, requires_grad=True)
lnb = torch.randn(3, requires_grad=True)
row = torch.randn(3, requires_grad=True)
tgt = torch.tensor([0, 2])
outs = [
    a + b, a + row, a - row, 1 - a, a * b, a * 2.0, a / (b.abs() + 1), -a, a ** 3, p ** b, torch.exp(a),
    torch.log(p + 1), torch.log1p(p), torch.sqrt(p + 1), torch.rsqrt(p + 1), torch.sin(a), torch.cos(a),
    torch.tanh(a), torch.sigmoid(a), torch.relu(a), F.gelu(a), F.silu(a), F.leaky_relu(a, 0.1),
    a.abs(), a.clamp(-0.5, 0.5), a.max(), torch.where(a > 0, a, b),
    torch.softmax(a, dim=1), torch.log_softmax(a, dim=0), a.sum(dim=1), a.mean(), a.mean(dim=0),
    a @ w, torch.bmm(bm, bm2), F.linear(a, w.t(), bias), torch.addmm(bias, a, w, beta=0.5, alpha=2.0),
    a.t(), a.transpose(0, 1), bm.permute(2, 0, 1), a.view(3, 2), a.reshape(6), row.expand(2, 3),
    a.unsqueeze(1), bm[:1].squeeze(0), a[1], a[:, 1:], a[torch.tensor([1, 0, 1])],
    torch.cat([a, b], dim=1), torch.stack([a, b], dim=1),
    F.mse_loss(a, b), F.mse_loss(a, b, reduction="sum"), F.cross_entropy(a, tgt),
    F.nll_loss(F.log_softmax(a, 1), tgt, reduction="sum"), F.dropout(a, 0.5, training=True),
    F.embedding(torch.tensor([[0, 2], [2, 4]]), emb), F.layer_norm(a, (3,), lnw, lnb),
    a @ row, row @ row, bm @ w, row @ w, bm[:1].squeeze(), bm[:1].squeeze((0,)),
    a.clone(), a.to(torch.float64), a.clamp(min=0.1), a.min(), a.cumsum(1), F.softplus(a), F.hardtanh(a),
    torch.erf(a), (p + 1).reciprocal(), F.elu(a), torch.atan(a),
]
loss = sum((o * (1 + torch.arange(o.numel()).reshape(o.shape) / 10)).sum() for o in outs)
loss.backward()
"""


@pytest.fixture(scope="module")
def trace(worker):
    out = worker.run(OPS_SCRIPT, filename="ops.py", timeout=120)
    assert out.trace.error is None, out.trace.error
    return out.trace


def _bound_steps(trace):
    run = trace.backward_runs[0]
    graph = trace.graph(run.graph)
    nodes = {n.id: n for n in graph.nodes}
    for step in run.steps:
        node = nodes[step.node]
        yield node, step, bind(graph, node, step, max_values=64)


def test_every_rule_reproduces_what_torch_recorded(trace):
    checked: dict[str, int] = {}
    for node, step, bound in _bound_steps(trace):
        if bound is None:
            continue
        for slot in bound.slots:
            recorded = step.grad_inputs[slot.slot] if slot.slot < len(step.grad_inputs) else None
            if recorded is None:
                continue
            ours = evaluate_slot(bound, slot.slot)
            theirs = tensor_of(recorded)
            assert ours.shape == theirs.shape, (node.op, slot.formula)
            assert torch.allclose(ours.double(), theirs, rtol=1e-4, atol=1e-5, equal_nan=True), (
                node.op, line_text(slot), ours, theirs)
            checked[node.op] = checked.get(node.op, 0) + 1
    # torch 2.13 on CPU makes none of these for the script above (dropout is a mul by its mask)
    missing = set(RULES) - set(checked) - {"NativeDropoutBackward0", "ReshapeAliasBackward0", "SqueezeBackward3"}
    assert not missing, f"rules never proved against torch: {sorted(missing)}"


def test_numbers_are_plugged_in_for_small_tensors(trace):
    lines = {}
    for node, step, bound in _bound_steps(trace):
        if bound is not None:
            for s in bound.slots:
                lines.setdefault(node.op, []).append(line_text(s))
    mul = [t for t in lines["MulBackward0"] if t.startswith("∂L/∂a = grad ⊙ b = [[")]
    assert mul, lines["MulBackward0"]
    assert mul[0].count(" = ") == 3  # formula = numbers = recorded result
    assert any("∂L/∂a = grad · wᵀ" in t for t in lines["MmBackward0"])
    # broadcasting shows its sum; alpha and beta show when they are not 1
    assert any(t.startswith("∂L/∂row = Σ_bcast(grad)") for t in lines["AddBackward0"])
    assert any(t.startswith("∂L/∂bias = Σ_bcast(β·grad)") for t in lines["AddmmBackward0"])


def test_torch_formulas_come_from_the_installed_yaml(trace):
    """Every op of the trace has torch's own formula, and its schema names the
    variables torch saved for that node (an independent check of the name mapping)."""
    ops = {n.op for g in trace.graphs for n in g.nodes if n.kind == "op"}
    assert ops <= set(trace.torch_formulas), ops - set(trace.torch_formulas)
    assert trace.torch_formulas_missing is None
    for g in trace.graphs:
        for n in g.nodes:
            if n.kind != "op":
                continue
            f = trace.torch_formulas[n.op]
            args = set(derivatives_yaml.schema_args(f.name)) | {"result", "result0", "result1", "result2"}
            for sv in n.saved:
                base = sv.name.split("[")[0]
                for suffix in ("_sym_sizes", "_sym_strides", "_sym_numel", "_sym_argsize_0"):
                    base = base.removesuffix(suffix)
                assert base in args or base == "total_weight", (n.op, f.name, sv.name)
    assert "mul_tensor_backward" in trace.torch_formulas["MulBackward0"].grads["self"]


def test_yaml_parser_names_overloads_like_torchgen():
    text = ("- name: foo(Tensor self) -> Tensor\n  self: grad * 2\n\n"
            "- name: foo.bar(Tensor self, Tensor other) -> Tensor\n  dispatch:\n    Default:\n"
            "      self: grad\n      other: non_differentiable\n\n"
            "- name: foo.none(Tensor self) -> Tensor\n  self: non_differentiable\n\n"
            "- name: foo_(Tensor(a!) self) -> Tensor(a!)\n  self: grad.neg()\n\n"
            "- name: baz_forward(Tensor input) -> Tensor\n  input: grad\n")
    table = derivatives_yaml.parse(text)
    assert table["FooBackward0"].grads == {"self": "grad * 2"}
    assert table["FooBackward1"].grads == {"self": "grad"}
    assert table["FooBackward2"].name.startswith("foo_(")
    assert table["BazBackward0"].grads == {"input": "grad"}


def test_absent_yaml_is_said_not_hidden(monkeypatch, trace):
    """A torch without torchgen's yaml: the trace says "absent" instead of formulas."""
    import msgspec

    monkeypatch.setattr(derivatives_yaml, "yaml_path", lambda: None)
    monkeypatch.setattr(derivatives_yaml, "_CACHE", {})
    copy = msgspec.structs.replace(trace, torch_formulas={}, torch_formulas_missing=None)
    derivatives_yaml.attach(copy)
    assert copy.torch_formulas == {} and copy.torch_formulas_missing == "absent"
