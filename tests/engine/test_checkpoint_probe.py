"""The checkpoint probe (engine/probes/checkpoint.py) against torch itself.

Every script logs, independently of the app, what its checkpointed functions
ran: the function pushes its own TorchDispatchMode and appends one LOG entry
per call - forward or recompute (`torch._C._current_graph_task_id() != -1`:
inside a backward), the aten ops in order (without `aten.detach.default`),
whether torch's early-stop signal passed through it, and module forward
pre-hooks count calls. The trace's `checkpoints` must say the same; the same
script run plainly (exec, no app) must recompute as often and end with
identical gradients.
"""

from __future__ import annotations

import os

import pytest
import torch

from autogradviz.engine.protocol.client import WorkerClient
from autogradviz.engine.trace.model import Trace
from autogradviz.engine.worker.runner import run_script

FILENAME = "/virtual/ckpt.py"

# The independent record, part of every script (so also of the plain run).
PRELUDE = """\
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint, checkpoint_sequential
from torch.utils._python_dispatch import TorchDispatchMode

LOG = []
it = None

class Log(TorchDispatchMode):
    def __init__(self, ops):
        super().__init__()
        self.ops = ops
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if func is not torch.ops.aten.detach.default:
            self.ops.append(str(func))
        return func(*args, **(kwargs or {}))

def logged(fn, name):
    def run(*a, **k):
        entry = {"name": name, "recompute": torch._C._current_graph_task_id() != -1,
                 "ops": [], "stopped": False, "it": it}
        LOG.append(entry)
        try:
            with Log(entry["ops"]):
                return fn(*a, **k)
        except BaseException as e:
            entry["stopped"] = type(e).__name__ == "_StopRecomputationError"
            raise
    return run

class Logged(nn.Module):
    def __init__(self, inner, name):
        super().__init__()
        self.inner = inner
        self.run = logged(inner, name)
    def forward(self, x):
        return self.run(x)

CALLS = {}
def count_calls(module, name):
    module.register_forward_pre_hook(lambda m, a: CALLS.__setitem__(name, CALLS.get(name, 0) + 1))

def segment_ops(y, stop):
    # op names of the nodes made after `stop`'s node (walk from y's node)
    out, todo, seen = [], [y.grad_fn], set()
    while todo:
        n = todo.pop()
        if n is None or n in seen or n is stop or n.name() == "torch::autograd::AccumulateGrad":
            continue
        seen.add(n)
        out.append(n.name())
        todo.extend(m for m, _ in n.next_functions)
    return sorted(out)
"""


def _run(body: str):
    """(trace, namespace) with the app, and the namespace of a plain run."""
    src = PRELUDE + body
    r = run_script(src, filename=FILENAME)
    assert r.trace.error is None, r.trace.error
    plain: dict = {"__name__": "__main__"}
    exec(compile(src, "<plain>", "exec"), plain)
    return r.trace, r.namespace, plain


def _entries(ns, recompute: bool, names=None) -> list[dict]:
    return [e for e in ns["LOG"] if e["recompute"] is recompute and (names is None or e["name"] in names)]


def _recomputations(trace: Trace) -> list:
    return [r for c in trace.checkpoints for r in c.recomputations]


def _same_log(ns, plain) -> None:
    """The app changed nothing the script logged: same calls, same ops."""
    assert [(e["name"], e["recompute"], e["ops"], e["stopped"]) for e in ns["LOG"]] == \
        [(e["name"], e["recompute"], e["ops"], e["stopped"]) for e in plain["LOG"]]
    assert ns["CALLS"] == plain["CALLS"]


def _step_of_trigger(trace: Trace, r) -> str:
    return trace.backward_runs[r.run].steps[r.step].node


# -- one call of each kind -------------------------------------------------------------------
NON_REENTRANT = """\
x = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], requires_grad=True)
w = torch.tensor([[0.3, -0.2], [0.1, 0.4], [-0.5, 0.6]], requires_grad=True)
f = logged(lambda t, m: torch.tanh(torch.sin(t) @ m) * 2, "f")
h = x * 1.5
y = checkpoint(f, h, w, use_reentrant=False)
SEG = segment_ops(y, h.grad_fn)
loss = (y ** 2).sum()
loss.backward()
"""


