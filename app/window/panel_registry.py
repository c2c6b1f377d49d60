"""The panel registry: every dock of the main window is one `PanelSpec` in `PANELS`.

A new panel is a module in app/panels/ plus one line here. From that line the
window gets the dock (placed in its default area, persisted by its object name
`<id>Dock`), its entry in View ▸ Panels, its title in the UI language (the dock
retitles itself on LanguageChange) and its theme (the spec's `on_theme` is
called on every theme change). The main window never lists its panels by hand,
so adding one cannot miss a menu, a retranslation or a theme switch.

A panel's own texts are its business: it handles LanguageChange in its
`changeEvent`, as every Qt widget can. Panels that show the trace take the
`TraceSession` from the context and subscribe to it; they never talk to each
other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt, QT_TRANSLATE_NOOP
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QDockWidget, QMainWindow, QMenu, QWidget

from autogradviz.app.panels.checkpoint import CheckpointPanel
from autogradviz.app.panels.editor import CodeEditor
from autogradviz.app.panels.grad_scaler import GradScalerPanel
from autogradviz.app.panels.inspector import InspectorPanel
from autogradviz.app.panels.lessons import LessonsPanel
from autogradviz.app.panels.modules import ModulesPanel
from autogradviz.app.panels.memory import MemoryPanel, has_backward_memory
from autogradviz.app.panels.output import OutputPane
from autogradviz.app.panels.stepper import StepperPanel
from autogradviz.app.session import TraceSession

# The translation context of panel titles (`QT_TRANSLATE_NOOP("Panels", ...)`).
TITLE_CONTEXT = "Panels"


@dataclass(frozen=True)
class PanelContext:
    """What a panel factory may use: the shared session, the theme the window
    starts in, and the window (the panel's parent)."""

    session: TraceSession
    theme: str
    parent: QWidget


@dataclass(frozen=True)
class PanelSpec:
    """One dock. `title` is English source text in the "Panels" context (write it
    as `QT_TRANSLATE_NOOP("Panels", "…")` so that lupdate finds it); `on_theme`
    is called as `on_theme(widget, "light" | "dark")`; `shortcut` toggles the
    dock; `width` / `height` are its default size in pixels."""

    id: str
    title: str
    factory: Callable[[PanelContext], QWidget]
    area: Qt.DockWidgetArea
    on_theme: Optional[Callable[[QWidget, str], None]] = None
    shortcut: Optional[str] = None
    width: Optional[int] = None
    height: Optional[int] = None
    # For panels that only make sense for some traces: called with each new
    # trace (or None); the dock is shown when it returns True and hidden when
    # False. None: the dock's visibility is the user's alone.
    show_when: Optional[Callable[[object], bool]] = None
    # Share the place of this panel (a tab beside it) instead of splitting it.
    tab_with: Optional[str] = None
    # When show_when shows the dock, bring it in front of the panels it shares
    # a place with (False: it appears as a tab behind them).
    raise_when_shown: bool = True
    # Split the place of this panel and go under it (the lesson tabs under the code).
    below: Optional[str] = None
    # A thin strip (the stepper under the graph): no title bar, so the strip
    # costs the graph no title-row height.
    strip: bool = False


def _has_scaler_events(trace) -> bool:
    return bool(getattr(trace, "scaler_events", None))


PANELS: list[PanelSpec] = [
    # Default layout (canvas first): the code beside the graph; under the code one
    # tab group (lesson text, output, inspector and the panels a trace asks for);
    # the stepper a strip under the graph. Those trace panels appear as tabs
    # behind the lesson text, so a lesson's text stays readable after its run.
    PanelSpec("lessons", QT_TRANSLATE_NOOP("Panels", "Lessons"), lambda c: LessonsPanel(c.parent),
              Qt.DockWidgetArea.LeftDockWidgetArea, below="editor"),
    PanelSpec("editor", QT_TRANSLATE_NOOP("Panels", "Code"), lambda c: CodeEditor(c.parent, c.theme),
              Qt.DockWidgetArea.LeftDockWidgetArea, on_theme=CodeEditor.set_theme),
    PanelSpec("output", QT_TRANSLATE_NOOP("Panels", "Output"), lambda c: OutputPane(c.parent, c.theme),
              Qt.DockWidgetArea.LeftDockWidgetArea, on_theme=OutputPane.set_theme, tab_with="lessons"),
    PanelSpec("inspector", QT_TRANSLATE_NOOP("Panels", "Inspector"), lambda c: InspectorPanel(c.session, c.parent),
              Qt.DockWidgetArea.LeftDockWidgetArea, tab_with="lessons"),
    PanelSpec("stepper", QT_TRANSLATE_NOOP("Panels", "Backward steps"), lambda c: StepperPanel(c.session, c.parent),
              Qt.DockWidgetArea.BottomDockWidgetArea, on_theme=StepperPanel.set_theme, strip=True),
    PanelSpec("gradScaler", QT_TRANSLATE_NOOP("Panels", "GradScaler"),
              lambda c: GradScalerPanel(c.session, c.parent), Qt.DockWidgetArea.LeftDockWidgetArea,
              on_theme=GradScalerPanel.set_theme, show_when=_has_scaler_events, tab_with="lessons",
              raise_when_shown=False),
    PanelSpec("checkpoint", QT_TRANSLATE_NOOP("Panels", "Checkpoints"), lambda c: CheckpointPanel(c.session, c.parent),
              Qt.DockWidgetArea.LeftDockWidgetArea, on_theme=CheckpointPanel.set_theme,
              show_when=lambda t: bool(getattr(t, "checkpoints", None)), tab_with="lessons",
              raise_when_shown=False),
    PanelSpec("modules", QT_TRANSLATE_NOOP("Panels", "Modules"), lambda c: ModulesPanel(c.session, c.parent),
              Qt.DockWidgetArea.LeftDockWidgetArea, show_when=lambda t: bool(getattr(t, "modules", None)), tab_with="lessons",
              raise_when_shown=False),
    PanelSpec("memory", QT_TRANSLATE_NOOP("Panels", "Memory"), lambda c: MemoryPanel(c.session, c.parent),
              Qt.DockWidgetArea.LeftDockWidgetArea, on_theme=MemoryPanel.set_theme, show_when=has_backward_memory,
              tab_with="lessons", raise_when_shown=False),
]


def register_panel(spec: PanelSpec) -> None:
    """Add a panel to every main window created from now on (ids are unique)."""
    if any(p.id == spec.id for p in PANELS):
        raise ValueError(f"a panel with id {spec.id!r} is already registered")
    PANELS.append(spec)


def unregister_panel(panel_id: str) -> None:
    """Remove a registered panel (windows already built keep their dock)."""
    PANELS[:] = [p for p in PANELS if p.id != panel_id]


class PanelDock(QDockWidget):
    """A dock that knows its spec, so that it retitles itself on a language switch."""

    def __init__(self, spec: PanelSpec, widget: QWidget, parent: QMainWindow):
        super().__init__(parent)
        self.spec = spec
        self.setObjectName(f"{spec.id}Dock")
        self.setWidget(widget)
        self.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetClosable | QDockWidget.DockWidgetFeature.DockWidgetMovable
                         | QDockWidget.DockWidgetFeature.DockWidgetFloatable)
        if spec.strip:
            self.setTitleBarWidget(QWidget(self))  # no title row: View ▸ Panels shows or hides it
        if spec.shortcut:
            self.toggleViewAction().setShortcut(QKeySequence(spec.shortcut))
        self.retranslate()

    def retranslate(self) -> None:
        self.setWindowTitle(QCoreApplication.translate(TITLE_CONTEXT, self.spec.title))

    def changeEvent(self, event) -> None:  # noqa: N802
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)


