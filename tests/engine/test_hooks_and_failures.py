"""Node hooks and nodes that fail, against torch observed independently here.

Each script is also run by plain `exec` in the test, with the test's own
prehooks on every node (the engine's real order, the failing node included:
a node's prehooks run before it does) and the script's own hooks writing down
what they saw; the recorded trace must agree with both.
"""

from __future__ import annotations

import math

import pytest
import torch

from autogradviz.engine.worker.runner import run_script

from torch_reference import PrehookOrder, graph_nodes

FILENAME = "/virtual/hooks_failures.py"



def reference(forward_src: str, call: str, root: str):
    """Plain torch: run the forward, put our own prehooks on every node,
    run `call`; returns (namespace, op order seen, exception raised or None)."""
    ns: dict = {"__name__": "__main__", "device": "cpu"}
    exec(compile(forward_src, "<ref>", "exec"), ns)
    exc = None
    with PrehookOrder(graph_nodes([eval(root, ns)])) as seen:
        try:
            exec(compile(call, "<ref>", "exec"), ns)
        except Exception as e:  # noqa: BLE001
            exc = e
    return ns, seen.order, exc


def close(summary, tensor, tol=1e-6) -> bool:
    assert summary is not None
    vals = tensor.detach().reshape(-1).tolist()
    return list(summary.shape) == list(tensor.shape) and len(summary.values) == len(vals) and all(
        math.isclose(a, b, rel_tol=tol, abs_tol=tol) for a, b in zip(summary.values, vals))


def recorded(src: str, run_index: int = 0):
    r = run_script(src, filename=FILENAME)
    run = r.trace.backward_runs[run_index]
    g = r.trace.graph(run.graph)
    return r, run, g, {n.id: n for n in g.nodes}


# -- 2a: node hooks -------------------------------------------------------------
NODE_HOOKS = """
import torch
torch.manual_seed(0)
log = []
x = torch.randn(3, requires_grad=True)
w = torch.randn(3, requires_grad=True)
y = x * w
z = y.exp()
loss = z.sum()
def pre_exp(grad_outputs):
    log.append(("pre_exp", grad_outputs[0].clone()))
def post_exp(grad_inputs, grad_outputs):
    log.append(("post_exp", grad_inputs[0].clone()))
def pre_mul(grad_outputs):
    log.append(("pre_mul", grad_outputs[0].clone()))
    return (grad_outputs[0] * 2,)
def pre_acc(grad_outputs):
    log.append(("pre_acc", grad_outputs[0].clone()))
z.grad_fn.register_prehook(pre_exp)
z.grad_fn.register_hook(post_exp)
y.grad_fn.register_prehook(pre_mul)
acc_w = y.grad_fn.next_functions[1][0]
acc_w.register_prehook(pre_acc)
"""


def test_node_hooks_are_events_tied_to_their_steps_and_listed_before_they_fire():
    call = "loss.backward()\n"
    ns, order, exc = reference(NODE_HOOKS, call, "loss")
    assert exc is None
    r, run, g, by_id = recorded(NODE_HOOKS + call)
    assert r.trace.error is None
    # same order as torch, and the hooks behaved the same (pre_mul doubled the grad)
    assert [by_id[s.node].op for s in run.steps] == order
    assert torch.allclose(r.namespace["x"].grad, ns["x"].grad)
    assert torch.allclose(r.namespace["w"].grad, ns["w"].grad)
    # one event per hook firing, in the order they fired, with what they received
    log = r.namespace["log"]
    assert [name for name, _ in log] == [name for name, _ in ns["log"]]
    hooks = [e for e in run.events if e.kind in ("node_prehook", "node_hook")]
    assert [e.name for e in hooks] == [name for name, _ in log]
    want_kind = {"pre_exp": "node_prehook", "post_exp": "node_hook", "pre_mul": "node_prehook",
                 "pre_acc": "node_prehook"}
    want_op = {"pre_exp": "ExpBackward0", "post_exp": "ExpBackward0", "pre_mul": "MulBackward0",
               "pre_acc": "AccumulateGrad"}
    for e, (name, value) in zip(hooks, log):
        assert e.kind == want_kind[name]
        assert by_id[e.node].op == want_op[name]
        assert run.steps[e.step].node == e.node  # tied to its node's step
        assert close(e.received, value)
    assert hooks[2].replaced and close(hooks[2].returned, log[2][1] * 2)
    assert by_id[hooks[3].node].label == "w"


