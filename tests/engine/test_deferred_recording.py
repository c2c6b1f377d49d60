"""What the recorder leaves for after the script (Recorder.finalize): the
trace it builds then equals the one built at the call, and shows what torch
had at the call, whatever the script changes in place afterwards. Expected
values come from torch itself, computed independently in each test."""

from __future__ import annotations

import math

import pytest
import torch

from autogradviz.engine.probes.probe_set import ProbeSet
from autogradviz.engine.worker.probe_context import context_for
from autogradviz.engine.worker import recorder as recorder_mod
from autogradviz.engine.worker.capture import SKIP_CHANGED, CaptureState
from autogradviz.engine.worker.recorder import Recorder
from autogradviz.engine.worker.runner import run_script
from autogradviz.engine.worker.summarize import Summarizer
from autogradviz.engine.trace.model import Trace

FILENAME = "/virtual/deferred.py"


def run(src):
    r = run_script(src, filename=FILENAME)
    assert r.trace.error is None, r.trace.error
    assert not [n for n in r.trace.notes if n.startswith("internal")], r.trace.notes
    return r.trace


def _without_store_ids(x):
    """The trace as plain data, minus what depends on when a summary was
    made: tensor-store ids (numbered in flush order) and the duration."""
    if isinstance(x, dict):
        is_summary = "dtype" in x and "shape" in x
        return {k: _without_store_ids(v) for k, v in x.items()
                if not (is_summary and k == "id") and k != "duration_s"}
    if isinstance(x, list):
        return [_without_store_ids(v) for v in x]
    return x


def _same(a, b, path="trace") -> None:
    """a == b, floats to 1e-12 relative (batched reductions over groups of
    different sizes may round the last bit differently)."""
    if isinstance(a, float) and isinstance(b, float):
        assert math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-300) or (a != a and b != b), (path, a, b)
        return
    assert type(a) is type(b), (path, a, b)
    if isinstance(a, dict):
        assert a.keys() == b.keys(), (path, a.keys() ^ b.keys())
        for k in a:
            _same(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, list):
        assert len(a) == len(b), (path, len(a), len(b))
        for i, (x, y) in enumerate(zip(a, b)):
            _same(x, y, f"{path}[{i}]")
    else:
        assert a == b, (path, a, b)


def _node(trace, graph_id, op=None, label=None):
    g = next(g for g in trace.graphs if g.id == graph_id)
    found = [n for n in g.nodes if (op is None or n.op == op) and (label is None or n.label == label)]
    assert len(found) == 1, (op, label, [(n.op, n.label) for n in g.nodes])
    return found[0]


def _saved(node, name):
    found = [s for s in node.saved if s.name == name]
    assert len(found) == 1, (name, [s.name for s in node.saved])
    return found[0]


def _close(values, expected):
    expected = [float(v) for v in expected]
    assert len(values) == len(expected)
    assert all(math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-7) for a, b in zip(values, expected)), (values, expected)


MIXED = """
import torch
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(5, 3)
for i in range(3):
    opt.zero_grad()
    h = model[1](model[0](x))
    h.retain_grad()
    loss = model[2](h).pow(2).mean()
    loss.backward()
    opt.step()
a = torch.randn(4, requires_grad=True)
b = a
for k in range(40):
    b = torch.sin(b) * a
b.sum().backward()
"""


def test_a_deferred_trace_equals_the_one_built_at_the_call(monkeypatch):
    deferred = run(MIXED)
    monkeypatch.setattr(recorder_mod, "DEFER_BYTES", 0)  # everything summarised at each call
    immediate = run(MIXED)
    assert len(deferred.backward_runs) == 4
    assert all(r.steps for r in deferred.backward_runs)
    _same(_without_store_ids(deferred.to_dict()), _without_store_ids(immediate.to_dict()))


