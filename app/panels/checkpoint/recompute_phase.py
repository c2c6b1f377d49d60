"""The stepper's recompute phase: frames between two backward steps.

The session moves an index through a run's recorded steps. A checkpoint
recomputation happens *inside* one of them (app/graph/recompute_frames.py), so
it gets positions of its own between session step `s` (the trigger has not
run) and `s + 1`: `RecomputePhase.frame` is the PhaseFrame shown now, or None
between phases. The stepper asks `forward()` / `back()` first (Right/Left,
Play); they return False when the move is an ordinary step, which the
stepper then makes. Any other change of the session's step (scrubbing the
timeline, Home/End, a click in a panel) leaves the phase. Pure replay: every
frame is read from the trace, nothing is re-run.

The session owns one phase (`TraceSession.recompute`); the graph view lights
the region of `frame` and the stepper says what happens in it.
"""

from __future__ import annotations

from typing import Optional

from PySide6.QtCore import QObject, Signal

from autogradviz.app.graph.recompute_frames import PhaseFrame, run_frames


class RecomputePhase(QObject):
    changed = Signal(object)  # the PhaseFrame shown now, or None

    def __init__(self, session):
        super().__init__(session)
        self.session = session
        self._frames: dict[int, list[PhaseFrame]] = {}
        self._pos: Optional[int] = None  # index into the frames of the session's step
        self._moving = False
        session.traceChanged.connect(self._reload)
        session.runChanged.connect(lambda _i: self._reload())
        session.stepChanged.connect(self._on_step)
        self._reload()

    # -- what is shown -------------------------------------------------------------------------
    @property
    def frame(self) -> Optional[PhaseFrame]:
        if self._pos is None:
            return None
        frames = self._frames.get(self.session.step, ())
        return frames[self._pos] if self._pos < len(frames) else None

    def fraction(self) -> float:
        """Where the frame shown sits between its step's tick and the next
        one (0: no phase): the timeline's handle and sub-ticks use it."""
        frames = self._frames.get(self.session.step, ())
        if self._pos is None or not frames:
            return 0.0
        return (self._pos + 1) / (len(frames) + 1)

    def frames_at(self, step: int) -> list[PhaseFrame]:
        """The frames between session step `step` and `step + 1`."""
        return list(self._frames.get(step, ()))

    def phase_steps(self) -> list[int]:
        """Session steps followed by a recompute phase (for the timeline)."""
        return sorted(self._frames)

    # -- moving ----------------------------------------------------------------------------------
    def forward(self) -> bool:
        """One position on; False: an ordinary step is next (no phase here)."""
        frames = self._frames.get(self.session.step, ())
        if not frames or (self._pos is not None and self._pos >= len(frames) - 1):
            if self._pos is None:
                return False
            self._leave_to(self.session.step + 1)  # the trigger's step completes
            return True
        self._pos = 0 if self._pos is None else self._pos + 1
        self.changed.emit(self.frame)
        return True

    def back(self) -> bool:
        """One position back; False: an ordinary step back is next."""
        if self._pos is not None:
            if self._pos == 0:
                self._pos = None
            else:
                self._pos -= 1
            self.changed.emit(self.frame)
            return True
        prev = self.session.step - 1
        frames = self._frames.get(prev, ())
        if prev < 0 or not frames:
            return False
        self._moving = True
        try:
            self.session.set_step(prev)
        finally:
            self._moving = False
        self._pos = len(frames) - 1
        self.changed.emit(self.frame)
        return True

    def enter(self, step: int, index: int = 0) -> None:
        """Show frame `index` of the phase after session step `step`."""
        frames = self._frames.get(step, ())
        if not frames:
            return
        self._moving = True
        try:
            self.session.set_step(step)
        finally:
            self._moving = False
        self._pos = max(0, min(index, len(frames) - 1))
        self.changed.emit(self.frame)

    def _leave_to(self, step: int) -> None:
        self._pos = None
        self._moving = True
        try:
            self.session.set_step(step)
        finally:
            self._moving = False
        self.changed.emit(None)

    # -- session ---------------------------------------------------------------------------------
    def _reload(self) -> None:
        s = self.session
        self._frames = run_frames(s.trace, s.run_index) if s.trace is not None and s.run_index >= 0 else {}
        if self._pos is not None:
            self._pos = None
            self.changed.emit(None)

    def _on_step(self, _k: int) -> None:
        if not self._moving and self._pos is not None:
            self._pos = None
            self.changed.emit(None)
