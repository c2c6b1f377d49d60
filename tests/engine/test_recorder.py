"""Recorder edge cases: the script behaves exactly as with plain torch."""

from __future__ import annotations

import pytest
import torch

from autogradviz.engine.worker.runner import run_script

FILENAME = "/virtual/rec.py"


def plain(src):
    ns: dict = {"__name__": "__main__", "device": "cpu"}
    exc = None
    try:
        exec(compile(src, "<plain>", "exec"), ns)
    except Exception as e:  # noqa: BLE001
        exc = e
    return ns, exc


def both(src):
    ns, exc = plain(src)
    r = run_script(src, filename=FILENAME)
    return ns, exc, r


def test_hook_that_raises_propagates_the_same_exception():
    src = """
import torch
x = torch.ones(2, requires_grad=True)
y = x * 2
def bad(g):
    raise ValueError("hook says no")
y.register_hook(bad)
y.sum().backward()
"""
    ns, exc, r = both(src)
    assert r.trace.error.type == "ValueError" and r.trace.error.message == str(exc)
    assert r.trace.error.line == 6
    assert len(r.trace.backward_runs) == 1  # the partial run is still recorded
    run = r.trace.backward_runs[0]
    g = r.trace.graph(run.graph)
    ops = {n.id: n.op for n in g.nodes}
    # the hook's firing is an event with the error, tied to the failed step of y's node
    [ev] = run.events
    assert (ev.kind, ev.name, ev.error) == ("tensor_hook", "bad", "ValueError: hook says no")
    assert ev.received.values == [1.0, 1.0]
    assert [ops[s.node] for s in run.steps] == ["SumBackward0", "MulBackward0"]
    assert [s.error for s in run.steps] == [None, "ValueError: hook says no"]
    assert run.steps[ev.step] is run.steps[-1] and ev.node == run.steps[-1].node
    assert run.error.type == "ValueError" and run.error.message == "hook says no"
    assert run.error.line == 6


def test_register_hook_on_tensor_without_grad_raises_the_same():
    ns, exc, r = both("import torch\nt = torch.ones(2)\nt.register_hook(lambda g: g)\n")
    assert r.trace.error.type == type(exc).__name__ and r.trace.error.message == str(exc)


def test_multiple_roots_gradient_argument_and_inputs():
    src = """
import torch
torch.manual_seed(0)
a = torch.randn(3, requires_grad=True)
b = torch.randn(3, requires_grad=True)
u = a * b
v = a.exp()
torch.autograd.backward([u, v], [torch.ones(3), torch.full((3,), 2.0)])
w = (a * b).sum()
w.backward(inputs=[b])
"""
    ns, exc, r = both(src)
    assert exc is None and r.trace.error is None
    runs = r.trace.backward_runs
    assert len(runs) == 2
    g0 = r.trace.graph(runs[0].graph)
    assert len(g0.roots) == 2
    labels = {n.id: n.label for n in g0.nodes}
    grads0 = {labels[k]: v for k, v in runs[0].leaf_grads.items()}
    exp_a = (ns["b"] + 2 * ns["a"].exp()).tolist()
    assert grads0["a"].values == pytest.approx(exp_a)
    g1 = r.trace.graph(runs[1].graph)
    labels1 = {n.id: n.label for n in g1.nodes}
    assert {labels1[k] for k in runs[1].leaf_grads} == {"b"}  # inputs=[b]: a not touched
    assert r.namespace["a"].grad.tolist() == pytest.approx(ns["a"].grad.tolist())
    assert r.namespace["b"].grad.tolist() == pytest.approx(ns["b"].grad.tolist())


def test_backward_on_a_leaf_and_double_backward():
    src = """
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
x.backward(torch.ones(2))
y = (x ** 3).sum()
(g,) = torch.autograd.grad(y, x, create_graph=True)
g.sum().backward()
"""
    ns, exc, r = both(src)
    assert exc is None and r.trace.error is None
    assert r.namespace["x"].grad.tolist() == ns["x"].grad.tolist()
    runs = r.trace.backward_runs
    assert [run.kind for run in runs] == ["backward", "grad", "backward"]
    assert r.trace.graph(runs[0].graph).nodes[0].op == "AccumulateGrad"
    assert runs[1].results[0].values == pytest.approx((3 * torch.tensor([1.0, 2.0]) ** 2).tolist())
    # the double-backward graph contains the backward ops of the first graph
    assert len(r.trace.graph(runs[2].graph).nodes) > 3


