"""A node's derivative rule bound to what the trace recorded: names and numbers.

`bind(graph, node, step)` finds the node's rule in the table, works out the
plain values the rule needs (saved by torch, or derived here from saved values
and the inputs' shapes: the mean's n, a slice's position, a permutation's
inverse), and writes each ∂L/∂input line twice: with the learner's variable
names ("∂L/∂x = grad ⊙ w") and, when every tensor in it is small and was
recorded, with the numbers plugged in and the gradient torch actually sent
("= [[…]] ⊙ [[…]] = [[…]]"). The result is the recorded grad_input, never
a value computed here: record, never simulate.

tests/engine/test_rules_table.py evaluates the same bound rule with torch
(tests/engine/rules_evaluate.py) to prove that the formula shown gives that result.
"""

from __future__ import annotations

import math
from typing import Any, Optional

import msgspec

from autogradviz.engine.rules import expr as X
from autogradviz.engine.rules.table import OpRule, rule_for
from autogradviz.engine.trace.model import Graph, Node, Step, TensorSummary
from autogradviz.engine.trace.tensor_text import complete, inline_text, number_text

# Tensors with at most this many elements are plugged into a formula.
MAX_PLUGGED = 16
_UINT64 = 2 ** 64


class SlotRule(msgspec.Struct):
    """∂L/∂(input `slot`) of one node."""

    slot: int
    target: str  # how the input is called: the learner's name or the rule's letter
    formula: str  # "∂L/∂x = grad ⊙ w"
    numbers: Optional[str] = None  # "[[…]] ⊙ [[…]]" (None: not all values small and recorded)
    result: Optional[str] = None  # the recorded grad_input, "[[…]]"
    expr: Any = None  # the expression (X.E), for evaluation


class BoundRule(msgspec.Struct):
    op: str
    slots: list[SlotRule]
    wheres: list[str]  # "x̂ = (x − μ)·rstd"
    params: dict  # every plain value the rule reads, by name
    tensors: dict  # recorded TensorSummary by variable name (None: not recorded)
    rule: Any = None
    omitted: int = 0  # inputs past `max_slots` not bound (bind's caller says "… N more")


def _plain(v):
    """Saved plain values as numbers (torch's optional ints arrive as 2**64 - k)."""
    if isinstance(v, int) and not isinstance(v, bool) and v >= 2 ** 63:
        return v - _UINT64
    if isinstance(v, str) and len(v) >= 2 and v[0] == v[-1] == "'":
        return v[1:-1]
    return v


def saved_plain(node: Node) -> dict:
    """Saved plain values by name; tensors as the marker "tensor"."""
    out = {}
    for sv in node.saved:
        out[sv.name] = "tensor" if (sv.tensor is not None or sv.skipped_code) else _plain(sv.value)
    return out


_INDEX: dict = {"graph": None, "inputs": {}}


def inputs_of(graph: Graph, node: Node) -> dict[int, Node]:
    """The node feeding each input slot of `node`. The index of the last graph
    asked about is kept (stepping asks at every step; a 10,000-node graph
    took milliseconds to scan each time)."""
    if _INDEX["graph"] is not graph:
        by_id = {n.id: n for n in graph.nodes}
        inputs: dict[str, dict[int, Node]] = {}
        for e in graph.edges:
            if e.src in by_id:
                inputs.setdefault(e.dst, {})[e.slot] = by_id[e.src]
        _INDEX["graph"], _INDEX["inputs"] = graph, inputs
    return _INDEX["inputs"].get(node.id, {})


def _shape_of(n: Optional[Node]) -> Optional[list]:
    return list(n.tensor.shape) if n is not None and n.tensor is not None else None


def _cat_offsets(in_shapes: dict, dim) -> dict:
    """Where each input of a cat starts along `dim`: slot -> (dim, offset),
    only for slots whose shape and every earlier slot's shape are known. One
    pass over the inputs (per slot, it was a sum over all earlier slots: a
    cat of 4,000 tensors took 15 s and 5 GB to select)."""
    out: dict = {}
    off, d = 0, dim or 0
    for k in range(len(in_shapes)):
        shp = in_shapes.get(k)
        if shp is None:
            break  # (also a slot never seen: the slots are 0..n-1 only when all are known)
        nd = len(shp)
        if nd == 0:
            break
        dk = d % nd
        out[k] = (dk, off)
        off += shp[dk]
    return out


