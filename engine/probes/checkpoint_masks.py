"""Dropout masks drawn inside a checkpointed segment, for the checkpoint probe.

Whether a re-run recomputes the very activations the forward made depends on
the random numbers it draws: with `preserve_rng_state=True` torch restores the
forward's RNG state before the re-run, so Dropout drops the same elements;
with False it draws new ones and the gradient no longer belongs to the forward
that produced the loss. The probe's TorchDispatchMode hands every random op's
result here: on CPU Dropout fills its noise tensor with `aten.bernoulli_`
(then scales it in place, so the mask is read right after the draw), on CUDA
`aten.native_dropout` returns the mask as its second output.

Reading a result draws no random numbers and runs with the current dispatch
modes disabled, so neither the RNG state nor any mode of the script's sees
anything of it (the script's results stay identical: tested).
"""

from __future__ import annotations

import hashlib

from autogradviz.engine.trace.checkpoint import MAX_MASK_VALUES, MaskRecord

# aten op name (str(func)) -> which result holds the drawn mask
_MASK_OPS = {
    "aten.bernoulli_.float": None,  # the tensor itself, 0/1
    "aten.bernoulli_.Tensor": None,
    "aten.bernoulli.default": None,
    "aten.bernoulli.p": None,
    "aten.native_dropout.default": 1,  # (output, mask)
}


def is_mask_op(name: str) -> bool:
    return name in _MASK_OPS


def mask_record(name: str, out) -> "MaskRecord | None":
    """The MaskRecord of a random op's result `out` (None if it holds none)."""
    import torch
    from torch.utils._python_dispatch import _disable_current_modes

    index = _MASK_OPS.get(name)
    t = out[index] if index is not None else out
    if not isinstance(t, torch.Tensor):
        return None
    with _disable_current_modes(), torch.no_grad():
        kept = (t.detach() != 0).reshape(-1).to("cpu", torch.uint8)
        n = kept.numel()
        digest = hashlib.sha1(kept.numpy().tobytes()).hexdigest()[:16]
        return MaskRecord(op=name, shape=list(t.shape), numel=n, kept=int(kept.sum()),
                          values=kept[:MAX_MASK_VALUES].tolist(), truncated=n > MAX_MASK_VALUES,
                          digest=digest)
