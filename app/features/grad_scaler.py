"""GradScaler (mixed precision), declared as one feature: its panel, shown
for traces in which the script used a GradScaler."""

from __future__ import annotations

from PySide6.QtCore import Qt, QT_TRANSLATE_NOOP

from autogradviz.app.features import FeatureSpec, PanelSpec
from autogradviz.app.panels.grad_scaler import GradScalerPanel


def has_scaler_events(trace) -> bool:
    return bool(getattr(trace, "scaler_events", None))


FEATURE = FeatureSpec(
    id="gradScaler",
    panel=PanelSpec("gradScaler", str(QT_TRANSLATE_NOOP("Panels", "GradScaler")),
                    lambda c: GradScalerPanel(c.session, c.parent), Qt.DockWidgetArea.LeftDockWidgetArea,
                    on_theme=GradScalerPanel.set_theme, show_when=has_scaler_events, tab_with="lessons",
                    raise_when_shown=False),
)
