"""Node.line / Node.code against torch's own anomaly-mode tracebacks.

The worker records the script; the test runs the same source itself under
`torch.autograd.set_detect_anomaly(True)`, where torch stores the forward
traceback of every node it creates (`node.metadata["traceback_"]`), and takes
the innermost frame of the script's file from each. Both graphs must have
the same (op, line) pairs, node for node.
"""

from __future__ import annotations

import collections
import re

import torch

from torch_reference import graph_nodes

FUNCS_CLASSES_LOOPS = '''\
import torch
import torch.nn as nn

class Block(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.lin = nn.Linear(n, n)
        self.norm = nn.LayerNorm(n)

    def forward(self, x):
        h = self.lin(x)
        h = torch.relu(h)
        return self.norm(h + x)

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Block(4) for _ in range(2)])
        self.head = nn.Sequential(nn.Linear(4, 3), nn.Tanh())

    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        return self.head(x)

def scale(t, k):
    u = t * k
    return u - 1

net = Net()
x = torch.randn(5, 4, requires_grad=True)
w = torch.ones(3)
w.requires_grad_()
y = net(x)
for i in range(3):
    y = scale(y, i + 1)
z = (y
     * w)
loss = z.pow(2).mean()
loss.backward()
'''

RNN_CELL = '''\
import torch
cell = torch.nn.RNNCell(3, 5)
h = torch.zeros(2, 5)
xs = torch.randn(4, 2, 3)
for t in range(4):
    h = cell(xs[t], h)
loss = h.sum()
loss.backward()
'''

_FRAME = re.compile(r'File "(.*?)", line (\d+)')


def anomaly_lines(source: str, filename: str) -> collections.Counter:
    """(op, line) of every op node of `loss`'s graph, from torch's anomaly mode."""
    ns = {"__name__": "__main__", "__builtins__": __builtins__}
    with torch.autograd.set_detect_anomaly(True):
        exec(compile(source, filename, "exec"), ns)
    out = collections.Counter()
    for n in graph_nodes([ns["loss"]]):
        if n.name() == "torch::autograd::AccumulateGrad":
            continue
        lines = [int(m.group(2)) for fr in n.metadata["traceback_"]
                 for m in [_FRAME.search(fr)] if m and m.group(1) == filename]
        out[(n.name(), lines[-1] if lines else None)] += 1
    return out


def recorded_lines(graph) -> collections.Counter:
    return collections.Counter((n.op, n.line) for n in graph.nodes if n.kind == "op")


def line_of(source: str, text: str) -> int:
    return next(i for i, s in enumerate(source.splitlines(), 1) if text in s)


def test_op_lines_match_anomaly_mode_tracebacks(worker, tmp_path):
    for i, source in enumerate((FUNCS_CLASSES_LOOPS, RNN_CELL)):
        path = str(tmp_path / f"script{i}.py")
        outcome = worker.run(source, filename=path, timeout=120)
        assert outcome.trace.error is None, outcome.trace.error
        graph = outcome.trace.graphs[0]
        expected = anomaly_lines(source, path)
        assert None not in {line for _, line in expected}
        assert recorded_lines(graph) == expected
        lines = source.splitlines()
        for n in graph.nodes:
            if n.line is not None:  # the line's own text is in its statement's (whole statements: below)
                own = lines[n.line - 1].split("#")[0].strip()
                assert n.code == lines[n.line - 1].strip() or own in n.code, (n.code, own)


def test_leaves_carry_the_line_that_made_them(worker, tmp_path):
    path = str(tmp_path / "leaves.py")
    trace = worker.run(FUNCS_CLASSES_LOOPS, filename=path, timeout=120).trace
    leaves = {n.label: n for n in trace.graphs[0].nodes if n.kind == "leaf"}
    assert leaves["x"].line == line_of(FUNCS_CLASSES_LOOPS, "x = torch.randn")
    assert leaves["w"].line == line_of(FUNCS_CLASSES_LOOPS, "w.requires_grad_()")
    assert leaves["net.blocks.0.lin.weight"].line == line_of(FUNCS_CLASSES_LOOPS, "self.lin = nn.Linear")
    assert leaves["net.head.0.bias"].code == "self.head = nn.Sequential(nn.Linear(4, 3), nn.Tanh())"


