"""The checkpoint feature's marks on the stepper's timeline: where a checkpoint re-ran its forward.

The recompute happens inside one backward step (between session steps
`step` and `step + 1`, see app/graph/recompute_frames.py), so a learner
scrubbing the timeline would not know where to look: each recomputation of
the shown run gets an amber triangle half-way between those two ticks, with
a tooltip naming the checkpoint and how many ops it re-ran, and between the
two ticks one amber sub-tick per frame of the recompute phase (the handle
walks them: RecomputePhase.fraction). Pure data from `Trace.checkpoints`
(nothing when the run had no recompute); the stepper draws every feature's
marks (app/panels/step_marks.py, declared in app/features/checkpoint.py).
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from autogradviz.app.features import StepMark
from autogradviz.app.graph.checkpoint_regions import kind_text
from autogradviz.app.graph.recompute_frames import run_frames

RECOMPUTE_COLOR = "#d08a1e"


def tr(text: str) -> str:
    return QCoreApplication.translate("RecomputeMarks", text)


def recompute_positions(trace, run_index: int) -> dict[float, list[tuple[int, object, object]]]:
    """{timeline position (step + 0.5): [(checkpoint number, checkpoint, recomputation)]}
    for every recomputation torch made during backward run `run_index`."""
    out: dict[float, list] = {}
    for number, c in enumerate(getattr(trace, "checkpoints", None) or [], 1):
        for r in c.recomputations:
            if r.run == run_index and r.step is not None:
                out.setdefault(r.step + 0.5, []).append((number, c, r))
    return out


def mark_text(number: int, checkpoint, recomputation) -> str:
    text = tr("Checkpoint {0} ({1}) re-ran its forward here: {2} op(s)").format(
        number, kind_text(checkpoint.kind), len(recomputation.ops))
    if recomputation.early_stopped:
        text += " " + tr("(stopped early: every tensor it needed was back)")
    return text


def recompute_marks(trace, run_index: int) -> list[StepMark]:
    """A triangle per recomputation of run `run_index`, and a sub-tick per
    frame of each recompute phase (the positions RecomputePhase walks)."""
    marks = [StepMark(pos, "above", mark_text(*m), RECOMPUTE_COLOR)
             for pos, found in recompute_positions(trace, run_index).items() for m in found]
    for step, frames in run_frames(trace, run_index).items():
        marks += [StepMark(step + (i + 1) / (len(frames) + 1), "tick", "", RECOMPUTE_COLOR)
                  for i in range(len(frames))]
    return marks
