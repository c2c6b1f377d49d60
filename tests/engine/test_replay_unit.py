"""engine.replay on a hand-written trace (no torch, no Qt): the numbering
conventions, purity (back then forward gives identical states) and the
cumulative tables."""

from __future__ import annotations

import math

import pytest

from autogradviz.engine.trace import replay
from autogradviz.engine.trace.model import (
    BackwardRun, Edge, Event, Graph, Node, Step, TensorSummary, Trace,
)


def ts(vals, shape=None):
    shape = [len(vals)] if shape is None else shape
    return TensorSummary(shape=shape, dtype="float32", device="cpu", values=list(vals), numel=len(vals),
                         norm=math.sqrt(sum(v * v for v in vals)))


def lesson_trace() -> Trace:
    """loss = (x * w).sum() * 3 with y = x * w retained and hooked (doubles)."""
    nodes = [Node("n1", "MulBackward0", "op", label="loss"), Node("n2", "SumBackward0", "op", label="z"),
             Node("n3", "MulBackward0", "op", label="y", retains_grad=True, hooks=["double"]),
             Node("n4", "AccumulateGrad", "leaf", label="x"), Node("n5", "AccumulateGrad", "leaf", label="w")]
    edges = [Edge("n4", "n3", 0, 0), Edge("n5", "n3", 0, 1), Edge("n3", "n2", 0, 0), Edge("n2", "n1", 0, 0)]
    g = Graph(id="g0", nodes=nodes, edges=edges, roots=["n1"])
    steps = [Step(0, "n1", [ts([1.0], [])], [ts([3.0], []), None]),
             Step(1, "n2", [ts([3.0], [])], [ts([3.0] * 3)]),
             Step(2, "n3", [ts([6.0] * 3)], [ts([3.0, -6.0, 12.0]), ts([6.0, 12.0, 18.0])]),
             Step(3, "n5", [ts([6.0, 12.0, 18.0])], []),
             Step(4, "n4", [ts([3.0, -6.0, 12.0])], [])]
    events = [Event(step=2, kind="tensor_hook", node="n3", name="double", received=ts([3.0] * 3),
                    returned=ts([6.0] * 3), replaced=True),
              Event(step=2, kind="retain_grad", node="n3", name="y", received=ts([6.0] * 3))]
    run = BackwardRun(index=0, graph="g0", steps=steps, events=events,
                      leaf_grads={"n4": ts([3.0, -6.0, 12.0]), "n5": ts([6.0, 12.0, 18.0])})
    return Trace(graphs=[g], backward_runs=[run], backward_calls=1)


def test_step_zero_is_before_anything():
    s = replay.state_at(lesson_trace(), 0, 0)
    assert s.step == 0 and s.current is None
    assert set(s.status.values()) == {"pending"}
    assert not s.edge_grads and not s.leaf_grads and not s.retained and not s.events and not s.new_events


def test_each_step_runs_one_node():
    t = lesson_trace()
    order = [st.node for st in t.backward_runs[0].steps]
    for k in range(1, 6):
        s = replay.state_at(t, 0, k)
        assert s.current == order[k - 1]
        assert s.status[order[k - 1]] == "current"
        assert [n for n in order[: k - 1] if s.status[n] == "done"] == order[: k - 1]
        assert all(s.status[n] == "pending" for n in order[k:])
        assert s.n_steps == 5


def test_edge_grads_follow_slots():
    t = lesson_trace()
    s = replay.state_at(t, 0, 3)
    assert s.edge_grads[0].values == [3.0, -6.0, 12.0]  # x -> y: MulBackward0 grad_inputs[0]
    assert s.edge_grads[1].values == [6.0, 12.0, 18.0]  # w -> y: slot 1
    assert s.edge_grads[2].values == [3.0] * 3
    assert s.edge_grads[3].values == [3.0]
    assert set(replay.state_at(t, 0, 2).edge_grads) == {2, 3}


def test_hooks_retain_and_leaf_grads_appear_at_their_step():
    t = lesson_trace()
    s2, s3 = replay.state_at(t, 0, 2), replay.state_at(t, 0, 3)
    assert not s2.events and "n3" not in s2.retained
    assert [e.kind for e in s3.new_events] == ["tensor_hook", "retain_grad"]
    assert s3.retained["n3"].values == [6.0] * 3
    assert "n5" not in s3.leaf_grads
    s4 = replay.state_at(t, 0, 4)
    assert s4.leaf_grads["n5"].values == [6.0, 12.0, 18.0] and "n4" not in s4.leaf_grads
    assert not s4.new_events and len(s4.events) == 2
    s5 = replay.state_at(t, 0, 5)
    assert s5.leaf_grads == t.backward_runs[0].leaf_grads
    assert replay.hook_steps(t, 0) == [3] and replay.event_steps(t, 0) == [3]


def test_pure_function_of_k():
    t = lesson_trace()
    first = [replay.state_at(t, 0, k) for k in range(6)]
    back = [replay.state_at(t, 0, k) for k in range(5, -1, -1)][::-1]
    assert first == back
    assert replay.state_at(t, 0, 99) == first[5] and replay.state_at(t, 0, -3) == first[0]


def test_bad_run_index():
    with pytest.raises(IndexError):
        replay.state_at(lesson_trace(), 3, 0)


def test_cache_not_serialised():
    t = lesson_trace()
    replay.state_at(t, 0, 2)
    assert "_replay_cache" not in t.to_json()
    assert Trace.from_json(t.to_json()).backward_runs[0].steps[2].node == "n3"


def test_retained_without_event_comes_from_grad_outputs():
    t = lesson_trace()
    t.backward_runs[0].events = [e for e in t.backward_runs[0].events if e.kind != "retain_grad"]
    assert "n3" not in replay.state_at(t, 0, 2).retained
    assert replay.state_at(t, 0, 3).retained["n3"].values == [6.0] * 3


def test_missing_graph_still_replays_the_steps():
    t = lesson_trace()
    t.graphs = []
    s = replay.state_at(t, 0, 2)
    assert s.current == "n2" and s.status["n1"] == "done" and s.edge_grads == {}
