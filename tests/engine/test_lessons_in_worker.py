"""Every lesson runs in the real worker, and what its text states is what torch does.

One warm worker runs every lesson once (module fixture: about 10 s in all).
Each fact a lesson's text states - node ops, gradient values, printed values,
the error it provokes - is checked against torch, computed here in the test
with plain torch (independently of the worker), never against a number typed
into the test. Printed output is compared with the same script run by plain
Python in a process of its own (lesson_reference.py): the worker must not change what it prints.
"""

from __future__ import annotations

import functools
import io
import json
import math
import os
import re
import runpy
import subprocess
import sys
import tempfile
import tokenize
from pathlib import Path

import pytest
import torch

from torch_aborts import until_torch_keeps_its_ranks

from autogradviz.app.lesson_text.comments import comments, translate
from autogradviz.engine.protocol.client import WorkerClient
from autogradviz.engine.trace.find import locate

LESSONS_DIR = Path(__file__).resolve().parents[2] / "resources" / "lessons"
LESSONS = sorted(p for p in LESSONS_DIR.glob("*.py") if "." not in p.stem and not p.stem.startswith("_"))
NAMES = [p.stem for p in LESSONS]
CHAPTERS = {"basics", "shapes", "training", "memory", "precision", "parallel"}
# Lessons whose output differs from run to run by design (timings) or that spawn processes.
NOT_COMPARED = {"04_matmul_three_ways", "41_ddp_two_processes"}
DDP = "41_ddp_two_processes"


def metadata(path: Path) -> dict:
    """NAME.json: every lesson has one (chapter, what to look at, try this)."""
    return json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))


def lesson(prefix: str) -> Path:
    return next(p for p in LESSONS if p.stem.startswith(prefix))


@pytest.fixture(scope="module")
def traces():
    """{lesson name: RunOutcome} for every lesson, from one worker."""
    client = WorkerClient()
    client.start()
    done = {}
    try:
        for path in LESSONS:
            def run(path=path):
                return client.run(path.read_text(encoding="utf-8"), filename=str(path), timeout=120)
            # (torch itself can abort a gloo rank at teardown: see torch_aborts.py)
            done[path.stem] = (until_torch_keeps_its_ranks(run, lambda o: str(o.trace.error or ""))
                               if path.stem == DDP else run())
    finally:
        client.close()
    return done


