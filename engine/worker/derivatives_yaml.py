"""Read torch's backward formulas from the derivatives.yaml its wheel ships.

torch builds every autograd node class (MulBackward0, AddmmBackward0, …) from
torchgen/packaged/autograd/derivatives.yaml; the wheel installs that file, so
the worker (which has torch) can show torch's own formula for any node the
rule table lacks, for the very torch version that ran. Never copied into this
repository.

Node names follow torchgen's load_derivatives: the entry's function name in
CamelCase + "Backward" (with "ForwardBackward" shortened to "Backward") + a
counter over entries of the same prefix, in file order, counting only entries
that have a derivative (not all "non_differentiable"). A small line parser,
not a YAML library: the file is a flat list of `- name:` entries with
`  key: value` lines, and PyYAML is not a dependency of torch.

`attach(trace)` fills `trace.torch_formulas` for every op in the trace, or
sets `trace.torch_formulas_missing` to "absent" when the file is not there
(a torch built without torchgen) — the app says so.
"""

from __future__ import annotations

import os
from typing import Optional

from autogradviz.engine.trace.derivatives import TorchFormula

_CACHE: dict = {}
# Keys of an entry that are not gradients of an input.
_NOT_INPUTS = {"name", "dispatch", "output_differentiability", "result"}


def yaml_path() -> Optional[str]:
    """Where the installed torch's derivatives.yaml is, or None."""
    try:
        import torchgen
    except ImportError:
        return None
    path = os.path.join(os.path.dirname(torchgen.__file__), "packaged", "autograd", "derivatives.yaml")
    return path if os.path.isfile(path) else None


def _op_prefix(schema: str) -> str:
    base = schema.split("(", 1)[0].split(".", 1)[0]
    if base.endswith("_") and not base.startswith("_"):
        base = base[:-1]  # an in-place variant shares its out-of-place prefix
    elif base.endswith("_") and base.strip("_") and not base.endswith("__"):
        base = base[:-1]
    camel = "".join(p.title() for p in base.split("_"))
    return (camel + "Backward").replace("ForwardBackward", "Backward")


def _unquote(v: str) -> str:
    v = v.strip()
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "\"'":
        return v[1:-1]
    return v


def schema_args(schema: str) -> list[str]:
    """The argument names of a schema line: "mul.Tensor(Tensor self, Tensor other)" -> [self, other]."""
    inner = schema.split("(", 1)[1].rsplit(") ->", 1)[0] if "(" in schema else ""
    names = []
    depth, part = 0, ""
    for ch in inner + ",":
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            words = part.split("=", 1)[0].split()
            if words and words[-1] != "*":
                names.append(words[-1])
            part = ""
        else:
            part += ch
    return names


def parse(text: str) -> dict[str, TorchFormula]:
    """Node name -> its formula, for every entry of a derivatives.yaml text."""
    entries: list[dict] = []
    cur: Optional[dict] = None
    block = None  # inside `dispatch:`: the dispatch key being read
    for line in text.splitlines():
        if line.startswith("- name:"):
            cur = {"name": _unquote(line[len("- name:"):])}
            entries.append(cur)
            block = None
        elif cur is None or not line.strip() or line.lstrip().startswith("#"):
            continue
        elif line.startswith("  dispatch:"):
            block = ""
        elif block is not None and line.startswith("    ") and not line.startswith("     "):
            block = line.strip().rstrip(":")
        elif block is not None and line.startswith("      ") and ": " in line:
            if block == "Default":  # other keys make other classes (…BackwardAutogradNestedTensor0)
                key, value = line.strip().split(": ", 1)
                cur[key.strip()] = _unquote(value)
        elif line.startswith("  ") and not line.startswith("   ") and ": " in line:
            block = None
            key, value = line[2:].split(": ", 1)
            cur[key.strip()] = _unquote(value)
    counter: dict[str, int] = {}
    out: dict[str, TorchFormula] = {}
    for e in entries:
        args = set(schema_args(e["name"]))
        grads = {k: v for k, v in e.items() if k not in _NOT_INPUTS
                 and all(part.strip() in args for part in k.split(","))}
        if not any(v != "non_differentiable" for v in grads.values()):
            continue  # torchgen makes no node class for it
        prefix = _op_prefix(e["name"])
        n = counter.get(prefix, 0)
        counter[prefix] = n + 1
        out[f"{prefix}{n}"] = TorchFormula(
            name=e["name"], grads={k: v for k, v in grads.items() if v != "non_differentiable"})
    return out


def formulas() -> Optional[dict[str, TorchFormula]]:
    """The installed torch's formulas (read once per worker), or None when absent."""
    if "formulas" not in _CACHE:
        path = yaml_path()
        if path is None:
            _CACHE["formulas"] = None
        else:
            with open(path, encoding="utf-8") as f:
                _CACHE["formulas"] = parse(f.read())
    return _CACHE["formulas"]


def attach(trace) -> None:
    """Put torch's formula for each op node name in the trace (once per name)."""
    table = formulas()
    if table is None:
        trace.torch_formulas_missing = "absent"
        return
    ops = {n.op for g in trace.graphs for n in g.nodes if n.kind != "leaf"}
    trace.torch_formulas = {op: table[op] for op in sorted(ops) if op in table}
