"""The panel registry: every dock of the main window is one `PanelSpec`, in
`PANELS` (the core's) or in a feature's declaration (app/features/).

A new panel is a module in app/panels/ plus one line here (or its feature's `panel`). From that line the
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

from typing import Optional

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt, QT_TRANSLATE_NOOP
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QDockWidget, QMainWindow, QMenu, QWidget

from autogradviz.app.features import PanelContext, PanelSpec, feature_panels
from autogradviz.app.panels.editor import CodeEditor
from autogradviz.app.panels.inspector import InspectorPanel
from autogradviz.app.panels.lessons import LessonsPanel
from autogradviz.app.panels.output import OutputPane
from autogradviz.app.panels.stepper import StepperPanel
from autogradviz.app.session import TraceSession

# The translation context of panel titles (`QT_TRANSLATE_NOOP("Panels", ...)`).
TITLE_CONTEXT = "Panels"


PANELS: list[PanelSpec] = [
    # Default layout (canvas first): the code beside the graph; under the code one
    # tab group (lesson text, output, inspector and the panels a trace asks for);
    # the stepper a strip under the graph. Those trace panels appear as tabs
    # behind the lesson text, so a lesson's text stays readable after its run.
    PanelSpec("lessons", str(QT_TRANSLATE_NOOP("Panels", "Lessons")), lambda c: LessonsPanel(c.parent),
              Qt.DockWidgetArea.LeftDockWidgetArea, below="editor"),
    PanelSpec("editor", str(QT_TRANSLATE_NOOP("Panels", "Code")), lambda c: CodeEditor(c.parent, c.theme),
              Qt.DockWidgetArea.LeftDockWidgetArea, on_theme=CodeEditor.set_theme),
    PanelSpec("output", str(QT_TRANSLATE_NOOP("Panels", "Output")), lambda c: OutputPane(c.parent, c.theme),
              Qt.DockWidgetArea.LeftDockWidgetArea, on_theme=OutputPane.set_theme, tab_with="lessons"),
    PanelSpec("inspector", str(QT_TRANSLATE_NOOP("Panels", "Inspector")), lambda c: InspectorPanel(c.session, c.parent),
              Qt.DockWidgetArea.LeftDockWidgetArea, tab_with="lessons"),
    PanelSpec("stepper", str(QT_TRANSLATE_NOOP("Panels", "Backward steps")), lambda c: StepperPanel(c.session, c.parent),
              Qt.DockWidgetArea.BottomDockWidgetArea, on_theme=StepperPanel.set_theme, strip=True),
]


def panels() -> list[PanelSpec]:
    """Every dock a window gets: the core panels above, then each declared
    feature's (GradScaler, checkpoints, modules, memory: app/features/)."""
    return PANELS + feature_panels()


def register_panel(spec: PanelSpec) -> None:
    """Add a panel to every main window created from now on (ids are unique).
    A feature with more than a panel declares a FeatureSpec (app/features/)."""
    if any(p.id == spec.id for p in panels()):
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
        for spec in list(panels() if specs is None else specs):
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
