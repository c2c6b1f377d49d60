"""What the Memory panel draws, computed from a trace's `memory` record (no Qt drawing here).

The x axis is the run's progress, so that two runs of the same script (with
and without checkpoint, whose graphs have different numbers of ops and
steps) share one axis: 0 to 1 is the forward (the i-th of F forward points at
(i + 1) / F), 1 to 2 the backward (after step k of S at 1 + (k + 1) / S; a
re-run during step k at 1 + (k + 0.5) / S, between the step before and the
step itself). Bytes hold between points, so the curve is drawn in steps.

The session's step k (k steps done; 0 = the end of forward) sits at x = 1 + k / S.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from PySide6.QtCore import QCoreApplication


def tr(text: str) -> str:
    return QCoreApplication.translate("MemoryCurve", text)


def human_bytes(n: Optional[float]) -> str:
    """1536 -> "1.5 KiB" (binary units, as memory is allocated)."""
    if n is None:
        return "—"
    n = float(n)
    units = (tr("B"), tr("KiB"), tr("MiB"), tr("GiB"), tr("TiB"))
    k = 0
    while abs(n) >= 1024 and k < len(units) - 1:
        n /= 1024
        k += 1
    if k == 0:
        return f"{int(n)} {units[0]}"
    return f"{n:.1f} {units[k]}" if abs(n) < 100 else f"{n:.0f} {units[k]}"


def byte_ticks(lo: float, hi: float, most: int = 6) -> list[float]:
    """Tick values for a bytes axis at round numbers of binary units
    (0, 16 KiB, 32 KiB, ... rather than 48.8 KiB, 97.7 KiB)."""
    hi = max(hi, 1.0)
    unit = 1.0
    while hi / unit >= 1024:
        unit *= 1024
    span = hi / unit
    steps: tuple[float, ...] = (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500)
    if unit > 1:  # 0.25 MiB is a round number too
        steps = (0.25, 0.5) + steps
    for step in steps:
        if span / step <= most and (step >= 1 or span / step >= 3):
            break
    first = max(0, int(lo / unit / step))
    return [k * step * unit for k in range(first, int(span / step + 1e-9) + 1)]


def memory_run(trace, run_index: int):
    """The MemoryRun of `run_index`, or None."""
    mem = getattr(trace, "memory", None) if trace is not None else None
    if mem is None:
        return None
    for r in mem.runs:
        if r.run == run_index:
            return r
    return None


def step_count(trace, run_index: int) -> int:
    if trace is None or not 0 <= run_index < len(trace.backward_runs):
        return 0
    return len(trace.backward_runs[run_index].steps)


@dataclass
class Curve:
    xs: list[float]
    ys: list[float]  # bytes
    # x of each recompute peak, with its bytes and checkpoint id
    recomputes: list[tuple[float, float, Optional[str]]]
    steps: int  # S


def curve(trace, run_index: int) -> Optional[Curve]:
    """The activation curve of one run: (0, 0), then every point at its x."""
    mr = memory_run(trace, run_index)
    if mr is None:
        return None
    steps = max(1, step_count(trace, run_index))
    fwd = [p for p in mr.points if p.phase == "forward"]
    nf = max(1, len(fwd))
    xs, ys, rec = [0.0], [0.0], []
    for i, p in enumerate(fwd):
        xs.append((i + 1) / nf)
        ys.append(float(p.bytes))
    for p in mr.points:
        if p.phase == "forward" or p.step is None:
            continue
        if p.phase == "recompute":
            x = 1 + (p.step + 0.5) / steps
            rec.append((x, float(p.bytes), p.checkpoint))
        else:
            x = 1 + (p.step + 1) / steps
        xs.append(x)
        ys.append(float(p.bytes))
    return Curve(xs, ys, rec, steps)


def stairs(xs: list[float], ys: list[float]) -> tuple[list[float], list[float]]:
    """The step line through the points: each value holds until the next x."""
    sx: list[float] = []
    sy: list[float] = []
    for k, (x, y) in enumerate(zip(xs, ys)):
        if k:
            sx.append(x)
            sy.append(sy[-1])
        sx.append(x)
        sy.append(y)
    return sx, sy


def x_of_step(k: int, steps: int) -> float:
    return 1 + k / max(1, steps)


def step_at(x: float, steps: int) -> int:
    """The session step a click at x means (0 for anything in the forward)."""
    if x <= 1:
        return 0
    return max(0, min(steps, int((x - 1) * max(1, steps) + 0.5)))


def value_at_step(trace, run_index: int, k: int) -> Optional[int]:
    """Bytes held when the session is at step k (k steps done)."""
    mr = memory_run(trace, run_index)
    if mr is None:
        return None
    value = None
    for p in mr.points:
        if p.phase == "forward":
            value = p.bytes
        elif p.phase == "backward" and p.step is not None and p.step < k:
            value = p.bytes
    return value


def reran_ops(trace, run_index: int) -> int:
    """Ops torch re-ran during the run (every checkpoint's re-runs in it)."""
    return sum(len(r.ops) for c in getattr(trace, "checkpoints", []) for r in c.recomputations
               if r.run == run_index)


@dataclass
class Comparison:
    with_ckpt: int  # bytes held at the end of forward, with checkpoint
    without: int  # the same, the run without checkpoint
    peak_with: int
    peak_without: int
    reran: int  # ops re-run

    @property
    def saved(self) -> int:
        return self.without - self.with_ckpt

    @property
    def percent(self) -> float:
        return 100.0 * self.saved / self.without if self.without else 0.0


def comparison(trace, other, run_index: int) -> Optional[Comparison]:
    a, b = memory_run(trace, run_index), memory_run(other, run_index)
    if a is None or b is None or a.end_of_forward is None or b.end_of_forward is None:
        return None
    return Comparison(a.end_of_forward.activations, b.end_of_forward.activations, a.peak, b.peak,
                      reran_ops(trace, run_index))


def ops_text(n: int) -> str:
    return tr("1 op") if n == 1 else tr("{n} ops").format(n=n)


def comparison_text(c: Comparison) -> str:
    if c.saved >= 0:
        head = tr("saved {bytes} of activations ({pct:.0f} %), re-ran {ops}").format(
            bytes=human_bytes(c.saved), pct=c.percent, ops=ops_text(c.reran))
    else:
        head = tr("held {bytes} more activations, re-ran {ops}").format(
            bytes=human_bytes(-c.saved), ops=ops_text(c.reran))
    detail = tr("End of forward: {w} with checkpoint, {wo} without. Peak: {pw} with, {pwo} without.").format(
        w=human_bytes(c.with_ckpt), wo=human_bytes(c.without), pw=human_bytes(c.peak_with),
        pwo=human_bytes(c.peak_without))
    return tr("{head}. {detail}").format(head=head, detail=detail)
