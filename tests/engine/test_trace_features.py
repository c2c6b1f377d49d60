"""engine/trace/features.py: a feature declares its records once, and merge
and the codec handle its ids and non-finite floats from the Struct's own
annotations - without a line of merge.py or codec.py naming it.

The made-up feature here is a record of a real recorded run: each record
names a node of the child's graph and carries the float torch computed for
it (a NaN and an infinity among them, as an overflow gives)."""

from __future__ import annotations

import math
from typing import Optional

import msgspec
import pytest

from autogradviz.engine.trace import features
from autogradviz.engine.trace.features import Id, RunIndex
from autogradviz.engine.trace.merge import merge_child
from autogradviz.engine.trace.model import Trace
from autogradviz.engine.trace.part import _Part
from autogradviz.engine.trace.summary import TensorSummary
from autogradviz.engine.worker.runner import run_script

CHILD = """
import torch
x = torch.tensor([1.0, 0.0, -1.0], requires_grad=True)
y = torch.log(x)
y.sum().backward()
print(repr(x.grad.tolist()))
"""


class Reading(_Part):
    """One node's reading, nested in a Probe record."""

    node: Id
    value: float
    others: list[float] = msgspec.field(default_factory=list)


class DummyRecord(_Part):
    """The one declaration's record: an id, a run index, floats, a summary."""

    id: Id
    run: Optional[RunIndex] = None
    worst: Optional[float] = None
    by_device: dict[str, float] = msgspec.field(default_factory=dict)
    readings: list[Reading] = msgspec.field(default_factory=list)
    label: str = ""  # not an id: left alone
    tensor: Optional[TensorSummary] = None


@pytest.fixture
def dummy():
    feature = features.declare("dummy", DummyRecord)  # the one declaration
    yield feature
    features.undeclare("dummy")


def _recorded_child() -> tuple[Trace, list[float]]:
    """A real run whose x.grad is [1, inf, -1]; the dummy records read it."""
    trace = run_script(CHILD, filename="<child>").trace
    assert trace.error is None, trace.error
    grad = eval(trace.stdout.strip(), {"inf": math.inf})  # (what torch printed)
    return trace, grad


def _fill(trace: Trace, grad: list[float]) -> None:
    graph = trace.graphs[0]
    leaf = next(n for n in graph.nodes if n.kind == "leaf")
    op = next(n for n in graph.nodes if n.op.startswith("Log"))
    nan = grad[1] - grad[1]  # inf - inf: a NaN made from torch's result
    trace.features["dummy"] = [
        DummyRecord(id="d1", run=0, worst=grad[1], by_device={"cpu": -grad[1], "nan": nan},
                    readings=[Reading(node=leaf.id, value=nan, others=[grad[1], 2.0]),
                              Reading(node=op.id, value=grad[0])],
                    label="n1", tensor=leaf.tensor),
        DummyRecord(id="d2"),
    ]


def test_a_declared_features_nan_and_inf_survive_a_file_round_trip(dummy):
    trace, grad = _recorded_child()
    assert grad[1] == math.inf
    _fill(trace, grad)
    text = trace.to_json()
    assert '"worst":"Infinity"' in text.replace(" ", "") and '"NaN"' in text
    back = Trace.from_json(text)
    first, second = back.features["dummy"]
    assert isinstance(first, DummyRecord) and second == DummyRecord(id="d2")
    assert first.worst == math.inf and first.by_device["cpu"] == -math.inf
    assert math.isnan(first.by_device["nan"]) and math.isnan(first.readings[0].value)
    assert first.readings[0].others == [math.inf, 2.0] and first.readings[1].value == grad[0]
    assert first.tensor == trace.features["dummy"][0].tensor
    # the trace in memory kept its floats (the names were swapped in for the write only)
    assert trace.features["dummy"][0].worst == math.inf


def test_a_declared_features_ids_are_prefixed_and_run_indices_shifted_by_merge(dummy):
    parent = run_script("import torch\nw = torch.ones(2, requires_grad=True)\n(w * 3).sum().backward()\n",
                        filename="<parent>").trace
    assert len(parent.backward_runs) == 1
    child, grad = _recorded_child()
    _fill(child, grad)
    child = Trace.from_json(child.to_json())  # as a child's trace arrives: through the codec
    merge_child(parent, child, "p42.", 0, 42)
    first, second = parent.features["dummy"]
    assert (first.id, second.id) == ("p42.d1", "p42.d2")
    assert first.run == 1 and second.run is None  # the child's run 0 is the parent's run 1
    assert parent.backward_runs[first.run].graph == "p42." + child.graphs[0].id.removeprefix("p42.")
    nodes = {n.id for n in parent.graph(parent.backward_runs[1].graph).nodes}
    assert [r.node for r in first.readings] and all(r.node in nodes for r in first.readings)
    assert first.label == "n1"  # a plain str field is not an id
    assert first.tensor is not None and first.tensor.id is None  # (the child's tensors died with it)
    assert math.isinf(first.worst) and math.isnan(first.readings[0].value)
    again = Trace.from_json(parent.to_json())
    assert again.features["dummy"][0].readings[0].node == first.readings[0].node


def test_an_undeclared_features_records_stay_plain_data():
    trace = Trace(features={"from_a_newer_app": [{"x": "NaN", "id": "q1"}]})
    back = Trace.from_json(trace.to_json())
    assert back.features == {"from_a_newer_app": [{"x": "NaN", "id": "q1"}]}


def test_the_plan_is_read_from_the_annotations():
    plan = {fp.name: (fp.kind, fp.shape) for fp in features.plan_of(DummyRecord)}
    assert plan == {"id": ("id", "one"), "run": ("index", "one"), "worst": ("float", "one"),
                    "by_device": ("float", "dict"), "readings": ("struct", "list"),
                    "tensor": ("summary", "one")}
    names = [f.name for f in features.declared()]
    assert {"checkpoint", "memory", "grad_scaler", "modules", "ddp"} <= set(names)


def test_a_record_that_is_not_a_struct_is_refused():
    with pytest.raises(TypeError):
        features.declare("not_a_struct", dict)


def test_a_forked_childs_part_keeps_a_declared_features_records_after_the_fork(dummy):
    """engine/worker/fork_child.py cuts a forked child's part out of the trace
    it inherited with no line naming the feature: its probe's mark says how
    many records came before the fork, the annotations say which indices to
    count from the fork (one pointing before it is None), and the graphs a
    kept record names are kept. Three real runs: two before the fork."""
    from autogradviz.engine.worker.fork_child import _since_fork

    trace = run_script("import torch\nw = torch.ones(2, requires_grad=True)\n"
                       "for k in range(3):\n    (w * k).sum().backward()\n", filename="<forked>").trace
    assert len(trace.backward_runs) == 3
    graphs = [r.graph for r in trace.backward_runs]
    trace.features["dummy"] = [DummyRecord(id="d1", run=0), DummyRecord(id="d2", run=1),
                               DummyRecord(id="d3", run=2, readings=[Reading(node="n1", value=1.0)]),
                               DummyRecord(id="d4", run=1)]
    part = _since_fork(trace, {"runs": 2, "calls": 2, "notes": 0, "marks": {"dummy": 2}})
    assert [r.index for r in part.backward_runs] == [0] and part.backward_calls == 1
    kept = part.features["dummy"]
    assert [(r.id, r.run) for r in kept] == [("d3", 0), ("d4", None)]  # d4: made after, about run 1
    assert [g.id for g in part.graphs] == [graphs[2]]
