"""engine/trace/merge.py: a child's ids are prefixed everywhere they appear,
so that every reference in the merged trace still points at the child's own
graph (checked on a real recorded torch.autograd.grad run)."""

from __future__ import annotations

from autogradviz.engine.trace.merge import merge_child
from autogradviz.engine.worker.runner import run_script

GRAD = """
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([3.0, -1.0], requires_grad=True)
gx, gw = torch.autograd.grad((x * w).sum(), [x, w])
"""


def test_every_node_reference_of_a_child_run_points_into_its_own_graph():
    parent = run_script("print('parent')\n", filename="<p>").trace
    child = run_script(GRAD, filename="<c>").trace
    assert child.error is None and child.backward_runs[0].result_nodes
    merge_child(parent, child, "p42.", 0, 42)
    (run,) = parent.backward_runs
    ids = {n.id for n in parent.graph(run.graph).nodes}
    assert run.graph.startswith("p42.") and run.rank == 0  # (the index, where no process group gave one)
    assert all(s.node in ids for s in run.steps)
    assert run.result_nodes and all(n in ids for n in run.result_nodes)
    labels = {n.id: n.label for n in parent.graph(run.graph).nodes}
    assert [labels[n] for n in run.result_nodes] == ["x", "w"]
