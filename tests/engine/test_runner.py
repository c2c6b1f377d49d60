"""run_script: output, errors with explanations, cleanup, namespace graphs, fetch."""

from __future__ import annotations

import sys

import pytest
import torch
from torch.nn.modules import module as nn_module

from autogradviz.engine.worker.runner import run_script
from autogradviz.engine.trace.model import MAX_RECORDED_RUNS, Trace

FILENAME = "/virtual/lesson.py"


def run(src, **kw):
    return run_script(src, filename=FILENAME, **kw)


def test_prints_arrive_as_they_happen_and_in_trace():
    got = []
    r = run("print('a', 1)\nimport sys\nprint('oops', file=sys.stderr)\nprint(device)\n",
            on_output=lambda s, t: got.append((s, t)))
    assert r.trace.error is None
    assert r.trace.stdout == "a 1\ncpu\n"
    assert r.trace.stderr == "oops\n"
    assert ("stderr", "oops") in got
    assert "".join(t for s, t in got if s == "stdout") == "a 1\ncpu\n"
    assert sys.stdout is sys.__stdout__ or not hasattr(sys.stdout, "_sink")


def test_output_callback_that_prints_does_not_loop():
    r = run("print('x')\n", on_output=lambda s, t: print("cb", t))
    assert r.trace.error is None


def test_fresh_main_namespace():
    r = run("import torch\nassert __name__ == '__main__'\nleft = 1\n")
    assert r.trace.error is None
    r2 = run("print('left' in globals())\n")
    assert r2.trace.stdout == "False\n"


def test_syntax_error_has_line():
    r = run("x = 1\ny = (2 +\n")
    e = r.trace.error
    assert e.type == "SyntaxError"
    assert e.line == 2
    assert e.explanation


def test_exception_line_and_traceback_point_at_user_file():
    r = run("import torch\n\ndef f(t):\n    return t @ t\n\nf(torch.randn(2, 3))\n")
    e = r.trace.error
    assert e.type == "RuntimeError"
    assert e.line == 4
    assert FILENAME in e.traceback and "return t @ t" in e.traceback
    assert "runner.py" not in e.traceback


def test_system_exit():
    assert run("import sys\nprint(1)\nsys.exit(0)\nprint(2)\n").trace.error is None
    e = run("import sys\nsys.exit(3)\n").trace.error
    assert e.type == "SystemExit" and e.line == 2


def test_keyboard_interrupt_is_an_error_not_a_crash():
    e = run("raise KeyboardInterrupt\n").trace.error
    assert e.type == "KeyboardInterrupt"


def _hooks_state():
    return (torch.Tensor.backward, torch.autograd.backward, torch.autograd.grad,
            torch.Tensor.register_hook, "retain_grad" in torch.Tensor.__dict__,
            len(nn_module._global_forward_pre_hooks), len(nn_module._global_forward_hooks),
            torch.autograd.function._HookMixin.__dict__["_register_hook"])


def test_everything_installed_is_removed_even_after_errors():
    before = _hooks_state()
    run("import torch\nx = torch.ones(2, requires_grad=True)\n(x*2).sum().backward()\nraise ValueError('x')\n")
    run("import torch.nn as nn\nm = nn.Linear(2, 2)\nm(torch.ones(3))\n")
    assert _hooks_state() == before


def test_no_node_hook_survives_into_a_later_backward():
    r = run("""
import torch
w = torch.ones(3, requires_grad=True)
(w * 2).sum().backward()
""")
    w = r.namespace["w"]
    steps_before = len(r.trace.backward_runs[0].steps)
    # a new backward outside the recorder: only the plain engine runs
    (w * 3).sum().backward()
    assert torch.equal(w.grad, torch.full((3,), 5.0))
    assert len(r.trace.backward_runs) == 1 and r.trace.backward_calls == 1
    assert len(r.trace.backward_runs[0].steps) == steps_before


def test_namespace_graph_for_tensors_left_alive_and_dedupe():
    r = run("""
import torch
a = torch.ones(2, requires_grad=True)
b = (a * 2).sum()
b.backward(retain_graph=True)
c = (a.exp() + 1)
d = [c * 2, c.sin()]
""")
    tr = r.trace
    assert tr.error is None
    origins = [g.origin for g in tr.graphs]
    assert origins == ["backward", "namespace"]
    ns_graph = tr.graphs[1]
    labels = {n.label for n in ns_graph.nodes}
    assert {"c", "d[0]", "d[1]", "a"} <= labels
    assert "b" not in labels  # b's graph was captured at backward: not repeated
    assert len(ns_graph.roots) == 3


def test_trace_json_round_trip():
    r = run("import torch\nx = torch.randn(100, requires_grad=True)\n(x.exp()).sum().backward()\n")
    text = r.trace.to_json()
    back = Trace.from_json(text)
    assert back.backward_runs[0].steps[0].node == r.trace.backward_runs[0].steps[0].node
    assert len(back.graphs[0].nodes) == len(r.trace.graphs[0].nodes)


