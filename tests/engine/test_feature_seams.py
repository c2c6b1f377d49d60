"""Features built apart, run together through the real worker.

- A spawned child's checkpoint calls, memory timeline and layer table reach
  the parent's trace, every id in them prefixed like the child's graphs
  (engine/worker/child_main.py installs the probes before the script's own
  `from torch.utils.checkpoint import checkpoint` runs; engine/trace/merge.py).
- An infinite gradient inside a reentrant checkpoint's nested backward is
  written and read back by the codec (it made the whole trace unreadable).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from autogradviz.engine.trace import codec

SPAWN_SCRIPT = Path(__file__).resolve().parents[1] / "data" / "spawn_checkpoint_child.py"

INF_SCRIPT = """\
import threading
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

def inner(x):
    return torch.sqrt(x) * 2

torch.manual_seed(0)
lin = nn.Linear(2, 2)
x = torch.tensor([[0.0, 1.0], [4.0, 0.0]], requires_grad=True)

def go():
    y = checkpoint(inner, x, use_reentrant=True)
    lin(y).sum().backward()

t = threading.Thread(target=go)
t.start()
t.join()
"""


def printed(text: str) -> dict:
    return {line.split(" ", 1)[0]: ast.literal_eval(line.split(" ", 1)[1])
            for line in text.splitlines() if line.startswith(("x.grad", "w.grad"))}


@pytest.fixture(scope="module")
def spawned(worker):
    plain = subprocess.Popen([sys.executable, str(SPAWN_SCRIPT)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, cwd=str(SPAWN_SCRIPT.parent))
    outcome = worker.run(SPAWN_SCRIPT.read_text(), filename=str(SPAWN_SCRIPT), timeout=240)
    out, err = plain.communicate(timeout=240)
    assert plain.returncode == 0, err
    return outcome.trace, out


def test_spawned_child_prints_what_python_prints(spawned):
    trace, plain_out = spawned
    assert trace.error is None, trace.error
    assert printed(trace.stdout) == printed(plain_out) and len(printed(plain_out)) == 2


def test_spawned_childs_checkpoint_memory_and_modules_merged_with_prefixed_ids(spawned):
    trace, _ = spawned
    graphs = {g.id for g in trace.graphs}
    nodes = {n.id for g in trace.graphs for n in g.nodes}
    (run,) = trace.backward_runs
    prefix = run.graph.split(".")[0] + "."
    assert prefix.startswith("p") and all(g.startswith(prefix) for g in graphs)
    (cp,) = trace.checkpoints
    assert cp.id.startswith(prefix) and cp.kind == "reentrant" and cp.graph in graphs
    assert cp.nodes and set(cp.nodes) <= nodes
    (rec,) = cp.recomputations
    assert rec.run == 0 and rec.trigger in nodes and rec.graph in graphs
    assert rec.steps and {s.node for s in rec.steps} <= {n.id for n in trace.graph(rec.graph).nodes}
    assert len(rec.masks) == len(cp.masks) == 1 and rec.masks[0].digest == cp.masks[0].digest
    assert {m.path for m in trace.modules} == {"net", "net.0", "net.1", "net.2", "head"}
    mem = trace.memory
    assert mem is not None and [m.run for m in mem.runs] == [0] and mem.runs[0].graph == run.graph
    assert all(p.node is None or p.node in nodes for p in mem.runs[0].points)
    assert [s.checkpoint for s in mem.segments] == [cp.id]
    data = codec.encode_trace(trace)
    assert codec.encode_trace(codec.decode_trace(data)) == data


def test_infinite_gradient_in_reentrant_rerun_saved_and_loaded(worker):
    outcome = worker.run(INF_SCRIPT, filename="<editor>", timeout=120)
    trace = outcome.trace
    assert trace.error is None, trace.error
    # torch's own gradient, independently
    torch.manual_seed(0)
    lin = torch.nn.Linear(2, 2)
    x = torch.tensor([[0.0, 1.0], [4.0, 0.0]], requires_grad=True)
    lin(torch.sqrt(x) * 2).sum().backward()
    (run,) = trace.backward_runs
    assert run.thread != "MainThread"
    got = sorted(str(g.values) for g in run.leaf_grads.values())
    assert got == sorted(str(t.grad.flatten().tolist()) for t in (x, lin.weight, lin.bias))
    (cp,) = trace.checkpoints
    (rec,) = cp.recomputations
    ops = {n.id: n.op for n in trace.graph(rec.graph).nodes}
    sqrt_step = next(s for s in rec.steps if ops[s.node] == "SqrtBackward0")
    data = codec.encode_trace(trace)
    back = codec.decode_trace(data)
    assert codec.encode_trace(back) == data
    (cp2,) = back.checkpoints
    step2 = cp2.recomputations[0].steps[rec.steps.index(sqrt_step)]
    assert step2.grad_inputs[0].min == float("-inf") == sqrt_step.grad_inputs[0].min
    assert step2.grad_inputs[0].values == sqrt_step.grad_inputs[0].values
    assert back.memory is not None and back.modules and "SqrtBackward0" in back.torch_formulas


RERUN_SCRIPTS = {
    # `device` is predefined by the app, as in every run
    "device": ("import torch\nw = torch.tensor([1.0, 2.0], requires_grad=True, device=device)\n"
               "(w * w).sum().backward()\n", 1.0),
    # a class of the script pickled: needs the real __main__ module
    "pickle": ("import pickle, torch\nclass Box:\n    pass\nb = Box()\nb.k = 2.0\n"
               "b2 = pickle.loads(pickle.dumps(b))\n"
               "if __name__ == '__main__':\n    w = torch.tensor([1.0, 2.0], requires_grad=True)\n"
               "    (w * w * b2.k).sum().backward()\n", 2.0),
    # input(): the re-run reads what the learner typed in the run
    "input": ("import torch\nk = float(input('k? '))\nw = torch.tensor([1.0, 2.0], requires_grad=True)\n"
              "(w * w * k).sum().backward()\n", 3.0),
}


@pytest.mark.parametrize("name", sorted(RERUN_SCRIPTS))
def test_finite_difference_rerun_runs_the_script_as_the_run_did(worker, name):
    source, k = RERUN_SCRIPTS[name]
    out = worker.run(source, filename="<editor>", timeout=60, on_input=lambda prompt: "3")
    assert out.trace.error is None, out.trace.error
    reply = worker.check_gradient("w", run=0, timeout=60)
    assert reply.get("error") is None, reply.get("message")
    w = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    (w * w * k).sum().backward()
    assert reply["fd"] == pytest.approx(w.grad.tolist(), rel=1e-6)
    (grad,) = [g.values for key, g in out.trace.backward_runs[0].leaf_grads.items()]
    assert grad == pytest.approx(reply["fd"], rel=1e-5)


THREAD_LINES = """\
import threading
import torch
a = torch.ones(3, requires_grad=True)
b = (a * 2).sin().cos().exp()
b.sum().backward()

