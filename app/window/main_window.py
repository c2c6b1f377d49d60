"""The main window: editor, graph, inspector, stepper, lessons and output, wired to
the worker.

Split by job: window_chrome.py builds docks, actions, menus and bars;
run_reports.py runs scripts and reports the worker's answers; file_actions.py
opens, saves and restores scripts. This module ties them together and owns the
texts (retranslate), theme and language, help dialogs, layout persistence and
closing.

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

from PySide6.QtCore import QByteArray, QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QKeySequence
from PySide6.QtWidgets import QFileDialog, QInputDialog, QMainWindow, QMessageBox

from autogradviz.engine.trace.model import Trace

from autogradviz.app import i18n
from autogradviz.app.services import settings
from autogradviz.app.services.autosave import Autosave
from autogradviz.app.window.file_actions import APP_NAME, FileActionsMixin
from autogradviz.app.resources_loader import Lesson, default_lesson, icon
from autogradviz.app.window.run_reports import RunReportsMixin
from autogradviz.app.theme import ThemeManager
from autogradviz.app.session import TraceSession
from autogradviz.app.window.chrome import WindowChromeMixin
from autogradviz.app.services.worker_process import READY, RUNNING, STARTING, WorkerProcess

STATE_VERSION = 1


class MainWindow(WindowChromeMixin, RunReportsMixin, FileActionsMixin, QMainWindow):
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
            from autogradviz.app.export.dialog import ExportDialog
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
