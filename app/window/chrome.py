"""The main window's actions, menus and toolbar: what the user can ask for, and
under which keys.

It owns the QActions and their texts, not what they do: the window hands it one
callable per action (`handlers`), so this module never reaches into the editor,
the worker or the files. Texts are applied in `retranslate` (run again on a live
language switch) and icons in `apply_theme` (their ink follows the theme).
"""

from __future__ import annotations

from typing import Any, Callable, cast

from PySide6.QtCore import QObject, QSize, Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QComboBox, QLabel, QMainWindow, QMenu, QToolBar, QToolButton

from autogradviz.app import i18n
from autogradviz.app.resources_loader import icon

THEME_MODES = ("system", "light", "dark")

# name, icon, shortcuts. The graph view owns zoom/fit/find keys (its own
# shortcuts, active while it has focus); registering them here as well would
# make them ambiguous, so they appear as hints in the menu text only.
ACTIONS = [
    ("new", "new", [QKeySequence.StandardKey.New]),
    ("open", "open", [QKeySequence.StandardKey.Open]),
    ("save", "save", [QKeySequence.StandardKey.Save]),
    ("save_as", None, [QKeySequence.StandardKey.SaveAs]),
    ("open_trace", None, ["Ctrl+Alt+O"]),
    ("save_trace", None, ["Ctrl+Alt+S"]),
    ("export", "export", ["Ctrl+E"]),
    ("quit", None, [QKeySequence.StandardKey.Quit]),
    ("undo", None, [QKeySequence.StandardKey.Undo]),
    ("redo", None, [QKeySequence.StandardKey.Redo]),
    ("comment", None, ["Ctrl+/"]),
    ("run", "run", ["Ctrl+Return", "Ctrl+Enter"]),
    ("stop", "stop", ["Ctrl+."]),
    ("timeout", None, []),
    # Stepping keys that work wherever the focus is: none of them moves the
    # editor's cursor (a bare → would), so they are window-wide.
    ("step_next", "step-forward", ["F10"]),
    ("step_back", "step-back", ["Shift+F10"]),
    ("step_first", "step-first", ["Alt+Home", "Ctrl+Shift+F10"]),
    ("step_last", "step-last", ["Alt+End", "Ctrl+F10"]),
    ("play", "play", ["F9"]),
    ("zoom_in", "zoom-in", []),
    ("zoom_out", "zoom-out", []),
    ("zoom_fit", "zoom-fit", []),
    ("find", "search", []),
    ("show_saved", None, []),
    ("fold_repeated", None, []),
    ("left_to_right", None, []),
    ("reset_layout", None, []),
    ("presentation", None, ["F11"]),
    ("about", "app", []),
    ("shortcuts", None, ["Ctrl+F1"]),
    ("lessons_help", None, ["F1"]),
]
CHECKABLE = ("show_saved", "fold_repeated", "left_to_right", "presentation")
KEY_HINTS: dict[str, Any] = {"zoom_in": QKeySequence.StandardKey.ZoomIn, "zoom_out": QKeySequence.StandardKey.ZoomOut,
             "zoom_fit": QKeySequence("Ctrl+0"), "find": QKeySequence.StandardKey.Find}