def go():
    x = torch.ones(3, requires_grad=True)
    y = x.tanh()
    z = y * 3
    z.sum().backward()

t = threading.Thread(target=go)
t.start()
t.join()
"""


def test_nodes_made_in_a_thread_get_their_own_lines():
    """Sequence numbers count per thread: the thread's nodes must not take
    the main thread's lines (they did: all of them line 4, the leaf none)."""
    from autogradviz.engine.worker.runner import run_script

    trace = run_script(THREAD_LINES, filename="/virtual/thread_lines.py").trace
    assert trace.error is None, trace.error
    src = THREAD_LINES.splitlines()

    def line(text):
        return next(i for i, t in enumerate(src, start=1) if t.strip() == text)

    main, thread = trace.backward_runs
    assert main.thread == "MainThread" and thread.thread != "MainThread"
    ops = {n.op: n.line for n in trace.graph(thread.graph).nodes}
    assert ops == {"SumBackward0": line("z.sum().backward()"), "MulBackward0": line("z = y * 3"),
                   "TanhBackward0": line("y = x.tanh()"),
                   "AccumulateGrad": line("x = torch.ones(3, requires_grad=True)")}
    ops = {n.op: n.line for n in trace.graph(main.graph).nodes}
    assert ops["ExpBackward0"] == line("b = (a * 2).sin().cos().exp()")
    assert ops["AccumulateGrad"] == line("a = torch.ones(3, requires_grad=True)")


FUNCTION_LINES = """\
import torch
from torch.utils.checkpoint import checkpoint

class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x * g

x = torch.ones(3, requires_grad=True)
y = Square.apply(x)
h = checkpoint(torch.sin, y, use_reentrant=True)
h.sum().backward()
"""


def test_custom_function_and_reentrant_checkpoint_nodes_get_their_lines():
    from autogradviz.engine.worker.runner import run_script

    trace = run_script(FUNCTION_LINES, filename="/virtual/function_lines.py").trace
    assert trace.error is None, trace.error
    src = FUNCTION_LINES.splitlines()
    (run,) = trace.backward_runs
    ops = {n.op: n.line for n in trace.graph(run.graph).nodes}
    assert ops == {"SumBackward0": src.index("h.sum().backward()") + 1,
                   "CheckpointFunctionBackward": src.index("h = checkpoint(torch.sin, y, use_reentrant=True)") + 1,
                   "SquareBackward": src.index("y = Square.apply(x)") + 1,
                   "AccumulateGrad": src.index("x = torch.ones(3, requires_grad=True)") + 1}
    (cp,) = trace.checkpoints
    assert cp.line == ops["CheckpointFunctionBackward"]


