"""A tiny expression tree for derivative rules: one tree, two readings.

A rule such as ∂L/∂a = grad ⊙ b is written once, as Python operators on `E`
(`G * Var("other")`), and read two ways: `render` turns it into the math
notation the Inspector shows (Unicode, with the learner's variable names or
with the recorded numbers plugged in), and tests/engine/rules_evaluate.py computes it
with torch in the tests, so the test proves the very formula shown. No torch
here: the app imports this module to display rules.

Node kinds: "var" (a recorded value: the incoming gradient, a saved tensor, an
input, the output), "param" (a saved plain value such as dim or alpha, shown
by its symbol), "const", arithmetic ("add", "sub", "mul" ⊙, "scale" · by a
number, "div", "matmul" ·, "neg", "pow", "T" ᵀ), and named functions ("fn":
exp, log, cos, Φ, 𝟙[x > 0], expand, sum_to, …) whose evaluation lives in
evaluate.py under the same name.
"""

from __future__ import annotations

from typing import Callable, Optional

# precedence: higher binds tighter
_PREC = {"add": 1, "sub": 1, "mul": 2, "scale": 2, "div": 2, "matmul": 2, "neg": 3, "pow": 4, "T": 5}
_SYMBOL = {"add": " + ", "sub": " − ", "mul": " ⊙ ", "scale": "·", "div": " / ", "matmul": " · "}


class E:
    """One node of a rule's expression (immutable by convention)."""

    __slots__ = ("kind", "args")

    def __init__(self, kind: str, *args):
        self.kind = kind
        self.args = args

    # arithmetic builds trees
    def __add__(self, o): return E("add", self, lift(o))
    def __radd__(self, o): return E("add", lift(o), self)
    def __sub__(self, o): return E("sub", self, lift(o))
    def __rsub__(self, o): return E("sub", lift(o), self)
    def __mul__(self, o): return E("mul", self, lift(o))
    def __rmul__(self, o): return E("scale", lift(o), self)
    def __truediv__(self, o): return E("div", self, lift(o))
    def __rtruediv__(self, o): return E("div", lift(o), self)
    def __matmul__(self, o): return E("matmul", self, lift(o))
    def __neg__(self): return E("neg", self)
    def __pow__(self, o): return E("pow", self, lift(o))

    @property
    def T(self) -> "E":
        return E("T", self)

    def __repr__(self) -> str:
        return render(self)


def lift(x) -> E:
    return x if isinstance(x, E) else E("const", x)


def Var(name: str) -> E:
    """A recorded tensor: "grad", "out", an input "in0", "in1", … or a saved name."""
    return E("var", name)


def Param(name: str, symbol: Optional[str] = None) -> E:
    """A recorded plain value (saved `name`, or one derived at binding), shown as `symbol`."""
    return E("param", name, symbol or name)


def Fn(name: str, *args) -> E:
    return E("fn", name, *[a if isinstance(a, E) else a for a in args])


def scale(p: E, x: E) -> E:
    """`p · x`, drawn without the factor when the recorded p is 1."""
    return E("scale", p, x)


G = Var("grad")

# How each function is written; {0}, {1}: rendered arguments, {p0}: the first
# argument as a parameter symbol. Every name here has an evaluation in evaluate.py.
FN_FORMAT = {
    "exp": "exp({0})", "log": "log({0})", "cos": "cos({0})", "sin": "sin({0})", "sign": "sign({0})",
    "sigmoid": "σ({0})", "Phi": "Φ({0})", "phi": "φ({0})", "sq": "({0})²", "cube": "({0})³",
    "strictly": "𝟙[{1} < {0} < {2}]", "erf_d": "(2/√π)·exp(−{0}²)",
    "revcumsum": "flip(cumsum(flip({0})))", "pos": "𝟙[{0} > 0]", "nonpos": "𝟙[{0} ≤ 0]", "between": "𝟙[{1} ≤ {0} ≤ {2}]",
    "mask": "𝟙[{0}]", "notmask": "𝟙[¬{0}]", "is_max": "𝟙[{0} = {1}]", "count": "#({0})",
    "outer": "{0} ⊗ {1}", "expand": "expand({0})", "sum_to": "Σ_bcast({0})", "sum_dim": "Σ_{1}({0})", "mean_dim": "mean_{1}({0})",
    "sum_rows": "Σ_batch({0})", "reshape": "reshape({0})", "transpose": "transpose({0}, {1}, {2})",
    "permute": "permute({0}, {1})", "squeeze": "squeeze({0}, {1})", "place": "0 with [{1}] ← {0}",
    "narrow": "{0}[{1}]", "select": "{0}[{1}]", "onehot": "onehot({0})", "scatter_rows": "Σ rows of {0} at {1}",
}


