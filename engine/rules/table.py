"""The derivative-rule table: for each autograd node name, ∂L/∂input per input.

Data, not code: each `OpRule` names the node's inputs (slot order, as in
next_functions), says which recorded tensor holds each input's value (torch's
own saved names: "self", "other", "mat1", "result"…), and gives one expression
(engine/rules/expr.py) per input. The same expressions are rendered for the
learner and evaluated with torch by tests/engine/test_rules_table.py on what a
real run recorded, which must reproduce the grad_inputs torch computed.

Names used in expressions: "grad" is the gradient the node received
(grad_outputs[0]); other variables are the node's saved tensors by torch's
name; `Param`s are saved plain values, or values engine/rules/bind.py derives
from them and from the inputs' shapes ("shape0", "n", "at"…).

Nodes not here (or whose `when` does not hold, e.g. gelu's tanh approximation)
fall back to torch's own formula from derivatives.yaml, read by the worker
(engine/worker/derivatives_yaml.py). No torch import here.
"""

from __future__ import annotations

from typing import Optional

import msgspec

from autogradviz.engine.rules.expr import E, Fn, G, Param, Var, scale


class OpRule(msgspec.Struct, frozen=True):
    """How one node's backward is written. `grads[i]` is ∂L/∂(input i) or None."""

    names: tuple  # default display name of each input (slot order)
    inputs: tuple  # the saved variable holding each input's value, or None
    grads: tuple  # E or None per input
    # Saved values that must equal these for the rule to apply (else: yaml fallback).
    when: dict = {}
    # Helper tensors written once under the formula, "where x̂ = …": name -> E.
    defs: dict = {}
    # How other saved tensors are written (e.g. {"result": "out"}).
    symbols: dict = {}
    # True when the node takes any number of inputs (cat, stack): every input
    # uses grads[0], with its own derived parameters.
    variadic: bool = False


def unb(x: E, slot: int) -> E:
    """`x` summed over the dimensions broadcasting added to input `slot` (shown only when it did)."""
    return Fn("sum_to", x, Param(f"shape{slot}"), Param(f"bcast{slot}"))


A, B = Var("self"), Var("other")
OUT = Var("result")
ALPHA, BETA = Param("alpha", "α"), Param("beta", "β")
SIZES = Param("self_sym_sizes", "=")

_EW: dict = dict(symbols={"result": "out"})  # element-wise ops that saved their output

