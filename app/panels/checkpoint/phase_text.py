"""What the stepper says during a checkpoint recompute phase.

The stepper (app/panels/stepper.py) shows one line per step; during the
frames of a recomputation (recompute_phase.py) this module replaces that line
with what torch is doing inside the step: which node needs the activations
the checkpoint did not store, which op of the segment is re-running, where
an early stop cut the re-run short, the nested backward of a reentrant
checkpoint, and whether the re-run's Dropout mask matches the forward's.
One hook in the stepper (`attach`), so the stepper stays about steps; it also
moves the timeline's handle through the phase's sub-ticks (RecomputePhase.fraction).
"""

from __future__ import annotations

import html

from PySide6.QtCore import QCoreApplication

from autogradviz.app.graph.checkpoint_regions import kind_text


def tr(text: str) -> str:
    return QCoreApplication.translate("RecomputePhase", text)


def phase_text(session, frame) -> str:
    """The stepper's rich-text line for a PhaseFrame."""
    n = session.step_count
    node = session.node(frame.trigger) if frame.trigger else None
    who = html.escape(node.label or node.op) if node is not None else tr("a node")
    where = kind_text(frame.kind) + (f" · {html.escape(frame.function)}" if frame.function else "")
    head = tr("<b>Step {0} of {1} · recomputing checkpoint {2}</b> ({3}): ").format(
        frame.step + 1, n, frame.number, where)
    phase = frame.phase
    if phase == "trigger":
        body = tr("{0} needs activations the checkpoint did not store, so torch runs the segment's "
                  "forward again ({1} ops).").format(who, len(frame.ops))
    elif phase == "rerun":
        body = tr("re-running op {0} of {1}: <code>{2}</code>.").format(
            frame.op_index, len(frame.ops), html.escape(frame.current_op or ""))
    elif phase == "stopped":
        body = tr("stopped early after {0} of the forward's {1} ops: every tensor the segment "
                  "needed was recovered.").format(len(frame.ops), len(frame.forward_ops))
    else:
        op = frame.inner_ops[frame.inner_index - 1] if frame.inner_ops else ""
        body = tr("nested backward through the recomputed nodes, step {0} of {1}: {2} ran.").format(
            frame.inner_index, len(frame.inner_nodes), html.escape(op))
    if frame.masks_equal is False:
        body += " " + tr("<b>The re-run drew a different Dropout mask</b> (preserve_rng_state=False): "
                         "the gradient no longer matches the forward.")
    return head + body


def attach(stepper) -> None:
    """Show `phase_text` in the stepper's step line while a phase runs."""
    session = stepper.session

    def show(frame) -> None:
        if frame is None:
            stepper.timeline.set_sub(0.0)
            stepper._on_step(session.step)
            return
        # the slider's handle walks the phase's sub-ticks (recompute_marks.py)
        stepper.timeline.set_sub(session.recompute.fraction())
        stepper.step_label.setText(phase_text(session, frame))
        stepper.back_btn.setEnabled(True)
        stepper.first_btn.setEnabled(True)
        stepper.forward_btn.setEnabled(True)

    session.recompute.changed.connect(show)
