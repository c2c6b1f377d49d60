"""Trace files write float32/bfloat16/float16 values with the digits their
dtype needs (engine/trace/short_floats.py), and reading them back gives
exactly torch's values."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from autogradviz.engine.trace import codec
from autogradviz.engine.trace.model import Graph, Node, Trace, TensorSummary
from autogradviz.engine.trace.short_floats import shorten, widen
from autogradviz.engine.worker.runner import run_script

FILENAME = "/virtual/short_floats.py"

# every magnitude float32 has: denormals, 0.1, -0.0, the largest finite, inf and NaN
VALUES_SCRIPT = """
import torch
torch.manual_seed(0)
scales = torch.logspace(-44, 38, 50, dtype=torch.float64)
a = (torch.randn(50, dtype=torch.float64) * scales).float()
a = torch.cat([a, torch.tensor([0.1, -0.0, 1e-45, 3.4028235e38, 1 / 3, float("inf"), float("nan")])])
a.requires_grad_(True)
big = torch.randn(500, requires_grad=True)  # truncated summary: the first 64 values
h = a.half().float()
bf = a.bfloat16().float()
y = (a * 0.75 + h * 0.5 + bf).sum() + (big * 1.25).sum()
y.backward()
"""


def _summaries(trace):
    return [s for s in codec._summaries(trace) if s is not None]


def _round_trip(trace):
    data = codec.encode_trace(trace)
    return data, codec.decode_trace(data)


def test_values_read_back_equal_torchs_values():
    run = run_script(VALUES_SCRIPT, filename=FILENAME)
    tr = run.trace
    assert tr.error is None, tr.error
    data, back = _round_trip(tr)
    assert b'"float_digits":"dtype"' in data
    # the file holds the short forms: 0.1 (float32), not 0.10000000149011612
    assert b"0.1," in data and b"0.10000000149011612" not in data
    # torch's own float32 values, as tolist() gives them
    want = run.namespace["a"].detach().tolist()
    mine, theirs = _summaries(tr), _summaries(back)
    assert len(mine) == len(theirs)
    where = [i for i, s in enumerate(mine) if s.dtype == "float32" and s.values[:-1] == want[:-1]]
    assert where, "no summary of `a` in the trace"
    for i in where:
        assert theirs[i].values[:-1] == want[:-1]  # (NaN is not equal to itself)
        assert theirs[i].values[-1] != theirs[i].values[-1]
    # every summary and statistic exactly as in memory (torch's values), for each dtype
    assert {s.dtype for s in mine} >= {"float32", "float16", "bfloat16"}
    for m, t in zip(mine, theirs):
        assert m.dtype == t.dtype
        assert json.dumps(codec.to_builtins(m)) == json.dumps(codec.to_builtins(t))
    assert tr.float_digits == back.float_digits == "float64"  # (a file's form only)


def test_half_precision_values_read_back_exactly():
    src = """
import torch
torch.manual_seed(1)
x = (torch.randn(40) * 100).half().requires_grad_(True)
z = (torch.randn(40) * 1e-3).bfloat16().requires_grad_(True)
(x * 3).sum().backward()
(z * 3).sum().backward()
"""
    run = run_script(src, filename=FILENAME)
    data, back = _round_trip(run.trace)
    for name, dtype in (("x", "float16"), ("z", "bfloat16")):
        want = run.namespace[name].grad.tolist()
        leaf = [s for r in back.backward_runs for s in r.leaf_grads.values() if s.dtype == dtype]
        assert leaf and leaf[0].values == want
    assert b'"float_digits":"dtype"' in data
    # float16 needs at most 5 significant digits, bfloat16 (as float32) 9
    for s in _summaries(codec.decode_trace(data.replace(b'"float_digits":"dtype"', b'"float_digits":"x"'))):
        digits = {"float16": 5, "bfloat16": 9}.get(s.dtype)
        for v in s.values if digits else ():
            assert len(repr(abs(v)).split("e")[0].replace(".", "").strip("0")) <= digits, (s.dtype, v)


def test_a_chain_of_tiny_ops_is_at_most_1_kb_per_node():
    src = """
import torch
torch.manual_seed(0)
w = torch.randn(16, requires_grad=True)
b = torch.randn(16, requires_grad=True)
x = torch.randn(16)
for i in range(1000):
    x = torch.sin(x * w + b)
