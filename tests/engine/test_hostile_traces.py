"""A trace file is data from anywhere: whatever it says, loading it and
`autogradviz export --step` do bounded work and answer in one line.

Each hostile file is a real trace (written by the real worker through
`autogradviz trace`) with one thing changed, as an attacker would: a shape
whose product disagrees with its one value ([1e9, 1, 1] made the matrix text
loop a billion times), an edge slot of 10^7, a module path of 10,000 parts
(8 GB in the layout's group prefixes), JSON nested 100,000 levels (a
RecursionError traceback, exit 1), broken references. The CLI refuses the
broken ones with one line and exit 2 (engine/trace/validate.py) and draws
the deep module path cut to its first parts. The same files in the app:
tests/app/test_hostile_traces.py.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys

import pytest

from hostile_trace_files import REFUSED, hostile  # (tests/hostile_trace_files.py)

from autogradviz.engine.trace import codec
from autogradviz.engine.trace.validate import MAX_MODULE_PARTS

SCRIPT = """\
import torch
x = torch.tensor([2.0], requires_grad=True)
w = torch.tensor([3.0], requires_grad=True)
model = torch.nn.Sequential(torch.nn.Linear(1, 1))
y = model(x * w)
y.sum().backward()
"""

# Generous: a refused file answers in well under a second; a hang is caught.
CLI_TIMEOUT = 120


@pytest.fixture(scope="module")
def real_trace(tmp_path_factory) -> dict:
    """The plain data of a real run's trace file (the real worker, via the CLI)."""
    folder = tmp_path_factory.mktemp("hostile")
    script = folder / "small.py"
    script.write_text(SCRIPT)
    out = folder / "small.json"
    p = subprocess.run([sys.executable, "-m", "autogradviz", "trace", str(script), "-o", str(out)],
                       capture_output=True, text=True, timeout=CLI_TIMEOUT)
    assert p.returncode == 0, p.stderr
    return json.loads(out.read_text())




def _limit_memory():
    """The export may use 3 GB at most: the 8 GB of a module path of 10,000
    parts fails fast instead of swapping the machine. (Graphviz in wasm
    reserves 4 GB of address space: these exports use the layered layout.)"""
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))


def _export(path, out, *extra) -> subprocess.CompletedProcess:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    return subprocess.run([sys.executable, "-m", "autogradviz", "export", str(path), "-o", str(out),
                           "--step", "1", "--layout", "layered", *extra], capture_output=True, text=True,
                          timeout=CLI_TIMEOUT, env=env, preexec_fn=_limit_memory)


@pytest.mark.parametrize("kind", sorted(REFUSED))
def test_cli_refuses_a_hostile_trace_in_one_line(real_trace, tmp_path, kind):
    path = tmp_path / f"{kind}.json"
    path.write_text(hostile(real_trace, kind))
    out = tmp_path / "out.png"
    p = _export(path, out)
    lines = p.stderr.strip().splitlines()
    assert p.returncode == 2, p.stderr[-2000:]
    assert len(lines) == 1 and lines[0].startswith("autogradviz export: "), p.stderr[-2000:]
    assert str(path) in lines[0] and REFUSED[kind] in lines[0], lines[0]
    assert "Traceback" not in p.stderr and not out.exists()


def test_loading_refuses_what_the_cli_refuses(real_trace):
    """The codec itself (every reader: CLI, app, worker protocol) refuses them."""
    assert codec.decode_trace(json.dumps(real_trace)).graphs  # the real trace loads
    for kind, expect in REFUSED.items():
        with pytest.raises(codec.TraceDecodeError, match=expect.replace("(", r"\(").replace(")", r"\)")):
            codec.decode_trace(hostile(real_trace, kind))
    with pytest.raises(codec.TraceDecodeError, match="nested too deeply"):
        codec.check_head(hostile(real_trace, "nested"))


def test_cli_draws_a_trace_whose_module_path_has_10000_parts(real_trace, tmp_path):
    """Cut to its first parts on load (a deep model is still a real run): the
    export is written, in bounded memory."""
    path = tmp_path / "deep.json"
    path.write_text(hostile(real_trace, "module_path"))
    trace = codec.decode_trace(path.read_bytes())
    modules = [n.module for n in trace.graphs[0].nodes if n.module and n.module.startswith("m.m")]
    assert modules and all(m.count(".") + 1 == MAX_MODULE_PARTS for m in modules)
    assert any("module path" in note for note in trace.notes)
    for fmt in ("png", "svg"):
        out = tmp_path / f"deep.{fmt}"
        p = _export(path, out, "--group", "modules")
        assert p.returncode == 0, p.stderr[-2000:]
        assert out.stat().st_size > 0


CAT_SCRIPT = """\
import torch
xs = [torch.full((1,), float(i), requires_grad=True) for i in range(4000)]
y = torch.cat(xs)
(y * 2).sum().backward()
"""


def _traced(tmp_path, text: str):
    script = tmp_path / "s.py"
    script.write_text(text)
    out = tmp_path / "s.json"
    p = subprocess.run([sys.executable, "-m", "autogradviz", "trace", str(script), "-o", str(out)],
                       capture_output=True, text=True, timeout=CLI_TIMEOUT)
    assert p.returncode == 0, p.stderr
    return codec.decode_trace(out.read_bytes())


def test_binding_the_rule_of_a_cat_of_4000_tensors_is_linear_in_its_inputs(tmp_path):
    """Each input's rule gets its own shape and place, from one pass over the
    inputs (it was every input's shape in every input's parameters: 15 s and
    5.5 GB); a panel binds only the inputs it draws."""
    from autogradviz.engine.rules.bind import bind

    trace = _traced(tmp_path, CAT_SCRIPT)
    g, run = trace.graphs[0], trace.backward_runs[0]
    cat = next(n for n in g.nodes if n.op == "CatBackward0")
    step = next(s for s in run.steps if s.node == cat.id)
    bound = bind(g, cat, step)
    assert len(bound.slots) == 4000 and bound.omitted == 0
    assert sum(len(p) for p in bound.params.values()) <= 20 * 4000
    assert bound.params[3999]["at"] == "3999:4000"
    shown = bind(g, cat, step, max_slots=24)
    assert len(shown.slots) == 24 and shown.omitted == 4000 - 24


def test_an_edge_slot_far_past_the_inputs_binds_only_the_inputs(tmp_path):
    """A slot within the bounds a trace may have (a million) but far past a
    node's inputs: binding its rule does not count up to it."""
    from autogradviz.engine.rules.bind import bind

    trace = _traced(tmp_path, "import torch\na = torch.ones(2, requires_grad=True)\n"
                              "b = torch.ones(3, requires_grad=True)\ntorch.cat([a, b]).sum().backward()\n")
    data = json.loads(trace.to_json())
    g = data["graphs"][0]
    cat = next(n for n in g["nodes"] if n["op"] == "CatBackward0")
    edge = next(e for e in g["edges"] if e["dst"] == cat["id"] and e.get("slot", 0) == 1)
    edge["slot"] = 1_000_000
    data["backward_runs"] = []  # (no step: the slots come from the edges alone)
    loaded = codec.decode_trace(json.dumps(data))
    node = next(n for n in loaded.graphs[0].nodes if n.id == cat["id"])
    bound = bind(loaded.graphs[0], node)
    assert [s.slot for s in bound.slots] == [0, 1_000_000]
