"""Activation memory during backward, declared as one feature: the Memory
panel, shown for traces that measured it."""

from __future__ import annotations

from PySide6.QtCore import Qt, QT_TRANSLATE_NOOP

from autogradviz.app.features import FeatureSpec, PanelSpec


def has_backward_memory(trace) -> bool:
    """The dock is shown for traces with a recorded backward run."""
    mem = getattr(trace, "memory", None)
    return mem is not None and bool(mem.runs)


def make_panel(context):
    """The panel, imported only when a window makes its dock: its charts use
    pyqtgraph (~0.5 s to import), which a CLI export must not pay for."""
    from autogradviz.app.panels.memory import MemoryPanel

    return MemoryPanel(context.session, context.parent)


def set_panel_theme(panel, name: str) -> None:
    panel.set_theme(name)


FEATURE = FeatureSpec(
    id="memory",
    panel=PanelSpec("memory", str(QT_TRANSLATE_NOOP("Panels", "Memory")), make_panel,
                    Qt.DockWidgetArea.LeftDockWidgetArea, on_theme=set_panel_theme, show_when=has_backward_memory,
                    tab_with="lessons", raise_when_shown=False),
)
