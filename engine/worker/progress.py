"""Progress of long work in the worker (capturing or summarising a big graph).

The app shows it in the status bar ("summarising 10,000 nodes"), so a user
waiting for a 50,000-node trace sees that the worker is busy, not hung. The
worker sends it as a `progress` message per call; hence the limits:

- only phases with at least MIN_ITEMS items report (a learner's small
  script never sends one), and
- at most one report per INTERVAL seconds over all phases (~5 a second).

Reporting costs the hot loops one integer test per item: they call
`phase.tick(done)` only every TICK_EVERY items. A callback that raises is
dropped for the rest of the run; progress must never break recording.

Codes and params (the app translates by code):
  "capturing"    {"nodes": N, "done": k}  reading a graph at a backward call
  "building"     {"nodes": N, "done": k}  trace nodes/steps after the script
  "summarising"  {"tensors": N, "done": k}  tensor values and statistics
"""

from __future__ import annotations

import time
from typing import Callable, Optional

INTERVAL = 0.2
MIN_ITEMS = 2000
# hot loops call tick() when (i & TICK_MASK) == 0
TICK_MASK = 255

ProgressCallback = Callable[[str, dict], None]


class Progress:
    """Rate-limited reports to `callback(code, params)` (None: no reports)."""

    def __init__(self, callback: Optional[ProgressCallback] = None, interval: float = INTERVAL,
                 min_items: int = MIN_ITEMS, clock: Callable[[], float] = time.monotonic):
        self.callback = callback
        self.interval = interval
        self.min_items = min_items
        self.clock = clock
        self._last = float("-inf")

    def phase(self, code: str, total: int, unit: str = "nodes") -> "_Phase | _NoPhase":
        """A phase of `total` items; reports its start (when big enough and
        not too soon after the last report), then `tick(done)` reports."""
        if self.callback is None or total < self.min_items:
            return _NO_PHASE
        ph = _Phase(self, code, total, unit)
        ph.tick(0)
        return ph

    def report(self, code: str, params: dict) -> bool:
        """Send one report unless one was sent less than `interval` ago."""
        cb = self.callback
        if cb is None:
            return False
        now = self.clock()
        if now - self._last < self.interval:
            return False
        self._last = now
        try:
            cb(code, params)
        except Exception:
            self.callback = None
        return True


class _Phase:
    __slots__ = ("progress", "code", "total", "unit")

    def __init__(self, progress: Progress, code: str, total: int, unit: str):
        self.progress = progress
        self.code = code
        self.total = total
        self.unit = unit

    def tick(self, done: int) -> None:
        self.progress.report(self.code, {self.unit: self.total, "done": min(done, self.total)})


class _NoPhase:
    __slots__ = ()

    def tick(self, done: int) -> None:
        pass


_NO_PHASE = _NoPhase()
NO_PROGRESS = Progress(None)