def _derive(op: str, params: dict, tensors: dict, in_shapes: dict, grad_shape, slot: int,
            cat_offsets: Optional[dict] = None) -> None:
    """Parameters computed from recorded ones (pure Python). A variadic rule
    (cat, stack) gets only its own slot's shape: every slot's shapes in every
    slot's parameters were quadratic in the number of inputs."""
    sizes = params.get("self_sym_sizes")
    params.setdefault("dim", None)
    params.setdefault("keepdim", False)
    for k, shp in (((slot, in_shapes.get(slot)),) if cat_offsets is not None else in_shapes.items()):
        params[f"shape{k}"] = shp
        params[f"bcast{k}"] = shp is not None and grad_shape is not None and list(shp) != list(grad_shape)
    params["bcast_expand"] = True
    if op == "MeanBackward0":
        params["n"] = params.get("self_sym_numel") or (math.prod(sizes) if sizes else 1)
    elif op == "MeanBackward1" and sizes is not None:
        dims = params.get("dim") or list(range(len(sizes)))
        params["n"] = math.prod(sizes[d] for d in dims) if dims else 1
    elif op == "MseLossBackward0":
        s = tensors.get("self")
        params["n"] = (math.prod(s.shape) if s is not None else None) if params.get("reduction") == 1 else 1
    elif op == "PermuteBackward0":
        dims = [d % len(params["dims"]) for d in params["dims"]]
        params["inverse"] = [dims.index(i) for i in range(len(dims))]
    elif op == "SelectBackward0" and sizes is not None:
        d = params["dim"] % len(sizes)
        params["at"] = ":, " * d + str(params["index"] % sizes[d])
        params["at_spec"] = ["select", d, params["index"] % sizes[d]]
    elif op == "SliceBackward0" and sizes is not None:
        d = params["dim"] % len(sizes)
        start, end, step = params.get("start") or 0, params.get("end"), params.get("step") or 1
        start = max(0, start + sizes[d] if start < 0 else start)
        end = sizes[d] if end is None else min(sizes[d], end + sizes[d] if end < 0 else end)
        params["at"] = ":, " * d + f"{start}:{end}" + (f":{step}" if step != 1 else "")
        params["at_spec"] = ["slice", d, start, end, step]
    elif op == "IndexBackward0":
        names = sorted(k for k in tensors if k.startswith("indices["))
        params["at"] = ", ".join(names) or "indices"
        params["at_spec"] = ["index", names]
    elif op in ("CatBackward0", "StackBackward0"):
        d = params.get("dim") or 0
        if op == "StackBackward0":
            nd = len(grad_shape) if grad_shape is not None else d + 1
            d = d % nd
            params["at"] = ":, " * d + str(slot)
            params["at_spec"] = ["select", d, slot]
        elif cat_offsets is not None and slot in cat_offsets:
            d, off = cat_offsets[slot]
            width = in_shapes[slot][d]
            params["at"] = ":, " * d + f"{off}:{off + width}"
            params["at_spec"] = ["narrow", d, off, width]
    elif op == "NllLossBackward0":
        s = tensors.get("self")
        params["onehot_shape"] = list(s.shape) if s is not None else None
        tw = tensors.get("total_weight")
        if params.get("reduction") == 1:
            params["W"] = tw.values[0] if tw is not None and tw.values else None
        else:
            params["W"] = 1
    elif op == "NativeLayerNormBackward0":
        ns = params.get("normalized_shape") or []
        x = tensors.get("input")
        params["norm_dims"] = list(range(-len(ns), 0))
        params["batch_dims"] = list(range(len(x.shape) - len(ns))) if x is not None else None