@functools.lru_cache(maxsize=None)
def _plain_references() -> dict:
    """{lesson path: (stdout, leaf grads)} from lesson_reference.py, run by plain
    python in a process of its own for every lesson but the DDP one at once."""
    paths = [str(p) for p in LESSONS if p.stem != DDP]
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "reference.pt")
        r = subprocess.run([sys.executable, str(Path(__file__).with_name("lesson_reference.py")), out, *paths],
                           capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, r.stderr[-3000:]
        return torch.load(out)


def plain_python(path: Path) -> tuple[str, list]:
    """What `python lesson.py` prints, and the .grad of every leaf its last
    backward() that did not raise reached (see lesson_reference.py)."""
    return _plain_references()[str(path)]


def plain_python_stdout(path: Path) -> str:
    return plain_python(path)[0]


def nodes(trace, run: int):
    return trace.graph(trace.backward_runs[run].graph).nodes


def ops(trace, run: int) -> set[str]:
    return {n.op for n in nodes(trace, run)}


def leaf_grad(trace, run: int, label: str) -> list[float]:
    by_id = {n.id: n for n in nodes(trace, run)}
    for nid, summary in trace.backward_runs[run].leaf_grads.items():
        if by_id.get(nid) is not None and by_id[nid].label == label:
            return summary.values
    raise AssertionError(f"no leaf grad for {label!r} in run {run}")


def close(a, b) -> bool:
    a, b = list(a), list(b)
    return len(a) == len(b) and all(math.isclose(x, y, rel_tol=1e-5, abs_tol=1e-6) for x, y in zip(a, b))


def grad_fn_name(t: torch.Tensor) -> str:
    return type(t.grad_fn).__name__


# -- every lesson ---------------------------------------------------------------------
def code_tokens(source: str) -> list[tuple[int, str]]:
    """The script's tokens without comments and docstrings (those are translated)."""
    tokens = [(t.type, t.string) for t in tokenize.generate_tokens(io.StringIO(source).readline)
              if t.type not in (tokenize.COMMENT, tokenize.NL, tokenize.ENCODING)]
    return [t for i, t in enumerate(tokens)
            if not (t[0] == tokenize.STRING and i > 0 and tokens[i - 1][0] == tokenize.INDENT
                    and i + 1 < len(tokens) and tokens[i + 1][0] == tokenize.NEWLINE)]


def test_every_lesson_file_belongs_to_a_lesson():
    """A lesson's files are NAME.py, NAME.en.md, NAME.zh_CN.md and NAME.json;
    anything else named like a lesson is a lesson missing its script."""
    suffixes = (".py", ".en.md", ".zh_CN.md", ".json")
    for f in LESSONS_DIR.iterdir():
        if f.name[:2].isdigit():
            assert any(f.name == n + s for n in NAMES for s in suffixes), f.name


@pytest.mark.parametrize("path", LESSONS, ids=NAMES)
def test_lesson_has_both_texts_metadata_and_the_same_code_in_chinese(path):
    for lang in ("en", "zh_CN"):
        md = path.with_name(f"{path.stem}.{lang}.md")
        assert md.exists() and md.read_text(encoding="utf-8").startswith("# "), md
        # "Try this" lives in the metadata, where the browser lists it under its heading.
        assert not re.search(r"^(Try:|试一试)", md.read_text(encoding="utf-8"), re.M), md
    meta = metadata(path)
    assert meta["chapter"] in CHAPTERS
    assert meta["look"], "every lesson says what to look at"
    assert meta["try"], "every lesson suggests something to try"
    for item in meta["look"] + meta["try"]:
        assert item["en"].strip() and item["zh_CN"].strip(), item
        assert any("\u4e00" <= ch <= "\u9fff" for ch in item["zh_CN"]), item
    for item in meta["look"]:
        assert isinstance(item["target"], dict) and item["target"], item
    # Its comments and docstrings in Chinese: every one translated, and
    # nothing else of the script touched (the code is the same by construction
    # of translate(); this checks the table cannot break it).
    source = path.read_text(encoding="utf-8")
    table = meta["comments"]["zh_CN"]
    texts = [text for _, _, text in comments(source)]
    assert texts, "a lesson explains its code in comments"
    for text in texts:  # (one with nothing to translate, "# READY -> UNSCALED", maps to itself)
        assert text in table, f"untranslated: {text}"
        assert table[text] == text or any("\u4e00" <= ch <= "\u9fff" or "\uff00" <= ch <= "\uffef"
                                          for ch in table[text]), text  # (Chinese, or a full-width "：")
    assert any(table[t] != t for t in texts)
    assert set(table) <= set(texts), f"translations of comments the script no longer has: {set(table) - set(texts)}"
    zh = translate(source, table)
    assert code_tokens(zh) == code_tokens(source), "the Chinese script must differ only in comments"
    assert [text for _, _, text in comments(zh)] == [table[t] for t in texts]


@pytest.mark.parametrize("name", [n for n in NAMES if n != DDP])  # DDP: its own test below
def test_lesson_runs_and_every_look_item_exists_in_its_trace(traces, name):
    out = traces[name]
    assert out.status == "ok" and out.trace.error is None, out.trace.error
    assert out.trace.backward_runs
    for item in metadata(LESSONS_DIR / f"{name}.py")["look"]:
        if "panel" not in item["target"]:  # (panel ids: tests/app/test_lesson_browser.py)
            assert locate(out.trace, item["target"]) is not None, item


def same_tensor(summary, t: torch.Tensor) -> bool:
    """A recorded TensorSummary is `t`: shape, and every value (or, where the
    summary keeps only some, its min, max and norm)."""
    if list(summary.shape) != list(t.shape):
        return False
    flat = t.double().flatten()
    if not summary.truncated:
        return close(summary.values, flat.tolist())
    return all(math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-6)
               for a, b in ((summary.min, flat.min().item()), (summary.max, flat.max().item()),
                            (summary.norm, flat.norm().item())))


@pytest.mark.parametrize("name", [n for n in NAMES if n != DDP])
def test_lesson_leaf_gradients_at_the_end_of_its_last_backward_are_torchs(traces, name):
    """Every leaf gradient recorded at the end of the script's last backward()
    (that did not raise) is the .grad of one of the leaves that backward reached
    when the same script runs under plain torch here, one for one."""
    trace = traces[name].trace
    # (a backward that raised - lesson 08's second one - leaves .grad as it was)
    last = [i for i, r in enumerate(trace.backward_runs) if r.kind == "backward" and r.error is None][-1]
    shown = list(trace.backward_runs[last].leaf_grads.values())
    expected = list(plain_python(LESSONS_DIR / f"{name}.py")[1])
    assert shown and len(shown) == len(expected), (len(shown), len(expected))
    for summary in shown:
        match = next((i for i, t in enumerate(expected) if same_tensor(summary, t)), None)
        assert match is not None, (summary.shape, summary.values[:4])
        expected.pop(match)


