"""The probes get what they use of the worker through their context
(`ProbeContext.services`, engine/worker/probe_context.py), not by importing
it: engine/worker imports engine/probes, never the reverse."""

from __future__ import annotations

import ast
from pathlib import Path

from autogradviz.engine.probes.base import ProbeServices
from autogradviz.engine.worker.probe_context import SERVICES
from autogradviz.engine.worker.runner import run_script

PROBES = Path(__file__).resolve().parents[2] / "engine" / "probes"


def _worker_imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("autogradviz.engine.worker"):
            found.append(node.module)
        elif isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.startswith("autogradviz.engine.worker")]
    return found


def test_no_probe_imports_the_worker():
    modules = sorted(PROBES.glob("*.py"))
    assert len(modules) > 10
    importing = {p.name: _worker_imports(p) for p in modules if _worker_imports(p)}
    assert not importing, importing


def test_the_worker_lends_every_service():
    for name in ProbeServices.__dataclass_fields__:
        assert getattr(SERVICES, name) is not None, name


def test_a_run_whose_hooks_and_modules_go_through_the_lent_services():
    """Tensor and node hooks, the module tracker and the script's lines: the
    probes that took them from the worker record them as before."""
    trace = run_script(
        "import torch\n"
        "lin = torch.nn.Linear(2, 1)\n"
        "x = torch.ones(1, 2, requires_grad=True)\n"
        "def twice(g):\n"
        "    return g * 2\n"
        "y = lin(x)\n"
        "y.register_hook(twice)\n"
        "y.grad_fn.register_prehook(lambda go: None)\n"
        "y.sum().backward()\n"
        "print(x.grad.tolist())\n", filename="hooks.py").trace
    assert trace.error is None, trace.error
    (run,) = trace.backward_runs
    assert {e.kind for e in run.events} >= {"tensor_hook", "node_prehook"}
    graph = trace.graph(run.graph)
    addmm = next(n for n in graph.nodes if n.op == "AddmmBackward0")
    assert addmm.module == "lin" and addmm.line == 6 and "twice" in addmm.hooks
    assert [m.path for m in trace.modules] == ["lin"]
    w = next(n for n in graph.nodes if n.label == "lin.weight")
    doubled = [2 * v for v in w.tensor.values]  # dL/dx = 2 * W (the hook doubled it)
    assert eval(trace.stdout) == [doubled]
