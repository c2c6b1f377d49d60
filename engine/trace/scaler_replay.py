"""What the GradScaler panel shows at each recorded call: pure data, no Qt, no torch.

`scaler_events` (the probe's record) is a flat list of calls. The panel needs, at
call k, each optimizer's stage and the arrow that call took (or the call torch
refused), the per-iteration table and the scale over iterations. Computing that
here, from the recorded stages, keeps the widgets to drawing and lets the tests
check the replay without a display.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional


@dataclass
class DiagramState:
    """One optimizer's diagram after call k."""

    stage: str = "READY"
    taken: Optional[str] = None  # "unscale_", "step", "step_implicit", "update"
    refused: Optional[str] = None  # the call torch refused in `stage`
    message: str = ""  # torch's message for a refused call


@dataclass
class IterationRow:
    scaler: str
    iteration: int
    loss: Optional[float] = None
    scale: Optional[float] = None  # the scale the iteration's gradients were multiplied by
    found_inf: bool = False
    skipped: list[str] = field(default_factory=list)  # optimizers whose step was skipped
    grad_norm_scaled: Optional[float] = None
    grad_norm_unscaled: Optional[float] = None
    scale_after: Optional[float] = None  # after this iteration's update()


_ARROW = {("unscale_", False): "unscale_", ("step", False): "step", ("step", True): "step_implicit"}


def optimizers(events) -> list[str]:
    """Optimizer names in order of first appearance."""
    seen: list[str] = []
    for e in events:
        if e.optimizer is not None and e.optimizer not in seen:
            seen.append(e.optimizer)
    return seen


def owners(events) -> dict[str, set]:
    """scaler -> the optimizers it was used with (an update() resets those)."""
    out: dict[str, set] = {}
    for e in events:
        if e.optimizer is not None:
            out.setdefault(e.scaler, set()).add(e.optimizer)
    return out


def state_at(events, k: int) -> dict[str, DiagramState]:
    """Every optimizer's diagram after call `k` (0-based; -1 = before any call)."""
    stages = {o: "READY" for o in optimizers(events)}
    belongs = owners(events)
    out = {o: DiagramState() for o in stages}
    for i, e in enumerate(events[: k + 1]):
        current = i == k
        if e.call in ("unscale_", "step") and e.optimizer is not None:
            if e.error is not None:
                stage = e.stage_before or stages[e.optimizer]
                if current:
                    out[e.optimizer] = DiagramState(stage, None, e.call, e.error.message)
                continue
            stages[e.optimizer] = e.stage_after or stages[e.optimizer]
            if current:
                out[e.optimizer] = DiagramState(stages[e.optimizer], _ARROW.get((e.call, e.implicit_unscale)))
        elif e.call == "update":
            for o in sorted(belongs.get(e.scaler, ())):
                if e.error is not None:
                    if current:
                        out[o] = DiagramState(stages[o], None, "update", e.error.message)
                    continue
                was = stages[o]
                stages[o] = "READY"
                if current:
                    out[o] = DiagramState("READY", "update" if was == "STEPPED" else None)
    for o, st in out.items():
        if st.taken is None and st.refused is None:
            out[o] = DiagramState(stages[o])
    return out


def iterations(events) -> list[IterationRow]:
    """One row per (scaler, iteration), in the order they began."""
    rows: dict[tuple, IterationRow] = {}
    for e in events:
        key = (e.scaler, e.iteration)
        row = rows.get(key)
        if row is None:
            row = rows[key] = IterationRow(e.scaler, e.iteration)
        if row.scale is None and e.scale_before is not None and e.call != "update":
            row.scale = e.scale_before
        if e.call == "scale" and e.value is not None and row.loss is None:
            row.loss = e.value
        if e.call in ("unscale_", "step") and e.error is None:
            if any(v for v in (e.found_inf or {}).values()):
                row.found_inf = True
            if e.skipped and e.optimizer not in row.skipped:
                row.skipped.append(e.optimizer)
            if e.grad_norm_scaled is not None and row.grad_norm_scaled is None:
                row.grad_norm_scaled = e.grad_norm_scaled
                row.grad_norm_unscaled = e.grad_norm_unscaled
        if e.call == "update" and e.error is None:
            row.scale_after = e.scale_after
    return list(rows.values())


def scale_series(events, scaler: str) -> list[tuple[int, float, str]]:
    """(iteration, scale after update, "backoff" | "growth" | "") for each update()."""
    out = []
    for e in events:
        if e.scaler == scaler and e.call == "update" and e.error is None and e.scale_after is not None:
            before = e.scale_before or e.scale_after
            kind = "backoff" if e.scale_after < before else ("growth" if e.scale_after > before else "")
            out.append((e.iteration, e.scale_after, kind))
    return out