RULES: dict[str, list[OpRule]] = {
    "AddBackward0": [OpRule(("a", "b"), (None, None), (unb(G, 0), unb(scale(ALPHA, G), 1)))],
    "SubBackward0": [OpRule(("a", "b"), (None, None), (unb(G, 0), unb(-scale(ALPHA, G), 1)))],
    "RsubBackward1": [OpRule(("a",), (None,), (-scale(ALPHA, G),))],
    "MulBackward0": [OpRule(("a", "b"), ("self", "other"), (unb(G * B, 0), unb(G * A, 1)))],
    "DivBackward0": [OpRule(("a", "b"), ("self", "other"), (unb(G / B, 0), unb(-(G * A) / Fn("sq", B), 1)))],
    "NegBackward0": [OpRule(("a",), (None,), (-G,))],
    "PowBackward0": [OpRule(("a",), ("self",), (scale(Param("exponent", "p"), A ** (Param("exponent", "p") - 1)) * G,))],
    "PowBackward1": [OpRule(("a", "b"), ("self", "exponent"),
                            (unb(G * Var("exponent") * A ** (Var("exponent") - 1), 0),
                             unb(G * OUT * Fn("log", A), 1)), symbols={"result": "out"})],
    "ExpBackward0": [OpRule(("a",), ("self",), (G * OUT,), **_EW)],
    "LogBackward0": [OpRule(("a",), ("self",), (G / A,))],
    "Log1PBackward0": [OpRule(("a",), ("self",), (G / (1 + A),))],
    "SqrtBackward0": [OpRule(("a",), (None,), (G / (2 * OUT),), **_EW)],
    "RsqrtBackward0": [OpRule(("a",), (None,), (-0.5 * (G * Fn("cube", OUT)),), **_EW)],
    "SinBackward0": [OpRule(("a",), ("self",), (G * Fn("cos", A),))],
    "CosBackward0": [OpRule(("a",), ("self",), (-(G * Fn("sin", A)),))],
    "TanhBackward0": [OpRule(("a",), (None,), (G * (1 - Fn("sq", OUT)),), **_EW)],
    "SigmoidBackward0": [OpRule(("a",), (None,), (G * OUT * (1 - OUT),), **_EW)],
    "ReluBackward0": [OpRule(("a",), (None,), (G * Fn("pos", OUT),), **_EW)],
    "AbsBackward0": [OpRule(("a",), ("self",), (G * Fn("sign", A),))],
    "LeakyReluBackward0": [OpRule(("a",), ("self",), (
        G * (Fn("pos", A) + Param("negative_slope", "s") * Fn("nonpos", A)),))],
    "ClampBackward1": [OpRule(("a",), ("self",), (
        G * Fn("between", A, Param("min", "min"), Param("max", "max")),))],
    "HardtanhBackward0": [OpRule(("a",), ("self",), (
        G * Fn("strictly", A, Param("min_val", "min"), Param("max_val", "max")),))],
    "EluBackward0": [OpRule(("a",), ("self",), (
        G * (Fn("pos", A) + scale(Param("alpha", "α"), Fn("exp", A)) * Fn("nonpos", A)),),
        when={"scale": 1, "input_scale": 1})],
    "SoftplusBackward0": [OpRule(("a",), ("self",), (G * Fn("sigmoid", scale(Param("beta", "β"), A)),))],
    "ErfBackward0": [OpRule(("a",), ("self",), (G * Fn("erf_d", A),))],
    "AtanBackward0": [OpRule(("a",), ("self",), (G / (1 + Fn("sq", A)),))],
    "ReciprocalBackward0": [OpRule(("a",), (None,), (-(G * Fn("sq", OUT)),), **_EW)],
    "CloneBackward0": [OpRule(("a",), (None,), (G,))],
    "ToCopyBackward0": [OpRule(("a",), (None,), (G,))],
    "CumsumBackward0": [OpRule(("a",), (None,), (Fn("revcumsum", G, Param("dim", "=")),))],
    "MinBackward1": [OpRule(("a",), ("self",), (
        G * Fn("is_max", A, OUT) / Fn("count", Fn("is_max", A, OUT)),), symbols={"result": "min"})],
    "GeluBackward0": [OpRule(("a",), ("self",), (G * (Fn("Phi", A) + A * Fn("phi", A)),),
                             when={"approximate": "none"})],
    "SiluBackward0": [OpRule(("a",), ("self",), (G * Fn("sigmoid", A) * (1 + A * (1 - Fn("sigmoid", A))),))],
    "SoftmaxBackward0": [OpRule(("a",), (None,), (
        OUT * (G - Fn("sum_dim", G * OUT, Param("dim", "="))),), **_EW)],
    "LogSoftmaxBackward0": [OpRule(("a",), (None,), (
        G - Fn("exp", OUT) * Fn("sum_dim", G, Param("dim", "=")),), **_EW)],
    "SumBackward0": [OpRule(("a",), (None,), (Fn("expand", G, SIZES, Param("dim"), Param("keepdim")),))],
    "SumBackward1": [OpRule(("a",), (None,), (Fn("expand", G, SIZES, Param("dim"), Param("keepdim")),))],
    "MeanBackward0": [OpRule(("a",), (None,), (
        Fn("expand", G, SIZES, Param("dim"), Param("keepdim")) / Param("n", "n"),))],
    "MeanBackward1": [OpRule(("a",), (None,), (
        Fn("expand", G, SIZES, Param("dim"), Param("keepdim")) / Param("n", "n"),))],
    "MaxBackward1": [OpRule(("a",), ("self",), (
        G * Fn("is_max", A, OUT) / Fn("count", Fn("is_max", A, OUT)),), symbols={"result": "max"})],
    "MmBackward0": [OpRule(("A", "B"), ("self", "mat2"), (G @ Var("mat2").T, A.T @ G))],
    "BmmBackward0": [OpRule(("A", "B"), ("self", "mat2"), (G @ Var("mat2").T, A.T @ G))],
    "DotBackward0": [OpRule(("a", "b"), ("self", "tensor"), (G * Var("tensor"), G * A))],
    "MvBackward0": [OpRule(("A", "v"), ("self", "vec"), (Fn("outer", G, Var("vec")), A.T @ G))],
    "AddmmBackward0": [OpRule(("bias", "X", "W"), (None, "mat1", "mat2"), (
        unb(scale(BETA, G), 0), scale(ALPHA, G @ Var("mat2").T), scale(ALPHA, Var("mat1").T @ G)))],
    "TBackward0": [OpRule(("a",), (None,), (G.T,))],
    "TransposeBackward0": [OpRule(("a",), (None,), (Fn("transpose", G, Param("dim0", "="), Param("dim1", "=")),))],
    "PermuteBackward0": [OpRule(("a",), (None,), (Fn("permute", G, Param("inverse", "=")),))],
    "ViewBackward0": [OpRule(("a",), (None,), (Fn("reshape", G, SIZES),))],
    "UnsafeViewBackward0": [OpRule(("a",), (None,), (Fn("reshape", G, SIZES),))],
    "ReshapeAliasBackward0": [OpRule(("a",), (None,), (Fn("reshape", G, SIZES),))],
    "SqueezeBackward0": [OpRule(("a",), (None,), (Fn("reshape", G, SIZES),))],
    "SqueezeBackward1": [OpRule(("a",), (None,), (Fn("reshape", G, SIZES),))],
    "SqueezeBackward2": [OpRule(("a",), (None,), (Fn("reshape", G, SIZES),))],
    "SqueezeBackward3": [OpRule(("a",), (None,), (Fn("reshape", G, SIZES),))],
    "SqueezeBackward4": [OpRule(("a",), (None,), (Fn("reshape", G, SIZES),))],
    "UnsqueezeBackward0": [OpRule(("a",), (None,), (Fn("squeeze", G, Param("dim", "=")),))],
    "ExpandBackward0": [OpRule(("a",), (None,), (Fn("sum_to", G, SIZES, Param("bcast_expand")),))],
    "SelectBackward0": [OpRule(("a",), (None,), (Fn("place", G, Param("at", "="), SIZES),))],
    "SliceBackward0": [OpRule(("a",), (None,), (Fn("place", G, Param("at", "="), SIZES),))],
    "IndexBackward0": [OpRule(("a",), (None,), (Fn("place", G, Param("at", "="), SIZES),))],
    "CatBackward0": [OpRule(("a",), (None,), (Fn("narrow", G, Param("at", "=")),), variadic=True)],
    "StackBackward0": [OpRule(("a",), (None,), (Fn("select", G, Param("at", "=")),), variadic=True)],
    "WhereBackward0": [OpRule(("a", "b"), (None, None), (
        unb(G * Fn("mask", Var("condition")), 0), unb(G * Fn("notmask", Var("condition")), 1)),
        symbols={"condition": "cond"})],
    "MseLossBackward0": [OpRule(("input", "target"), ("self", "target"), (
        unb(2 * (A - Var("target")) * G / Param("n", "n"), 0),
        unb(-2 * (A - Var("target")) * G / Param("n", "n"), 1)))],
    "NllLossBackward0": [OpRule(("logp",), ("self",), (
        -(G * Fn("onehot", Var("target"), Param("onehot_shape"), Param("ignore_index"))) / Param("W", "W"),),
        when={"weight": None}, symbols={"target": "target"})],
    "NativeDropoutBackward0": [OpRule(("a",), (None,), (G * Var("result1") * Param("scale", "1/(1−p)"),),
                                      symbols={"result1": "mask"})],
    "EmbeddingBackward0": [OpRule(("weight",), (None,), (
        Fn("scatter_rows", G, Var("indices"), Param("weight_sym_argsize_0")),), symbols={"indices": "idx"})],
    "NativeLayerNormBackward0": [OpRule(("x", "γ", "β"), ("input", "weight", "bias"), (
        Var("result2") * (Var("ĝ") - Fn("mean_dim", Var("ĝ"), Param("norm_dims", "="))
                          - Var("x̂") * Fn("mean_dim", Var("ĝ") * Var("x̂"), Param("norm_dims", "="))),
        Fn("sum_rows", G * Var("x̂"), Param("batch_dims")),
        Fn("sum_rows", G, Param("batch_dims"))),
        defs={"x̂": (Var("input") - Var("result1")) * Var("result2"), "ĝ": G * Var("weight")},
        symbols={"result1": "μ", "result2": "rstd"})],
}


def rule_for(op: str, saved: Optional[dict] = None) -> Optional[OpRule]:
    """The table's rule for node name `op` whose `when` holds for the saved
    plain values `saved` (name -> value), or None."""
    saved = saved or {}
    for rule in RULES.get(op, ()):
        if all(saved.get(k, v) == v for k, v in rule.when.items()):
            return rule
    return None