def test_non_reentrant_call_matches_torch():
    tr, ns, plain = _run(NON_REENTRANT)
    (c,) = tr.checkpoints
    assert c.id == "c1" and c.kind == "non_reentrant"
    assert c.line == PRELUDE.count("\n") + NON_REENTRANT.splitlines().index(
        "y = checkpoint(f, h, w, use_reentrant=False)") + 1
    assert c.function == "logged.<locals>.run"  # (the qualname of what was passed)
    (fwd,) = _entries(ns, False)
    assert c.forward_ops == fwd["ops"] and "aten.sin.default" in fwd["ops"]
    (rec,) = _entries(ns, True)
    (r,) = c.recomputations
    assert r.ops == rec["ops"] and r.run == 0
    assert r.early_stopped is (rec["stopped"] and len(rec["ops"]) < len(fwd["ops"]))
    # the inputs checkpoint kept instead of the activations
    assert [s.shape for s in c.inputs] == [[2, 3], [3, 2]]
    assert c.inputs[0].values == pytest.approx((ns["x"] * 1.5).flatten().tolist())
    # the segment's nodes: exactly those torch made inside the call, in the run's graph
    g = tr.graph(c.graph)
    assert g.id == tr.backward_runs[0].graph
    by_id = {n.id: n for n in g.nodes}
    assert sorted(by_id[i].op for i in c.nodes) == ns["SEG"]
    # triggered by a node of the segment, at that node's own step
    assert r.trigger in c.nodes and _step_of_trigger(tr, r) == r.trigger
    assert by_id[r.trigger].in_checkpoint
    # nothing changed for the script
    _same_log(ns, plain)
    assert torch.equal(ns["x"].grad, plain["x"].grad) and torch.equal(ns["w"].grad, plain["w"].grad)


REENTRANT = """\
x = torch.tensor([0.5, -1.0, 2.0, 0.1], requires_grad=True)
f = logged(lambda t: torch.exp(torch.cos(t)).sum(), "f")
y = checkpoint(f, x * 2, use_reentrant=True)
(y * 3).backward()
"""


def test_reentrant_call_matches_torch():
    tr, ns, plain = _run(REENTRANT)
    (c,) = tr.checkpoints
    assert c.kind == "reentrant" and c.preserve_rng_state is True
    (fwd,) = _entries(ns, False)
    (rec,) = _entries(ns, True)
    assert c.forward_ops == fwd["ops"] == ["aten.cos.default", "aten.exp.default", "aten.sum.default"]
    (r,) = c.recomputations
    assert r.ops == rec["ops"] and not r.early_stopped
    # one node stands for the whole segment, and it asked for the re-run
    g = tr.graph(c.graph)
    (node,) = [n for n in g.nodes if n.id in c.nodes]
    assert node.op == "CheckpointFunctionBackward"
    assert r.trigger == node.id and _step_of_trigger(tr, r) == node.id
    # the nested backward inside it is not a run of its own
    assert tr.backward_calls == 1 and len(tr.backward_runs) == 1
    _same_log(ns, plain)
    assert torch.equal(ns["x"].grad, plain["x"].grad)


EARLY_STOP = """\
x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
def body(t):
    a = torch.sin(t)
    b = torch.exp(a)      # saves its output: the last tensor the segment saves
    return b + 1, b * 0   # neither saves anything for x's gradient
f = logged(body, "f")
y, z = checkpoint(f, x, use_reentrant=False)
y.sum().backward()
"""


