"""A GradScaler run's stages for the web page: scale → backward → unscale / inf check → step / skip → update.

A backward run that began at a tensor `scaler.scale(loss)` returned
(`BackwardRun.scaled_by`, an index into `Trace.scaler_events`) is one part
of a GradScaler iteration. The GradScaler panel (app/panels/grad_scaler)
steps through the recorded calls; the web page shows the same calls around
the run: the scale() before step 1, "backward" during the steps, then one
extra position per later call of that scaler's iteration (unscale_, step,
update) with what it recorded - the scale, the gradient norms, whether
inf/NaN was found and the step skipped, the new scale. Everything is read
from the recorded events (nothing recomputed), as plain text in the UI
language.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from PySide6.QtCore import QCoreApplication
from autogradviz.app.services.number_text import six_digits

STAGE_KEYS = ("scale", "backward", "unscale", "step", "update")


def tr(text: str) -> str:
    return QCoreApplication.translate("ExportScaler", text)


def stage_names() -> list[str]:
    return [tr("scale"), tr("backward"), tr("unscale_ · inf check"), tr("step / skip"), tr("update")]


@dataclass
class Stage:
    key: str  # one of STAGE_KEYS
    text: str  # what the recorded call did


@dataclass
class RunStages:
    at_start: Stage  # shown at step 0 (before backward)
    during: Stage  # shown at steps 1..n
    after: list  # [Stage]: one page position each, after the last step


def _event_text(e) -> Stage:
    where = f"{e.scaler}.{e.call}({e.optimizer or ''})"
    if e.error is not None:
        key = "unscale" if e.call == "unscale_" else (e.call if e.call in STAGE_KEYS else "step")
        return Stage(key, tr("{0} was refused: {1}: “{2}”").format(where, e.error.type, e.error.message))
    if e.call == "unscale_":
        found = any(v for v in (e.found_inf or {}).values())
        return Stage("unscale", tr("{0} divided the gradients by {1} (norm {2} → {3}) and checked them: "
                                   "{4}").format(where, six_digits(e.scale_before), six_digits(e.grad_norm_scaled),
                                                 six_digits(e.grad_norm_unscaled),
                                                 tr("inf/NaN found") if found else tr("no inf/NaN")))
    if e.call == "step":
        first = tr("it unscaled the gradients itself first; ") if e.implicit_unscale else ""
        if e.skipped:
            return Stage("step", tr("{0}: {1}inf/NaN in the gradients, so optimizer.step() was skipped: "
                                    "the parameters did not change.").format(where, first))
        return Stage("step", tr("{0}: {1}optimizer.step() ran with the unscaled gradients.").format(where, first))
    if e.call == "update":
        before, after = e.scale_before, e.scale_after
        if before is not None and after is not None and after < before:
            why = tr("a step had inf/NaN gradients: the scale backs off")
        elif before is not None and after is not None and after > before:
            why = tr("enough clean iterations in a row: the scale grows")
        else:
            why = tr("no inf/NaN; clean iterations in a row: {0}").format(e.growth_tracker)
        return Stage("update", tr("{0}: {1}, {2} → {3}.").format(where, why, six_digits(before), six_digits(after)))
    return Stage("scale", tr("{0} multiplied by {1}.").format(where, six_digits(e.scale_before)))


def run_stages(trace, run: int) -> Optional[RunStages]:
    """The stages around backward run `run`, or None when it was not a scaled loss's."""
    runs = trace.backward_runs
    events = list(getattr(trace, "scaler_events", None) or [])
    index = getattr(runs[run], "scaled_by", None) if 0 <= run < len(runs) else None
    if index is None or not 0 <= index < len(events):
        return None
    e = events[index]
    scale = six_digits(e.scale_before)
    start = Stage("scale", tr("{0}.scale(loss) multiplied the loss by {1}: backward starts from the scaled "
                              "loss.").format(e.scaler, scale))
    during = Stage("backward", tr("backward of the scaled loss: every gradient is {0} × the real one until "
                                  "it is unscaled.").format(scale))
    # the later calls of this scaler in the same iteration, up to its update()
    nxt = next((r.scaled_by for r in runs[run + 1:] if getattr(r, "scaled_by", None) is not None), None)
    after = []
    for j in range(index + 1, len(events)):
        f = events[j]
        if f.scaler != e.scaler or f.iteration != e.iteration or f.call == "scale" or (nxt is not None and j >= nxt):
            if f.scaler == e.scaler and (f.iteration != e.iteration or (nxt is not None and j >= nxt)):
                break
            continue
        after.append(_event_text(f))
        if f.call == "update":
            break
    return RunStages(start, during, after)