EVERYTHING = Path(__file__).resolve().parents[1] / "data" / "everything_together.py"


def test_recording_everything_changes_nothing_the_script_prints(worker):
    """Checkpoints of both kinds with Dropout, a custom Function, a module
    hook and a thread, recorded with every probe: the same prints (gradients,
    random numbers drawn after) as plain python."""
    plain = subprocess.run([sys.executable, str(EVERYTHING)], capture_output=True, text=True, timeout=120,
                           cwd=str(EVERYTHING.parent))
    assert plain.returncode == 0, plain.stderr
    out = worker.run(EVERYTHING.read_text(), filename=str(EVERYTHING), timeout=120)
    trace = out.trace
    assert trace.error is None, trace.error
    assert trace.stdout == plain.stdout and "thread x.grad" in plain.stdout
    assert len(trace.backward_runs) == 2 and len(trace.checkpoints) == 4
    # the thread's checkpoints are in the thread's graph (sequence numbers count per thread)
    main, thread = trace.backward_runs
    assert [cp.graph for cp in trace.checkpoints] == [main.graph] * 2 + [thread.graph] * 2
    for cp in trace.checkpoints:
        ops = {n.id: n.op for n in trace.graph(cp.graph).nodes}
        want = ["CheckpointFunctionBackward"] if cp.kind == "reentrant" else \
            ["MulBackward0", "TanhBackward0", "AddmmBackward0", "TBackward0"]
        assert sorted(ops[n] for n in cp.nodes) == sorted(want)
    # and each run's memory timeline holds only its own thread's checkpoint frames
    mine = {main.index: {"c1", "c2"}, thread.index: {"c3", "c4"}}
    assert len(trace.memory.runs) == 2
    for m in trace.memory.runs:
        assert {p.checkpoint for p in m.points if p.checkpoint} == mine[m.run]
    assert all(n.line is not None for g in trace.graphs if g.origin != "recompute"
               for n in g.nodes if n.kind != "leaf")


def test_run_without_checkpoint_prints_the_same_and_keeps_lines(worker):
    plain = subprocess.run([sys.executable, str(EVERYTHING)], capture_output=True, text=True, timeout=120,
                           cwd=str(EVERYTHING.parent))
    out = worker.run(EVERYTHING.read_text(), filename=str(EVERYTHING), timeout=120, no_checkpoint=True)
    trace = out.trace
    assert trace.error is None, trace.error
    assert trace.stdout == plain.stdout
    assert trace.memory is not None and trace.memory.checkpoints_direct
    src = EVERYTHING.read_text().splitlines()
    for run in trace.backward_runs:
        ops = {n.op: n.line for n in trace.graph(run.graph).nodes}
        assert ops["SquareBackward"] == src.index("    h = checkpoint(block, Square.apply(x), use_reentrant=True)") + 1
        assert "CheckpointFunctionBackward" not in ops
        assert all(line is not None for op, line in ops.items() if op != "AccumulateGrad")


THREADS_MEMORY = """\
import threading
import torch
w = torch.randn(50, 50, requires_grad=True)

def go(k):
    for _ in range(3):
        h = torch.randn(8, 50)
        for _ in range(5):
            h = torch.tanh(h @ w)
        h.sum().backward()

ts = [threading.Thread(target=go, args=(k,)) for k in range(3)]
for t in ts:
    t.start()
for t in ts:
    t.join()
"""


def test_memory_timelines_of_threads_belong_to_their_own_runs(worker):
    """Three threads calling backward at once: each memory timeline names
    its own run (they took the index of whichever run was last when the
    call began, so some runs had two timelines and others none)."""
    trace = worker.run(THREADS_MEMORY, filename="<editor>", timeout=120).trace
    assert trace.error is None, trace.error
    assert len(trace.backward_runs) == 9
    assert sorted(m.run for m in trace.memory.runs) == list(range(9))
    # what torch saved for one iteration's backward (not the leaf w), independently
    storages = {}
    w = torch.randn(50, 50, requires_grad=True)

    def pack(t):
        if t is not w:
            storages[t.untyped_storage().data_ptr()] = t.untyped_storage().nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        h = torch.randn(8, 50)
        for _ in range(5):
            h = torch.tanh(h @ w)
    for m in trace.memory.runs:
        run = trace.backward_runs[m.run]
        nodes = {n.id for n in trace.graph(run.graph).nodes}
        assert m.graph == run.graph and all(p.node is None or p.node in nodes for p in m.points)
        assert m.peak == sum(storages.values())