def test_node_hooks_are_listed_on_nodes_that_never_run_them():
    # autograd.grad never runs AccumulateGrad, and a graph nobody calls backward
    # on never runs anything: the hooks are still named on their nodes.
    src = NODE_HOOKS + """
(gy,) = torch.autograd.grad(loss, y, retain_graph=True)
other = (x * 3).sin()
other.grad_fn.register_hook(post_exp)
"""
    r, run, g, by_id = recorded(src)
    assert r.trace.error is None
    assert run.kind == "grad"
    names = {by_id[nid].op: by_id[nid].hooks for nid in by_id}
    assert names["ExpBackward0"] == ["pre_exp", "post_exp"]
    assert names["MulBackward0"] == ["pre_mul"]
    acc_w = next(n for n in g.nodes if n.label == "w")
    assert acc_w.hooks == ["pre_acc"]
    assert "pre_acc" not in [e.name for e in run.events]  # it did not fire
    ns_graph = next(gr for gr in r.trace.graphs if gr.origin == "namespace" and
                    any(n.op == "SinBackward0" for n in gr.nodes))
    sin = next(n for n in ns_graph.nodes if n.op == "SinBackward0")
    assert sin.hooks == ["post_exp"]


# -- 2b: a node that raises inside backward --------------------------------------
def _same_exception(r, exc):
    assert exc is not None
    assert r.trace.error is not None
    assert r.trace.error.type == type(exc).__name__
    assert r.trace.error.message == str(exc)


CUSTOM = """
import torch
torch.manual_seed(1)
got = []
class Boom(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2
    @staticmethod
    def backward(ctx, grad_out):
        got.append(grad_out.clone())
        raise ValueError("no gradient for you")
x = torch.randn(4, requires_grad=True)
y = Boom.apply(x.sin())
loss = (y * y).sum()
"""


def test_custom_function_backward_that_raises():
    call = "loss.backward()\n"
    ns, order, exc = reference(CUSTOM, call, "loss")
    assert isinstance(exc, ValueError)
    r, run, g, by_id = recorded(CUSTOM + call)
    _same_exception(r, exc)
    # the innermost line of the user's file: the raise in backward
    assert r.trace.error.line == CUSTOM.splitlines().index('        raise ValueError("no gradient for you")') + 1
    # every node the engine started is a step, the failing one last, with the error
    assert [by_id[s.node].op for s in run.steps] == order
    assert order[-1] == "BoomBackward"
    last = run.steps[-1]
    assert last.error == "ValueError: no gradient for you"
    assert all(s.error is None for s in run.steps[:-1])
    # what the failing node received: what its backward saw
    assert close(last.grad_outputs[0], r.namespace["got"][0])
    assert torch.allclose(r.namespace["got"][0], ns["got"][0])
    assert run.error.type == "ValueError" and run.error.message == "no gradient for you"
    assert r.namespace["x"].grad is None and ns["x"].grad is None


INPLACE = """
import torch
torch.manual_seed(2)
x = torch.randn(3, requires_grad=True)
w = torch.randn(3, requires_grad=True)
a = x * w
b = a.exp()
c = a.sin() * w
loss = b.sum() + c.sum()
b.add_(1)
"""


