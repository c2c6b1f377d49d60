"""The trace codec (engine/trace/codec.py): old files load unchanged, the
file form is strict JSON with non-finite names, defaults are omitted and
filled back, unknown keys are ignored. No torch needed."""

from __future__ import annotations

import json
import math
from pathlib import Path

import msgspec
import pytest

from autogradviz.engine.trace import codec
from autogradviz.engine.trace.model import (FORMAT, BackwardRun, Edge, Graph, Node, SavedValue, Step,
                                            TensorSummary, Trace)

DATA = Path(__file__).resolve().parents[1] / "data"
# Written by `autogradviz trace tests/data/trace_v1_script.py` with the
# hand-written codec (commit 216bc32), before the msgspec one.
V1_FILE = DATA / "trace_v1.json"

FLOAT_FIELDS = {"min", "max", "mean", "norm", "duration_s"}


def _same(loaded, raw, path="trace"):
    """`loaded` (Structs as loaded) holds exactly `raw` (the file's JSON as
    json.loads gives it): field by field, NaN equal to NaN, the names of
    non-finite floats equal to those floats where the format says so."""
    if isinstance(loaded, msgspec.Struct):
        assert isinstance(raw, dict), path
        names = loaded.__struct_fields__
        assert set(raw) <= set(names), f"{path}: keys not loaded: {set(raw) - set(names)}"
        defaults = {f.name: f for f in msgspec.structs.fields(type(loaded))}
        for name in names:
            if name not in raw:  # a field newer than the file: its default
                f = defaults[name]
                want = f.default_factory() if f.default is msgspec.NODEFAULT else f.default
                assert getattr(loaded, name) == want, f"{path}.{name} not at its default"
                continue
            _same(getattr(loaded, name), raw[name], f"{path}.{name}")
    elif isinstance(loaded, dict):
        assert isinstance(raw, dict) and list(loaded) == list(raw), path
        for k in raw:
            _same(loaded[k], raw[k], f"{path}[{k!r}]")
    elif isinstance(loaded, list):
        assert isinstance(raw, list) and len(loaded) == len(raw), path
        for i, (a, b) in enumerate(zip(loaded, raw)):
            _same(a, b, f"{path}[{i}]")
    elif isinstance(loaded, float) and isinstance(raw, str):
        assert raw in codec.NONFINITE, path
        want = codec.NONFINITE[raw]
        assert (math.isnan(loaded) and math.isnan(want)) or loaded == want, path
    else:
        assert type(loaded) is type(raw) and loaded == raw, f"{path}: {loaded!r} != {raw!r}"


def _v1():
    text = V1_FILE.read_text(encoding="utf-8")
    return text, json.loads(text)


def test_the_v1_file_covers_what_it_must():
    _, raw = _v1()
    nodes = [n for g in raw["graphs"] for n in g["nodes"]]
    assert any(sv["tensor"] for n in nodes for sv in n["saved"]), "saved tensors"
    assert any(sv["value"] is not None for n in nodes for sv in n["saved"]), "saved values"
    runs = raw["backward_runs"]
    assert runs[0]["steps"] and runs[0]["events"] and runs[0]["leaf_grads"]
    assert runs[1]["kind"] == "grad" and runs[1]["results"]
    assert raw["notes"]
    assert {"NaN", "Infinity", "-Infinity"} <= set(V1_FILE.read_text().replace('"', " ").split())


def test_a_v1_file_loads_with_identical_content():
    text, raw = _v1()
    trace = Trace.from_json(text)
    _same(trace, raw)
    # ... and through the plain-data path too
    _same(Trace.from_dict(raw), raw)


def test_a_v1_file_round_trips_through_the_new_form():
    text, raw = _v1()
    again = Trace.from_json(Trace.from_json(text).to_json())
    _same(again, raw)
    assert len(again.to_json()) < 0.8 * len(json.dumps(raw, separators=(",", ":")))