def _recorded(build, budget=recorder_mod.DEFER_BYTES):
    """Record one backward call of build()'s graph in this process."""
    trace = Trace()
    state = CaptureState(Summarizer())
    trace.graphs = state.graphs
    ns: dict = {}
    rec = Recorder(trace, state, ns)
    rec.defer_bytes = budget
    probes = ProbeSet(context_for(rec))
    probes.install()  # before build(): hooks it registers are the user's
    try:
        loss, names = build()
        ns.update(names)
        loss.backward()
    finally:
        probes.remove()
    assert not probes.ctx.errors, probes.ctx.errors
    return trace, state, rec, ns


def _sin_chain():
    x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    loss = (torch.sin(x) * 2).sum()
    return loss, {"x": x, "loss": loss}


def test_plain_run_waits_for_finalize_unless_over_budget():
    expected = (2 * torch.cos(torch.tensor([0.5, -1.0, 2.0]))).tolist()
    for budget, waits in ((recorder_mod.DEFER_BYTES, True), (0, False)):
        trace, state, rec, ns = _recorded(_sin_chain, budget)
        run_ = trace.backward_runs[0]
        # leaves' .grad are read at the call either way (the script may change them)
        leaf = next(iter(run_.leaf_grads.values()))
        _close(leaf.values, expected)
        assert (run_.steps == []) is waits
        assert (state.graphs[0].nodes == []) is waits
        rec.finalize()
        ops = [next(n.op for n in state.graphs[0].nodes if n.id == s.node) for s in run_.steps]
        assert ops == ["SumBackward0", "MulBackward0", "SinBackward0", "AccumulateGrad"]
        _close(run_.steps[-1].grad_outputs[0].values, expected)


def test_a_run_where_a_user_hook_fired_is_recorded_at_the_call():
    def build():
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        y.register_hook(lambda g: g * 2)
        loss = y.sum()
        return loss, {"x": x, "y": y, "loss": loss}

    trace, state, rec, ns = _recorded(build)
    run_ = trace.backward_runs[0]
    assert [e.kind for e in run_.events] == ["tensor_hook"]
    assert len(run_.steps) == 3 and state.graphs[0].nodes  # no finalize needed
    _close(run_.leaf_grads[run_.steps[-1].node].values, [6.0, 6.0])


def test_what_the_script_changes_after_backward_does_not_change_the_record():
    trace = run("""
import torch
torch.manual_seed(0)
x = torch.randn(4, requires_grad=True)
w = torch.randn(4, requires_grad=True)
y = x * w
z = y.exp()
class Box:
    pass
box = Box()
box.t = z * 2          # an activation the script holds without a name
loss = box.t.sin().sum()
loss.backward()
with torch.no_grad():
    y.add_(1.0)
    z.mul_(3.0)
    w.sub_(0.5)
    x.grad.zero_()
    w.grad.mul_(2.0)
    box.t.add_(7.0)
""")
    torch.manual_seed(0)
    x0 = torch.randn(4, requires_grad=True)
    w0 = torch.randn(4, requires_grad=True)
    y0 = x0 * w0
    z0 = y0.exp()
    t0 = z0 * 2
    gy, gz, gt = torch.autograd.grad(t0.sin().sum(), (y0, z0, t0))
    gx, gw = torch.autograd.grad(y0, (x0, w0), gy)

    gid = trace.backward_runs[0].graph
    mul = _node(trace, gid, "MulBackward0", "y")
    _close(_saved(mul, "self").tensor.values, x0.tolist())
    _close(_saved(mul, "other").tensor.values, w0.tolist())  # w changed later
    exp = _node(trace, gid, "ExpBackward0", "z")
    _close(_saved(exp, "result").tensor.values, z0.tolist())  # z changed later
    sin = _node(trace, gid, "SinBackward0")
    assert _saved(sin, "self").skipped == SKIP_CHANGED  # changed, unnamed: no stale values
    assert _saved(sin, "self").skipped_code == "changed_in_place"

    run_ = trace.backward_runs[0]
    by_node = {s.node: s for s in run_.steps}
    _close(by_node[exp.id].grad_outputs[0].values, gz.tolist())
    _close(by_node[mul.id].grad_outputs[0].values, gy.tolist())
    leaves = {_node(trace, gid, "AccumulateGrad", name).id: exp_ for name, exp_ in (("x", gx), ("w", gw))}
    for nid, g in leaves.items():
        _close(run_.leaf_grads[nid].values, g.tolist())  # .grad changed later
        _close(by_node[nid].grad_outputs[0].values, g.tolist())


