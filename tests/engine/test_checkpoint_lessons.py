"""Lessons 30-34 (gradient checkpointing): every fact their texts state, checked
against torch - the lesson run plainly (exec, no app) and recorded by the app
(run_script) - and the numbers and lines the texts quote, in both languages."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode

from autogradviz.engine.worker.runner import run_script

LESSONS = Path(__file__).resolve().parents[2] / "resources" / "lessons"


def lesson(name: str):
    """(source, {lang: text}, trace, plain namespace, plain stdout)."""
    path = LESSONS / f"{name}.py"
    src = path.read_text(encoding="utf-8")
    texts = {lang: (LESSONS / f"{name}.{lang}.md").read_text(encoding="utf-8") for lang in ("en", "zh_CN")}
    trace = run_script(src, filename=str(path)).trace
    assert trace.error is None, trace.error
    ns: dict = {"__name__": "__main__", "__file__": str(path)}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(src, str(path), "exec"), ns)
    assert trace.stdout == out.getvalue()  # the app changed nothing the script printed
    return src, texts, trace, ns, out.getvalue()


def in_both(texts: dict, *snippets: str) -> None:
    for lang, text in texts.items():
        for s in snippets:
            assert s in text, (lang, s)


def saved_count(fn, *args) -> int:
    n = [0]

    def pack(t):
        n[0] += 1
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        fn(*args)
    return n[0]


def test_30_checkpoint_mlp():
    _, texts, tr, ns, out = lesson("30_checkpoint_mlp")
    assert "same loss: True" in out and "same gradient: True" in out
    (c,) = tr.checkpoints
    assert c.kind == "non_reentrant" and c.function == "mlp"
    # 5 tensors saved inside the block, counted by torch on the block run plainly
    want = saved_count(ns["mlp"], ns["x"])
    assert want == 5
    weights = {p.untyped_storage().data_ptr() for p in ns["mlp"].parameters()}
    on_weights = []
    with torch.autograd.graph.saved_tensors_hooks(
            lambda t: on_weights.append(t.untyped_storage().data_ptr() in weights) or t, lambda t: t):
        ns["mlp"](ns["x"])
    assert sum(on_weights) == 2  # "two of them are just the weights seen transposed"
    g = tr.graph(c.graph)
    assert sum(1 for n in g.nodes if n.id in c.nodes for sv in n.saved if sv.skipped_code == "checkpoint") == 5
    in_both(texts, "**5", "`same loss: True`", "`same gradient: True`")
    # re-run: t, addmm, gelu, t - stopped early after 4 of the forward's 5 ops
    (r,) = c.recomputations
    assert len(c.forward_ops) == 5 and r.early_stopped
    assert r.ops == c.forward_ops[:4] == ["aten.t.default", "aten.addmm.default", "aten.gelu.default",
                                          "aten.t.default"]
    assert tr.backward_runs[r.run].steps[r.step].node == r.trigger
    trigger = next(n for n in g.nodes if n.id == r.trigger)
    assert trigger.op == "AddmmBackward0"
    assert "after 4 of the forward's 5 ops" in texts["en"] and "5 个算子中跑完 4 个" in texts["zh_CN"]


def test_31_checkpoint_sequential():
    _, texts, tr, ns, out = lesson("31_checkpoint_sequential")
    weights = sum(p.numel() * p.element_size() for p in ns["model"].parameters())
    assert weights == 8704 and f"weights: {weights} bytes" in out
    stored = {}
    for line in out.splitlines():
        if "segment(s):" in line:
            k, rest = line.split(" segment(s): ")
            stored[int(k)] = int(rest.split()[0])
    assert stored == {1: 2304, 2: 1536, 4: 1536, 8: 2304}
    in_both(texts, "**8704", "**2304", "**1536", "17408", "256")
    assert 2 * weights == 17408 and 16 * 4 * 4 == 256  # one activation: 4 x 16 float32
    # every segment but the last is checkpointed: 0 + 1 + 3 + 7 calls, each re-run once
    assert len(tr.checkpoints) == 11 and all(len(c.recomputations) == 1 for c in tr.checkpoints)
    last = tr.backward_runs[-1].graph
    assert sum(1 for c in tr.checkpoints if c.graph == last) == 7
    in_both(texts, "11", "0 + 1 + 3 + 7")


def test_32_reentrant_vs_non_reentrant():
    _, texts, tr, ns, out = lesson("32_reentrant_vs_non_reentrant")
    assert "reentrant: CheckpointFunctionBackward" in out and "non-reentrant: TanhBackward0" in out
    assert "ValueError: Unexpected keyword arguments: scale" in out
    in_both(texts, "**CheckpointFunctionBackward**", "**TanhBackward0**",
            "`ValueError: Unexpected keyword arguments: scale`")
    c1, c2 = tr.checkpoints[:2]
    assert c1.kind == "reentrant" and len(c1.nodes) == 1 and c2.kind == "non_reentrant" and len(c2.nodes) == 3
    (r,) = c1.recomputations
    assert len(r.ops) == 3 and len(r.steps) == 4 and r.graph is not None
    # both kinds give the same gradients (checked here on the lesson's block)
    grads = []
    for reentrant in (True, False):
        x = ns["x"].detach().clone().requires_grad_()
        torch.utils.checkpoint.checkpoint(ns["block"], x, use_reentrant=reentrant).pow(2).sum().backward()
        grads.append(x.grad)
    assert torch.equal(*grads)
    in_both(texts, "3", "4")


def test_33_dropout_rng_state():
    _, texts, tr, _, out = lesson("33_dropout_rng_state")
    lines = ["preserve_rng_state=True: re-run mask equals the forward's: True",
             "preserve_rng_state=False: re-run mask equals the forward's: False"]
    for line in lines:
        assert line in out
    in_both(texts, *lines)
    keep, fresh = tr.checkpoints
    assert keep.preserve_rng_state and not fresh.preserve_rng_state
    assert keep.masks[0].digest == keep.recomputations[0].masks[0].digest
    assert fresh.masks[0].digest != fresh.recomputations[0].masks[0].digest


@pytest.mark.skipif(not hasattr(torch.utils.checkpoint, "create_selective_checkpoint_contexts"),
                    reason="this torch has no selective checkpointing")
def test_34_selective_checkpoint():
    _, texts, tr, ns, out = lesson("34_selective_checkpoint")
    asked = ns["asked"]
    assert len(asked) == 5 and {a[0] for a in asked} == {"forward"}
    assert [a[2] for a in asked if a[1] == "aten.addmm.default"] == ["kept", "kept"]
    assert "same gradient: True" in out
    in_both(texts, "5", "`same gradient: True`", "`aten.addmm`")
    (c,) = tr.checkpoints
    assert "aten.addmm.default" in c.recomputations[0].ops

    # the re-run's addmm is answered from what the forward kept: the same memory
    ptrs = {"forward": [], "re-run": []}

    class Ptrs(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            res = func(*args, **(kwargs or {}))
            if func is torch.ops.aten.addmm.default:
                when = "re-run" if torch._C._current_graph_task_id() != -1 else "forward"
                ptrs[when].append(res.data_ptr())
            return res

    def f(t):
        with Ptrs():
            return ns["mlp"](t)

    y = torch.utils.checkpoint.checkpoint(f, ns["x"], use_reentrant=False, context_fn=ns["context_fn"])
    y.pow(2).mean().backward()
    assert ptrs["re-run"] and ptrs["re-run"] == ptrs["forward"][:len(ptrs["re-run"])]
