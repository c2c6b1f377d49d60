"""The recorder is invisible to the script (issue 21): warnings, argv, the
script's own modes and Tensor subclasses, and torch.compile behave as under
`python script.py`.

Each test runs the same script twice: in a plain `python` subprocess (what
to expect, obtained here) and in a real worker (WorkerClient), from a file
on disk in a folder of its own, as the app runs a saved script (in its
folder: `cd folder && python script.py`).
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest


def _script(tmp_path, source: str, name: str = "script.py") -> str:
    folder = tmp_path / "sub"
    folder.mkdir(exist_ok=True)
    path = folder / name
    path.write_text(source, encoding="utf-8")
    return str(path)


def plain_python(path: str, timeout: float = 300) -> subprocess.CompletedProcess:
    """`cd folder && python script.py`."""
    return subprocess.run([sys.executable, os.path.basename(path)], capture_output=True, text=True,
                          cwd=os.path.dirname(path), timeout=timeout)


def traced(worker, path: str, timeout: float = 300):
    with open(path, encoding="utf-8") as f:
        source = f.read()
    out = worker.run(source, filename=path, timeout=timeout)
    assert out.status == "ok", out.message
    return out.trace


def step_ops(trace, run) -> list:
    ops = {n.id: n.op for g in trace.graphs if g.id == run.graph for n in g.nodes}
    return [ops[s.node] for s in run.steps]


WARNINGS = '''\
import os, sys, warnings
import torch
import torch.nn.functional as F
print(sys.argv[0], os.path.basename(os.getcwd()))
with open(os.path.join(os.path.dirname(sys.argv[0]), "data.txt")) as f:
    print(f.read())
x = torch.ones(3, requires_grad=True)
a = torch.tensor(x)
b = torch.tensor(x)
for i in range(3):
    c = torch.tensor(x)
s = F.softmax(x)
def helper():
    warnings.warn("from the script")
helper()
helper()
(a.sum() + s.sum() + x.sum()).backward()
print(x.grad)
'''


def test_warnings_name_the_scripts_lines_and_argv_is_the_file_name(worker, tmp_path):
    path = _script(tmp_path, WARNINGS)
    (tmp_path / "sub" / "data.txt").write_text("the data", encoding="utf-8")
    expected = plain_python(path)
    assert expected.returncode == 0, expected.stderr
    assert "script.py:9: UserWarning: To copy construct" in expected.stderr  # (a second line: shown again)
    trace = traced(worker, path)
    assert trace.stdout == expected.stdout
    assert trace.stderr == expected.stderr
    assert "source_lines" not in trace.stderr


MODES = '''\
import sys, torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.overrides import TorchFunctionMode

class LogDispatch(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        print("dispatch", func)
        return func(*args, **(kwargs or {}))

class LogFunction(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        print("function", getattr(func, "__name__", func))
        return func(*args, **(kwargs or {}))

class Logging(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        print("called", getattr(func, "__name__", func))
        return super().__torch_function__(func, types, args, kwargs or {})

x = torch.ones(3, requires_grad=True)
w = torch.full((3,), 2.0, requires_grad=True)
loss = (x * w).sum()
with LogDispatch(), LogFunction():
    loss.backward()
print(x.grad, w.grad)
print("refcount", sys.getrefcount(x))

z = torch.ones(3).as_subclass(Logging).requires_grad_()
y = (z * 3).sum()
y.backward()
print(z.grad)
'''


def test_the_scripts_modes_and_subclass_see_no_recorder_reads(worker, tmp_path):
    path = _script(tmp_path, MODES)
    expected = plain_python(path)
    assert expected.returncode == 0, expected.stderr
    # under python AccumulateGrad steals the gradient (a detach, no copy)
    assert "aten.copy_" not in expected.stdout and "dispatch aten.detach.default" in expected.stdout
    trace = traced(worker, path)
    assert trace.stdout == expected.stdout
    assert trace.stderr == expected.stderr
    ops = [step_ops(trace, run) for run in trace.backward_runs]
    assert ops[0] == ["SumBackward0", "MulBackward0", "AccumulateGrad", "AccumulateGrad"]
    # the gradient torch stole is still the step's value
    mul = trace.backward_runs[0].steps[1]
    assert [g.values for g in mul.grad_inputs] == [[2.0, 2.0, 2.0], [1.0, 1.0, 1.0]]


STEAL_TWICE = '''\
import torch
from torch.utils._python_dispatch import TorchDispatchMode

class LogDispatch(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        print("dispatch", func)
        return func(*args, **(kwargs or {}))

x = torch.ones(3, requires_grad=True)
for i in range(2):
    loss = (x * (i + 2)).sum()
    with LogDispatch():
        loss.backward()
    if i == 0:
        first = x.grad
print(x.grad, x.grad is first)
'''


def test_a_stolen_gradient_summed_into_later_keeps_its_steps_value(worker, tmp_path):
    path = _script(tmp_path, STEAL_TWICE)
    expected = plain_python(path)
    assert expected.returncode == 0, expected.stderr
    # stolen by the first backward (no copy), summed into in place by the second
    assert "aten.copy_" not in expected.stdout and "aten.add_" in expected.stdout
    trace = traced(worker, path)
    assert trace.stdout == expected.stdout
    assert trace.stdout.endswith("tensor([5., 5., 5.]) True\n")
    firsts = [run.steps[1].grad_inputs[0].values for run in trace.backward_runs]
    assert firsts == [[2.0, 2.0, 2.0], [3.0, 3.0, 3.0]]


# torch.compile: one script for the cases (compiling is slow). Under python
# the reference prints each backward's steps (post-hooks on every node, in
# the order the engine runs them); the recorded run must show the same.
COMPILED = '''\
import torch
torch.manual_seed(0)
BACKWARD

x = torch.ones(3, requires_grad=True)
f = torch.compile(lambda t: (t * 2).sum())
y = f(x)
backward(y)
print(x.grad)

model = torch.nn.Linear(8, 1)
cmodel = torch.compile(model)
for n in (4, 5):
    loss = cmodel(torch.ones(n, 8)).sum()
    backward(loss)
print("ok", model.weight.grad.sum().item())

net = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Tanh(), torch.nn.Linear(3, 1))
opt = torch.optim.SGD(net.parameters(), lr=0.1)
step = torch.compile(lambda inp: net(inp).pow(2).mean())
for i in range(3):
    opt.zero_grad()
    loss = step(torch.arange(8.0).reshape(2, 4) / (i + 1))
    backward(loss)
    opt.step()
    print(round(loss.item(), 6), [round(v, 6) for v in net[0].weight.grad.flatten().tolist()])
'''
PLAIN_BACKWARD = "def backward(t):\n    t.backward()\n"
REFERENCE_BACKWARD = '''\
import sys
def backward(t):
    seen, stack, order = set(), [t.grad_fn], []
    while stack:
        n = stack.pop()
        if n is None or n in seen:
            continue
        seen.add(n)
        n.register_hook(lambda gi, go, n=n: order.append(n.name().split("::")[-1]))
        stack.extend(m for m, _ in n.next_functions)
    t.backward()
    print("STEPS", order, file=sys.stderr)
'''


@pytest.mark.slow
def test_torch_compile_runs_as_under_python(worker, tmp_path):
    reference = plain_python(_script(tmp_path, COMPILED.replace("BACKWARD", REFERENCE_BACKWARD), "ref.py"))
    assert reference.returncode == 0, reference.stderr
    steps = [eval(line[len("STEPS "):]) for line in reference.stderr.splitlines() if line.startswith("STEPS ")]
    assert len(steps) == 6 and all("CompiledFunctionBackward" in s for s in steps)
    path = _script(tmp_path, COMPILED.replace("BACKWARD", PLAIN_BACKWARD))
    expected = plain_python(path)
    assert expected.returncode == 0, expected.stderr
    trace = traced(worker, path)
    assert trace.error is None
    assert trace.stdout == expected.stdout == reference.stdout
    assert trace.stderr == expected.stderr  # no Dynamo or global-hook warnings of ours
    assert [step_ops(trace, run) for run in trace.backward_runs] == steps
    # the compiled node is labelled with the script's line of the call
    compiled = [n for g in trace.graphs for n in g.nodes if n.op == "CompiledFunctionBackward"]
    assert compiled and all(n.line is not None for n in compiled)


# Tensor subclasses that log what reaches them: a wrapper (`_make_wrapper_subclass`,
# values in `.elem`, every aten op through `__torch_dispatch__`), a subclass over
# real data with `__torch_dispatch__`, and one with `__torch_function__` only.
SUBCLASSES = '''\
import sys, torch
from torch.utils._pytree import tree_map
BACKWARD

class LoggingTensor(torch.Tensor):
    __slots__ = ["elem"]

    @staticmethod
    def __new__(cls, elem, requires_grad=False):
        r = torch.Tensor._make_wrapper_subclass(
            cls, elem.size(), strides=elem.stride(), storage_offset=elem.storage_offset(),
            dtype=elem.dtype, layout=elem.layout, device=elem.device, requires_grad=requires_grad)
        r.elem = elem.detach() if requires_grad else elem
        return r

    def __repr__(self):
        return f"LoggingTensor({self.elem})"

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        unwrap = lambda e: e.elem if isinstance(e, LoggingTensor) else e
        wrap = lambda e: LoggingTensor(e) if isinstance(e, torch.Tensor) else e
        out = tree_map(wrap, func(*tree_map(unwrap, args), **tree_map(unwrap, kwargs or {})))
        print("wrapper", func)
        return out

class OverData(torch.Tensor):
    __torch_function__ = torch._C._disabled_torch_function_impl

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        print("over-data", func)
        with torch._C._DisableTorchDispatch():  # (the kernel on its own data)
            return func(*args, **(kwargs or {}))

class LoggingFunction(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        print("function", getattr(func, "__name__", func))
        return super().__torch_function__(func, types, args, kwargs or {})

x = LoggingTensor(torch.tensor([1.0, 2.0, 3.0]), requires_grad=True)
w = torch.full((3,), 2.0, requires_grad=True)
loss = (x * w).sum()
print("backward 1")
backward(loss)
print("grads", x.grad, w.grad)

d = torch.Tensor._make_subclass(OverData, torch.tensor([1.0, -2.0, 3.0]), True)
loss = (d * d).sum()
print("backward 2")
backward(loss)
print("grads", d.grad)

z = torch.tensor([1.0, 2.0, 3.0]).as_subclass(LoggingFunction).requires_grad_()
loss = (z * 3).sum()
print("backward 3")
backward(loss)
print("grads", z.grad)
print("refcount", sys.getrefcount(z), sys.getrefcount(w))
print("function modes", [type(m).__name__ for m in torch.overrides._get_current_function_mode_stack()])
'''


def test_logging_subclasses_see_no_recorder_reads(worker, tmp_path):
    reference = plain_python(_script(tmp_path, SUBCLASSES.replace("BACKWARD", REFERENCE_BACKWARD), "ref.py"))
    assert reference.returncode == 0, reference.stderr
    steps = [eval(line[len("STEPS "):]) for line in reference.stderr.splitlines() if line.startswith("STEPS ")]
    assert len(steps) == 3
    path = _script(tmp_path, SUBCLASSES.replace("BACKWARD", PLAIN_BACKWARD))
    expected = plain_python(path)
    assert expected.returncode == 0, expected.stderr
    grads = [line for line in expected.stdout.splitlines() if line.startswith("grads ")]
    assert grads == [line for line in reference.stdout.splitlines() if line.startswith("grads ")]
    # each subclass logs under python (what the recorder must not add to)
    assert "wrapper aten.mul.Tensor" in expected.stdout and "over-data aten.mul.Tensor" in expected.stdout
    assert "function backward" in expected.stdout
    trace = traced(worker, path)
    assert trace.error is None
    # The two documented differences (docs/architecture.md, "What the script
    # sees of the recorder"): our line-recording mode is on the function-mode
    # stack, and a leaf whose graph the script dropped (w: `loss` was
    # reassigned) counts one more reference (the captured AccumulateGrad node).
    assert expected.stdout.endswith("refcount 3 2\nfunction modes []\n")
    assert trace.stdout == expected.stdout.replace(
        "refcount 3 2\nfunction modes []", "refcount 3 3\nfunction modes ['SourceLines']")
    assert trace.stderr == expected.stderr
    assert [step_ops(trace, run) for run in trace.backward_runs] == steps
    # values read beneath the subclass over real data: (d * d)'s gradients
    # are d and d, and d.grad (as printed by python) is 2 * d
    assert "grads tensor([ 2., -4.,  6.])" in expected.stdout
    over_data = trace.backward_runs[1]
    assert [g.values for g in over_data.steps[1].grad_inputs] == [[1.0, -2.0, 3.0]] * 2
    assert [s.values for s in over_data.leaf_grads.values()] == [[2.0, -4.0, 6.0]]
    # a wrapper's values live behind its dispatch: not read, shape only
    # (both leaves' gradients are LoggingTensors, as python prints)
    assert "grads LoggingTensor(tensor([2., 2., 2.])) LoggingTensor(tensor([1., 2., 3.]))" in expected.stdout
    wrapped = list(trace.backward_runs[0].leaf_grads.values())
    assert [(s.shape, s.values, s.truncated) for s in wrapped] == [([3], [], True)] * 2


# mode="reduce-overhead" on the CPU: no CUDA graphs there, but its own
# compile path (and a module and a function compiled with it in one loss).
REDUCE_OVERHEAD = '''\
import torch
torch.manual_seed(0)
BACKWARD
net = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Tanh(), torch.nn.Linear(3, 1))
cnet = torch.compile(net, mode="reduce-overhead")
f = torch.compile(lambda t: (t.sin() * 2).sum(), mode="reduce-overhead")
x = torch.linspace(-1, 1, 4, requires_grad=True)
for i in range(3):
    net.zero_grad()
    loss = cnet(torch.arange(8.0).reshape(2, 4) / (i + 1)).pow(2).mean() + f(x)
    backward(loss)
    print(round(loss.item(), 6), [round(v, 6) for v in net[0].weight.grad.flatten().tolist()])
print([round(v, 6) for v in x.grad.tolist()])
'''


@pytest.mark.slow
def test_torch_compile_reduce_overhead_on_the_cpu_runs_as_under_python(worker, tmp_path):
    reference = plain_python(_script(tmp_path, REDUCE_OVERHEAD.replace("BACKWARD", REFERENCE_BACKWARD), "ref.py"))
    assert reference.returncode == 0, reference.stderr
    steps = [eval(line[len("STEPS "):]) for line in reference.stderr.splitlines() if line.startswith("STEPS ")]
    assert len(steps) == 3 and all(s.count("CompiledFunctionBackward") == 2 for s in steps)
    path = _script(tmp_path, REDUCE_OVERHEAD.replace("BACKWARD", PLAIN_BACKWARD))
    expected = plain_python(path)
    assert expected.returncode == 0, expected.stderr
    trace = traced(worker, path)
    assert trace.error is None
    assert trace.stdout == expected.stdout == reference.stdout  # losses and gradients
    assert trace.stderr == expected.stderr
    assert [step_ops(trace, run) for run in trace.backward_runs] == steps
    # x.grad recorded in the last run is the one python printed
    last = trace.backward_runs[-1].leaf_grads
    printed = eval(expected.stdout.splitlines()[-1])
    assert any(s.shape == [4] and [round(v, 6) for v in s.values] == printed for s in last.values())


# Optimizers run with the line-recording mode off (source_lines.py
# _pause_optimizers: a compiled training loop's cost); a step given a
# closure keeps it, so the nodes the closure makes get their lines.
OPTIMIZERS = '''\
import torch
w = torch.ones(3, requires_grad=True)

class Watching(torch.optim.SGD):
    def step(self, closure=None):
        print("modes in step", [type(m).__name__ for m in torch.overrides._get_current_function_mode_stack()])
        return super().step(closure)

opt = Watching([w], lr=0.1)
(w * 2).sum().backward()
opt.step()
opt.zero_grad()
lbfgs = torch.optim.LBFGS([w], max_iter=2)
def closure():
    lbfgs.zero_grad()
    loss = (w ** 2).sum()
    loss.backward()
    return loss
lbfgs.step(closure)
print([round(v, 6) for v in w.tolist()])
'''


def test_optimizers_run_as_under_python_and_a_closures_nodes_keep_their_lines(worker, tmp_path):
    path = _script(tmp_path, OPTIMIZERS)
    expected = plain_python(path)
    assert expected.returncode == 0, expected.stderr
    assert expected.stdout.startswith("modes in step []\n")
    trace = traced(worker, path)
    assert trace.error is None
    assert trace.stdout == expected.stdout
    assert trace.stderr == expected.stderr
    line = OPTIMIZERS.splitlines().index("    loss = (w ** 2).sum()") + 1
    pows = [n for g in trace.graphs for n in g.nodes if n.op == "PowBackward0"]
    assert pows and all(n.line == line for n in pows)
