"""Builds the main window's chrome: central graph view, docks, actions, menus,
toolbar and status bar.

A mixin of `MainWindow` so that main_window.py stays about behaviour. No text is
set here: every visible string is applied in `MainWindow.retranslate`, which
runs again on a live language switch.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QComboBox, QDockWidget, QLabel, QProgressBar, QToolBar, QWidget

from autogradviz.app import i18n
from autogradviz.app.panels.editor import CodeEditor
from autogradviz.app.panels.lessons import LessonsPanel
from autogradviz.app.panels.output import OutputPane
from autogradviz.app.resources_loader import icon
from autogradviz.app.graph.view import GraphView
from autogradviz.app.panels.inspector import InspectorPanel
from autogradviz.app.panels.stepper import StepperPanel


class WindowChromeMixin:
    """`_build_*` methods, called once from `MainWindow.__init__`."""

    def _build_central(self) -> None:
        self.graph_view = GraphView(self.session, self)
        self.graph_view.setObjectName("graphView")
        self.setCentralWidget(self.graph_view)

    def _dock(self, name: str, widget: QWidget, area) -> QDockWidget:
        dock = QDockWidget(self)
        dock.setObjectName(name)
        dock.setWidget(widget)
        dock.setFeatures(QDockWidget.DockWidgetClosable | QDockWidget.DockWidgetMovable
                         | QDockWidget.DockWidgetFloatable)
        self.addDockWidget(area, dock)
        return dock

    def _build_docks(self) -> None:
        self.setCorner(Qt.BottomLeftCorner, Qt.LeftDockWidgetArea)
        self.setCorner(Qt.TopLeftCorner, Qt.LeftDockWidgetArea)
        self.setCorner(Qt.BottomRightCorner, Qt.BottomDockWidgetArea)
        self.setDockNestingEnabled(True)

        self.lessons_panel = LessonsPanel(self)
        self.lessons_panel.lessonActivated.connect(lambda lesson: self.open_lesson(lesson, run=True))
        self.editor = CodeEditor(self, self.theme_manager.effective)
        self.output = OutputPane(self, self.theme_manager.effective)
        self.output.lineActivated.connect(self._go_to_line)
        self.inspector = InspectorPanel(self.session, self)
        self.stepper = StepperPanel(self.session, self)
        # Left/Right/Space/Home/End step the backward pass while the graph has focus.
        self.stepper.install_shortcuts(self.graph_view)

        self.lessons_dock = self._dock("lessonsDock", self.lessons_panel, Qt.LeftDockWidgetArea)
        self.editor_dock = self._dock("editorDock", self.editor, Qt.LeftDockWidgetArea)
        self.output_dock = self._dock("outputDock", self.output, Qt.LeftDockWidgetArea)
        self.inspector_dock = self._dock("inspectorDock", self.inspector, Qt.RightDockWidgetArea)
        self.stepper_dock = self._dock("stepperDock", self.stepper, Qt.BottomDockWidgetArea)
        self.resizeDocks([self.lessons_dock, self.editor_dock, self.output_dock], [270, 420, 170], Qt.Vertical)
        self.resizeDocks([self.editor_dock, self.inspector_dock], [540, 290], Qt.Horizontal)
        self.resizeDocks([self.stepper_dock], [190], Qt.Vertical)

    def _action(self, name: str, icon_name: str | None = None, shortcuts=(), slot=None,
                checkable: bool = False) -> QAction:
        action = QAction(self)
        action.setObjectName(name)
        if icon_name:
            action.setIcon(icon(icon_name))
            action.setProperty("iconName", icon_name)
        if shortcuts:
            action.setShortcuts([QKeySequence(s) for s in shortcuts])
        if checkable:
            action.setCheckable(True)
        if slot is not None:
            action.triggered.connect(slot)
        self.actions[name] = action
        return action

    def _build_actions(self) -> None:
        self.actions: dict[str, QAction] = {}
        a = self._action
        a("new", "new", [QKeySequence.New], self.new_file)
        a("open", "open", [QKeySequence.Open], self.open_file_dialog)
        a("save", "save", [QKeySequence.Save], self.save)
        a("save_as", None, [QKeySequence.SaveAs], self.save_as)
        a("export", "export", ["Ctrl+E"], self.export)
        a("quit", None, [QKeySequence.Quit], self.close)
        a("undo", None, [QKeySequence.Undo], self.editor.undo)
        a("redo", None, [QKeySequence.Redo], self.editor.redo)
        a("comment", None, ["Ctrl+/"], lambda: self.editor.toggle_comment())
        self.editor.undoAvailable.connect(self.actions["undo"].setEnabled)
        self.editor.redoAvailable.connect(self.actions["redo"].setEnabled)
        self.actions["undo"].setEnabled(False)
        self.actions["redo"].setEnabled(False)
        a("run", "run", ["Ctrl+Return", "Ctrl+Enter"], self.run_script)
        a("stop", "stop", ["Ctrl+."], self.stop_script)
        a("timeout", None, [], self._ask_timeout)
        # The graph view owns these keys (its own shortcuts, active while it has focus);
        # registering them here as well would make them ambiguous, so they are hints only.
        a("zoom_in", "zoom-in", [], lambda: self._graph_call("zoom_in"))
        a("zoom_out", "zoom-out", [], lambda: self._graph_call("zoom_out"))
        a("zoom_fit", "zoom-fit", [], lambda: self._graph_call("fit"))
        a("find", "search", [], lambda: self._graph_call("show_search"))
        a("show_saved", None, [], None, checkable=True)
        self.actions["show_saved"].toggled.connect(self._set_show_saved)
        a("reset_layout", None, [], self.reset_layout)
        a("about", "app", [], self.about)
        a("shortcuts", None, ["Ctrl+F1"], self.show_shortcuts)
        a("lessons_help", None, ["F1"], self._show_lessons)
        for act in self.actions.values():
            act.setShortcutContext(Qt.WindowShortcut)
        self.addActions(list(self.actions.values()))

        self.theme_group = QActionGroup(self)
        for mode in ("system", "light", "dark"):
            act = a(f"theme_{mode}", None, [], lambda _=False, m=mode: self.set_theme_mode(m), checkable=True)
            self.theme_group.addAction(act)
        self.actions[f"theme_{self.theme_manager.mode}"].setChecked(True)
        self.language_group = QActionGroup(self)
        for code, native in i18n.LANGUAGES:
            act = a(f"lang_{code}", None, [], lambda _=False, c=code: self.set_language(c), checkable=True)
            act.setText(native)  # language names are shown in their own language
            self.language_group.addAction(act)
        current = f"lang_{i18n.current_language()}"
        if current in self.actions:
            self.actions[current].setChecked(True)

    def _build_menus(self) -> None:
        mb = self.menuBar()
        act = self.actions
        self.file_menu = mb.addMenu("")
        for name in ("new", "open"):
            self.file_menu.addAction(act[name])
        self.recent_menu = self.file_menu.addMenu("")
        self.recent_menu.aboutToShow.connect(self._fill_recent_menu)
        for name in ("save", "save_as"):
            self.file_menu.addAction(act[name])
        self.file_menu.addSeparator()
        self.file_menu.addAction(act["export"])
        self.file_menu.addSeparator()
        self.file_menu.addAction(act["quit"])

        self.edit_menu = mb.addMenu("")
        self.edit_menu.addAction(act["undo"])
        self.edit_menu.addAction(act["redo"])
        self.edit_menu.addSeparator()
        self.edit_menu.addAction(act["comment"])

        self.run_menu = mb.addMenu("")
        self.run_menu.addAction(act["run"])
        self.run_menu.addAction(act["stop"])
        self.run_menu.addSeparator()
        self.run_menu.addAction(act["timeout"])

        self.view_menu = mb.addMenu("")
        for name in ("zoom_in", "zoom_out", "zoom_fit", "find", "show_saved"):
            self.view_menu.addAction(act[name])
        self.view_menu.addSeparator()
        self.panels_menu = self.view_menu.addMenu("")
        self.theme_menu = self.view_menu.addMenu("")
        self.theme_menu.setIcon(icon("theme"))
        for mode in ("system", "light", "dark"):
            self.theme_menu.addAction(act[f"theme_{mode}"])
        self.language_menu = self.view_menu.addMenu("")
        for code, _ in i18n.LANGUAGES:
            self.language_menu.addAction(act[f"lang_{code}"])
        self.view_menu.addSeparator()
        self.view_menu.addAction(act["reset_layout"])

        self.help_menu = mb.addMenu("")
        self.help_menu.addAction(act["lessons_help"])
        self.help_menu.addAction(act["shortcuts"])
        self.help_menu.addAction(act["about"])

    def _build_toolbar(self) -> None:
        tb = QToolBar(self)
        tb.setObjectName("mainToolbar")
        tb.setMovable(False)
        tb.setIconSize(QSize(20, 20))
        tb.setToolButtonStyle(Qt.ToolButtonTextBesideIcon)
        self.toolbar = tb
        act = self.actions
        for name in ("new", "open", "save"):
            tb.addAction(act[name])
            tb.widgetForAction(act[name]).setToolButtonStyle(Qt.ToolButtonIconOnly)
        tb.addSeparator()
        tb.addAction(act["run"])
        tb.widgetForAction(act["run"]).setObjectName("runButton")
        tb.addAction(act["stop"])
        self.device_label = QLabel(self)
        tb.addWidget(self.device_label)
        self.device_combo = QComboBox(self)
        self.device_combo.setObjectName("deviceCombo")
        self.device_combo.addItem("CPU", "cpu")
        self.device_combo.addItem("CUDA", "cuda")
        self.device_combo.activated.connect(self._device_changed)  # user choices only
        tb.addWidget(self.device_combo)
        tb.addSeparator()
        for name in ("zoom_in", "zoom_out", "zoom_fit"):
            tb.addAction(act[name])
            tb.widgetForAction(act[name]).setToolButtonStyle(Qt.ToolButtonIconOnly)
        tb.addSeparator()
        tb.addAction(act["export"])
        self.addToolBar(Qt.TopToolBarArea, tb)

    def _build_statusbar(self) -> None:
        sb = self.statusBar()
        self.worker_label = QLabel(self)
        self.worker_label.setObjectName("workerLabel")
        self.busy = QProgressBar(self)
        self.busy.setObjectName("busyIndicator")
        self.busy.setRange(0, 0)
        self.busy.setMaximumWidth(90)
        self.busy.setMaximumHeight(14)
        self.busy.setTextVisible(False)
        self.busy.hide()
        self.graph_label = QLabel(self)
        self.graph_label.setObjectName("graphLabel")
        self.layout_label = QLabel(self)
        self.layout_label.setObjectName("layoutLabel")
        sb.addWidget(self.worker_label)
        sb.addWidget(self.busy)
        sb.addPermanentWidget(self.graph_label)
        sb.addPermanentWidget(self.layout_label)