def test_the_file_is_strict_json_led_by_format_and_version():
    text, _ = _v1()
    out = Trace.from_json(text).to_json(indent=1)
    data = json.loads(out, parse_constant=lambda c: pytest.fail(f"non-strict JSON constant {c}"))
    assert list(data)[:2] == ["format", "version"]
    assert list(data) == list(Trace.__struct_fields__), "every top-level field is written"
    assert '"NaN"' in out and '"Infinity"' in out and '"-Infinity"' in out


def test_defaults_are_omitted_and_filled_back():
    t = Trace(graphs=[Graph(id="g1", nodes=[Node("n1", "AccumulateGrad", "leaf",
                                                 tensor=TensorSummary([2], "float32", "cpu"))],
                            edges=[Edge("n1", "n1")])])
    data = json.loads(t.to_json())
    node = data["graphs"][0]["nodes"][0]
    assert node == {"id": "n1", "op": "AccumulateGrad", "kind": "leaf",
                    "tensor": {"shape": [2], "dtype": "float32", "device": "cpu"}}
    assert data["graphs"][0]["edges"] == [{"src": "n1", "dst": "n1"}]
    assert Trace.from_json(t.to_json()) == t


def test_unknown_keys_are_ignored_and_missing_format_is_rejected():
    t = Trace(script="x.py", graphs=[Graph(id="g1", nodes=[Node("n1", "MulBackward0", "op")])])
    data = json.loads(t.to_json())
    data["from_the_future"] = {"a": 1}
    data["graphs"][0]["nodes"][0]["colour"] = "red"
    assert Trace.from_json(json.dumps(data)) == t
    assert Trace.from_dict(data) == t
    del data["format"]
    for bad in (json.dumps(data), "[1, 2]", "not json", json.dumps({"format": "other"})):
        with pytest.raises(ValueError):
            Trace.from_json(bad)
    with pytest.raises(ValueError):
        Trace.from_dict(data)


def test_nonfinite_everywhere_round_trips_and_objects_are_left_as_they_were():
    nan, inf = float("nan"), float("inf")
    s = TensorSummary([4], "float32", "cpu", values=[nan, inf, -inf, 1.0], numel=4,
                      min=nan, max=nan, mean=nan, norm=nan)
    c = TensorSummary([1], "complex64", "cpu", values=[[1.0, inf]], numel=1)
    t = Trace(graphs=[Graph(id="g1", nodes=[Node("n1", "X", "op", tensor=s, saved=[
        SavedValue("eps", value=-inf), SavedValue("sizes", value=[1, nan]), SavedValue("c", c)])])])
    t.add_note("internal_error", stage="s", error="e", ratio=inf)
    text = t.to_json()
    json.loads(text, parse_constant=lambda c: pytest.fail(f"non-strict JSON constant {c}"))
    assert s.values[1] == inf and s.min != s.min, "encoding must not change the trace"
    assert t.note_codes[0].params["ratio"] == inf and t.note_records[0].params["ratio"] == inf
    back = Trace.from_json(text)
    n = back.graphs[0].nodes[0]
    assert math.isnan(n.tensor.values[0]) and n.tensor.values[1:] == [inf, -inf, 1.0]
    assert math.isnan(n.tensor.min) and math.isnan(n.tensor.norm)
    assert n.saved[0].value == -inf and math.isnan(n.saved[1].value[1])
    assert n.saved[2].tensor.values == [[1.0, inf]]


def test_lone_surrogates_survive_a_file():
    t = Trace(stdout="a\ud800b", stderr="\u4e16")
    back = Trace.from_json(t.to_json())
    assert back.stdout == "a\ud800b" and back.stderr == "\u4e16"


