"""Gradient checkpointing, declared as one feature: the Checkpoints panel,
the regions drawn over the graph (app/graph/checkpoint_regions.py), the
recompute phase the stepper walks between two steps (its frames, its marks
and its step text) and the Output pane's lines for the checkpoint notes."""

from __future__ import annotations

from typing import Any, Mapping, Optional

from PySide6.QtCore import QCoreApplication, Qt, QT_TRANSLATE_NOOP

from autogradviz.app.features import FeatureSpec, PanelSpec
from autogradviz.app.graph.checkpoint_regions import CheckpointOverlay
from autogradviz.app.panels.checkpoint import CheckpointPanel
from autogradviz.app.panels.checkpoint.phase_text import attach as attach_phase_text
from autogradviz.app.panels.checkpoint.recompute_marks import recompute_marks
from autogradviz.app.panels.checkpoint.recompute_phase import RecomputePhase


def tr(text: str) -> str:
    # (the Output pane's notes were the run controller's: same context, same translations)
    return QCoreApplication.translate("RunController", text)


def _connect_overlay(overlay: CheckpointOverlay, session) -> None:
    """The regions light the recompute phase's frame; a reentrant region's
    tab expands its inner graph."""
    session.part("checkpoint").changed.connect(overlay.show_frame)
    overlay.on_toggle = lambda cid: session.set_checkpoint_expanded(cid, cid not in session.expanded_checkpoints)


def _line(params: Mapping[str, Any]) -> str:
    line = params.get("line")
    return tr(" (line {0})").format(line) if isinstance(line, int) else ""


def _warning(params: Mapping[str, Any]) -> str:
    return tr("Warning{where}: ").format(where=_line(params))


def _use_reentrant_missing(params: Mapping[str, Any]) -> str:
    return _warning(params) + tr(
        "torch says \"the use_reentrant parameter should be passed explicitly\": checkpoint was "
        "called without use_reentrant. It then uses the reentrant variant (today's "
        "default; torch plans to make leaving it out an error). Pass "
        "use_reentrant=False explicitly: the recommended variant, which accepts keyword arguments "
        "and outputs of any structure and works when no input requires grad; pass "
        "use_reentrant=True only to keep the old behaviour on purpose.")


def _no_input_requires_grad(params: Mapping[str, Any]) -> str:
    return _warning(params) + tr(
        "torch says \"None of the inputs have requires_grad=True. Gradients will be None\": a "
        "reentrant checkpoint (use_reentrant=True, or not given) was called with no input that "
        "requires grad. It runs the function under no_grad and its result only gets a gradient "
        "through its tensor inputs, so nothing inside the segment - not even the parameters of a "
        "checkpointed module - gets a gradient from it: their .grad stays None. Make an input "
        "require grad (x.requires_grad_() on the first input), or use use_reentrant=False, which "
        "records the segment normally.")


def _output_loses_grad(params: Mapping[str, Any]) -> Optional[str]:
    if not isinstance(params.get("output_type"), str):
        return None
    return tr(
        "Checkpoint{where}: the reentrant checkpoint returned a {type} whose tensors do not require "
        "grad, although an input did: whatever gradient they should carry is lost, silently. Reentrant "
        "checkpoint (use_reentrant=True, or not given) runs the function under no_grad and connects to "
        "the graph only the tensors it returns directly (a tensor, or the elements of a tuple); tensors "
        "inside a dict, a list or another object come back detached, so backward never reaches the "
        "segment's inputs and parameters. Return a tensor or a tuple of tensors, or pass "
        "use_reentrant=False, which keeps the gradient in any output structure.").format(
        where=_line(params), type=params["output_type"])


def _not_read(params: Mapping[str, Any]) -> Optional[str]:
    n = params.get("nodes")
    if not isinstance(n, int) or isinstance(n, bool) or not n:
        return None
    return tr("{n} node(s) inside non-reentrant checkpoint segments: their saved tensors were "
              "not read (reading them re-runs the checkpointed forward).").format(n=f"{n:,}")


FEATURE = FeatureSpec(
    id="checkpoint",
    panel=PanelSpec("checkpoint", str(QT_TRANSLATE_NOOP("Panels", "Checkpoints")),
                    lambda c: CheckpointPanel(c.session, c.parent), Qt.DockWidgetArea.LeftDockWidgetArea,
                    on_theme=CheckpointPanel.set_theme, show_when=lambda t: bool(getattr(t, "checkpoints", None)),
                    tab_with="lessons", raise_when_shown=False),
    overlay=CheckpointOverlay,
    connect_overlay=_connect_overlay,
    step_phase=RecomputePhase,
    stepper_marks=recompute_marks,
    stepper_attach=attach_phase_text,
    note_texts={
        "checkpoint_use_reentrant_missing": _use_reentrant_missing,
        "checkpoint_no_input_requires_grad": _no_input_requires_grad,
        "checkpoint_output_loses_grad": _output_loses_grad,
        "checkpoint_not_read": _not_read,
    },
)
