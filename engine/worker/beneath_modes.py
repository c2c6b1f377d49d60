"""The recorder's own reads of tensors, beneath the script's modes.

A script may enter its own `TorchDispatchMode` or `TorchFunctionMode` around
`backward()`, or hand torch a Tensor subclass with `__torch_function__` that
logs every call. Under python such a mode or subclass sees only what the
script and torch do; the recorder's work inside the same backward call
(capture: `detach`, `view`, `numel`, `data_ptr`, `stride`, `tolist`,
`untyped_storage`, ... of every tensor it summarises) must not show up in
their logs. `beneath_modes(fn)` runs `fn` with torch-function handling off
(modes and subclasses: `torch._C.DisableTorchFunction`) and the dispatch
modes taken off their stack for the call (put back afterwards, in order).
A subclass with its own `__torch_dispatch__` (a wrapper around other data)
still sees the aten ops of what is read from it: torch has no public way
to read such a tensor's values beneath it.
"""

from __future__ import annotations

import functools

import torch

_DisableTorchFunction = torch._C.DisableTorchFunction
_len_dispatch = getattr(torch._C, "_len_torch_dispatch_stack", None)
try:
    from torch.utils._python_dispatch import _disable_current_modes
except ImportError:  # another torch: the dispatch modes stay (their logs show our reads)
    _disable_current_modes = None


def beneath_modes(fn):
    """`fn` wrapped to run beneath the script's torch-function and dispatch
    modes (see the module docstring). Cheap when the script has none: one
    C context manager and one stack-length read."""

    @functools.wraps(fn)
    def call(*args, **kwargs):
        with _DisableTorchFunction():
            if _len_dispatch is not None and _disable_current_modes is not None and _len_dispatch():
                with _disable_current_modes():
                    return fn(*args, **kwargs)
            return fn(*args, **kwargs)
    return call
