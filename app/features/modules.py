"""The script's nn.Module tree, declared as one feature: the Modules panel,
shown for traces that recorded modules."""

from __future__ import annotations

from PySide6.QtCore import Qt, QT_TRANSLATE_NOOP

from autogradviz.app.features import FeatureSpec, PanelSpec
from autogradviz.app.panels.modules import ModulesPanel

FEATURE = FeatureSpec(
    id="modules",
    panel=PanelSpec("modules", str(QT_TRANSLATE_NOOP("Panels", "Modules")), lambda c: ModulesPanel(c.session, c.parent),
                    Qt.DockWidgetArea.LeftDockWidgetArea, show_when=lambda t: bool(getattr(t, "modules", None)), tab_with="lessons",
                    raise_when_shown=False),
)