def test_int_bool_and_float_values_keep_their_types():
    s = TensorSummary([3], "int64", "cpu", values=[1, 0, 2], numel=3, min=0, max=2)
    b = TensorSummary([2], "bool", "cpu", values=[True, False], numel=2, min=0, max=1)
    f = TensorSummary([1], "float32", "cpu", values=[2.0], numel=1, min=2.0, max=2.0)
    t = Trace(graphs=[Graph(id="g1", nodes=[Node("a", "X", "op", tensor=s), Node("b", "X", "op", tensor=b),
                                            Node("c", "X", "op", tensor=f)])])
    nodes = Trace.from_json(t.to_json()).graphs[0].nodes
    assert [type(v) for v in nodes[0].tensor.values] == [int, int, int]
    assert [type(v) for v in nodes[1].tensor.values] == [bool, bool]
    assert type(nodes[2].tensor.values[0]) is float
    assert Trace(format=FORMAT).format == FORMAT


def test_a_shared_summary_is_written_once_and_shared_again_after_loading():
    g = TensorSummary([2], "float32", "cpu", values=[1.0, 2.0], numel=2, min=1.0, max=2.0)
    h = TensorSummary([2], "float32", "cpu", values=[3.0, float("nan")], numel=2, min=float("nan"))
    w = TensorSummary([2], "float32", "cpu", values=[5.0, 6.0], numel=2, min=5.0, max=6.0)
    t = Trace(graphs=[Graph(id="g1", nodes=[
        Node("n1", "MulBackward0", "op", saved=[SavedValue("other", w), SavedValue("self", h)]),
        Node("n2", "AccumulateGrad", "leaf", tensor=w),
        Node("n3", "MulBackward0", "op", saved=[SavedValue("self", h), SavedValue("other", w)])])],
        backward_runs=[BackwardRun(0, "g1", steps=[
            Step(0, "n1", [g], [h, h]),   # the engine hands one tensor to both inputs
            Step(1, "n3", [h], [g]),
            Step(2, "n2", [g], [])])])
    text = t.to_json()
    # once per graph (w, h, and w again as the leaf node's own tensor: node
    # tensors are always written) and once per run (g, h)
    assert text.count('"values"') == 5, text
    assert t.backward_runs[0].steps[0].grad_inputs == [h, h] and not t.backward_runs[0].steps[0].same_as
    assert t.graphs[0].nodes[2].saved[1].tensor is w and t.graphs[0].nodes[2].saved[1].same_as is None
    back = Trace.from_json(text)
    steps = back.backward_runs[0].steps
    assert steps[0].grad_inputs[0] is steps[0].grad_inputs[1] is steps[1].grad_outputs[0]
    assert steps[0].grad_outputs[0] is steps[1].grad_inputs[0] is steps[2].grad_outputs[0]
    assert all(not s.same_as for s in steps)
    nodes = back.graphs[0].nodes
    assert nodes[2].saved[1].tensor is nodes[0].saved[0].tensor and nodes[1].tensor == w
    assert all(sv.same_as is None for n in nodes for sv in n.saved)
    assert back.to_json() == text


def test_a_broken_reference_is_a_clear_error():
    data = {"format": FORMAT, "version": 1, "backward_runs": [
        {"index": 0, "graph": "g1", "steps": [{"index": 0, "node": "n1", "grad_outputs": [None],
                                               "same_as": [[0, 0, 5, 1, 0]]}]}]}
    with pytest.raises(ValueError, match="same_as"):
        Trace.from_json(json.dumps(data))