def test_grad_hook_on_leaf_inputs_in_autograd_grad():
    src = """
import torch
x = torch.ones(3, requires_grad=True)
seen = []
x.register_hook(lambda g: seen.append(g.sum().item()))
(gx,) = torch.autograd.grad((x * 4).sum(), x)
"""
    ns, exc, r = both(src)
    assert r.namespace["seen"] == ns["seen"] == [12.0]
    ev = r.trace.backward_runs[0].events
    assert [e.kind for e in ev] == ["tensor_hook"]
    assert ev[0].received.values == [4.0, 4.0, 4.0]


def test_nested_grad_inside_hook_is_part_of_the_outer_run():
    src = """
import torch
x = torch.ones(2, requires_grad=True)
z = torch.ones(2, requires_grad=True)
inner = []
def h(g):
    (gz,) = torch.autograd.grad((z * 3).sum(), z)
    inner.append(gz.tolist())
y = x * 2
y.register_hook(h)
y.sum().backward()
"""
    ns, exc, r = both(src)
    assert r.namespace["inner"] == ns["inner"]
    assert r.trace.backward_calls == 1 and len(r.trace.backward_runs) == 1


def test_user_hooks_are_plain_functions_again_after_the_run():
    src = "import torch\nx = torch.ones(2, requires_grad=True)\nh = x.register_hook(lambda g: g * 10)\n"
    r = run_script(src, filename=FILENAME)
    x = r.namespace["x"]
    (x * 1).sum().backward()  # outside the recorder: the wrapper just calls the hook
    assert x.grad.tolist() == [10.0, 10.0]
    r.namespace["h"].remove()
    x.grad = None
    (x * 1).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]


def test_prints_from_hooks_and_step_order_with_shared_input():
    src = """
import torch
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a * 3
c = b.sin() + b.cos()
b.register_hook(lambda g: print("b got", [round(v, 4) for v in g.tolist()]))
c.sum().backward()
"""
    ns, exc, r = both(src)
    assert r.trace.stdout.startswith("b got")
    run = r.trace.backward_runs[0]
    g = r.trace.graph(run.graph)
    ops = {n.id: n.op for n in g.nodes}
    order = [ops[s.node] for s in run.steps]
    # b's node runs only after both consumers (sin, cos) have sent their gradients
    assert order.index("MulBackward0") > max(order.index("SinBackward0"), order.index("CosBackward0"))
    hook = run.events[0]
    assert ops[run.steps[hook.step].node] == "MulBackward0"


def test_user_node_hooks_are_recorded_and_behave_the_same():
    src = """
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
z = y.sin()
def triple(grad_outputs):
    return (grad_outputs[0] * 3,)
def watch(grad_inputs, grad_outputs):
    print("watch", [round(v, 4) for v in grad_inputs[0].tolist()])
y.grad_fn.register_prehook(triple)
h = y.grad_fn.register_hook(watch)
z.sum().backward()
h.remove()
acc = torch.autograd.graph.get_gradient_edge(x).node
acc.register_prehook(lambda go: None)
(x * 1).sum().backward()
"""
    ns, exc, r = both(src)
    assert exc is None and r.trace.error is None
    assert r.namespace["x"].grad.tolist() == pytest.approx(ns["x"].grad.tolist())
    assert r.trace.stdout.startswith("watch")
    run0 = r.trace.backward_runs[0]
    g = r.trace.graph(run0.graph)
    by_id = {n.id: n for n in g.nodes}
    ev = [(e.kind, by_id[e.node].op, e.name, e.replaced) for e in run0.events]
    assert ev == [("node_prehook", "MulBackward0", "triple", True), ("node_hook", "MulBackward0", "watch", False)]
    pre, post = run0.events
    cos = (torch.tensor([2.0, 4.0])).cos()
    assert pre.received.values == pytest.approx(cos.tolist(), rel=1e-5)
    assert pre.returned.values == pytest.approx((3 * cos).tolist(), rel=1e-5)
    assert post.received.values == pytest.approx((6 * cos).tolist(), rel=1e-5)
    assert by_id[pre.node].hooks == ["triple", "watch"]
    assert run0.steps[pre.step].node == pre.node
    # the removed handle really removed the hook; the AccumulateGrad prehook fires
    run1 = r.trace.backward_runs[1]
    g1 = r.trace.graph(run1.graph)
    kinds = [(e.kind, next(n.op for n in g1.nodes if n.id == e.node)) for e in run1.events]
    assert kinds == [("node_prehook", "AccumulateGrad")]