@pytest.mark.parametrize("name", sorted(set(NAMES) - NOT_COMPARED))
def test_lesson_prints_what_plain_python_prints(traces, name):
    def addresses_out(text: str) -> str:  # a printed grad_fn shows its (per-process) address
        return re.sub(r" at 0x[0-9a-f]+>", " at 0x…>", text)

    assert addresses_out(traces[name].trace.stdout) == addresses_out(plain_python_stdout(LESSONS_DIR / f"{name}.py"))


# -- what each text states --------------------------------------------------------------
def test_05_gradient_of_4x_plus_3_is_4(traces):
    t = traces["05_linear_function"].trace
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = 4 * x + 3
    y.sum().backward()
    assert close(leaf_grad(t, 0, "x"), x.grad.tolist())
    assert {grad_fn_name(y), grad_fn_name(4 * x), grad_fn_name(y.sum()), "AccumulateGrad"} == ops(t, 0)
    assert f"y = {y.tolist()}" in t.stdout


def test_06_parameters_and_functional_form(traces):
    t = traces["06_modules_and_parameters"].trace
    ns = runpy.run_path(str(lesson("06")), run_name="__main__")
    net = ns["net"]
    labels = {n.label for n in nodes(t, 0) if n.kind == "leaf"}
    assert labels == {f"net.{name}" for name, _ in net.named_parameters()}
    assert {grad_fn_name(ns["out"]), grad_fn_name(net.fc1(ns["x"])), "ReluBackward0"} <= ops(t, 0)
    for name, p in net.named_parameters():
        assert close(leaf_grad(t, 0, f"net.{name}"), p.grad.flatten().tolist())
    assert "module == functional: True" in t.stdout


def test_07_only_leaves_inplace_error_and_detach(traces):
    t = traces["07_leaves_inplace_detach"].trace
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with pytest.raises(RuntimeError) as err:
        a.add_(1)
    assert f"RuntimeError: {err.value}" in t.stdout
    b = a * 2
    b.sum().backward()
    assert close(leaf_grad(t, 0, "a"), a.grad.tolist())
    with torch.no_grad():
        a.add_(1)
    (a * b.detach()).sum().backward()
    assert close(leaf_grad(t, 1, "a"), a.grad.tolist())
    # The second graph has no path into b: sum, mul and the leaf a only.
    assert sorted(n.op for n in nodes(t, 1)) == ["AccumulateGrad", "MulBackward0", "SumBackward0"]
    assert "b.grad is None: True" in t.stdout


def test_08_retain_graph_accumulates_and_the_second_backward_fails(traces):
    t = traces["08_retain_graph"].trace
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x ** 2).sum()
    y.backward(retain_graph=True)
    first = x.grad.tolist()
    y.backward()
    assert close(leaf_grad(t, 0, "x"), first) and close(leaf_grad(t, 1, "x"), x.grad.tolist())
    assert t.backward_runs[0].graph == t.backward_runs[1].graph
    assert "PowBackward0" in ops(t, 0)
    z = (x ** 3).sum()
    z.backward()
    with pytest.raises(RuntimeError) as err:
        z.backward()
    assert "RuntimeError: " + str(err.value).split(".")[0] + "." in t.stdout


def test_09_einsum_attention_and_bmm(traces):
    t = traces["09_einsum_attention"].trace
    assert "BmmBackward0" in ops(t, 0) and {"BmmBackward0", "PermuteBackward0"} <= ops(t, 1)
    q, k = torch.randn(1, 3, 2, 5), torch.randn(1, 4, 2, 5)
    assert f"scores shape: {tuple(torch.einsum('nqhd,nkhd->nhqk', q, k).shape)}" in t.stdout
    dot = torch.einsum("i,i->", torch.tensor([1.0, 2.0, 3.0]), torch.tensor([4.0, 5.0, 6.0])).item()
    assert f"(dot product): {dot}" in t.stdout
    assert "same scores: True" in t.stdout and "same queries.grad: True" in t.stdout