def test_fetch_full_values_of_large_tensor():
    r = run("import torch\nx = torch.arange(200.0, requires_grad=True)\n(x * x).sum().backward()\n")
    run0 = r.trace.backward_runs[0]
    leaf = next(n for n in r.trace.graph(run0.graph).nodes if n.label == "x")
    s = run0.leaf_grads[leaf.id]
    assert s.truncated and len(s.values) == 64 and s.id is not None
    full = r.fetch(s.id)
    assert not full.truncated and full.values == (2 * torch.arange(200.0)).tolist()
    assert s.max == 398.0 and s.min == 0.0
    assert r.fetch("nope") is None


def test_runs_past_the_limit_are_counted():
    n = MAX_RECORDED_RUNS + 5
    r = run(f"import torch\nw = torch.ones(2, requires_grad=True)\nfor i in range({n}):\n"
            "    (w * i).sum().backward()\nprint(w.grad.tolist())\n")
    tr = r.trace
    assert tr.backward_calls == n
    assert len(tr.backward_runs) == MAX_RECORDED_RUNS
    assert tr.runs_truncated
    expected = float(sum(range(n)))
    assert tr.stdout == f"{[expected, expected]}\n"


def test_module_paths_for_nested_modules():
    r = run("""
import torch
import torch.nn as nn
class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear1 = nn.Linear(4, 4)
    def forward(self, x):
        return torch.relu(self.linear1(x)) * 2
class Enc(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([Block(), Block()])
    def forward(self, x):
        for l in self.layers:
            x = l(x)
        return x.sum()
encoder = Enc()
out = encoder(torch.randn(2, 4))
out.backward()
""")
    g = r.trace.graphs[0]
    mods = {(n.op, n.module) for n in g.nodes}
    # paths start at the script's variable; dotted prefixes are the enclosing modules
    assert ("AddmmBackward0", "encoder.layers.0.linear1") in mods
    assert ("AddmmBackward0", "encoder.layers.1.linear1") in mods
    assert ("ReluBackward0", "encoder.layers.0") in mods
    assert ("SumBackward0", "encoder") in mods
    cls = {n.module: n.module_class for n in g.nodes if n.module}
    assert cls["encoder.layers.1.linear1"] == "Linear" and cls["encoder.layers.0"] == "Block"
    assert cls["encoder"] == "Enc"
    enc = r.namespace["encoder"]
    expected = {"encoder." + k for k, _ in enc.named_parameters()}
    leaves = {n.label: n for n in g.nodes if n.kind == "leaf"}
    assert set(leaves) == expected
    for label, n in leaves.items():  # a parameter's module: its owner's path
        assert n.module == label.rsplit(".", 1)[0]
    paths = {"encoder" + ("." + k if k else "") for k, _ in enc.named_modules()}
    assert {n.module for n in g.nodes if n.module} <= paths
    # one call number per module call, shared by the nodes made in it
    calls = {}
    for n in g.nodes:
        if n.kind == "op":
            calls.setdefault(n.module, set()).add(n.module_call)
    assert len(calls["encoder.layers.0"]) == 1 and len(calls["encoder.layers.0.linear1"]) == 1
    assert calls["encoder.layers.0"] != calls["encoder.layers.1"] and None not in calls["encoder"]


def test_labels_from_callers_frame():
    r = run("""
import torch
def train():
    local_w = torch.ones(3, requires_grad=True)
    hidden = local_w * 2
    (hidden.sum()).backward()
train()
""")
    labels = {n.label for n in r.trace.graphs[0].nodes}
    assert {"local_w", "hidden"} <= labels
    assert r.trace.backward_runs[0].line == 6


def test_nonleaf_grad_warning_is_explained():
    r = run("import torch\nx = torch.ones(2, requires_grad=True)\ny = x * 2\n"
            "y.sum().backward()\nprint(y.grad)\n")
    assert r.trace.error is None
    assert r.trace.stdout == "None\n"
    assert "not a leaf" in r.trace.stderr
    assert any("retain_grad" in n and "line 5" in n for n in r.trace.notes)
    k = next(i for i, n in enumerate(r.trace.notes) if "retain_grad" in n)
    assert r.trace.note_codes[k].code == "nonleaf_grad_read"
    assert r.trace.note_codes[k].params == {"line": 5}


def test_unavailable_cuda_is_a_clear_error():
    if torch.cuda.is_available():
        pytest.skip("CUDA present")
    e = run("print(1)\n", device="cuda").trace.error
    assert e.type == "CUDAUnavailable"


