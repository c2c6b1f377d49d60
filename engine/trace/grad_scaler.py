"""Trace records of the GradScaler probe (`Trace.scaler_events`, docs/trace-format.md).

One `ScalerEvent` per GradScaler call the script made; what torch did inside it
(step()'s own unscale_) is part of that event. Plain data: no torch, no Qt.
"""

from __future__ import annotations

from typing import Optional

import msgspec

from autogradviz.engine.trace.features import Id, declare
from autogradviz.engine.trace.part import _Part

STAGES = ("READY", "UNSCALED", "STEPPED")
CALLS = ("scale", "unscale_", "step", "update")


class ScalerError(_Part):
    """The exception a GradScaler call raised, exactly as torch worded it."""

    type: str
    message: str


class ScalerEvent(_Part):
    scaler: Id  # "s1", "s2", ... in order of first use
    call: str  # one of CALLS
    line: Optional[int] = None  # the script's line that made the call
    iteration: int = 0  # how many update() calls of this scaler came before
    optimizer: Optional[Id] = None  # "o1", ... (null for scale and update)
    stage_before: Optional[str] = None  # one of STAGES (null for scale and update)
    stage_after: Optional[str] = None
    implicit_unscale: bool = False  # step() unscaled itself (the stage was READY)
    scale_before: Optional[float] = None
    scale_after: Optional[float] = None
    growth_tracker_before: Optional[int] = None
    growth_tracker: Optional[int] = None  # after the call
    found_inf: dict[str, float] = msgspec.field(default_factory=dict)  # device -> 0.0 / 1.0
    skipped: Optional[bool] = None  # step(): optimizer.step() did not run
    grad_norm_scaled: Optional[float] = None
    grad_norm_unscaled: Optional[float] = None
    # scale(): the value it was given (the loss), when that is one number.
    value: Optional[float] = None
    error: Optional[ScalerError] = None


# Trace.scaler_events: scaler and optimizer ids prefixed in a merge, every
# float (an overflow's inf/NaN) written by name (engine/trace/features.py).
SCALER_FEATURE = declare("grad_scaler", ScalerEvent, "scaler_events")