def test_a_saved_view_of_a_named_tensor_keeps_the_values_backward_used():
    # `a[1:]` is a new tensor at an offset into a's memory: the script can
    # change it through `a` after backward, so it is read at the call (by
    # storage, not by the view's own data pointer).
    trace = run("""
import torch
x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
a = x * 3
y = a[1:] * a[1:]
y.sum().backward()
with torch.no_grad():
    a.mul_(100.0)
""")
    x0 = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    view = (x0 * 3)[1:]
    gid = trace.backward_runs[0].graph
    mul = _node(trace, gid, "MulBackward0", "y")
    for name in ("self", "other"):
        saved = _saved(mul, name)
        assert saved.skipped is None, saved.skipped
        _close(saved.tensor.values, view.tolist())


def test_gradients_the_script_handed_in_or_got_back_keep_their_values():
    trace = run("""
import torch
x = torch.arange(3.0, requires_grad=True)
y = x * 2
g = torch.ones(3)
y.backward(g)
g.mul_(5)
gx, = torch.autograd.grad((x * 3).sum(), x)
gx.mul_(10)
""")
    first, second = trace.backward_runs
    assert first.steps[0].grad_outputs[0].values == [1.0, 1.0, 1.0]
    assert first.steps[-1].grad_outputs[0].values == [2.0, 2.0, 2.0]
    assert second.results[0].values == [3.0, 3.0, 3.0]
    assert second.steps[-1].grad_inputs[0].values == [3.0, 3.0, 3.0]


def test_training_loop_saved_weights_are_the_values_before_each_update():
    src = """
import torch
torch.manual_seed(1)
model = torch.nn.Linear(3, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.5)
data = torch.randn(4, 3, requires_grad=True)  # (else addmm saves no mat2)
for step in range(3):
    opt.zero_grad()
    model(data).pow(2).sum().backward()
    opt.step()
"""
    trace = run(src)
    torch.manual_seed(1)
    model = torch.nn.Linear(3, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    data = torch.randn(4, 3, requires_grad=True)
    before = []
    for _ in range(3):
        before.append((model.weight.detach().clone(), model.bias.detach().clone()))
        opt.zero_grad()
        model(data).pow(2).sum().backward()
        opt.step()
    assert len(trace.backward_runs) == 3
    for run_, (w, b) in zip(trace.backward_runs, before):
        addmm = _node(trace, run_.graph, "AddmmBackward0")
        _close(_saved(addmm, "mat2").tensor.values, w.t().reshape(-1).tolist())
        _close(_saved(addmm, "mat1").tensor.values, data.detach().reshape(-1).tolist())
        g = next(g for g in trace.graphs if g.id == run_.graph)
        assert not [s for n in g.nodes for s in n.saved if s.skipped]
        weight = _node(trace, run_.graph, "AccumulateGrad", "model.weight")
        _close(weight.tensor.values, w.reshape(-1).tolist())


@pytest.mark.parametrize("budget", [0, recorder_mod.DEFER_BYTES])
def test_nothing_is_held_after_finalize(budget):
    trace, state, rec, ns = _recorded(_sin_chain, budget)
    rec.finalize()
    assert rec._pending_runs == [] and rec._pending_bytes == 0
    assert state.pending_bytes == 0 and not state._pending