def _wrap(text: str, inner: E, outer_prec: int, right: bool = False) -> str:
    p = _PREC.get(inner.kind, 9)
    if p < outer_prec or (right and p == outer_prec and inner.kind in ("sub", "div", "add", "mul", "matmul",
                                                                       "scale")):
        return "(" + text + ")"
    return text


def render(e: E, name: Callable[[str], str] = lambda n: n,
           param: Callable[[str, str], Optional[str]] = lambda n, s: s) -> str:
    """The expression in Unicode math. `name(var)` gives how a tensor is written
    (a variable name, or its values); `param(name, symbol)` how a plain value is
    (its symbol, or its number; None: leave the factor out, as for α = 1)."""
    k = e.kind
    if k == "var":
        return name(e.args[0])
    if k == "param":
        return param(e.args[0], e.args[1]) or e.args[1]
    if k == "const":
        v = e.args[0]
        return str(int(v)) if isinstance(v, float) and v.is_integer() else str(v)
    if k == "neg":
        return "−" + _wrap(render(e.args[0], name, param), e.args[0], _PREC["neg"] + 1)
    if k == "T":
        return _wrap(render(e.args[0], name, param), e.args[0], _PREC["T"] + 1) + "ᵀ"
    if k == "pow":
        return (_wrap(render(e.args[0], name, param), e.args[0], _PREC["pow"] + 1) + "^"
                + _wrap(render(e.args[1], name, param), e.args[1], _PREC["pow"] + 1))
    if k == "scale":
        p, x = e.args
        if p.kind == "param" and param(p.args[0], p.args[1]) is None:
            return render(x, name, param)
        return (_wrap(render(p, name, param), p, _PREC["scale"]) + "·"
                + _wrap(render(x, name, param), x, _PREC["scale"], right=True))
    if k in _SYMBOL:
        a, b = e.args
        prec = _PREC[k]
        return (_wrap(render(a, name, param), a, prec) + _SYMBOL[k]
                + _wrap(render(b, name, param), b, prec, right=True))
    if k == "fn":
        fname, *args = e.args
        parts = []
        for a in args:
            parts.append(render(a, name, param) if isinstance(a, E) else str(a))
        if fname in ("sq", "cube") and isinstance(args[0], E) and args[0].kind in ("var", "param", "fn"):
            return parts[0] + ("²" if fname == "sq" else "³")
        return FN_FORMAT[fname].format(*parts)
    raise ValueError(f"unknown expression kind {k!r}")


def _leaves(e: E, kind: str) -> list[str]:
    """The names of the `kind` leaves ("var" or "param") of `e`, in order of first use."""
    out: list[str] = []

    def walk(x):
        if not isinstance(x, E):
            return
        if x.kind == kind:
            if x.args[0] not in out:
                out.append(x.args[0])
            return
        for a in x.args:
            walk(a)
    walk(e)
    return out


def variables(e: E) -> list[str]:
    """The recorded tensors an expression reads, in order of first use."""
    return _leaves(e, "var")


def params(e: E) -> list[str]:
    """The plain values an expression reads."""
    return _leaves(e, "param")