x.sum().backward()
"""
    tr = run_script(src, filename=FILENAME).trace
    nodes = sum(len(g.nodes) for g in tr.graphs)
    assert nodes > 3000
    data, back = _round_trip(tr)
    assert len(data) / nodes <= 1000, f"{len(data) / nodes:.0f} bytes per node"
    assert json.dumps(codec.to_builtins(back)) == json.dumps(codec.to_builtins(tr))


def test_values_not_of_their_dtype_are_written_as_they_are():
    # a hand-made summary: 0.1 is not a float32; shortening it would change it
    s = TensorSummary([2], "float32", "cpu", [0.1, 0.5], numel=2, min=0.1, max=0.5)
    tr = Trace(graphs=[Graph(id="g0", nodes=[Node(id="n0", op="X", kind="op", tensor=s)])])
    data, back = _round_trip(tr)
    assert b'"float_digits":"float64"' in data
    assert back.graphs[0].nodes[0].tensor.values == [0.1, 0.5]
    assert back.graphs[0].nodes[0].tensor.min == 0.1


def test_files_without_float_digits_load_their_floats_as_written():
    s = TensorSummary([1], "float32", "cpu", [0.1], numel=1, min=0.1, max=0.1)
    tr = Trace(graphs=[Graph(id="g0", nodes=[Node(id="n0", op="X", kind="op", tensor=s)])])
    plain = json.loads(codec.encode_trace(tr))
    del plain["float_digits"]  # a file of an earlier version
    back = codec.decode_trace(json.dumps(plain))
    assert back.graphs[0].nodes[0].tensor.values == [0.1]


@pytest.mark.parametrize("kind", ["float32", "float16"])
def test_shorten_is_numpys_shortest_repr_and_widens_back(kind):
    rng = np.random.default_rng(0)
    bits = np.uint32 if kind == "float32" else np.uint16
    raw = rng.integers(0, np.iinfo(bits).max, 20000, dtype=np.uint64).astype(bits).view(kind)
    raw = raw[np.isfinite(raw)]
    values = raw.astype(np.float64).tolist() + [0.0, -0.0, float("inf"), float("-inf")]
    short = shorten(values, kind)
    assert widen(short, kind) == values
    numpy_short = [float(str(np.dtype(kind).type(v))) for v in values]
    assert [repr(v) for v in short] == [repr(v) for v in numpy_short]
    assert shorten([0.1], "float32") is None  # not a float32
    assert shorten([1, 2.0], "float32") is None  # not all floats
    assert torch.tensor(short, dtype=getattr(torch, kind)).tolist() == values


# every place a summary can be: node tensors, saved tensors, steps, a hook's
# event, leaf gradients, autograd.grad's results, checkpoint's kept inputs
PLACES_SCRIPT = """
import torch
from torch.utils.checkpoint import checkpoint
torch.manual_seed(0)
w = torch.randn(4, requires_grad=True)
x = torch.randn(4)
w.register_hook(lambda g: g * 2)
y = checkpoint(lambda a: (a * x).tanh() * a, w, use_reentrant=False)
(gw,) = torch.autograd.grad(y.sum(), w, retain_graph=True)
y.sum().backward()
"""


def test_the_writer_shortens_exactly_the_summaries_the_reader_widens():
    """The encoder finds the summaries to shorten in its one walk over the
    trace (codec._file_walk), the reader widens those of codec._summaries:
    the same set, or a value would be read back shortened."""
    tr = run_script(PLACES_SCRIPT, filename=FILENAME).trace
    assert tr.error is None, tr.error
    runs = tr.backward_runs
    assert any(r.events for r in runs) and any(r.results for r in runs) and any(r.leaf_grads for r in runs)
    assert any(cp.inputs for cp in tr.checkpoints)
    swaps = codec._Swaps()
    try:
        written = {id(s) for s in codec._file_walk(tr, swaps)}
    finally:
        swaps.restore()
    assert written == {id(s) for s in _summaries(tr)}
    _data, back = _round_trip(tr)
    for m, t in zip(_summaries(tr), _summaries(back)):
        assert json.dumps(codec.to_builtins(m)) == json.dumps(codec.to_builtins(t))


@pytest.mark.parametrize("kind", ["float32", "bfloat16", "float16"])
def test_shorten_array_gives_shortens_floats_for_any_shape(kind):
    """The worker shortens a batch's values from its array (shorten_array);
    the result is shorten()'s, value for value, in the array's shape."""
    rng = np.random.default_rng(1)
    if kind == "float16":
        raw = rng.integers(0, 2 ** 16, 6000, dtype=np.uint64).astype(np.uint16).view(np.float16)
    else:
        raw = rng.integers(0, 2 ** 32, 6000, dtype=np.uint64).astype(np.uint32).view(np.float32)
        if kind == "bfloat16":  # bfloat16 values are float32s with 16 zero low bits
            raw = (raw.view(np.uint32) & np.uint32(0xFFFF0000)).view(np.float32)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 0.1, 1e-45 if kind != "float16" else 6e-8],
                        dtype=raw.dtype)
    a = np.concatenate([raw, specials])[: (raw.size + specials.size) // 6 * 6].reshape(-1, 6)
    from autogradviz.engine.trace.short_floats import shorten_array

    got = shorten_array(a, kind)
    assert got.shape == a.shape and got.dtype == np.float64
    with np.errstate(invalid="ignore"):  # (NaN payloads)
        flat = a.reshape(-1).astype(np.float64).tolist()
    want = shorten(flat, kind)
    assert [repr(v) for v in got.reshape(-1).tolist()] == [repr(v) for v in want]
    assert shorten_array(a[:0], kind).shape == (0, 6)


def _plain_trace(tr) -> dict:
    """A trace as plain data, without what differs between two runs of one script."""
    plain = codec.to_builtins(tr)
    for name in ("duration_s", "float_digits", "memory"):
        plain.pop(name, None)
    return plain


@pytest.mark.parametrize("script", [VALUES_SCRIPT, PLACES_SCRIPT, """
import torch
torch.manual_seed(2)
x = (torch.randn(6, 5) * 10).half().requires_grad_(True)
z = (torch.randn(6, 5) * 1e-3).bfloat16().requires_grad_(True)
w = torch.randn(5, requires_grad=True)
h = x.float()
for i in range(12):  # same-shaped gradients: the batched path
    h = torch.tanh(h * w + z.float())