def _param_text(params: dict, plug: bool):
    def param(name: str, symbol: str) -> Optional[str]:
        v = params.get(name)
        if name in ("alpha", "beta") and v == 1:
            return None
        if name.startswith("bcast"):
            return None if not v else "yes"
        if v is None and name in ("min", "max") and plug:  # clamp with one bound
            return "−∞" if name == "min" else "∞"
        if symbol == "=" or plug:
            if isinstance(v, list):
                return "[" + ", ".join(str(x) for x in v) + "]" if symbol != "=" or name != "at" else ", ".join(
                    str(x) for x in v)
            return number_text(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else str(v)
        return symbol
    return param


def _render(e: X.E, name, param) -> str:
    """`expr.render` with broadcast sums dropped where nothing was broadcast."""
    def simplify(x):
        if not isinstance(x, X.E):
            return x
        if x.kind == "fn" and x.args[0] == "sum_to" and len(x.args) > 3 and param(x.args[3].args[0], "") is None:
            return simplify(x.args[1])
        if x.kind == "scale" and x.args[0].kind == "param" and param(x.args[0].args[0], x.args[0].args[1]) is None:
            return simplify(x.args[1])
        return X.E(x.kind, *[simplify(a) for a in x.args])
    return X.render(simplify(e), name, param)


def bind(graph: Graph, node: Node, step: Optional[Step] = None,
         max_values: int = MAX_PLUGGED, words=str, max_slots: Optional[int] = None) -> Optional[BoundRule]:
    """The node's rule with names (and numbers, at a step that ran it), or None
    when the table has no rule for it. `max_slots`: bind only the first that
    many inputs (the rest counted in `omitted`): what a panel shows of a cat
    of 4,000 tensors, so selecting it costs what is drawn."""
    plain = saved_plain(node)
    rule: Optional[OpRule] = rule_for(node.op, plain)
    if rule is None or node.kind == "leaf":
        return None
    inputs = inputs_of(graph, node)
    tensors: dict[str, Optional[TensorSummary]] = {sv.name: sv.tensor for sv in node.saved
                                                   if sv.tensor is not None or sv.skipped_code}
    grad = step.grad_outputs[0] if step is not None and step.grad_outputs else None
    tensors["grad"] = grad
    if "result" not in tensors and node.tensor is not None:
        tensors["result"] = node.tensor
    # The slots shown: a rule's own inputs; a variadic rule's (cat, stack) are
    # the step's gradients and the inputs that have an edge - never a range up
    # to the largest slot number an edge names (a trace can say anything).
    if rule.variadic:
        n_known = max(len(rule.names), len(step.grad_inputs) if step is not None else 0)
        slot_list = sorted(set(range(n_known)).union(inputs))
    else:
        slot_list = list(range(len(rule.grads)))
    omitted = 0
    if max_slots is not None and len(slot_list) > max_slots:
        omitted = len(slot_list) - max_slots
        slot_list = slot_list[:max_slots]
    in_shapes = {}
    for k in slot_list:
        shp = _shape_of(inputs.get(k))
        var = rule.inputs[k] if k < len(rule.inputs) else None
        if shp is None and var and (saved := tensors.get(var)) is not None:
            shp = list(saved.shape)
        if shp is None and step is not None and k < len(step.grad_inputs) and (g := step.grad_inputs[k]) is not None:
            shp = list(g.shape)  # torch checks a gradient has its input's shape
        in_shapes[k] = shp
    grad_shape = list(grad.shape) if grad is not None else _shape_of(node)

    def display(k: int) -> str:
        src = inputs.get(k)
        if src is not None and src.label:
            return src.label
        base = rule.names[min(k, len(rule.names) - 1)]
        return f"{base}{k}" if rule.variadic else base

    names = {"grad": "grad"}
    names.update(rule.symbols)
    names.setdefault("result", "out")
    for k, var in enumerate(rule.inputs):
        if var:
            names[var] = display(k)
    slots = []
    base_params = {k: v for k, v in plain.items() if v != "tensor"}
    params_all: dict = {}
    offsets = _cat_offsets(in_shapes, base_params.get("dim")) if rule.variadic else None
    for k in slot_list:
        e = rule.grads[0] if rule.variadic else (rule.grads[k] if k < len(rule.grads) else None)
        if e is None:
            continue
        params = dict(base_params)
        _derive(node.op, params, tensors, in_shapes, grad_shape, k, offsets)
        params_all[k] = params
        sym = _render(e, lambda v: names.get(v, v), _param_text(params, False))
        target = display(k)
        slot = SlotRule(slot=k, target=target, formula=f"∂L/∂{target} = {sym}", expr=e)
        if step is not None and not _uses_defs(e, rule):
            vals = {v: tensors.get(v) for v in X.variables(e)}
            if all(complete(s, max_values) for s in vals.values()):
                slot.numbers = _render(e, lambda v, vals=vals: inline_text(vals[v], max_values, words),
                                       _param_text(params, True))
                if slot.numbers == sym or e.kind == "var":
                    slot.numbers = None
                res = step.grad_inputs[k] if k < len(step.grad_inputs) else None
                slot.result = inline_text(res, max_values, words) if complete(res, max_values) else None
                if slot.result is None:
                    slot.numbers = None
        slots.append(slot)
    wheres = [f"{n} = {_render(d, lambda v: names.get(v, v), _param_text(base_params, False))}"
              for n, d in rule.defs.items()]
    return BoundRule(op=node.op, slots=slots, wheres=wheres, params=params_all, tensors=tensors, rule=rule,
                     omitted=omitted)


def _uses_defs(e: X.E, rule: OpRule) -> bool:
    return any(v in rule.defs for v in X.variables(e))


def line_text(s: SlotRule) -> str:
    """The whole line: formula, then the numbers and the recorded result when known."""
    if s.result is None:
        return s.formula
    if s.numbers is None:
        return f"{s.formula} = {s.result}"
    return f"{s.formula} = {s.numbers} = {s.result}"