def test_non_reentrant_early_stop():
    tr, ns, plain = _run(EARLY_STOP)
    (c,) = tr.checkpoints
    (fwd,) = _entries(ns, False)
    (rec,) = _entries(ns, True)
    assert rec["stopped"] and len(rec["ops"]) < len(fwd["ops"])  # torch stopped early here
    (r,) = c.recomputations
    assert c.forward_ops == fwd["ops"] and r.ops == rec["ops"]
    assert r.early_stopped is True
    assert c.forward_ops[:len(r.ops)] == r.ops
    _same_log(ns, plain)
    assert torch.equal(ns["x"].grad, plain["x"].grad)


@pytest.mark.parametrize("reentrant", [False, True])
def test_checkpoint_sequential_segments(reentrant):
    body = f"""\
torch.manual_seed(0)
blocks = [nn.Sequential(nn.Linear(4, 4), nn.Tanh()) for _ in range(6)]
for i, b in enumerate(blocks):
    count_calls(b, f"b{{i}}")
seq = nn.Sequential(*[Logged(b, f"b{{i}}") for i, b in enumerate(blocks)])
x = torch.randn(2, 4, requires_grad=True)
y = checkpoint_sequential(seq, 3, x, use_reentrant={reentrant})
y.sum().backward()
"""
    tr, ns, plain = _run(body)
    # every segment but the last is checkpointed: blocks 0-1 and 2-3
    assert [c.kind for c in tr.checkpoints] == ["reentrant" if reentrant else "non_reentrant"] * 2
    assert [c.function for c in tr.checkpoints] == ["seq.0..seq.1", "seq.2..seq.3"]
    assert [c.preserve_rng_state for c in tr.checkpoints] == [True, True]
    segs = [("b0", "b1"), ("b2", "b3")]
    for c, names in zip(tr.checkpoints, segs):
        fwd = _entries(ns, False, names)
        assert c.forward_ops == [op for e in fwd for op in e["ops"]]
        (r,) = c.recomputations
        assert r.ops == [op for e in _entries(ns, True, names) for op in e["ops"]]
        assert r.run == 0 and _step_of_trigger(tr, r) == r.trigger
    # the blocks past the last checkpoint ran once, without a recompute
    assert _entries(ns, True, ("b4", "b5")) == []
    # recomputations seen by the app = extra forward calls torch made
    extra = sum(ns["CALLS"][f"b{i}"] - 1 for i in range(6))
    assert len(_recomputations(tr)) * 2 == extra  # (two blocks per segment)
    _same_log(ns, plain)
    assert torch.equal(ns["x"].grad, plain["x"].grad)


TRAINING = """\
torch.manual_seed(0)
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList(Logged(nn.Sequential(nn.Linear(5, 5), nn.ReLU(), nn.Linear(5, 5)), f"blocks.{i}")
                                    for i in range(3))
        self.head = nn.Linear(5, 1)
    def forward(self, x):
        for i, block in enumerate(self.blocks):
            x = checkpoint(block, x, use_reentrant=(i == 1)) + x
        return self.head(x)
model = Net()
for i, b in enumerate(model.blocks):
    count_calls(b.inner, f"blocks.{i}")
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = torch.randn(8, 5)
target = torch.randn(8, 1)
for it in range(4):
    opt.zero_grad()
    loss = ((model(data) - target) ** 2).mean()
    loss.backward()
    opt.step()
final = [p.detach().clone() for p in model.parameters()]
"""


def test_training_loop():
    tr, ns, plain = _run(TRAINING)
    assert len(tr.checkpoints) == 12 and len(tr.backward_runs) == 4
    assert [c.kind for c in tr.checkpoints[:3]] == ["non_reentrant", "reentrant", "non_reentrant"]
    assert [c.function for c in tr.checkpoints[:3]] == ["model.blocks.0", "model.blocks.1", "model.blocks.2"]
    fwd = _entries(ns, False)
    rec = _entries(ns, True)
    assert [c.forward_ops for c in tr.checkpoints] == [e["ops"] for e in fwd]
    # each checkpoint re-ran once, in the backward of its own iteration
    for k, c in enumerate(tr.checkpoints):
        it, name = divmod(k, 3)
        (r,) = c.recomputations
        (mine,) = [e for e in rec if e["it"] == it and e["name"] == f"blocks.{name}"]
        assert r.ops == mine["ops"] and r.run == it
        assert r.early_stopped is (mine["stopped"] and len(mine["ops"]) < len(c.forward_ops))
        assert c.graph == tr.backward_runs[it].graph and r.trigger in c.nodes
    # recomputation counts = forward pre-hook counts beyond one call per iteration
    assert len(_recomputations(tr)) == sum(n - 4 for n in ns["CALLS"].values())
    _same_log(ns, plain)
    for a, b in zip(ns["final"], plain["final"]):
        assert torch.equal(a, b)


