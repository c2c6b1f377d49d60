"""The main window: editor, graph, inspector, stepper, lessons and output, wired to
the worker.

Layout (docks, all movable; positions and sizes persist in QSettings):
  left column   Lessons (top), Code editor, Output (bottom)
  centre        Graph view (H5's GraphView)
  right         Inspector (H5)
  bottom        Stepper (H5), under the graph and the inspector
The window never imports torch: scripts run in the worker process
(`WorkerProcess`), traces come back as plain dataclasses and go to the
`TraceSession`, which every graph widget follows.
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QByteArray, QEvent, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QActionGroup, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (QComboBox, QDockWidget, QFileDialog, QInputDialog, QLabel,
                               QMainWindow, QMessageBox, QProgressBar, QToolBar, QWidget)

from autogradviz.engine.trace_model import Trace

from . import i18n, settings
from .autosave import Autosave
from .editor import CodeEditor
from .lessons_panel import LessonsPanel
from .output_pane import OutputPane
from .resources_loader import Lesson, default_lesson, icon
from .theme import ThemeManager
from .trace_session import TraceSession
from .worker_process import CRASHED, FAILED, READY, RUNNING, STARTING, WorkerProcess

try:  # H5's widgets; the shell still opens (with placeholders) while they are missing
    from .graph_view import GraphView
except ImportError:  # pragma: no cover
    GraphView = None
try:
    from .inspector import InspectorPanel
except ImportError:  # pragma: no cover
    InspectorPanel = None
try:
    from .stepper import StepperPanel
except ImportError:  # pragma: no cover
    StepperPanel = None

STATE_VERSION = 1
APP_NAME = "Autograd Visualizer"


def _placeholder(text: str) -> QWidget:
    label = QLabel(text)
    label.setAlignment(Qt.AlignCenter)
    label.setWordWrap(True)
    return label


class MainWindow(QMainWindow):
    """See the module docstring. `worker` may be injected (tests share one)."""

    runFinished = Signal(object)  # Trace, after it reached the session

    def __init__(self, theme_manager: ThemeManager | None = None, worker: WorkerProcess | None = None,
                 start_worker: bool = True, restore_autosave: bool = True,
                 open_path: str | None = None, parent=None):
        super().__init__(parent)
        self.setObjectName("mainWindow")
        self.setWindowIcon(icon("app"))
        self.theme_manager = theme_manager or ThemeManager(self)
        self._theme = self.theme_manager.effective
        self._path: str | None = None
        self._lesson: Lesson | None = None
        self._device = "cpu"
        self._run_file = ""
        self._got_output = False
        self._last_trace: Trace | None = None
        self._layout_busy = False
        self._closing = False
        self.ask_unsaved = self._ask_unsaved  # tests replace this to avoid a modal dialog

        self.session = TraceSession(self)
        self._build_central()
        self._build_docks()
        self._build_actions()
        self._build_menus()
        self._build_toolbar()
        self._build_statusbar()

        self.autosave = Autosave(self.editor, lambda: self._path, self)
        self.editor.document().modificationChanged.connect(self._update_title)

        self._owns_worker = worker is None
        self.worker = worker or WorkerProcess(self, timeout_s=settings.run_timeout_s())
        self._connect_worker()
        self._connect_session()
        self.theme_manager.themeChanged.connect(self._apply_theme)
        self._apply_theme(self._theme)

        self._tick = QTimer(self)
        self._tick.setInterval(200)
        self._tick.timeout.connect(self._update_worker_label)

        screen = self.screen().availableGeometry() if self.screen() else None
        if screen is not None and screen.width() > 0:
            self.resize(min(1500, int(screen.width() * 0.95)), min(950, int(screen.height() * 0.92)))
        else:
            self.resize(1500, 950)
        self._default_state = self.saveState(STATE_VERSION)
        self._restore_layout()
        self.retranslate()
        self._update_worker_label()
        self._update_device_combo()

        restored = restore_autosave and self._restore_autosave()
        if open_path and not restored:
            # A file named on the command line is loaded, not run (only Run executes code).
            restored = self.open_file(open_path, ask=False)
        if not restored:
            lesson = default_lesson()
            if lesson is not None:
                self.open_lesson(lesson, run=start_worker)
        if start_worker and self.worker.state not in (READY, RUNNING, STARTING):
            self.worker.start()
        elif self.worker.state == READY:
            self._on_ready(self.worker.info)

    # ------------------------------------------------------------------ building
    def _build_central(self) -> None:
        if GraphView is not None:
            self.graph_view = GraphView(self.session, self)
        else:  # pragma: no cover
            self.graph_view = _placeholder("graph view not available")
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
        self.inspector = InspectorPanel(self.session, self) if InspectorPanel else _placeholder("inspector")
        self.stepper = StepperPanel(self.session, self) if StepperPanel else _placeholder("stepper")
        if hasattr(self.stepper, "install_shortcuts"):
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

    # ------------------------------------------------------------------ texts
    def retranslate(self) -> None:
        """(Re)apply every visible string; called again on a language change."""
        tips = {
            "new": (self.tr("&New"), self.tr("Start a new, empty script")),
            "open": (self.tr("&Open…"), self.tr("Open a Python script (it runs only when you press Run)")),
            "save": (self.tr("&Save"), self.tr("Save the script")),
            "save_as": (self.tr("Save &As…"), self.tr("Save the script under a new name")),
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
            "reset_layout": (self.tr("&Reset Panel Layout"), self.tr("Put every panel back where it started")),
            "about": (self.tr("&About Autograd Visualizer"), self.tr("Version and credits")),
            "lessons_help": (self.tr("&Lessons"), self.tr("Show the starter lessons")),
            "shortcuts": (self.tr("&Keyboard Shortcuts"), self.tr("Every key the app understands")),
            "theme_system": (self.tr("Follow &System"), self.tr("Use the desktop's light or dark setting")),
            "theme_light": (self.tr("&Light"), self.tr("Light theme")),
            "theme_dark": (self.tr("&Dark"), self.tr("Dark theme")),
        }
        hints = {"zoom_in": QKeySequence.ZoomIn, "zoom_out": QKeySequence.ZoomOut,
                 "zoom_fit": QKeySequence("Ctrl+0"), "find": QKeySequence.Find}
        for name, (text, tip) in tips.items():
            action = self.actions[name]
            keys = action.shortcuts()
            if name in hints:
                keys = [QKeySequence(hints[name])]
                text += "\t" + keys[0].toString(QKeySequence.NativeText)
            action.setText(text)
            if keys:
                tip = f"{tip} ({keys[0].toString(QKeySequence.NativeText)})"
            action.setToolTip(tip)
            action.setStatusTip(tip)
        self.actions["run"].setIconText(self.tr("Run"))
        self.actions["stop"].setIconText(self.tr("Stop"))
        self.actions["export"].setIconText(self.tr("Export"))
        self.file_menu.setTitle(self.tr("&File"))
        self.recent_menu.setTitle(self.tr("Open &Recent"))
        self.edit_menu.setTitle(self.tr("&Edit"))
        self.run_menu.setTitle(self.tr("&Run"))
        self.view_menu.setTitle(self.tr("&View"))
        self.panels_menu.setTitle(self.tr("&Panels"))
        self.theme_menu.setTitle(self.tr("&Theme"))
        self.language_menu.setTitle(self.tr("&Language"))
        self.help_menu.setTitle(self.tr("&Help"))
        self.lessons_dock.setWindowTitle(self.tr("Lessons"))
        self.editor_dock.setWindowTitle(self.tr("Code"))
        self.output_dock.setWindowTitle(self.tr("Output"))
        self.inspector_dock.setWindowTitle(self.tr("Inspector"))
        self.stepper_dock.setWindowTitle(self.tr("Backward steps"))
        self.panels_menu.clear()
        for dock in (self.lessons_dock, self.editor_dock, self.output_dock, self.inspector_dock,
                     self.stepper_dock):
            self.panels_menu.addAction(dock.toggleViewAction())
        self.toolbar.setWindowTitle(self.tr("Toolbar"))
        self.device_label.setText(" " + self.tr("Device:") + " ")
        self.output.set_skipped_text(self.tr("… {n} lines skipped (printed faster than they can be shown) …"))
        self.editor.setPlaceholderText(self.tr("Write PyTorch code here, then press Run (Ctrl+Enter)."))
        self._update_device_combo()
        self._update_worker_label()
        self._update_graph_label()
        if not self._layout_busy and not self.layout_label.property("info"):
            self.layout_label.setText("")
        self._update_title()

    def changeEvent(self, event):  # noqa: N802
        if event.type() == QEvent.LanguageChange and hasattr(self, "actions"):
            self.retranslate()
        super().changeEvent(event)

    def _update_title(self, *_):
        if self._path:
            name = os.path.basename(self._path)
        elif self._lesson is not None:
            name = self._lesson.path.name
        else:
            name = self.tr("untitled.py")
        self.setWindowTitle(f"{name}[*] — {APP_NAME}")
        self.setWindowModified(self.editor.document().isModified())

    # ------------------------------------------------------------------ theme / language
    def set_theme_mode(self, mode: str) -> None:
        self.theme_manager.set_mode(mode)
        self.actions[f"theme_{mode}"].setChecked(True)

    def _apply_theme(self, name: str) -> None:
        self._theme = name
        self.editor.set_theme(name)
        self.output.set_theme(name)
        for view in (self.graph_view,):
            if hasattr(view, "set_theme"):
                view.set_theme(name)
        for w in (self.inspector, self.stepper):
            if hasattr(w, "set_theme"):
                w.set_theme(name)
        for act in self.actions.values():
            icon_name = act.property("iconName")
            if icon_name:
                act.setIcon(icon(icon_name, name))
        self.theme_menu.setIcon(icon("theme", name))
        self.setWindowIcon(icon("app", name))

    def set_language(self, code: str) -> None:
        """Switch the UI language live (Qt re-sends LanguageChange to every widget)."""
        i18n.set_language(code)
        act = self.actions.get(f"lang_{i18n.current_language()}")
        if act is not None:
            act.setChecked(True)
        self.retranslate()

    # ------------------------------------------------------------------ worker
    def _connect_worker(self) -> None:
        w = self.worker
        w.stateChanged.connect(self._on_worker_state)
        w.readyInfo.connect(self._on_ready)
        w.outputReceived.connect(self._on_output)
        w.traceReady.connect(self._on_trace)
        w.traceFailed.connect(self._on_trace_failed)
        w.crashed.connect(self._on_crashed)
        w.timedOut.connect(self._on_timed_out)
        w.runStopped.connect(self._on_stopped)
        w.runCancelled.connect(self._on_cancelled)
        w.valuesArrived.connect(self._on_values)

    def _connect_session(self) -> None:
        s = self.session
        s.valuesRequested.connect(self.worker.fetch)
        s.graphChanged.connect(lambda _gid: self._update_graph_label())
        s.traceChanged.connect(self._update_graph_label)
        gv = self.graph_view
        box = getattr(gv, "saved_box", None)
        if box is not None:  # keep View ▸ Show Saved Tensors and the view's checkbox in step
            box.toggled.connect(self._sync_show_saved)
        if hasattr(gv, "layoutStarted"):
            gv.layoutStarted.connect(self._on_layout_started)
            gv.layoutFinished.connect(self._on_layout_finished)
            gv.layoutFailed.connect(self._on_layout_failed)

    def run_script(self) -> None:
        """Send the editor's text to the worker (a run already going is cancelled)."""
        source = self.editor.toPlainText()
        self.editor.clear_error()
        self.output.clear()
        self._got_output = False
        if self._path:
            self._run_file = self._path
        elif self._lesson is not None:
            self._run_file = str(self._lesson.path)
        else:
            self._run_file = "<editor>"
        shown = os.path.basename(self._run_file) if self._run_file != "<editor>" else self.tr("untitled.py")
        self.output.append_info(self.tr("▶ Running {name} on {device}…").format(
            name=shown, device=self._device.upper()))
        self.worker.timeout_s = settings.run_timeout_s()
        self.worker.run(source, self._run_file, self._device)
        self._tick.start()
        self._update_worker_label()

    def stop_script(self) -> None:
        if not self.worker.stop():
            self.statusBar().showMessage(self.tr("Nothing is running."), 3000)

    def _on_worker_state(self, state: str) -> None:
        if state in (READY, CRASHED, FAILED) and not self.worker.is_busy():
            self._tick.stop()
        self._update_worker_label()
        self.actions["stop"].setEnabled(self.worker.is_busy())

    def _on_ready(self, info: dict) -> None:
        self._update_device_combo()
        if info.get("cuda_available") and settings.get("run/device", "cpu") == "cuda":
            self.device_combo.setCurrentIndex(1)  # the user's last choice, now possible
            self._device = "cuda"
        self._update_worker_label()

    def _on_output(self, stream: str, text: str) -> None:
        self._got_output = True
        self.output.append_output(stream, text)

    def _on_trace(self, trace: Trace) -> None:
        self._last_trace = trace
        if not self._got_output:
            if trace.stdout:
                self.output.append_output("stdout", trace.stdout)
            if trace.stderr:
                self.output.append_output("stderr", trace.stderr)
        self.session.set_trace(trace)
        err = trace.error
        if err is not None:
            message = f"{err.type}: {err.message}"
            if err.explanation:
                message += "\n\n" + err.explanation
            self.editor.set_error(err.line, message)
            self.output.append_error(err.type, err.message, err.line, err.explanation,
                                     err.traceback, line_format=self.tr("line {n}"),
                                     explanation_label=self.tr("What this means:"))
        for note in getattr(trace, "notes", None) or []:
            if not note.startswith("internal:"):
                self.output.append_note(note)
        nodes = sum(len(g.nodes) for g in trace.graphs)
        seconds = f"{trace.duration_s:.2f}" if trace.duration_s is not None else "?"
        if not trace.graphs and err is None:
            self.output.append_info(self.tr(
                "Finished in {s} s. No autograd graph was built: no tensor in the script requires grad "
                "(try requires_grad=True).").format(s=seconds))
        elif err is None:
            self.output.append_success(self.tr(
                "Finished in {s} s: {g} graph(s), {n} nodes, {r} backward run(s). "
                "Step through them below the graph.").format(
                s=seconds, g=len(trace.graphs), n=nodes, r=len(trace.backward_runs)))
        self._update_graph_label()
        self._update_worker_label()
        self.runFinished.emit(trace)

    def _on_trace_failed(self, message: str) -> None:
        self.output.append_problem(self.tr("The trace could not be read."), message)
        self._update_worker_label()

    def _on_crashed(self, message: str) -> None:
        if self.worker.state == FAILED:
            self.output.append_problem(
                self.tr("The worker process could not be started."),
                self.tr("It {how}.").format(how=message) + "\n"
                + self.tr("Check that torch is installed in this Python (run `autogradviz doctor`), "
                          "then press Run to try again."))
            self._clear_graph()
            self._update_worker_label()
            return
        self.output.append_problem(
            self.tr("The worker process stopped unexpectedly."),
            self.tr("It {how}.").format(how=message) + "\n"
            + self.tr("Your code is safe in the editor; a fresh worker is starting."))
        self._clear_graph()
        self._update_worker_label()

    def _on_timed_out(self, seconds: float) -> None:
        self.output.append_problem(
            self.tr("Stopped: the script ran longer than the run timeout ({s} s).").format(
                s=int(round(self.worker.timeout_s))),
            self.tr("Change it in Run ▸ Run Timeout…, or look for an endless loop."))
        self._clear_graph()

    def _on_cancelled(self) -> None:
        self.output.append_info(self.tr("Previous run cancelled."))

    def _on_stopped(self) -> None:
        self.output.append_problem(self.tr("Stopped."), self.tr("The script was ended by Stop."))
        self._clear_graph()
        self._tick.stop()
        self._update_worker_label()

    def _clear_graph(self) -> None:
        """The run produced no trace: the previous graph no longer matches the code."""
        if self.session.trace is not None:
            self.session.set_trace(None)
        self._last_trace = None
        self._update_graph_label()

    def _on_values(self, tensor_id: str, summary, error) -> None:
        self.session.deliver_values(tensor_id, summary, error)

    def _update_worker_label(self) -> None:
        state = self.worker.state if hasattr(self, "worker") else STARTING
        busy = self.worker.is_busy() if hasattr(self, "worker") else False
        if busy and state == STARTING:
            text = self.tr("Starting the worker (importing torch), then running…")
        elif busy:
            text = self.tr("Running {s:.1f} s").format(s=self.worker.running_seconds())
        elif state == STARTING:
            text = self.tr("Worker starting (importing torch)…")
        elif state == READY:
            version = self.worker.info.get("torch_version", "")
            text = self.tr("Worker ready · torch {v}").format(v=version) if version else self.tr("Worker ready")
        elif state == CRASHED:
            text = self.tr("Worker crashed · restarting")
        elif state == FAILED:
            text = self.tr("Worker failed to start · press Run to retry")
        else:
            text = self.tr("Worker stopped")
        self.worker_label.setText(text)
        self.busy.setVisible(busy or state in (STARTING, CRASHED) or self._layout_busy)
        if hasattr(self, "actions"):
            self.actions["stop"].setEnabled(busy)

    def _update_device_combo(self) -> None:
        if not hasattr(self, "device_combo"):
            return
        model = self.device_combo.model()
        item = model.item(1)
        info = self.worker.info if hasattr(self, "worker") else {}
        available = bool(info.get("cuda_available"))
        item.setEnabled(available)
        if available:
            names = ", ".join(info.get("cuda_devices") or [])
            tip = self.tr("Run on the GPU: {names}").format(names=names or "CUDA")
        elif info:
            tip = self.tr("CUDA is not available: the worker's torch {v} reports no usable GPU "
                          "(CPU-only build or no driver).").format(v=info.get("torch_version", "?"))
        else:
            tip = self.tr("Waiting for the worker to report whether a GPU is available.")
        item.setToolTip(tip)
        self.device_combo.setItemData(1, tip, Qt.ToolTipRole)
        self.device_combo.setItemData(0, self.tr("Run on the CPU"), Qt.ToolTipRole)
        self.device_combo.setToolTip(self.tr("Device the script runs on (its `device` variable)") + "\n" + tip)
        if not available and self.device_combo.currentIndex() == 1:
            self.device_combo.setCurrentIndex(0)
        if not available:
            self._device = "cpu"

    def _device_changed(self, index: int) -> None:
        self._device = self.device_combo.itemData(index) or "cpu"
        settings.put("run/device", self._device)

    # ------------------------------------------------------------------ graph view
    def _graph_call(self, method: str) -> None:
        fn = getattr(self.graph_view, method, None)
        if fn is not None:
            fn()

    def _set_show_saved(self, on: bool) -> None:
        if hasattr(self.graph_view, "set_show_saved"):
            self.graph_view.set_show_saved(on)

    def _sync_show_saved(self, on: bool) -> None:
        act = self.actions["show_saved"]
        if act.isChecked() != on:
            act.blockSignals(True)
            act.setChecked(on)
            act.blockSignals(False)

    def _on_layout_started(self) -> None:
        self._layout_busy = True
        self.layout_label.setProperty("info", "")
        self.layout_label.setText(self.tr("Laying out the graph…"))
        self._update_worker_label()

    def _on_layout_finished(self, info: str) -> None:
        self._layout_busy = False
        self.layout_label.setProperty("info", info)
        # The graph view's info already names the engine and the time ("… layout: dot in 0.1 s").
        self.layout_label.setText(info)
        self.layout_label.setToolTip(self.tr("How the graph was laid out"))
        self._update_worker_label()

    def _on_layout_failed(self, message: str) -> None:
        self._layout_busy = False
        self.layout_label.setText(self.tr("Layout failed"))
        self.output.append_problem(self.tr("The graph could not be laid out."), message)
        self._update_worker_label()

    def _update_graph_label(self) -> None:
        graph = self.session.graph if self.session.trace is not None else None
        if graph is None:
            self.graph_label.setText(self.tr("No graph"))
            if not self._layout_busy:
                self.layout_label.setText("")
                self.layout_label.setProperty("info", "")
            return
        trace = self.session.trace
        text = self.tr("{n} nodes · {e} edges").format(n=len(graph.nodes), e=len(graph.edges))
        if len(trace.graphs) > 1:
            text = self.tr("Graph {i} of {k}: ").format(
                i=[g.id for g in trace.graphs].index(graph.id) + 1, k=len(trace.graphs)) + text
        self.graph_label.setText(text)

    def export(self) -> None:
        try:
            from .export_dialog import ExportDialog
        except ImportError:
            ExportDialog = None
        if ExportDialog is not None:
            ExportDialog(self.graph_view, self.session, self).exec()
            return
        path, _ = QFileDialog.getSaveFileName(self, self.tr("Export the graph view"), "graph.png",
                                              self.tr("PNG image (*.png)"))
        if path:
            self.graph_view.grab().save(path)

    # ------------------------------------------------------------------ files
    def open_lesson(self, lesson: Lesson, run: bool = True) -> bool:
        if not self._maybe_save():
            return False
        self._set_text(lesson.source)
        self._path = None
        self._lesson = lesson
        self.lessons_panel.select(lesson.name)
        self.autosave.mark_clean()
        self._update_title()
        if run:
            self.run_script()
        return True

    def new_file(self) -> None:
        if not self._maybe_save():
            return
        self._set_text("import torch\n\n")
        self._path = None
        self._lesson = None
        self.autosave.mark_clean()
        cursor = self.editor.textCursor()
        cursor.movePosition(cursor.MoveOperation.End)
        self.editor.setTextCursor(cursor)
        self._update_title()

    def open_file_dialog(self) -> None:
        start = os.path.dirname(self._path) if self._path else str(Path.home())
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Open a script"), start,
                                              self.tr("Python scripts (*.py);;All files (*)"))
        if path:
            self.open_file(path)

    def open_file(self, path: str, ask: bool = True) -> bool:
        """Load `path` into the editor. It is not run: only Run executes code."""
        if ask and not self._maybe_save():
            return False
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            QMessageBox.warning(self, APP_NAME, self.tr("Could not open {path}:\n{error}").format(
                path=path, error=exc))
            return False
        self._set_text(text)
        self._path = os.path.abspath(path)
        self._lesson = None
        settings.add_recent_file(self._path)
        self.autosave.mark_clean()
        self._update_title()
        self.output.clear()
        self.output.append_info(self.tr("Opened {path}. Press Run (Ctrl+Enter) to run it.").format(path=path))
        return True

    def save(self) -> bool:
        if not self._path:
            return self.save_as()
        return self._write(self._path)

    def save_as(self) -> bool:
        suggested = self._path or (os.path.join(str(Path.home()), self._lesson.path.name)
                                   if self._lesson else os.path.join(str(Path.home()), "script.py"))
        path, _ = QFileDialog.getSaveFileName(self, self.tr("Save the script"), suggested,
                                              self.tr("Python scripts (*.py);;All files (*)"))
        if not path:
            return False
        return self._write(path)

    def _write(self, path: str) -> bool:
        try:
            Path(path).write_text(self.editor.toPlainText(), encoding="utf-8")
        except OSError as exc:
            QMessageBox.warning(self, APP_NAME, self.tr("Could not save {path}:\n{error}").format(
                path=path, error=exc))
            return False
        self._path = os.path.abspath(path)
        self._lesson = None
        self.editor.document().setModified(False)
        settings.add_recent_file(self._path)
        self.autosave.mark_clean()
        self._update_title()
        self.statusBar().showMessage(self.tr("Saved {path}").format(path=path), 3000)
        return True

    def _set_text(self, text: str) -> None:
        self.autosave.set_enabled(False)
        self.editor.setPlainText(text)
        self.editor.clear_error()
        self.editor.document().setModified(False)
        self.autosave.set_enabled(True)

    def _fill_recent_menu(self) -> None:
        self.recent_menu.clear()
        files = settings.recent_files()
        for path in files:
            act = self.recent_menu.addAction(os.path.basename(path))
            act.setToolTip(path)
            act.setStatusTip(path)
            act.triggered.connect(lambda _=False, p=path: self.open_file(p))
        if not files:
            empty = self.recent_menu.addAction(self.tr("(no recent files)"))
            empty.setEnabled(False)
        else:
            self.recent_menu.addSeparator()
            clear = self.recent_menu.addAction(self.tr("Clear Recent Files"))
            clear.triggered.connect(settings.clear_recent_files)

    def _ask_unsaved(self) -> str:
        """'save', 'discard' or 'cancel' for unsaved changes."""
        box = QMessageBox(QMessageBox.Warning, APP_NAME,
                          self.tr("The script has unsaved changes. Save them first?"),
                          QMessageBox.Save | QMessageBox.Discard | QMessageBox.Cancel, self)
        box.setDefaultButton(QMessageBox.Save)
        answer = box.exec()
        return {QMessageBox.Save: "save", QMessageBox.Discard: "discard"}.get(answer, "cancel")

    def _maybe_save(self) -> bool:
        """True when it is fine to replace the editor's text."""
        if not self.editor.document().isModified():
            return True
        answer = self.ask_unsaved()
        if answer == "save":
            return self.save()
        return answer == "discard"

    def _restore_autosave(self) -> bool:
        pending = self.autosave.pending()
        if pending is None:
            return False
        text, path = pending
        self._set_text(text)
        self._path = path if path and os.path.exists(path) else None
        self._lesson = None
        self.editor.document().setModified(True)
        self._update_title()
        self.output.append_info(self.tr(
            "Restored the text you were editing when the app last closed unexpectedly. "
            "Press Run (Ctrl+Enter) to run it, or pick a lesson."))
        return True

    def _go_to_line(self, line: int) -> None:
        self.editor_dock.show()
        self.editor.go_to_line(line)
        self.editor.setFocus()

    def _show_lessons(self) -> None:
        self.lessons_dock.show()
        self.lessons_dock.raise_()
        self.lessons_panel.list.setFocus()

    def _ask_timeout(self) -> None:
        value, ok = QInputDialog.getInt(self, self.tr("Run timeout"),
                                        self.tr("Stop a script after this many seconds:"),
                                        settings.run_timeout_s(), 1, 3600)
        if ok:
            settings.put("run/timeout_s", value)
            self.worker.timeout_s = value

    def shortcuts_html(self) -> str:
        rows = [
            ("Ctrl+Enter", self.tr("Run the script")),
            ("Ctrl+.", self.tr("Stop the running script")),
            ("→ / ←", self.tr("Step backward pass forward / back (click the graph first)")),
            ("Space", self.tr("Play / pause the backward pass")),
            ("Home / End", self.tr("First / last step")),
            ("Ctrl+F, F3", self.tr("Find a node by name or op; next match")),
            ("+ / − / Ctrl+0", self.tr("Zoom in / out / fit the graph")),
            ("Ctrl+/", self.tr("Comment or uncomment lines")),
            ("Tab / Shift+Tab", self.tr("Indent / unindent (4 spaces)")),
            ("Ctrl+N / O / S", self.tr("New / open / save a script")),
            ("Ctrl+E", self.tr("Export the graph")),
            ("F1", self.tr("Show the lessons")),
        ]
        body = "".join(f"<tr><td style='padding-right:16px'><b>{k}</b></td><td>{v}</td></tr>" for k, v in rows)
        return f"<table>{body}</table>"

    def show_shortcuts(self) -> None:
        box = QMessageBox(QMessageBox.Information, self.tr("Keyboard shortcuts"), self.shortcuts_html(),
                          QMessageBox.Close, self)
        box.setTextFormat(Qt.RichText)
        box.exec()

    def about(self) -> None:
        from autogradviz import __version__
        torch_v = self.worker.info.get("torch_version", self.tr("unknown (worker not ready)"))
        QMessageBox.about(self, self.tr("About Autograd Visualizer"), self.tr(
            "<h3>Autograd Visualizer {version}</h3>"
            "<p>See the grad_fn graph PyTorch builds and step through the real backward pass.</p>"
            "<p>Scripts run in a separate worker process (torch {torch}).</p>").format(
            version=__version__, torch=torch_v))

    # ------------------------------------------------------------------ layout persistence
    def _restore_layout(self) -> None:
        s = settings.settings()
        geometry = s.value("window/geometry")
        state = s.value("window/state")
        if isinstance(geometry, QByteArray) and not geometry.isEmpty():
            self.restoreGeometry(geometry)
        if isinstance(state, QByteArray) and not state.isEmpty():
            self.restoreState(state, STATE_VERSION)
        # The device is applied when the worker says what it has (`_on_ready`).
        self._device = "cpu"

    def save_layout(self) -> None:
        s = settings.settings()
        s.setValue("window/geometry", self.saveGeometry())
        s.setValue("window/state", self.saveState(STATE_VERSION))
        s.sync()

    def reset_layout(self) -> None:
        self.restoreState(self._default_state, STATE_VERSION)
        for dock in (self.lessons_dock, self.editor_dock, self.output_dock, self.inspector_dock,
                     self.stepper_dock):
            dock.show()
            dock.setFloating(False)

    # ------------------------------------------------------------------ closing
    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802
        if not self._maybe_save():
            event.ignore()
            return
        self.shutdown()
        event.accept()

    def shutdown(self, keep_autosave: bool = False) -> None:
        """Save UI state, stop the worker (if ours) and remove the autosave (clean exit).

        `keep_autosave`: the app is being ended from outside (a signal), so the
        unsaved text stays for the next start to restore."""
        if self._closing:
            return
        self._closing = True
        self._tick.stop()
        self.save_layout()
        self.autosave.set_enabled(False)
        if not keep_autosave:
            self.autosave.discard()
        if hasattr(self.graph_view, "shutdown"):
            self.graph_view.shutdown()
        if self._owns_worker:
            self.worker.shutdown()