class PanelDocks(QObject):
    """The docks built from the registry for one window; re-themes them when the
    theme manager says so."""

    def __init__(self, window: QMainWindow, session: TraceSession, theme_manager,
                 specs: Optional[list[PanelSpec]] = None):
        super().__init__(window)
        self._window = window
        self._docks: dict[str, PanelDock] = {}
        window.setCorner(Qt.Corner.BottomLeftCorner, Qt.DockWidgetArea.LeftDockWidgetArea)
        window.setCorner(Qt.Corner.TopLeftCorner, Qt.DockWidgetArea.LeftDockWidgetArea)
        window.setCorner(Qt.Corner.BottomRightCorner, Qt.DockWidgetArea.BottomDockWidgetArea)
        window.setDockNestingEnabled(True)
        context = PanelContext(session=session, theme=theme_manager.effective, parent=window)
        for spec in list(PANELS if specs is None else specs):
            dock = PanelDock(spec, spec.factory(context), window)
            window.addDockWidget(spec.area, dock)
            self._docks[spec.id] = dock
        self.arrange()
        theme_manager.themeChanged.connect(self.apply_theme)
        self.apply_theme(context.theme)
        self._session = session
        session.traceChanged.connect(self.show_for_trace)
        self.show_for_trace()

    def arrange(self) -> None:
        """Put every dock in its default place (first build, Reset Layout):
        `below` splits, `tab_with` tabs; sizes are the window's business
        (`MainWindow.apply_default_sizes`), as they follow its size."""
        window = self._window
        for dock in self._docks.values():
            above = self._docks.get(dock.spec.below or "")
            if above is not None and dock.spec.area == above.spec.area:
                window.splitDockWidget(above, dock, Qt.Orientation.Vertical)
        for dock in self._docks.values():
            first = self._docks.get(dock.spec.tab_with or "")
            if first is not None:
                window.tabifyDockWidget(first, dock)
        for dock in self._docks.values():
            if dock.spec.tab_with is None and dock.spec.below is not None:
                dock.raise_()  # the first tab of its group in front (the lesson text)

    def show_for_trace(self) -> None:
        """Show or hide the docks whose spec has `show_when`, for the session's trace."""
        trace = self._session.trace
        for dock in self._docks.values():
            if dock.spec.show_when is None:
                continue
            wanted = bool(dock.spec.show_when(trace)) if trace is not None else False
            if wanted == dock.isHidden():  # (isHidden: hidden on purpose, also before the window shows)
                dock.setVisible(wanted)
                if wanted and dock.spec.raise_when_shown:
                    dock.raise_()  # it just appeared: in front of the panels it shares a place with

    def ids(self) -> list[str]:
        return list(self._docks)

    def dock(self, panel_id: str) -> PanelDock:
        return self._docks[panel_id]

    def widget(self, panel_id: str) -> QWidget:
        return self._docks[panel_id].widget()

    def fill_menu(self, menu: QMenu) -> None:
        """One checkable entry per panel (its text follows the dock's title)."""
        for dock in self._docks.values():
            menu.addAction(dock.toggleViewAction())

    def apply_theme(self, name: str) -> None:
        for dock in self._docks.values():
            if dock.spec.on_theme is not None:
                dock.spec.on_theme(dock.widget(), name)

    def show_all(self) -> None:
        """Every panel visible and docked (Reset Panel Layout)."""
        for dock in self._docks.values():
            dock.show()
            dock.setFloating(False)
        self.show_for_trace()
