"""The recorder's own reads of tensors, beneath the script's modes and subclasses.

A script may enter its own `TorchDispatchMode` or `TorchFunctionMode` around
`backward()`, or hand torch a Tensor subclass that logs every call (through
`__torch_function__`, or `__torch_dispatch__` as a wrapper around other
data). Under python such a mode or subclass sees only what the script and
torch do; the recorder's work inside the same backward call (capture:
`detach`, `view`, `numel`, `data_ptr`, `stride`, `tolist`,
`untyped_storage`, ... of every tensor it summarises) must not show up in
their logs. `beneath_modes(fn)` runs `fn`

- with torch-function handling off (modes and subclasses:
  `torch._C.DisableTorchFunction`),
- with Python dispatch off (`torch._C._DisableTorchDispatch`, as torch's own
  fake tensors and distributed code read beneath subclasses): an aten op on
  a subclass then runs the plain kernel on the tensor's own storage and
  returns a plain Tensor, and no `__torch_dispatch__` is called;
- and the dispatch modes taken off their stack for the call (put back
  afterwards, in order), so torch's Python-side checks of "the current mode"
  see none either.

A wrapper subclass (`_make_wrapper_subclass`) has no storage of its own: its
values live in whatever the subclass wraps and can only be read through its
`__torch_dispatch__`. The recorder does not read them (`readable_storage`):
such a summary has shape, dtype and device, no values (`truncated`).
"""

from __future__ import annotations

import functools

import torch

_DisableTorchFunction = torch._C.DisableTorchFunction
_DisableTorchDispatch = torch._C._DisableTorchDispatch
_len_dispatch = getattr(torch._C, "_len_torch_dispatch_stack", None)
try:
    from torch.utils._python_dispatch import _disable_current_modes
except ImportError:  # another torch: Python dispatch is still off (above)
    _disable_current_modes = None  # type: ignore[assignment]  # (another torch: None)

_PLAIN_TYPES = (torch.Tensor, torch.nn.Parameter)


def beneath_modes(fn):
    """`fn` wrapped to run beneath the script's torch-function and dispatch
    modes and subclasses (see the module docstring). Cheap when the script
    has none: two C context managers and one stack-length read."""

    @functools.wraps(fn)
    def call(*args, **kwargs):
        with _DisableTorchFunction(), _DisableTorchDispatch():
            if _len_dispatch is not None and _disable_current_modes is not None and _len_dispatch():
                with _disable_current_modes():
                    return fn(*args, **kwargs)
            return fn(*args, **kwargs)
    return call


def readable_storage(t) -> bool:
    """Whether `t`'s values can be read from its own storage beneath its
    subclass: true for plain tensors and parameters, and for subclasses made
    over real data (`as_subclass`, `_make_subclass`); false for a wrapper
    subclass (its storage has no data: a read would need its dispatch)."""
    if type(t) in _PLAIN_TYPES:
        return True
    try:
        with _DisableTorchFunction():
            return t.numel() == 0 or t.device.type == "meta" or t.data_ptr() != 0
    except Exception:
        return False
