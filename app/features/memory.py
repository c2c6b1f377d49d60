"""Activation memory during backward, declared as one feature: the Memory
panel, shown for traces that measured it."""

from __future__ import annotations

from PySide6.QtCore import Qt, QT_TRANSLATE_NOOP

from autogradviz.app.features import FeatureSpec, PanelSpec
from autogradviz.app.panels.memory import MemoryPanel, has_backward_memory

FEATURE = FeatureSpec(
    id="memory",
    panel=PanelSpec("memory", str(QT_TRANSLATE_NOOP("Panels", "Memory")), lambda c: MemoryPanel(c.session, c.parent),
                    Qt.DockWidgetArea.LeftDockWidgetArea, on_theme=MemoryPanel.set_theme, show_when=has_backward_memory,
                    tab_with="lessons", raise_when_shown=False),
)