PARAMETERS = '''\
import copy, pickle, torch
scale = torch.nn.Parameter(torch.full((3,), 2.0))
shift = torch.nn.Parameter(
    torch.zeros(3))
twin = copy.deepcopy(scale)
again = pickle.loads(pickle.dumps(shift))
(scale * twin + shift + again).sum().backward()
print(type(twin).__name__, type(again).__name__, scale.grad.tolist(), again.grad.tolist())
'''


def test_a_parameter_outside_any_module_carries_its_line(worker, tmp_path):
    """nn.Parameter(t) makes its leaf without a torch call a function mode
    sees; its line is still the script's. Copies and pickles keep working."""
    path = str(tmp_path / "parameters.py")
    trace = worker.run(PARAMETERS, filename=path, timeout=120).trace
    assert trace.error is None, trace.error
    ns = {"__name__": "__main__"}
    import contextlib, io
    with contextlib.redirect_stdout(io.StringIO()) as plain:
        exec(compile(PARAMETERS, path, "exec"), ns)
    assert trace.stdout == plain.getvalue()
    leaves = {n.label: n for n in trace.graphs[0].nodes if n.kind == "leaf"}
    assert leaves["scale"].line == 2 and leaves["scale"].code == "scale = torch.nn.Parameter(torch.full((3,), 2.0))"
    assert leaves["shift"].line == 3
    assert leaves["twin"].line == 5 and leaves["again"].line == 6


def test_recording_lines_does_not_change_what_the_script_computes(worker, tmp_path):
    path = str(tmp_path / "same.py")
    source = RNN_CELL + "print(loss.item(), cell.weight_hh.grad.norm().item())\n"
    torch.manual_seed(0)
    trace = worker.run("import torch\ntorch.manual_seed(0)\n" + source, filename=path, timeout=120).trace
    ns = {"__name__": "__main__"}
    torch.manual_seed(0)
    import contextlib
    import io
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(compile(source, path, "exec"), ns)
    assert trace.stdout == buf.getvalue()


MULTI_LINE = '''\
import torch


def scale(t,
          k):  # a header over two lines
    return t * k


w = torch.tensor([[1.0, -1.0],   # first row, "# not a comment" after it
                  [0.5, 2.0]], requires_grad=True)
x = torch.ones(2, 2)
y = (x  # a comment
     * w)
for i in range(2):
    y = scale(y,
              2)
loss = y.sum()  # one line, its comment kept
loss.backward()
'''


def test_a_statement_over_several_lines_gives_its_whole_text(worker, tmp_path):
    """Node.code is the node's statement (source_lines + statement_text):
    its lines joined, indentation and comments dropped; a one-line
    statement's code is its line as before; a compound statement's body is
    never part of its header's text."""
    path = str(tmp_path / "multi.py")
    outcome = worker.run(MULTI_LINE, filename=path, timeout=120)
    assert outcome.trace.error is None, outcome.trace.error
    codes = {(n.op, n.line): n.code for n in outcome.trace.graphs[0].nodes}
    assert codes[("AccumulateGrad", 9)] == 'w = torch.tensor([[1.0, -1.0], [0.5, 2.0]], requires_grad=True)'
    mul = {line: code for (op, line), code in codes.items() if op == "MulBackward0"}
    assert mul[6] == "return t * k"  # in the function: its own one-line statement
    assert any(code == "y = (x * w)" for code in mul.values())
    assert codes[("SumBackward0", 17)] == "loss = y.sum()  # one line, its comment kept"


def test_statement_spans_and_joined_text():
    from autogradviz.engine.probes.statement_text import joined_text, statement_spans

    spans = statement_spans(MULTI_LINE)
    assert spans[4] == spans[5] == (4, 5)  # the def header, not its body
    assert 6 not in spans and 17 not in spans  # one-line statements
    assert spans[9] == spans[10] == (9, 10)
    assert spans[12] == spans[13] == (12, 13)
    assert spans[15] == spans[16] == (15, 16)  # inside the for body: the call's own lines
    assert 14 not in spans  # the for header: one line
    assert joined_text(['s = "a # b"  # c\n', '    + "d"\n']) == 's = "a # b" + "d"'
    assert joined_text(["x = f(" + "a, " * 200 + ")\n"]).endswith("…")
    assert statement_spans("def broken(:\n") == {}
