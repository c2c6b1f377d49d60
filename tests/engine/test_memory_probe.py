"""The memory probe (engine/probes/memory.py) against torch itself.

Independent counts are made here with plain torch, no app code: an outer
`saved_tensors_hooks` pair records every tensor autograd packs during the
forward (storages counted once, the model's parameters left out) - exactly
what is held for backward, checkpoint's kept inputs included (torch packs
them through the same hooks). Inside a non-reentrant segment checkpoint's own
hooks are innermost, so what the segment did not store is counted by running
the segment's function plainly under the same hooks. Four-part memory is
summed here from the live objects the run leaves in its namespace.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint, checkpoint_sequential

from autogradviz.engine.worker.runner import run_script

FILENAME = "/virtual/memory.py"

MLP = """\
import torch, torch.nn as nn
from torch.utils.checkpoint import checkpoint, checkpoint_sequential
torch.manual_seed(0)
CALLS = {"block": 0}
block = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 32), nn.Tanh())
block.register_forward_pre_hook(lambda m, a: CALLS.__setitem__("block", CALLS["block"] + 1))
head = nn.Linear(32, 4)
x = torch.randn(8, 16)
"""

SCRIPTS = {
    "plain": "h = block(x)\n",
    "non_reentrant": "h = checkpoint(block, x, use_reentrant=False)\n",
    "reentrant": "x.requires_grad_(True)\nh = checkpoint(block, x, use_reentrant=True)\n",
    "sequential": "h = checkpoint_sequential(block, 2, x, use_reentrant=False)\n",
}
TAIL = "loss = head(h).pow(2).sum()\nloss.backward()\n"


def _script(kind: str) -> str:
    return MLP + SCRIPTS[kind] + TAIL


def _storages_packed(fn):
    """{ptr: bytes} of every tensor autograd packs while fn() runs (plain torch)."""
    packed = {}

    def pack(t):
        s = t.untyped_storage()
        packed[s.data_ptr()] = s.nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = fn()
    return packed, out


def _independent(kind: str):
    """(activation bytes held at the end of forward, the namespace) of the
    script run plainly with an outer pack hook."""
    ns: dict = {"__name__": "__main__"}
    exec(MLP, ns)
    packed, _ = _storages_packed(lambda: exec(SCRIPTS[kind] + "y = head(h).pow(2).sum()\n", ns))
    params = {p.untyped_storage().data_ptr() for m in (ns["block"], ns["head"]) for p in m.parameters()}
    x = ns["x"]
    if x.requires_grad:
        params.add(x.untyped_storage().data_ptr())  # a leaf requiring grad: the parameters part
    return sum(b for p, b in packed.items() if p not in params), ns


@pytest.fixture(scope="module")
def traces():
    return {kind: run_script(_script(kind), FILENAME) for kind in SCRIPTS}


@pytest.mark.parametrize("kind", list(SCRIPTS))
def test_end_of_forward_bytes_equal_an_independent_pack_count(traces, kind):
    trace = traces[kind].trace
    assert trace.error is None, trace.error
    expected, _ = _independent(kind)
    run = trace.memory.runs[0]
    fwd = [p for p in run.points if p.phase == "forward"]
    assert fwd[-1].bytes == expected
    assert run.end_of_forward.activations == expected
    assert expected > 0


def test_checkpoint_stores_less_than_plain(traces):
    plain = traces["plain"].trace.memory.runs[0].end_of_forward.activations
    for kind in ("non_reentrant", "reentrant"):
        assert traces[kind].trace.memory.runs[0].end_of_forward.activations < plain, kind
    # checkpoint_sequential(block, 2): the first segment (Linear, ReLU) keeps
    # its input, and its ReLU output is saved anyway by the next Linear,
    # outside the segment: nothing saved at all
    assert traces["sequential"].trace.memory.runs[0].end_of_forward.activations == plain


@pytest.mark.parametrize("kind", ["non_reentrant", "sequential"])
def test_not_stored_equals_what_the_segment_saves_plainly(traces, kind):
    trace = traces[kind].trace
    ns: dict = {"__name__": "__main__"}
    exec(MLP, ns)
    block, x = ns["block"], ns["x"]
    params = {p.untyped_storage().data_ptr() for p in block.parameters()}
    # the checkpointed part: the whole block, or checkpoint_sequential's first segment
    part = block if kind == "non_reentrant" else nn.Sequential(*list(block)[:2])
    packed, _ = _storages_packed(lambda: part(x))
    expected = sum(b for p, b in packed.items() if p not in params)
    (seg,) = trace.memory.segments
    assert seg.checkpoint == trace.checkpoints[0].id
    assert seg.not_stored == expected
    # the re-run stored exactly that again, once
    assert seg.recomputed == [expected]
    assert seg.kept_inputs == x.untyped_storage().nbytes()


def test_reentrant_recompute_peak_equals_what_its_inner_graph_saved(traces):
    """The outer pack hook also sees the reentrant re-run (no hook of
    checkpoint's is innermost there): what it packs during backward that was
    not held already is the bump."""
    trace = traces["reentrant"].trace
    ns: dict = {"__name__": "__main__"}
    exec(MLP, ns)
    exec(SCRIPTS["reentrant"] + "y = head(h).pow(2).sum()\n", ns)
    held, _ = _storages_packed(lambda: None)
    params = {p.untyped_storage().data_ptr() for m in (ns["block"], ns["head"]) for p in m.parameters()}
    params.add(ns["x"].untyped_storage().data_ptr())
    during, _ = _storages_packed(lambda: ns["y"].backward())
    bump = sum(b for p, b in during.items() if p not in params)
    run = trace.memory.runs[0]
    (rc,) = [k for k, p in enumerate(run.points) if p.phase == "recompute"]
    assert run.points[rc].bytes - run.points[rc - 1].bytes == bump
    cp = trace.checkpoints[0]
    assert run.points[rc].step == cp.recomputations[0].step
    assert run.points[rc].checkpoint == cp.id
    assert trace.memory.segments[0].not_stored == bump


def test_backward_releases_everything_and_steps_are_in_range(traces):
    for kind, result in traces.items():
        run = result.trace.memory.runs[0]
        steps = result.trace.backward_runs[0].steps
        back = [p for p in run.points if p.phase != "forward"]
        assert back[-1].bytes == 0, kind
        assert back[-1].step == len(steps) - 1
        assert all(steps[p.step].node == p.node for p in back), kind
        assert run.peak == max(p.bytes for p in run.points)
        assert not run.retain_graph


def test_non_reentrant_recompute_bump_and_release(traces):
    trace = traces["non_reentrant"].trace
    run = trace.memory.runs[0]
    seg = trace.memory.segments[0]
    (k,) = [i for i, p in enumerate(run.points) if p.phase == "recompute"]
    before = run.points[k - 1].bytes
    # re-stored minus the kept input (already held): the bump
    assert run.points[k].bytes == before + seg.recomputed[0] - seg.kept_inputs
    assert run.points[k].step == trace.checkpoints[0].recomputations[0].step


def test_recomputations_equal_forward_hook_counts_and_gradients_match():
    """With every probe (memory included) the block runs as often as without
    the app, and the gradients are the same bits."""
    for kind in ("non_reentrant", "reentrant", "sequential"):
        src = _script(kind)
        app = run_script(src, FILENAME)
        ns: dict = {"__name__": "__main__"}
        exec(compile(src, FILENAME, "exec"), ns)
        assert app.namespace["CALLS"] == ns["CALLS"], kind
        for a, b in zip(app.namespace["block"].parameters(), ns["block"].parameters()):
            assert torch.equal(a.grad, b.grad), kind


def test_in_place_error_on_a_saved_tensor_is_unchanged():
    """The reason the probe installs no saved_tensors_hooks of its own."""
    src = "import torch\na = torch.randn(3, requires_grad=True)\nc = a.sin().exp()\nc.add_(1)\nc.sum().backward()\n"
    trace = run_script(src, FILENAME).trace
    assert trace.error is not None and "inplace operation" in trace.error.message


TRAIN = """\
import torch, torch.nn as nn
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(10, 20), nn.ReLU(), nn.Linear(20, 3))
opt = torch.optim.Adam(model.parameters(), lr=0.01)
x = torch.randn(6, 10)
for it in range(3):
    opt.zero_grad()
    loss = model(x).pow(2).mean()
    loss.backward()
    opt.step()
