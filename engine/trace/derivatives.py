"""Torch's own backward formulas, as read from the installed torch's derivatives.yaml.

For nodes the rule table (engine/rules/table.py) does not cover, the worker
reads torch's formula at run time from the `derivatives.yaml` the torch wheel
ships (torchgen/packaged/autograd/derivatives.yaml): never a copy in this
repository, so the text always matches the torch that ran. One record per
node name (MulBackward0, …) that occurs in the trace. No torch, no Qt.
"""

from __future__ import annotations

from autogradviz.engine.trace.part import _Part

import msgspec


class TorchFormula(_Part):
    """One derivatives.yaml entry: `name` is its schema line
    ("mul.Tensor(Tensor self, Tensor other) -> Tensor"); `grads` maps each
    differentiable input (as the yaml writes it, e.g. "self" or
    "input, weight, bias") to torch's formula for its gradient."""

    name: str
    grads: dict[str, str] = msgspec.field(default_factory=dict)
