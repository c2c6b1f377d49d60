"""Reentrant re-runs' inner graph and nested backward, and Dropout masks,
against torch itself (engine/probes/checkpoint_inner.py, checkpoint_masks.py).

The script records independently of the app: when its checkpointed function
runs inside a backward (a re-run), it walks the grad_fn graph of its own
result (op names and edges) and puts a prehook on each node, which appends
the node's name when the engine runs it - the nested backward's real order.
The same script run plainly (exec, no app) must end with identical gradients
and draw identical random numbers.
"""

from __future__ import annotations

import pytest
import torch

from autogradviz.engine.trace.model import Trace
from autogradviz.engine.worker.runner import run_script

FILENAME = "/virtual/ckpt_inner.py"

SCRIPT = """\
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

INNER = []   # per re-run: {"nodes": [...], "edges": [...], "order": [...]}

def watched(fn):
    def run(*a):
        out = fn(*a)
        if torch._C._current_graph_task_id() != -1:   # a re-run inside backward
            rec = {"nodes": [], "edges": [], "order": []}
            INNER.append(rec)
            todo, seen = [out.grad_fn], set()
            while todo:
                n = todo.pop()
                if n in seen:
                    continue
                seen.add(n)
                rec["nodes"].append(n.name())
                n.register_prehook(lambda g, n=n: rec["order"].append(n.name()))
                for m, _ in n.next_functions:
                    if m is not None:
                        rec["edges"].append((m.name(), n.name()))
                        todo.append(m)
        return out
    return run

torch.manual_seed(0)
blocks = nn.ModuleList([nn.Sequential(nn.Linear(6, 6), nn.Tanh(), nn.Dropout(0.3)) for _ in range(2)])
head = nn.Linear(6, 1)
x = torch.randn(4, 6, requires_grad=True)
h = x
for b in blocks:
    h = checkpoint(watched(b), h, use_reentrant=True)
loss = head(h).pow(2).mean()
loss.backward()
GRADS = [p.grad.clone() for p in [*blocks.parameters(), *head.parameters()]] + [x.grad.clone()]
AFTER = torch.rand(3)   # the RNG state after everything
"""


@pytest.fixture(scope="module")
def runs():
    r = run_script(SCRIPT, filename=FILENAME)
    assert r.trace.error is None, r.trace.error
    plain: dict = {"__name__": "__main__"}
    exec(compile(SCRIPT, "<plain>", "exec"), plain)
    return r.trace, r.namespace, plain


def _name(op: str) -> str:
    return "torch::autograd::AccumulateGrad" if op == "AccumulateGrad" else op


def test_inner_graph_and_nested_steps_match_torch(runs):
    tr, ns, _ = runs
    recs = [r for c in tr.checkpoints for r in c.recomputations]
    # backward runs the later block first: re-runs in that order
    assert len(recs) == len(ns["INNER"]) == 2
    by_run_order = sorted(recs, key=lambda r: r.step)
    for r, want in zip(by_run_order, ns["INNER"]):
        g = tr.graph(r.graph)
        assert g.origin == "recompute"
        ops = {n.id: _name(n.op) for n in g.nodes}
        assert sorted(ops.values()) == sorted(want["nodes"])
        assert sorted((ops[e.src], ops[e.dst]) for e in g.edges) == sorted(want["edges"])
        # the nested backward, step by step, in the engine's order
        order = [ops[s.node] for s in r.steps]
        assert order == want["order"]
        assert sorted(order) == sorted(want["nodes"])  # every inner node ran once
        assert [s.index for s in r.steps] == list(range(len(r.steps)))


def test_nested_backward_belongs_to_the_outer_run(runs):
    tr, _, _ = runs
    assert tr.backward_calls == 1 and len(tr.backward_runs) == 1
    run = tr.backward_runs[0]
    for c in tr.checkpoints:
        (r,) = c.recomputations
        assert r.run == 0
        # during the outer run's CheckpointFunctionBackward step of this segment
        assert run.steps[r.step].node == r.trigger == c.nodes[0]
        # the gradients the nested backward got are those the step received
        first = r.steps[0]
        assert first.grad_outputs[0].values == run.steps[r.step].grad_outputs[0].values
    inner_ids = {n.id for g in tr.graphs if g.origin == "recompute" for n in g.nodes}
    assert not inner_ids & {s.node for s in run.steps}


def test_gradients_and_rng_unchanged_by_recording(runs):
    _, ns, plain = runs
    for a, b in zip(ns["GRADS"], plain["GRADS"]):
        assert torch.equal(a, b)
    assert torch.equal(ns["AFTER"], plain["AFTER"])


def test_masks_recorded_in_forward_and_rerun(runs):
    tr, ns, _ = runs
    for c in tr.checkpoints:
        (fwd,) = c.masks
        (r,) = c.recomputations
        (again,) = r.masks
        assert fwd.shape == [4, 6] and fwd.numel == 24 and not fwd.truncated
        assert fwd.values == again.values and fwd.digest == again.digest  # preserve_rng_state=True
        assert fwd.kept == sum(fwd.values)


DROPOUT = """\
import torch
from torch.utils.checkpoint import checkpoint
torch.manual_seed(1)
SEEN = []
def f(t):
    out = torch.nn.functional.dropout(t, 0.5, training=True)
    SEEN.append((out != 0).to(torch.uint8).reshape(-1).clone())
    return out * 3
x = torch.ones({n}, requires_grad=True)
y = checkpoint(f, x, use_reentrant={reentrant}, preserve_rng_state={preserve}{extra})
y.sum().backward()
GRAD = x.grad.clone()
AFTER = torch.rand(3)
"""


@pytest.mark.parametrize("reentrant,preserve,n", [(False, True, 40), (False, False, 40),
                                                  (True, False, 40), (True, True, 1000)])
def test_dropout_masks_equal_what_the_function_saw(reentrant, preserve, n):
    # (early_stop=False: the re-run reaches the script's own record of the mask)
    src = DROPOUT.format(reentrant=reentrant, preserve=preserve, n=n,
                         extra="" if reentrant else ", early_stop=False")
    r = run_script(src, filename=FILENAME)
    assert r.trace.error is None, r.trace.error
    plain: dict = {"__name__": "__main__"}
    exec(compile(src, "<plain>", "exec"), plain)
    ns = r.namespace
    (c,) = r.trace.checkpoints
    (rc,) = c.recomputations
    seen_fwd, seen_again = ns["SEEN"]
    for rec, seen in ((c.masks[0], seen_fwd), (rc.masks[0], seen_again)):
        assert rec.numel == n and rec.kept == int(seen.sum())
        assert rec.values == seen[:256].tolist() and rec.truncated is (n > 256)
    assert (c.masks[0].digest == rc.masks[0].digest) is torch.equal(seen_fwd, seen_again)
    assert torch.equal(seen_fwd, seen_again) is preserve
    assert torch.equal(ns["GRAD"], plain["GRAD"]) and torch.equal(ns["AFTER"], plain["AFTER"])
    for a, b in zip(ns["SEEN"], plain["SEEN"]):
        assert torch.equal(a, b)