"""


def test_four_parts_equal_sums_over_the_live_objects():
    result = run_script(TRAIN, FILENAME)
    trace = result.trace
    assert trace.error is None
    model, opt = result.namespace["model"], result.namespace["opt"]

    def nbytes(ts):
        return sum({t.untyped_storage().data_ptr(): t.untyped_storage().nbytes() for t in ts}.values())

    params = nbytes(model.parameters())
    grads = nbytes(p.grad for p in model.parameters())
    states = nbytes(v for st in opt.state.values() for v in st.values() if isinstance(v, torch.Tensor))
    runs = trace.memory.runs
    assert len(runs) == 3
    first, last = runs[0], runs[-1]
    assert first.end_of_forward.parameters == params
    assert first.end_of_forward.gradients == 0  # zero_grad() set them to None
    assert first.end_of_forward.optimizer_states == 0  # Adam makes its state at the first step
    assert first.after_backward.gradients == grads
    assert first.after_step.optimizer_states == states
    assert (last.after_step.parameters, last.after_step.gradients, last.after_step.optimizer_states) == \
        (params, grads, states)
    assert last.end_of_forward.activations == last.points[[p.phase for p in last.points].index("backward") - 1].bytes
    assert first.after_backward.activations == 0
    assert first.end_of_forward.cuda_allocated is None  # CPU


def test_retain_graph_keeps_everything():
    src = MLP + "h = block(x)\nloss = head(h).sum()\nloss.backward(retain_graph=True)\n"
    run = run_script(src, FILENAME).trace.memory.runs[0]
    assert run.retain_graph
    fwd = [p for p in run.points if p.phase == "forward"][-1].bytes
    assert [p.bytes for p in run.points if p.phase == "backward"] == [fwd]


def test_no_checkpoint_option_calls_the_function_directly():
    for kind in ("non_reentrant", "reentrant", "sequential"):
        src = _script(kind)
        direct = run_script(src, FILENAME, no_checkpoint=True)
        same_x = "x.requires_grad_(True)\n" if kind == "reentrant" else ""
        plain = run_script(MLP + same_x + "h = block(x)\n" + TAIL, FILENAME)
        trace = direct.trace
        assert trace.error is None
        assert trace.checkpoints == [] and trace.memory.checkpoints_direct
        assert trace.memory.runs[0].end_of_forward.activations == \
            plain.trace.memory.runs[0].end_of_forward.activations
        ns: dict = {"__name__": "__main__"}
        exec(compile(src, FILENAME, "exec"), ns)
        for a, b in zip(direct.namespace["block"].parameters(), ns["block"].parameters()):
            assert torch.allclose(a.grad, b.grad, rtol=0, atol=1e-6), kind
        # the forward only, nothing re-ran (checkpoint_sequential calls the
        # block's children, never the block itself)
        assert direct.namespace["CALLS"]["block"] == (0 if kind == "sequential" else 1)
    # after the run checkpoint is torch's own again
    import torch.utils.checkpoint as tuc
    assert tuc.checkpoint is checkpoint and tuc.checkpoint_sequential is checkpoint_sequential
    assert tuc._checkpoint_hook.__module__ == "torch.utils.checkpoint" and tuc._checkpoint_hook.__mro__[1] is \
        torch.autograd.graph.saved_tensors_hooks  # torch's own class again, not our subclass


def test_no_checkpoint_through_the_worker(worker):
    out = worker.run(_script("non_reentrant"), filename=FILENAME, no_checkpoint=True)
    assert out.trace.memory.checkpoints_direct and not out.trace.checkpoints
    plain = worker.run(_script("non_reentrant"), filename=FILENAME)
    assert not plain.trace.memory.checkpoints_direct and len(plain.trace.checkpoints) == 1
    assert out.trace.memory.runs[0].end_of_forward.activations > \
        plain.trace.memory.runs[0].end_of_forward.activations


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
def test_cuda_memory_fields():
    src = TRAIN.replace("nn.Linear(20, 3))", "nn.Linear(20, 3)).cuda()").replace(
        "x = torch.randn(6, 10)", "x = torch.randn(6, 10, device='cuda')")
    result = run_script(src, FILENAME, device="cuda")
    assert result.trace.error is None
    for run in result.trace.memory.runs:
        for parts in (run.end_of_forward, run.after_backward, run.after_step):
            assert parts.cuda_allocated is not None
            assert parts.cuda_max_allocated >= parts.cuda_allocated
            # everything the four parts count lives on the GPU here
            assert parts.cuda_allocated >= parts.parameters + parts.gradients + parts.optimizer_states
        assert run.end_of_forward.cuda_allocated >= run.end_of_forward.parameters + run.end_of_forward.activations


def test_cli_no_checkpoint_flag(tmp_path, cli, traces):
    import json

    script = tmp_path / "ckpt.py"
    script.write_text(_script("non_reentrant"))
    out = tmp_path / "t.json"
    r = cli("trace", str(script), "-o", str(out), "--no-checkpoint")
    assert r.returncode == 0, r.stderr
    without = json.loads(out.read_text())
    assert not without["checkpoints"] and without["memory"]["checkpoints_direct"]
    assert without["memory"]["runs"][0]["end_of_forward"]["activations"] == \
        traces["plain"].trace.memory.runs[0].end_of_forward.activations
