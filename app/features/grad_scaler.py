"""GradScaler (mixed precision), declared as one feature: its panel, shown
for traces in which the script used a GradScaler."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt, QT_TRANSLATE_NOOP

from autogradviz.app.features import FeatureSpec, PanelSpec
from autogradviz.app.graph.items import summary_text, unscaled_summary
from autogradviz.app.services.text_safety import escaped


def tr(text: str) -> str:
    # (the stepper's words before this moved here: same context, same translations)
    return QCoreApplication.translate("StepperPanel", text)


def has_scaler_events(trace) -> bool:
    return bool(getattr(trace, "scaler_events", None))


def real_gradient_caption(session, node_step) -> str:
    """" (GradScaler: 1024 × the real gradient …)" when the run's gradients
    carry the scaler's factor (the stepper's line about the current node)."""
    scale = session.run_scale()
    if not scale or not node_step.grad_outputs or node_step.grad_outputs[0] is None:
        return ""
    real = unscaled_summary(node_step.grad_outputs[0], scale)
    return tr(" (GradScaler: {0} × the real gradient {1})").format(f"{scale:g}", escaped(summary_text(real)))


def make_panel(context):
    """The panel, imported only when a window makes its dock: it draws its
    chart with pyqtgraph (~0.5 s to import), which a CLI export or a scene
    without the window must not pay for."""
    from autogradviz.app.panels.grad_scaler import GradScalerPanel

    return GradScalerPanel(context.session, context.parent)


def set_panel_theme(panel, name: str) -> None:
    panel.set_theme(name)


FEATURE = FeatureSpec(
    id="gradScaler",
    panel=PanelSpec("gradScaler", str(QT_TRANSLATE_NOOP("Panels", "GradScaler")),
                    make_panel, Qt.DockWidgetArea.LeftDockWidgetArea,
                    on_theme=set_panel_theme, show_when=has_scaler_events, tab_with="lessons",
                    raise_when_shown=False),
    step_caption=real_gradient_caption,
)
