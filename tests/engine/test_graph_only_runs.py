"""Runs without step recording (`steps: false`, used by `autogradviz export` of
the plain graph): the same graphs and leaf gradients as a full recording, equal
to torch's, no steps or events, and the script behaves exactly as without us."""

from __future__ import annotations

from collections import Counter

import torch

from autogradviz.engine.worker.runner import run_script

SRC = """
import torch
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
x = torch.randn(5, 4)
seen = []
h = model[0](x)
h.register_hook(lambda g: seen.append(float(g.abs().sum())))
loss = model[2](model[1](h)).pow(2).mean()
loss.backward()
print("hook saw", len(seen), "grad")
"""


def _plain():
    ns: dict = {"__name__": "__main__"}
    exec(compile(SRC, "<plain>", "exec"), ns)
    return ns


def _ops(graph):
    return Counter(n.op for n in graph.nodes)


def test_graph_only_run_matches_full_recording_and_torch():
    ns = _plain()
    full = run_script(SRC, filename="/virtual/full.py").trace
    bare = run_script(SRC, filename="/virtual/bare.py", record_steps=False).trace
    assert full.error is None and bare.error is None
    assert full.steps_recorded and not bare.steps_recorded
    # The script ran as without us: its own hook fired and printed the same.
    assert bare.stdout == full.stdout == f"hook saw {len(ns['seen'])} grad\n"

    assert len(bare.backward_runs) == len(full.backward_runs) == 1
    run_b, run_f = bare.backward_runs[0], full.backward_runs[0]
    assert run_f.steps and run_b.steps == [] and run_b.events == []
    gb, gf = bare.graph(run_b.graph), full.graph(run_f.graph)
    assert _ops(gb) == _ops(gf)
    assert len(gb.edges) == len(gf.edges)
    assert [n.label for n in gb.nodes if n.kind == "leaf"] == [n.label for n in gf.nodes if n.kind == "leaf"]

    # Leaf gradients: torch's values from the independent plain run.
    params = dict(ns["model"].named_parameters())
    by_label = {n.label: n.id for n in gb.nodes if n.kind == "leaf"}
    assert len(by_label) == len(params)
    for name, p in params.items():
        summary = run_b.leaf_grads[by_label[f"model.{name}"]]
        got = torch.tensor(summary.values, dtype=p.grad.dtype).reshape(p.grad.shape)
        assert torch.allclose(got, p.grad, rtol=1e-6, atol=1e-7), name


def test_worker_client_asks_for_a_graph_only_run(worker):
    out = worker.run(SRC, filename="/virtual/bare.py", timeout=60, steps=False)
    assert out.status == "ok"
    assert out.trace.steps_recorded is False
    assert out.trace.backward_runs and out.trace.backward_runs[0].steps == []
    out = worker.run(SRC, filename="/virtual/full.py", timeout=60)
    assert out.trace.steps_recorded is True and out.trace.backward_runs[0].steps


CHECKPOINTED = """
import torch
from torch.utils.checkpoint import checkpoint
torch.manual_seed(0)
block = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.GELU(), torch.nn.Linear(8, 4))
x = torch.randn(3, 4, requires_grad=True)
checkpoint(block, x, use_reentrant=False).tanh().sum().backward()
"""


def _placeholders(trace) -> list:
    return sorted((n.op, s.name) for g in trace.graphs for n in g.nodes for s in n.saved
                  if s.skipped_code == "checkpoint")


def test_a_picture_without_values_still_knows_what_a_checkpoint_did_not_store():
    """The export's run reads no saved values, but its "not stored"
    placeholders must be the same as a full recording's."""
    full = run_script(CHECKPOINTED, filename="<ckpt>").trace
    bare = run_script(CHECKPOINTED, filename="<ckpt>", record_steps=False, record_values=False).trace
    assert full.error is None and bare.error is None
    want = _placeholders(full)
    assert want and _placeholders(bare) == want
    # only those: no saved value was read
    assert all(s.tensor is None for g in bare.graphs for n in g.nodes for s in n.saved)
    assert [n.id for g in bare.graphs for n in g.nodes if n.in_checkpoint] == \
        [n.id for g in full.graphs for n in g.nodes if n.in_checkpoint]