def test_cpp_node_that_raises_inplace_modified():
    call = "loss.backward()\n"
    ns, order, exc = reference(INPLACE, call, "loss")
    assert isinstance(exc, RuntimeError) and "inplace" in str(exc)
    r, run, g, by_id = recorded(INPLACE + call)
    _same_exception(r, exc)
    assert [by_id[s.node].op for s in run.steps] == order
    assert order[-1] == "ExpBackward0"
    assert run.steps[-1].error.startswith("RuntimeError: one of the variables")
    # grads that flowed before the failure are what torch computed
    ref = {}
    for name in ("x", "w"):
        t = ns[name]
        ref[name] = None if t.grad is None else t.grad.clone()
    assert (r.namespace["w"].grad is None) == (ref["w"] is None)
    if ref["w"] is not None:
        assert torch.allclose(r.namespace["w"].grad, ref["w"])


HOOK_RAISES = """
import torch
torch.manual_seed(3)
x = torch.randn(3, requires_grad=True)
y = x.tanh()
z = (y * 3).sum()
def angry(grad_inputs, grad_outputs):
    raise KeyError("post-hook")
y.grad_fn.register_hook(angry)
outcome = None
try:
    z.backward()
except KeyError as e:
    outcome = repr(e)
after = (x * 2).sum()
after.backward()
"""


def test_user_post_hook_that_raises_caught_by_the_script():
    ns: dict = {}
    exec(compile(HOOK_RAISES, "<ref>", "exec"), ns)
    r, run, g, by_id = recorded(HOOK_RAISES)
    # the script caught the same exception and went on exactly as with plain torch
    assert r.trace.error is None
    assert r.namespace["outcome"] == ns["outcome"] == "KeyError('post-hook')"
    assert torch.allclose(r.namespace["x"].grad, ns["x"].grad)
    assert len(r.trace.backward_runs) == 2 and r.trace.backward_runs[1].error is None
    assert run.error.type == "KeyError"
    last = run.steps[-1]
    assert by_id[last.node].op == "TanhBackward0" and last.error == "KeyError: 'post-hook'"
    # the node ran before its hook raised: what it sent is known
    x = r.namespace["x"]
    assert close(last.grad_inputs[0], 3 * (1 - x.detach().tanh() ** 2))
    [ev] = run.events
    assert (ev.kind, ev.name, ev.node, ev.step) == ("node_hook", "angry", last.node, last.index)
    assert ev.error == "KeyError: 'post-hook'"


def test_tensor_hook_that_changes_the_grad_in_place():
    # the producer's step keeps what it sent; the consumer's shows the change
    src = """
import torch
torch.manual_seed(4)
x = torch.randn(3, requires_grad=True)
y = x * 2
z = y.exp()
seen = []
def halve(g):
    seen.append(g.clone())
    g.mul_(0.5)
y.register_hook(halve)
z.sum().backward()
"""
    r, run, g, by_id = recorded(src)
    assert r.trace.error is None
    ns: dict = {}
    exec(compile(src, "<ref>", "exec"), ns)
    assert torch.allclose(r.namespace["x"].grad, ns["x"].grad)
    steps = {by_id[s.node].op: s for s in run.steps}
    sent = r.namespace["seen"][0]
    assert close(steps["ExpBackward0"].grad_inputs[0], sent)
    assert close(steps["MulBackward0"].grad_outputs[0], sent * 0.5)
    [ev] = run.events
    assert close(ev.received, sent)


@pytest.mark.parametrize("caught", [False, True])
def test_failure_in_a_later_run_leaves_earlier_runs_alone(caught):
    body = "z.backward()" if not caught else "try:\n    z.backward()\nexcept ValueError:\n    pass"
    src = f"""
import torch
x = torch.ones(2, requires_grad=True)
(x * 2).sum().backward()
y = x * 3
def bad(g):
    raise ValueError("second run")
y.register_hook(bad)
z = y.sum()
{body}
"""
    r = run_script(src, filename=FILENAME)
    runs = r.trace.backward_runs
    assert len(runs) == 2
    assert runs[0].error is None and all(s.error is None for s in runs[0].steps)
    assert runs[1].error.message == "second run"
    assert (r.trace.error is None) == caught
    assert r.trace.to_json()  # serialisable with the new fields