def test_with_and_without_checkpoint_same_gradients():
    """torch's promise the lessons rely on, checked on the training loop."""
    _, ns, _ = _run(TRAINING)
    plain = TRAINING.replace("x = checkpoint(block, x, use_reentrant=(i == 1)) + x", "x = block(x) + x")
    _, ns2, _ = _run(plain)
    for a, b in zip(ns["final"], ns2["final"]):
        assert torch.allclose(a, b, rtol=0, atol=1e-6)


def test_user_context_fn_keeps_working():
    body = """\
entered = []
class Tag:
    def __init__(self, name):
        self.name = name
    def __enter__(self):
        entered.append(self.name)
    def __exit__(self, *exc):
        return False
x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
y = checkpoint(logged(lambda t: torch.sin(t).exp(), "f"), x, use_reentrant=False,
               context_fn=lambda: (Tag("forward"), Tag("recompute")))
y.sum().backward()
"""
    tr, ns, plain = _run(body)
    assert ns["entered"] == plain["entered"] == ["forward", "recompute"]
    (c,) = tr.checkpoints
    assert c.forward_ops == _entries(ns, False)[0]["ops"]
    assert [r.ops for r in c.recomputations] == [e["ops"] for e in _entries(ns, True)]


def test_no_checkpoint_no_entries_and_errors_pass_through():
    tr, _, _ = _run("x = torch.ones(2, requires_grad=True)\n(x * 2).sum().backward()\n")
    assert tr.checkpoints == []
    r = run_script(PRELUDE + "checkpoint(lambda t: t * 2, torch.ones(2), use_reentrant=True, foo=1)\n",
                   filename=FILENAME)
    assert r.trace.error.type == "ValueError" and "Unexpected keyword arguments: foo" in r.trace.error.message
    (c,) = r.trace.checkpoints
    assert c.error.startswith("ValueError") and c.forward_ops == []


def test_through_the_worker_process():
    env = dict(os.environ)
    with WorkerClient(env=env) as client:
        client.start()
        out = client.run(PRELUDE + REENTRANT + EARLY_STOP.replace("x = ", "x2 = ").replace("(f, x,", "(f, x2,"),
                         filename=FILENAME, timeout=120)
    assert out.status == "ok", out.message
    tr = Trace.from_json(out.trace.to_json())
    assert [c.kind for c in tr.checkpoints] == ["reentrant", "non_reentrant"]
    assert tr.checkpoints[0].forward_ops == ["aten.cos.default", "aten.exp.default", "aten.sum.default"]
    assert tr.checkpoints[1].recomputations[0].early_stopped is True
    assert tr.checkpoints[0].recomputations[0].trigger == tr.checkpoints[0].nodes[0]


def test_two_backward_calls_through_one_segment():
    """Each backward (a graph task of its own) re-runs the segment; the
    segment's nodes are named in the first graph that holds them, each
    trigger in the graph of its own run."""
    body = """\
x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
y = checkpoint(logged(lambda t: torch.sin(t).exp(), "f"), x, use_reentrant=False)
y.sum().backward(retain_graph=True)
(y * 2).sum().backward()
"""
    tr, ns, plain = _run(body)
    (c,) = tr.checkpoints
    g0, g1 = (tr.graph(run.graph) for run in tr.backward_runs)
    assert g0.id != g1.id
    assert c.graph == g0.id and set(c.nodes) <= {n.id for n in g0.nodes}
    rec = _entries(ns, True)
    assert len(rec) == 2 and [r.ops for r in c.recomputations] == [e["ops"] for e in rec]
    assert [r.run for r in c.recomputations] == [0, 1]
    for r in c.recomputations:
        assert _step_of_trigger(tr, r) == r.trigger
    _same_log(ns, plain)
    assert torch.equal(ns["x"].grad, plain["x"].grad)


