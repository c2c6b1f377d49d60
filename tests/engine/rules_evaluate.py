"""Evaluate a bound derivative rule with torch: the proof side of the table.

tests/engine/test_rules_table.py runs small scripts through the real worker,
binds each node's rule to what the trace recorded (engine/rules/bind.py) and
evaluates the very expression the Inspector shows on the recorded values,
which must give the grad_inputs torch recorded. Test-only, so under tests/
(not shipped in the package); imports torch.
"""

from __future__ import annotations

import math

import torch

from autogradviz.engine.rules.expr import E
from autogradviz.engine.rules.bind import BoundRule
from autogradviz.engine.trace.model import TensorSummary

_DTYPES = {"float32": torch.float32, "float64": torch.float64, "float16": torch.float16,
           "bfloat16": torch.bfloat16, "int64": torch.int64, "int32": torch.int32, "bool": torch.bool}


def tensor_of(s: TensorSummary, dtype=torch.float64) -> torch.Tensor:
    """The tensor a complete summary describes (floats as `dtype`)."""
    if s.truncated:
        raise ValueError("the summary does not carry all values")
    own = _DTYPES.get(s.dtype, torch.float64)
    t = torch.tensor(s.values, dtype=own).reshape(s.shape)
    return t.to(dtype) if t.is_floating_point() else t


def _sum_to(x, shape):
    if shape is None or list(x.shape) == list(shape):
        return x
    return x.sum_to_size(list(shape))


def _expand(g, sizes, dim, keepdim):
    if dim is not None and not keepdim:
        for d in sorted(dd % len(sizes) for dd in (dim if isinstance(dim, list) else [dim])):
            g = g.unsqueeze(d)
    return g.expand(list(sizes))


def _place(g, spec, sizes, env):
    out = torch.zeros(list(sizes), dtype=g.dtype)
    kind = spec[0]
    if kind == "select":
        out.select(spec[1], spec[2]).copy_(g)
    elif kind == "slice":
        idx = [slice(None)] * spec[1] + [slice(spec[2], spec[3], spec[4])]
        out[tuple(idx)] = g
    elif kind == "index":
        indices = tuple(env[n] for n in spec[1])
        out.index_put_(indices, g, accumulate=True)
    return out


def _onehot(target, shape, ignore_index):
    out = torch.zeros(list(shape), dtype=torch.float64)
    cls_dim = 1 if len(shape) > 1 else 0
    t = target.long()
    keep = (t != ignore_index)
    safe = torch.where(keep, t, torch.zeros_like(t))
    out.scatter_(cls_dim, safe.unsqueeze(cls_dim), keep.unsqueeze(cls_dim).to(out.dtype))
    return out


def _fn(name: str, a: list, p: dict, env: dict):
    x = a[0]
    if name in ("exp", "log", "cos", "sin", "sign", "sigmoid"):
        return getattr(torch, name)(x)
    if name == "Phi":
        return 0.5 * (1 + torch.erf(x / math.sqrt(2)))
    if name == "phi":
        return torch.exp(-x * x / 2) / math.sqrt(2 * math.pi)
    if name == "sq":
        return x * x
    if name == "cube":
        return x * x * x
    if name == "pos":
        return (x > 0).to(torch.float64)
    if name == "nonpos":
        return (x <= 0).to(torch.float64)
    if name == "between":  # clamp's bounds; None: no bound on that side
        lo = x >= a[1] if a[1] is not None else torch.ones_like(x, dtype=torch.bool)
        hi = x <= a[2] if a[2] is not None else torch.ones_like(x, dtype=torch.bool)
        return (lo & hi).to(torch.float64)
    if name == "strictly":
        return ((x > a[1]) & (x < a[2])).to(torch.float64)
    if name == "erf_d":
        return 2 / math.sqrt(math.pi) * torch.exp(-x * x)
    if name == "revcumsum":
        return x.flip(a[1]).cumsum(a[1]).flip(a[1])
    if name == "mask":
        return x.to(torch.bool).to(torch.float64)
    if name == "notmask":
        return (~x.to(torch.bool)).to(torch.float64)
    if name == "is_max":
        return (x == a[1]).to(torch.float64)
    if name == "count":
        return x.sum()
    if name == "outer":
        return torch.outer(x, a[1])
    if name == "expand":
        return _expand(x, a[1], a[2], a[3])
    if name == "sum_to":
        return _sum_to(x, a[1])
    if name == "sum_dim":
        return x.sum(dim=a[1], keepdim=True)
    if name == "mean_dim":
        return x.mean(dim=a[1], keepdim=True)
    if name == "sum_rows":
        return x.sum(dim=a[1]) if a[1] else x
    if name == "reshape":
        return x.reshape(list(a[1]))
    if name == "transpose":
        return x.transpose(a[1], a[2])
    if name == "permute":
        return x.permute(*a[1])
    if name == "squeeze":
        return x.squeeze(a[1])
    if name == "place":
        return _place(x, p["at_spec"], a[2], env)
    if name == "narrow":
        spec = p["at_spec"]
        return x.narrow(spec[1], spec[2], spec[3])
    if name == "select":
        spec = p["at_spec"]
        return x.select(spec[1], spec[2])
    if name == "onehot":
        return _onehot(x, a[1], a[2])
    if name == "scatter_rows":
        idx = x  # (grad, indices, rows)
        g, ind, rows = a[0], a[1], a[2]
        out = torch.zeros(rows, g.shape[-1], dtype=g.dtype)
        return out.index_add_(0, ind.reshape(-1).long(), g.reshape(-1, g.shape[-1])) if idx is not None else out
    raise ValueError(f"no evaluation for function {name!r}")


def evaluate(e: E, env: dict, params: dict):
    """The value of `e`: variables from `env` (name -> tensor), params from `params`."""
    k = e.kind
    if k == "var":
        return env[e.args[0]]
    if k == "param":
        return params.get(e.args[0])
    if k == "const":
        return e.args[0]
    ev = [evaluate(a, env, params) if isinstance(a, E) else a for a in e.args]
    if k == "add":
        return ev[0] + ev[1]
    if k == "sub":
        return ev[0] - ev[1]
    if k in ("mul", "scale"):
        return ev[0] * ev[1]
    if k == "div":
        return ev[0] / ev[1]
    if k == "matmul":
        return ev[0] @ ev[1]
    if k == "neg":
        return -ev[0]
    if k == "pow":
        return ev[0] ** ev[1]
    if k == "T":
        return ev[0].transpose(-2, -1)
    if k == "fn":
        return _fn(e.args[0], ev[1:], params, env)
    raise ValueError(f"unknown expression kind {k!r}")


def evaluate_slot(bound: BoundRule, slot: int) -> torch.Tensor:
    """∂L/∂(input `slot`) computed from the recorded values by the shown rule (float64)."""
    env = {name: tensor_of(s) for name, s in bound.tensors.items() if s is not None}
    params = bound.params[slot]
    for name, d in bound.rule.defs.items():
        env[name] = evaluate(d, env, params)
    e = next(s.expr for s in bound.slots if s.slot == slot)
    return evaluate(e, env, params)