def test_saved_values_are_read():
    r = run("import torch\nx = torch.randn(3, 4, requires_grad=True)\ny = x.sum(dim=1)\nz = y.exp()\n"
            "z.sum().backward()\n")
    g = r.trace.graphs[0]
    exp = next(n for n in g.nodes if n.op == "ExpBackward0")
    (sv,) = exp.saved
    assert sv.name == "result" and sv.tensor.shape == [3]
    ns_z = r.namespace["z"]
    assert sv.tensor.values == pytest.approx(ns_z.tolist())
    s = next(n for n in g.nodes if n.op == "SumBackward1")
    vals = {v.name: v.value for v in s.saved}
    assert vals["dim"] == [1] and vals["self_sym_sizes"] == [3, 4]


def test_recorder_hooks_are_gone_after_the_run():
    import gc
    import types
    from autogradviz.engine.worker import recorder

    r = run("""
import torch
w = torch.ones(3, requires_grad=True)
for i in range(3):
    (w * i).sum().backward()
keep = (w * 2)
keep.sum().backward(retain_graph=True)
""")
    assert len(r.trace.backward_runs) == 4
    gc.collect()
    # our per-node hook (one function per recorded call) is gone, and so is
    # its entry in every node's hook dict
    ours = [o for o in gc.get_objects()
            if type(o) is types.FunctionType and o.__dict__.get("_agv_own")]
    assert ours == []
    # (node hook dicts are plain dicts, OrderedDicts when torch made them; the
    # dict's own lookup: a subclass such as traitlets' Config, loaded by another
    # test, refuses an int key in its __contains__; issubclass(type(o)), not
    # isinstance: that reads `o.__class__`, which a deprecated torch alias
    # answers with a FutureWarning)
    assert not [o for o in gc.get_objects()
                if issubclass(type(o), dict) and dict.__contains__(o, recorder._OWN_KEY)]
    # and the kept graph still runs as plain torch
    r.namespace["keep"].sum().backward()
    assert r.namespace["w"].grad.tolist() == [7.0, 7.0, 7.0]


def test_global_torch_switches_do_not_leak_into_the_next_run():
    r = run("import torch\ntorch.set_grad_enabled(False)\ntorch.set_default_dtype(torch.float64)\n")
    assert r.trace.error is None
    assert torch.is_grad_enabled() and torch.get_default_dtype() == torch.float32
    r2 = run("import torch\nprint(torch.ones(1).dtype, torch.is_grad_enabled())\n")
    assert r2.trace.stdout == "torch.float32 True\n"


def test_empty_script_and_megabytes_of_output():
    r = run("")
    assert r.trace.error is None and r.trace.graphs == [] and r.trace.backward_runs == []
    from autogradviz.engine.worker.runner import MAX_CAPTURED_OUTPUT

    got = []
    r = run("for i in range(30000):\n    print('x' * 99)\n", on_output=lambda s, t: got.append(len(t)))
    assert sum(got) == 30000 * 100  # everything streamed
    assert len(r.trace.stdout) == MAX_CAPTURED_OUTPUT  # the trace keeps the head
    assert any("stdout truncated" in n for n in r.trace.notes)
    k = next(i for i, n in enumerate(r.trace.notes) if "stdout truncated" in n)
    assert r.trace.note_codes[k].code == "output_truncated"
    assert r.trace.note_codes[k].params == {"stream": "stdout", "kept": MAX_CAPTURED_OUTPUT,
                                            "total": 30000 * 100}


def test_runs_past_the_limit_from_threads_are_each_counted_once():
    """Past the limit a call is only counted, without the recorder's turn
    (Recorder._counted): four threads' 300 calls after the limit still add
    up exactly, and the gradient is python's."""
    n_threads, each = 4, 75
    r = run("import threading, torch\nw = torch.ones(2, requires_grad=True)\n"
            "for i in range(3):\n    (w * 1.0).sum().backward()\n"
            f"def work():\n    for i in range({each}):\n        (w * 1.0).sum().backward()\n"
            f"ts = [threading.Thread(target=work) for _ in range({n_threads})]\n"
            "[t.start() for t in ts]\n[t.join() for t in ts]\nprint(w.grad.tolist())\n", max_runs=3)
    tr = r.trace
    assert tr.error is None, tr.error
    assert tr.backward_calls == 3 + n_threads * each
    assert len(tr.backward_runs) == 3 and tr.runs_truncated
    assert tr.stdout.strip() == str([float(3 + n_threads * each)] * 2)


def test_notes_carry_codes_and_params():
    r = run("import torch\nx = torch.ones(2, requires_grad=True)\nfor i in range(3):\n"
            "    (x * i).sum().backward()\n", max_runs=2)
    tr = r.trace
    assert tr.backward_calls == 3 and len(tr.backward_runs) == 2
    assert len(tr.notes) == len(tr.note_codes)
    k = next(i for i, n in enumerate(tr.note_codes) if n.code == "runs_truncated")
    assert tr.note_codes[k].params == {"calls": 3, "recorded": 2}
    assert tr.notes[k] == "3 backward/grad calls; only the first 2 were recorded in full."
    assert [n.code for n in tr.note_codes] == ["runs_truncated"]
