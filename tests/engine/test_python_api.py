"""`autogradviz.record()` (engine/api/recording.py): the worker's recording in the learner's own process.

The same code is recorded twice - by the real worker (a script) and by a
`with autogradviz.record()` block in this process - and the two traces must
agree: the same graphs (ops, labels, module paths, lines, edges), the same
backward steps in the same order, the same events (hooks, retain_grad), the
GradScaler calls and checkpoint regions, the same leaf gradients. Both files
have the same code on the same lines (line 1 differs: `if True:` for the
worker, the `with` for the block), so the recorded lines can be compared too.
And the probes are gone after the block, also when it raised.
"""

from __future__ import annotations

import runpy
import textwrap

import pytest
import torch
import torch.utils.checkpoint
from torch.autograd.function import _HookMixin
from torch.nn.modules import module as nn_module

import autogradviz
from autogradviz.engine.trace import codec

BODY = textwrap.indent(textwrap.dedent("""\
    import torch
    from torch.utils.checkpoint import checkpoint
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    x = torch.randn(5, 3)
    h = checkpoint(model[0], x, use_reentrant=False)
    h.retain_grad()
    h.register_hook(lambda g: g * 2)
    out = model[2](model[1](h))
    loss = out.pow(2).mean()
    scaler = torch.amp.GradScaler("cpu", init_scale=4.0)
    scaler.scale(loss).backward()
    left = (out * 3).sum()
    """), "    ")


def _graph(g):
    return (g.origin, [(n.id, n.op, n.kind, n.label, n.module, n.line, n.code) for n in g.nodes],
            sorted((e.src, e.dst, e.slot, e.input_nr) for e in g.edges), g.roots)


def _grads(run):
    return {k: (s.shape, s.values) for k, s in run.leaf_grads.items()}


def test_the_block_records_what_the_worker_records(worker, tmp_path):
    script = tmp_path / "agree_worker.py"
    script.write_text("if True:  # (the record() block's lines, on the same lines)\n" + BODY)
    outcome = worker.run(script.read_text(), filename=str(script))
    theirs = outcome.trace
    assert outcome.status == "ok" and theirs.error is None, theirs.error

    block = tmp_path / "agree_block.py"
    block.write_text("with __import__('autogradviz').record() as run:\n" + BODY)
    ns = runpy.run_path(str(block), run_name="agree")
    ours = ns["run"].trace
    assert ours.error is None, ours.error

    assert [g.origin for g in ours.graphs] == ["backward", "namespace"]
    assert [_graph(g) for g in ours.graphs] == [_graph(g) for g in theirs.graphs]
    assert len(ours.backward_runs) == len(theirs.backward_runs) == 1
    a, b = ours.backward_runs[0], theirs.backward_runs[0]
    assert [s.node for s in a.steps] == [s.node for s in b.steps] and len(a.steps) > 5
    assert [(e.kind, e.node, e.step) for e in a.events] == [(e.kind, e.node, e.step) for e in b.events]
    assert {e.kind for e in a.events} >= {"tensor_hook", "retain_grad"}
    assert _grads(a) == _grads(b) and len(_grads(a)) == 4
    # the leaf gradients are torch's own
    assert a.leaf_grads[next(n.id for n in ours.graphs[0].nodes if n.label == "model.0.bias")].values \
        == pytest.approx(ns["model"][0].bias.grad.tolist())
    assert len(ours.scaler_events) == len(theirs.scaler_events) >= 1
    assert len(ours.checkpoints) == len(theirs.checkpoints) == 1
    assert ours.note_codes and [n.code for n in ours.note_codes] == [n.code for n in theirs.note_codes]
    # the documented trace: it round-trips through the file format
    assert codec.decode_trace(codec.encode_trace(ours)).backward_runs[0].steps[0].node == a.steps[0].node


def _torch_state():
    """Every attribute of what the probes patch, by identity, the global
    module hooks and the mode stacks."""
    owners = [torch.Tensor, torch.autograd, torch.autograd.graph.saved_tensors_hooks, _HookMixin,
              torch.utils.checkpoint, torch.autograd.Function, torch.amp.GradScaler]
    attrs = {(repr(o), k): id(v) for o in owners for k, v in list(vars(o).items())}
    hooks = (tuple(nn_module._global_forward_pre_hooks), tuple(nn_module._global_forward_hooks),
             tuple(nn_module._global_forward_hooks_always_called),
             tuple(nn_module._global_backward_hooks), tuple(nn_module._global_backward_pre_hooks))
    modes = (len(torch.overrides._get_current_function_mode_stack()), torch._C._len_torch_dispatch_stack())
    return attrs, hooks, modes


def test_the_probes_are_removed_after_an_exception_inside_the_block():
    before = _torch_state()
    x = torch.tensor([1.0, -2.0], requires_grad=True)
    with pytest.raises(ZeroDivisionError):
        with autogradviz.record() as run:
            inside = _torch_state()
            (x * x).sum().backward()
            1 / 0
    assert inside != before  # (recording was on)
    assert _torch_state() == before
    trace = run.trace
    assert trace.error is not None and trace.error.type == "ZeroDivisionError"
    assert trace.error.line is not None
    assert len(trace.backward_runs) == 1 and trace.backward_runs[0].steps
    assert x.grad.tolist() == [2.0, -4.0]
    # a block that ran to its end removes them too; a second block records again
    with autogradviz.record() as again:
        (x * 3).sum().backward()
    assert _torch_state() == before
    assert [s.node for s in again.trace.backward_runs[0].steps]


def test_save_writes_the_trace_file_the_app_opens(tmp_path):
    from autogradviz.app.cli.first_argument import trace_file_problem

    w = torch.tensor([0.5, 1.5], requires_grad=True)
    with autogradviz.record() as run:
        (w.exp() * 2).sum().backward()
    path = run.save(tmp_path / "run.json")
    assert trace_file_problem(path) is None
    loaded = codec.decode_trace((tmp_path / "run.json").read_bytes())
    assert [s.node for s in loaded.backward_runs[0].steps] == [s.node for s in run.trace.backward_runs[0].steps]
    assert loaded.graphs[0].nodes[0].line is not None  # the lines of this file
    from autogradviz.engine.api.recording import open_command
    assert open_command(path)[1:] == ["-m", "autogradviz", path]