big = torch.randn(3000, requires_grad=True)
(h.sum() + (big * w[0]).sum()).backward()
"""], ids=["magnitudes", "places", "batched"])
def test_a_trace_shortened_while_recorded_reads_back_as_the_exact_trace(script):
    """The worker's traces are only sent: their float32/bfloat16/float16
    values are shortened as they are recorded (summarize.Summarizer.shorten),
    the codec writes them as they are, and reading the file gives exactly
    the trace an exact recording gives - every value torch's."""
    exact = run_script(script, filename=FILENAME).trace
    short_run = run_script(script, filename=FILENAME, shorten_floats=True)
    short = short_run.trace
    assert exact.error is None and short.error is None, (exact.error, short.error)
    assert short.float_digits == "dtype"
    # recorded short: 0.1 (float32) is held as 0.1 already, not 0.10000000149011612
    held = [v for s in _summaries(short) if s.dtype == "float32" for v in s.values]
    exact_held = [v for s in _summaries(exact) if s.dtype == "float32" for v in s.values]
    assert len(held) == len(exact_held) and held != exact_held  # (shortened in memory)
    if script is VALUES_SCRIPT:
        assert 0.1 in held and 0.10000000149011612 not in held
    data = codec.encode_trace(short)
    back = codec.decode_trace(data)
    assert b'"float_digits":"dtype"' in data
    assert json.dumps(_plain_trace(back), sort_keys=True) == json.dumps(_plain_trace(exact), sort_keys=True)
    if script is not PLACES_SCRIPT:  # torch's values, read independently
        for name in ("a", "x", "z", "w", "big"):
            t = short_run.namespace.get(name)
            if isinstance(t, torch.Tensor) and t.grad is not None:
                grads = [s for r in back.backward_runs for s in r.leaf_grads.values()
                         if s.shape == list(t.shape) and s.dtype == str(t.dtype).replace("torch.", "")]
                assert any(s.values == t.grad.flatten()[:len(s.values)].tolist() for s in grads), name
