"""TensorSummary: what crosses the process boundary instead of a tensor.

In its own module (re-exported by model.py) so that the feature records beside
the model (checkpoint.py) can use it without importing the model, which imports
them. Plain data: no torch, no Qt.
"""

from __future__ import annotations

from typing import Optional, Union

import msgspec

from autogradviz.engine.trace.part import _Part

# One element of `TensorSummary.values`: a number, a bool, or a complex
# number as [re, im]. Typed (not Any) so that decoding turns the strings
# "NaN"/"Infinity"/"-Infinity" of the file back into floats in C.
Value = Union[int, float, bool, list[float]]


class TensorSummary(_Part):
    """What crosses the process boundary instead of a tensor.

    `id` names the tensor in the live worker so full values can be fetched
    later (None when the tensor is not kept). `values` is flattened; it is
    complete when `truncated` is false. Statistics are None when they do not
    apply (empty tensors, bool/integer tensors for mean/norm).
    """

    shape: list[int]
    dtype: str
    device: str
    values: list[Value] = msgspec.field(default_factory=list)
    truncated: bool = False
    numel: int = 0
    min: Optional[float] = None
    max: Optional[float] = None
    mean: Optional[float] = None
    norm: Optional[float] = None
    id: Optional[str] = None
    requires_grad: Optional[bool] = None
    is_leaf: Optional[bool] = None
    # a tensor with symbolic sizes (torch.compile's dynamic shapes): each
    # size as text (`s0`, `8`); `shape` is then empty and there are no values
    sizes_text: Optional[list[str]] = None