class WindowChrome(QObject):
    """Builds actions, menus and the toolbar on `window`.

    `handlers` maps every action name (and "theme", "language", "recent") to
    what it does; "show_saved" gets the new checked state, "theme" a mode,
    "language" a code, "recent" the Open Recent menu about to be shown."""

    def __init__(self, window: QMainWindow, handlers: dict[str, Callable], theme_mode: str):
        super().__init__(window)
        self._window = window
        self.actions: dict[str, QAction] = {}
        for name, icon_name, keys in ACTIONS:
            self._action(name, icon_name, keys, handlers[name], checkable=name in CHECKABLE)
        for act in self.actions.values():
            act.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        window.addActions(list(self.actions.values()))

        self.theme_group = QActionGroup(self)
        for mode in THEME_MODES:
            act = self._action(f"theme_{mode}", None, [], lambda _=False, m=mode: handlers["theme"](m),
                               checkable=True)
            self.theme_group.addAction(act)
        self.language_group = QActionGroup(self)
        for code, native in i18n.LANGUAGES:
            act = self._action(f"lang_{code}", None, [], lambda _=False, c=code: handlers["language"](c),
                               checkable=True)
            act.setText(native)  # language names are shown in their own language
            self.language_group.addAction(act)
        self.check_theme(theme_mode)
        self.check_language(i18n.current_language())
        self._build_menus(handlers["recent"])
        self._build_toolbar()

    def _action(self, name: str, icon_name, shortcuts, slot, checkable: bool = False) -> QAction:
        action = QAction(self._window)
        action.setObjectName(name)
        if icon_name:
            action.setIcon(icon(icon_name))
            action.setProperty("iconName", icon_name)
        if shortcuts:
            action.setShortcuts([QKeySequence(s) for s in shortcuts])
        action.setCheckable(checkable)
        # checkable ones follow their checked state; every other action just runs
        (action.toggled if name in CHECKABLE else action.triggered).connect(slot)
        self.actions[name] = action
        return action

    def check_theme(self, mode: str) -> None:
        self.actions[f"theme_{mode}"].setChecked(True)

    def check_language(self, code: str) -> None:
        act = self.actions.get(f"lang_{code}")
        if act is not None:
            act.setChecked(True)

    def set_checked(self, name: str, on: bool) -> None:
        """Check or uncheck a checkable action without triggering it."""
        act = self.actions[name]
        if act.isChecked() != on:
            act.blockSignals(True)
            act.setChecked(on)
            act.blockSignals(False)

    def set_show_saved_checked(self, on: bool) -> None:
        """Mirror the session's "show saved tensors" without re-triggering it."""
        act = self.actions["show_saved"]
        if act.isChecked() != on:
            act.blockSignals(True)
            act.setChecked(on)
            act.blockSignals(False)

    # -- menus and toolbar -----------------------------------------------------
    def _build_menus(self, fill_recent: Callable[[QMenu], None]) -> None:
        mb = self._window.menuBar()
        act = self.actions
        self.file_menu = mb.addMenu("")
        for name in ("new", "open"):
            self.file_menu.addAction(act[name])
        self.recent_menu = self.file_menu.addMenu("")
        self.recent_menu.aboutToShow.connect(lambda: fill_recent(self.recent_menu))
        for name in ("save", "save_as"):
            self.file_menu.addAction(act[name])
        self.file_menu.addSeparator()
        for name in ("open_trace", "save_trace"):
            self.file_menu.addAction(act[name])
        self.file_menu.addSeparator()
        self.file_menu.addAction(act["export"])
        self.file_menu.addSeparator()
        self.file_menu.addAction(act["quit"])

        self.edit_menu = mb.addMenu("")
        for name in ("undo", "redo"):
            self.edit_menu.addAction(act[name])
        self.edit_menu.addSeparator()
        self.edit_menu.addAction(act["comment"])

        self.run_menu = mb.addMenu("")
        self.run_menu.addAction(act["run"])
        self.run_menu.addAction(act["stop"])
        self.run_menu.addSeparator()
        for name in ("step_next", "step_back", "step_first", "step_last", "play"):
            self.run_menu.addAction(act[name])
        self.run_menu.addSeparator()
        self.run_menu.addAction(act["timeout"])

        self.view_menu = mb.addMenu("")
        for name in ("zoom_in", "zoom_out", "zoom_fit", "find", "show_saved", "fold_repeated", "left_to_right"):
            self.view_menu.addAction(act[name])
        self.view_menu.addSeparator()
        self.panels_menu = self.view_menu.addMenu("")  # filled from the panel registry
        self.theme_menu = self.view_menu.addMenu("")
        self.theme_menu.setIcon(icon("theme"))
        for mode in THEME_MODES:
            self.theme_menu.addAction(act[f"theme_{mode}"])
        self.language_menu = self.view_menu.addMenu("")
        for code, _ in i18n.LANGUAGES:
            self.language_menu.addAction(act[f"lang_{code}"])
        self.view_menu.addSeparator()
        self.view_menu.addAction(act["presentation"])
        self.view_menu.addAction(act["reset_layout"])

        self.help_menu = mb.addMenu("")
        for name in ("lessons_help", "shortcuts", "about"):
            self.help_menu.addAction(act[name])

    def _build_toolbar(self) -> None:
        tb = QToolBar(self._window)
        tb.setObjectName("mainToolbar")
        tb.setMovable(False)
        tb.setIconSize(QSize(20, 20))
        tb.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.toolbar = tb
        act = self.actions
        for name in ("new", "open", "save"):
            tb.addAction(act[name])
            cast(QToolButton, tb.widgetForAction(act[name])).setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonIconOnly)
        tb.addSeparator()
        tb.addAction(act["run"])
        tb.widgetForAction(act["run"]).setObjectName("runButton")
        tb.addAction(act["stop"])
        self.device_label = QLabel(self._window)
        tb.addWidget(self.device_label)
        self.device_combo = QComboBox(self._window)
        self.device_combo.setObjectName("deviceCombo")
        self.device_combo.addItem("CPU", "cpu")
        self.device_combo.addItem("CUDA", "cuda")
        tb.addWidget(self.device_combo)
        tb.addSeparator()
        for name in ("zoom_in", "zoom_out", "zoom_fit"):
            tb.addAction(act[name])
            cast(QToolButton, tb.widgetForAction(act[name])).setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonIconOnly)
        tb.addSeparator()
        tb.addAction(act["export"])
        self._window.addToolBar(Qt.ToolBarArea.TopToolBarArea, tb)

    # -- texts and icons ---------------------------------------------------------
    def retranslate(self) -> None:
        """(Re)apply every action's text and tooltip (with its key) and the menu titles."""
        tips = {
            "new": (self.tr("&New"), self.tr("Start a new, empty script")),
            "open": (self.tr("&Open…"), self.tr("Open a Python script (it runs only when you press Run)")),
            "save": (self.tr("&Save"), self.tr("Save the script")),
            "save_as": (self.tr("Save &As…"), self.tr("Save the script under a new name")),
            "open_trace": (self.tr("Open &Trace…"), self.tr("Open a saved trace (.json) and look at it "
                                                            "again, without running anything")),
            "save_trace": (self.tr("Save T&race…"), self.tr("Save what the last run recorded as a trace "
                                                            "file (.json) to open later or elsewhere")),
            "export": (self.tr("&Export…"), self.tr("Export the graph or the backward steps as images")),
            "quit": (self.tr("&Quit"), self.tr("Close the application")),
            "undo": (self.tr("&Undo"), self.tr("Undo the last edit")),
            "redo": (self.tr("&Redo"), self.tr("Redo the last undone edit")),
            "comment": (self.tr("Toggle &Comment"), self.tr("Comment out the selected lines, or uncomment them")),
            "run": (self.tr("&Run"), self.tr("Run the script in the worker and show its autograd graph")),
            "stop": (self.tr("&Stop"), self.tr("Stop the running script")),
            "timeout": (self.tr("Run &Timeout…"), self.tr("Stop scripts that run longer than this")),
            "zoom_in": (self.tr("Zoom &In"), self.tr("Zoom into the graph")),
            "zoom_out": (self.tr("Zoom &Out"), self.tr("Zoom out of the graph")),
            "zoom_fit": (self.tr("&Fit Graph"), self.tr("Fit the whole graph into the view")),
            "find": (self.tr("&Find in Graph…"), self.tr("Search the graph by variable name or op")),
            "show_saved": (self.tr("Show &Saved Tensors"),
                           self.tr("Show what each node saved for backward, as extra boxes")),
            "fold_repeated": (self.tr("F&old Repeated Layers"),
                              self.tr("Draw identical layers (a TransformerEncoder's, ResNet blocks) once, "
                                      "marked ×N, in big graphs")),
            "left_to_right": (self.tr("&Left to Right"), self.tr("Lay the graph out from left to right "
                                                                 "(reads better for long chains)")),
            "reset_layout": (self.tr("&Reset Layout"), self.tr("Put every panel back where it started, "
                                                               "with the graph beside the code")),
            "presentation": (self.tr("&Presentation"), self.tr("For a projector: only the graph, the code and "
                                                               "the step caption, drawn larger (Esc leaves)")),
            "step_next": (self.tr("&Next Step"), self.tr("Run the next node of the backward pass")),
            "step_back": (self.tr("&Previous Step"), self.tr("Go back one step of the backward pass")),
            "step_first": (self.tr("&First Step"), self.tr("Before backward starts")),
            "step_last": (self.tr("&Last Step"), self.tr("After the whole backward pass")),
            "play": (self.tr("&Play / Pause"), self.tr("Play the backward pass step by step, or pause it")),
            "about": (self.tr("&About Autograd Visualizer"), self.tr("Version and credits")),
            "lessons_help": (self.tr("&Lessons"), self.tr("Show the starter lessons")),
            "shortcuts": (self.tr("&Keyboard Shortcuts"), self.tr("Every key the app understands")),
            "theme_system": (self.tr("Follow &System"), self.tr("Use the desktop's light or dark setting")),
            "theme_light": (self.tr("&Light"), self.tr("Light theme")),
            "theme_dark": (self.tr("&Dark"), self.tr("Dark theme")),
        }
        for name, (text, tip) in tips.items():
            action = self.actions[name]
            keys = action.shortcuts()
            if name in KEY_HINTS:
                keys = [QKeySequence(KEY_HINTS[name])]
                text += "\t" + keys[0].toString(QKeySequence.SequenceFormat.NativeText)
            action.setText(text)
            if keys:
                tip = f"{tip} ({keys[0].toString(QKeySequence.SequenceFormat.NativeText)})"
            action.setToolTip(tip)
            action.setStatusTip(tip)
        self.actions["run"].setIconText(self.tr("Run"))
        self.actions["stop"].setIconText(self.tr("Stop"))
        self.actions["export"].setIconText(self.tr("Export"))
        for menu, title in ((self.file_menu, self.tr("&File")), (self.recent_menu, self.tr("Open &Recent")),
                            (self.edit_menu, self.tr("&Edit")), (self.run_menu, self.tr("&Run")),
                            (self.view_menu, self.tr("&View")), (self.panels_menu, self.tr("&Panels")),
                            (self.theme_menu, self.tr("&Theme")), (self.language_menu, self.tr("&Language")),
                            (self.help_menu, self.tr("&Help"))):
            menu.setTitle(title)
        self.toolbar.setWindowTitle(self.tr("Toolbar"))
        self.device_label.setText(" " + self.tr("Device:") + " ")

    def apply_theme(self, name: str) -> None:
        """Reload the icons in the theme's ink."""
        for act in self.actions.values():
            icon_name = act.property("iconName")
            if icon_name:
                act.setIcon(icon(icon_name, name))
        self.theme_menu.setIcon(icon("theme", name))