def test_10_each_shape_operation_leaves_its_node(traces):
    t = traces["10_shapes_in_the_graph"].trace
    x = torch.arange(6.0).reshape(2, 3).requires_grad_()
    made = [torch.cat([x, x]), torch.stack([x, x]), x.unsqueeze(1), x.t().reshape(6),
            x.t().contiguous().view(6), torch.stack([x, x]).permute(2, 0, 1), x.t().contiguous()]
    assert {grad_fn_name(m) for m in made} <= ops(t, 0)
    sum(m.sum() for m in made[:6]).backward()
    assert close(leaf_grad(t, 0, "x"), x.grad.flatten().tolist())
    with pytest.raises(RuntimeError) as err:
        x.t().view(6)
    assert "view failed: " + str(err.value).split(". ")[0] in t.stdout


def test_11_the_three_errors_are_torchs_own(traces):
    t = traces["11_common_errors"].trace
    attempts = [("shape", lambda: torch.nn.Linear(10, 2)(torch.randn(1, 28, 28))),
                ("device", lambda: torch.ones(2, device="meta") + torch.ones(2)),
                ("dtype", lambda: torch.nn.Linear(3, 1)(torch.tensor([[1, 2, 3]])))]
    for kind, attempt in attempts:
        with pytest.raises(RuntimeError) as err:
            attempt()
        assert f"{kind} error: {err.value}" in t.stdout
    assert close(leaf_grad(t, 0, "small.weight"), [1.0, 2.0, 3.0])


def test_12_one_backward_per_mini_batch(traces):
    t = traces["12_minibatch_sgd"].trace
    ns = runpy.run_path(str(lesson("12")), run_name="__main__")
    iterations = math.ceil(len(ns["features"]) / ns["batch_size"])
    assert len(t.backward_runs) == iterations == 3
    assert all("MeanBackward0" in ops(t, r) for r in range(iterations))
    target = torch.tensor([2.0, -3.0])
    assert (ns["w"].flatten() - target).norm() < target.norm()  # moved towards 2, -3


def test_13_dropout_train_vs_eval(traces):
    t = traces["13_train_eval_dropout"].trace
    net = torch.nn.Sequential(torch.nn.Linear(5, 5), torch.nn.Dropout(0.3))
    x = torch.ones(1, 5)
    train_root, eval_root = grad_fn_name(net.train()(x)), grad_fn_name(net.eval()(x))
    assert train_root != eval_root
    roots = [n.op for n in nodes(t, 0) if n.label == "out_train"] + [n.op for n in nodes(t, 1) if n.label == "out_eval"]
    assert roots == [train_root, eval_root]
    data = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0])
    line = next(l for l in t.stdout.splitlines() if l.startswith("train:"))
    values = json.loads(line.split(":", 1)[1])
    assert all(v == 0 or math.isclose(v, round(d / 0.7, 4)) for v, d in zip(values, data.tolist()))
    assert 0 in values and any(v != 0 for v in values)
    assert f"eval:  {torch.nn.Dropout(0.3).eval()(data).tolist()}" in t.stdout


def test_14_same_seed_same_gradients(traces):
    t = traces["14_reproducibility"].trace
    grads = [leaf_grad(t, r, "layer.weight") for r in range(3)]
    assert grads[0] == grads[1] and grads[0] != grads[2]
    torch.manual_seed(0)
    layer = torch.nn.Linear(4, 1)
    layer(torch.randn(8, 4)).pow(2).mean().backward()
    assert close(grads[0], layer.weight.grad.flatten().tolist())


def test_15_state_dict_values_travel_gradients_do_not(traces):
    t = traces["15_state_dict"].trace
    state = torch.nn.Linear(3, 3).state_dict()
    assert f"keys: {['linear.' + k for k in state]}" in t.stdout
    assert "gradients travelled: False" in t.stdout and "same weights: True" in t.stdout
    assert {n.label for n in nodes(t, 1) if n.kind == "leaf"} == {"copy.linear.weight", "copy.linear.bias"}
    assert t.backward_runs[0].graph != t.backward_runs[1].graph


def test_16_trace_freezes_the_branch_script_keeps_it(traces):
    t = traces["16_torchscript"].trace
    assert "NegBackward0" in ops(t, 0)
    assert close(leaf_grad(t, 0, "negative"), [-1.0, -1.0])
    if hasattr(torch, "jit"):
        assert "traced,   negative input: [-1.0, -1.0]" in t.stdout
        assert "scripted, negative input: [1.0, 1.0]" in t.stdout
        assert "deprecation warning on torch" in t.stdout


def test_17_layer_table_numbers(traces):
    t = traces["17_layer_table"].trace
    ns = runpy.run_path(str(lesson("17")), run_name="__main__")
    for i, layer in enumerate(ns["model"], 1):
        count = sum(p.numel() for p in layer.parameters())
        assert any(l.split()[0] == f"{type(layer).__name__}-{i}" and l.split()[-1] == f"{count:,}"
                   for l in t.stdout.splitlines() if l.strip())
    assert f"Total params: {sum(p.numel() for p in ns['model'].parameters()):,}" in t.stdout
    assert "ConvolutionBackward0" in ops(t, 0)