@pytest.mark.parametrize("extra", [
    "context_fn=functools.partial(create_selective_checkpoint_contexts, policy)",  # selective checkpoint
    "debug=True",  # torch refuses any other context_fn with debug: the probe passes none
])
def test_selective_and_debug_checkpoints(extra):
    body = f"""\
import functools
from torch.utils.checkpoint import create_selective_checkpoint_contexts, CheckpointPolicy
def policy(ctx, op, *a, **k):
    return CheckpointPolicy.MUST_SAVE if op == torch.ops.aten.mm.default else CheckpointPolicy.PREFER_RECOMPUTE
torch.manual_seed(0)
x = torch.randn(4, 4, requires_grad=True)
y = checkpoint(logged(lambda t: torch.mm(t, t).sin().mm(t), "f"), x, use_reentrant=False, {extra})
y.sum().backward()
"""
    tr, ns, plain = _run(body)
    (c,) = tr.checkpoints
    assert c.forward_ops == _entries(ns, False)[0]["ops"]
    assert [r.ops for r in c.recomputations] == [e["ops"] for e in _entries(ns, True)] != []
    _same_log(ns, plain)
    assert torch.equal(ns["x"].grad, plain["x"].grad)


@pytest.mark.parametrize("preserve", [True, False])
def test_dropout_and_preserve_rng_state(preserve):
    """The flag is recorded as given; with it the re-run's Dropout mask is
    the forward's, and either way the gradients are the plain run's."""
    body = f"""\
torch.manual_seed(0)
masks = []
def f(t):
    out = nn.functional.dropout(t, 0.5, training=True)
    masks.append((out != 0).clone())
    return out * 2
x = torch.ones(64, requires_grad=True)
y = checkpoint(logged(f, "f"), x, use_reentrant=False, preserve_rng_state={preserve}, early_stop=False)
y.sum().backward()
"""
    tr, ns, plain = _run(body)
    (c,) = tr.checkpoints
    assert c.preserve_rng_state is preserve
    assert [r.ops for r in c.recomputations] == [e["ops"] for e in _entries(ns, True)]
    assert len(ns["masks"]) == len(plain["masks"]) == 2
    assert torch.equal(ns["masks"][0], ns["masks"][1]) is preserve
    for a, b in zip(ns["masks"], plain["masks"]):
        assert torch.equal(a, b)
    assert torch.equal(ns["x"].grad, plain["x"].grad)


def test_nested_checkpoints():
    """A checkpoint inside a checkpointed function: both forward calls get an
    entry (outer first); the inner call torch makes again while re-running the
    outer one is part of that re-run, not a new entry; results unchanged."""
    body = """\
x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
inner = logged(lambda t: torch.cos(t).exp(), "inner")
outer = logged(lambda t: checkpoint(inner, torch.sin(t), use_reentrant=False) * 3, "outer")
y = checkpoint(outer, x, use_reentrant=False)
y.sum().backward()
"""
    tr, ns, plain = _run(body)
    assert [c.id for c in tr.checkpoints] == ["c1", "c2"]
    c1, c2 = tr.checkpoints
    assert c1.forward_ops == _entries(ns, False, ("outer",))[0]["ops"]
    assert c2.forward_ops == _entries(ns, False, ("inner",))[0]["ops"]
    assert set(c2.nodes) <= set(c1.nodes)  # the inner segment lies inside the outer one
    assert [r.ops for r in c1.recomputations] == [e["ops"] for e in _entries(ns, True, ("outer",))]
    _same_log(ns, plain)
    assert torch.equal(ns["x"].grad, plain["x"].grad)