def test_the_outline_holds_every_top_level_fact_and_none_of_the_bulk():
    """decode_trace_outline (what `autogradviz trace` reads of the worker's
    file before writing its bytes): every field outside BULK_FIELDS equal to
    the full decode's, the bulk empty, a non-trace refused the same way."""
    text, raw = _v1()
    full, outline = Trace.from_json(text), codec.decode_trace_outline(text.encode())
    assert codec.BULK_FIELDS < set(Trace.__struct_fields__)
    for name in Trace.__struct_fields__:
        if name in codec.BULK_FIELDS:
            assert not getattr(outline, name), f"{name} is bulk: left out"
        else:
            assert getattr(outline, name) == getattr(full, name), name
    assert full.graphs and full.backward_runs and full.notes == outline.notes and outline.stdout == full.stdout
    with pytest.raises(codec.TraceDecodeError, match="not an autogradviz trace"):
        codec.decode_trace_outline(b'{"format": "other", "graphs": []}')
    with pytest.raises(codec.TraceDecodeError):
        codec.decode_trace_outline(text[: len(text) // 2].encode())  # cut short: not JSON
    with pytest.raises(codec.TraceDecodeError, match="not an autogradviz trace"):
        codec.decode_trace_outline(b'{"version": 1, "script": "s.py"}')  # no format: no trace
    with pytest.raises(codec.TraceVersionError):
        codec.decode_trace_outline(text.replace('"version":', '"version":99,"v":', 1).encode())


def test_a_nonfinite_float_among_many_finite_summaries_is_found_wherever_it_is():
    """The encoder looks one by one only at summaries whose statistics are not
    all finite numbers (one numpy pass over all of them): a NaN seen only in
    `mean`, values without statistics, a statistic that is not a number."""
    nan, inf = float("nan"), float("inf")

    def finite(i):
        return TensorSummary([2], "float32", "cpu", values=[1.0, float(i)], numel=2, min=1.0, max=float(i),
                             mean=1.5, norm=2.0)
    mean_only = TensorSummary([2], "float64", "cpu", values=[1.0, 2.0], numel=2, min=1.0, max=2.0,
                              mean=nan, norm=2.0)
    no_stats = TensorSummary([2], "float64", "cpu", values=[inf, 1.0], numel=2)
    nodes = [Node(f"n{i}", "X", "op", tensor=finite(i)) for i in range(300)]
    nodes[150:150] = [Node("a", "X", "op", tensor=mean_only), Node("b", "X", "op", tensor=no_stats)]
    t = Trace(graphs=[Graph(id="g1", nodes=nodes)])
    text = t.to_json()
    json.loads(text, parse_constant=lambda c: pytest.fail(f"non-strict JSON constant {c}"))
    assert text.count('"NaN"') == 1 and text.count('"Infinity"') == 1
    assert math.isnan(mean_only.mean) and no_stats.values[0] == inf, "encoding must not change the trace"
    back = Trace.from_json(text).graphs[0].nodes
    assert math.isnan(back[150].tensor.mean) and back[151].tensor.values == [inf, 1.0]
    assert [n.tensor.values for n in back] == [n.tensor.values for n in nodes]
    # a statistic that is no number (a hand-made summary, left as it is):
    # every summary looked at on its own, the others' names still written
    odd = TensorSummary([1], "float64", "cpu", values=[2.0], numel=1, min="low", max=2.0)
    t.graphs[0].nodes.append(Node("c", "X", "op", tensor=odd))
    text = codec.encode_trace(t).decode()
    assert text.count('"NaN"') == 1 and text.count('"Infinity"') == 1 and '"min":"low"' in text


def test_encoding_leaves_the_trace_in_its_file_form_until_the_block_ends():
    """codec.encoding: the bytes inside the block, the trace put back after it
    (or, put_back=False, never: the worker never reads a sent trace again)."""
    f32 = 0.10000000149011612  # (0.1 in float32: written "0.1")
    g = TensorSummary([2], "float32", "cpu", values=[f32, 2.0], numel=2, min=f32, max=2.0)
    t = Trace(graphs=[Graph(id="g1", nodes=[Node("n1", "X", "op", tensor=g)])],
              backward_runs=[BackwardRun(0, "g1", steps=[Step(0, "n1", [g], [g])])])
    wide = g.values[0]
    with codec.encoding(t) as data:
        assert data.startswith(b'{"format"') and b"0.1," in data and g.values[0] == 0.1
        assert t.backward_runs[0].steps[0].grad_inputs == [None]  # (a reference to grad_outputs[0])
    assert g.values[0] == wide and t.backward_runs[0].steps[0].grad_inputs == [g]
    assert data == codec.encode_trace(t)
    with codec.encoding(t, put_back=False) as again:
        assert again == data
    assert t.float_digits == "dtype" and g.values[0] != wide and t.backward_runs[0].steps[0].same_as