def test_18_cuda_version_and_saved_tanh_output(traces):
    t = traces["18_cuda_memory"].trace
    assert f"torch.version.cuda: {torch.version.cuda}" in t.stdout
    tanh = next(n for n in nodes(t, 0) if n.op == "TanhBackward0")
    saved = [s.tensor for s in tanh.saved if s.tensor is not None]
    h = torch.tanh(torch.randn(64, 64, requires_grad=True))
    assert [list(s.shape) for s in saved] == [list(h.shape)]
    assert f"{h.element_size() * h.nelement()}" in t.stdout
    # "MmBackward0 saved x (twice: both operands)"
    x = torch.randn(64, 64, requires_grad=True)
    mm = (x @ x).grad_fn
    assert mm._saved_self is not None and mm._saved_mat2 is not None
    mm_node = next(n for n in nodes(t, 0) if n.op == type(mm).__name__)
    assert {s.name for s in mm_node.saved if s.tensor is not None and s.tensor.shape == [64, 64]} == {"self", "mat2"}


def test_40_shard_gradients_sum_to_the_full_batch(traces):
    t = traces["40_data_parallel_by_hand"].trace
    full = leaf_grad(t, 0, "w")
    shards = [list(t.backward_runs[r].leaf_grads.values())[0].values for r in (1, 2)]
    assert not close(shards[0], shards[1])
    assert close([a + b for a, b in zip(*shards)], full)


def test_ddp_lesson_runs_two_ranks_and_all_reduces(traces):
    t = traces[DDP].trace
    assert t.error is None, t.error
    data = torch.arange(12.0).reshape(4, 3)
    assert f"weight.grad on rank 0: {[(data.sum(0) / 2).tolist()]}" in t.stdout
    assert "same on every rank: True" in t.stdout


def test_04_times_each_way_with_torch_utils_benchmark(traces):
    t = traces["04_matmul_three_ways"].trace
    timed = [l for l in t.stdout.splitlines() if l.endswith(" us")]
    assert [l.split()[0] for l in timed] == ["A", "multiply-sum", "einsum"]
    assert all(float(l.split()[-2]) > 0 for l in timed)
    assert {"MmBackward0"} <= ops(t, 0) and "BmmBackward0" in ops(t, 2)


def test_checkpoint_targets_find_the_region_and_its_recompute_step(traces):
    """{"checkpoint": N} is Trace.checkpoints[N - 1]'s region; with "recompute" the
    step its first re-run happened in; a checkpoint with no captured graph (32's
    third call raised) or no such number finds nothing."""
    t = traces["32_reentrant_vs_non_reentrant"].trace
    reentrant, plain, failed = t.checkpoints
    where = locate(t, {"checkpoint": 1})
    assert (where.checkpoint, where.graph, where.node, where.step) == ("c1", reentrant.graph, reentrant.nodes[0], None)
    assert t.graph(where.graph).nodes and t.backward_runs[where.run].graph == reentrant.graph
    rec = plain.recomputations[0]
    where = locate(t, {"checkpoint": 2, "recompute": True})
    assert where.recompute and (where.run, where.step, where.node) == (rec.run, rec.step, rec.trigger)
    assert t.backward_runs[rec.run].steps[rec.step].node == rec.trigger  # the trigger runs next
    assert failed.error and locate(t, {"checkpoint": 3}) is None
    assert locate(t, {"checkpoint": 3, "recompute": True}) is None
    for bad in (0, 4, True, "1"):
        assert locate(t, {"checkpoint": bad}) is None, bad


def test_19_compiled_backward_is_one_node_stepped_like_any(traces):
    t = traces["19_torch_compile_backward"].trace
    assert "same gradients: True" in t.stdout and not t.stderr  # (no Dynamo warnings of ours)
    eager, compiled = ([n.op for n in nodes(t, i)] for i in (0, 1))
    assert "AddmmBackward0" in eager and "CompiledFunctionBackward" not in eager
    assert compiled.count("CompiledFunctionBackward") == 1 and "AddmmBackward0" not in compiled
    node = next(n for n in nodes(t, 1) if n.op == "CompiledFunctionBackward")
    assert node.code == "loss_c = compiled(x).pow(2).mean()"
    assert node.id in [s.node for s in t.backward_runs[1].steps]
