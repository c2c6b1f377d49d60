"""The main window: the graph in the centre, the registered panels around it,
wired to the worker.

It composes collaborators that each keep their own state behind a narrow
interface, and only connects them:
  WindowChrome    (chrome.py)          actions, menus, toolbar and their texts
  WindowStatus    (status_bar.py)      the status bar's labels and running clock
  PanelDocks      (panel_registry.py)  one dock per registered panel, View ▸ Panels
  FileController  (file_controller.py) the script's file or lesson, autosave
  RunController   (run_controller.py)  run/stop and reporting the worker's answers
What is left here: theme and language switches, help dialogs, layout
persistence and closing.

Default layout (canvas first; docks, all movable; positions and sizes persist
in QSettings, View ▸ Reset Layout restores it): the graph in the centre with
the stepper a strip under it; left of it the code, and under the code one tab
group (lesson text, output, inspector, the panels a trace asks for). The dock
sizes follow the window's size (`apply_default_sizes`): at 1280×800 and up the
canvas gets at least half of the window. The window never imports torch: scripts run in the worker
process (`WorkerProcess`), traces come back as plain data (msgspec structs) and go to the
`TraceSession`, which every panel and the graph view follow.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Optional, cast

from PySide6.QtCore import QByteArray, QEvent, Qt, QTimer
from PySide6.QtGui import QAction, QCloseEvent
from PySide6.QtWidgets import QFileDialog, QMainWindow, QMessageBox

from autogradviz.app import i18n
from autogradviz.app.environments.controller import EnvironmentController
from autogradviz.app.graph.view import GraphView
from autogradviz.app.panels.lessons.wiring import connect_lesson_browser
from autogradviz.app.panels.code_link.link import CodeGraphLink
from autogradviz.app.panels.editor import CodeEditor
from autogradviz.app.panels.lessons import LessonsPanel
from autogradviz.app.panels.lessons.reading_pane import LessonReadingPane
from autogradviz.app.panels.output import OutputPane
from autogradviz.app.panels.stepper import StepperPanel
from autogradviz.app.resources_loader import default_lesson, icon
from autogradviz.app.services import settings
from autogradviz.app.services.worker_process import READY, RUNNING, STARTING, WorkerProcess
from autogradviz.app.session import TraceSession
from autogradviz.app.theme import ThemeManager
from autogradviz.app.cli.first_argument import is_trace_file
from autogradviz.app.window.chrome import WindowChrome
from autogradviz.app.window.file_controller import APP_NAME, FileController
from autogradviz.app.window.panel_registry import PanelDocks
from autogradviz.app.window.presentation import Presentation
from autogradviz.app.window.run_controller import RunController
from autogradviz.app.window.status_bar import WindowStatus
from autogradviz.app.window.trace_file_controller import TraceFileController

STATE_VERSION = 3  # 3: canvas first (the code beside the graph, panels in tabs under it)
# The stepper strip's height and the code column's share of the window's width
STRIP_HEIGHT = 96
CODE_SHARE = 0.31
LESSON_SHARE = 0.72  # the most of the left column a lesson's text may take from the code,
CODE_MIN_LINES = 10  # leaving the code at least this many lines (at 1280×800 lesson 1's text
LESSON_MIN_SHARE = 0.35  # needs ~460 px of a ~700 px column); a short text leaves the code the rest


class MainWindow(QMainWindow):
    """See the module docstring. `worker` may be injected (tests share one)."""

    # the menu actions by name (WindowChrome.actions); the name hides
    # QWidget.actions(), which nothing calls on the window
    actions: dict[str, QAction]  # type: ignore[assignment]
    chrome: WindowChrome  # (made after the presentation, whose callback reads it)

    def __init__(self, theme_manager: ThemeManager | None = None, worker: WorkerProcess | None = None,
                 start_worker: bool = True, restore_autosave: bool = True,
                 open_path: str | None = None, parent=None):
        super().__init__(parent)
        self._built = False
        self._closing = False
        self.setObjectName("mainWindow")
        self.setWindowIcon(icon("app"))
        self.theme_manager = theme_manager or ThemeManager(self)
        self._owns_worker = worker is None
        self.worker = worker or WorkerProcess(self, timeout_s=settings.run_timeout_s())
        self.session = TraceSession(self)

        self.graph_view = GraphView(self.session, self)
        self.graph_view.setObjectName("graphView")
        self.setCentralWidget(self.graph_view)
        self.panels = PanelDocks(self, self.session, self.theme_manager)
        # (the registry's widgets, by the class that makes each: panel_registry.PANELS)
        self.editor = cast(CodeEditor, self.panels.widget("editor"))
        self.output = cast(OutputPane, self.panels.widget("output"))
        self.lessons_panel = cast(LessonsPanel, self.panels.widget("lessons"))
        self.stepper = cast(StepperPanel, self.panels.widget("stepper"))
        # Left/Right/Space/Home/End step the backward pass while the graph has focus;
        # F10, Shift+F10, Alt+Home/End and F9 wherever it is (Run menu, chrome.py).
        self.stepper.install_shortcuts(self.graph_view)
        self.graph_view.graph_scene().unplacedChanged.connect(self.stepper.set_unplaced)  # labels with no room
        self.presentation = Presentation(self, lambda on: self.chrome.set_checked("presentation", on))
        # a lesson too long for its column opens whole in a reading pane over the canvas
        self.reading_pane = LessonReadingPane(self.graph_view, lambda: self.graph_view.view)
        self.lessons_panel.attach_pane(self.reading_pane)
        self.reading_pane.keep_above(self.graph_view.running)  # (a long run: the text stays readable)
        self._reading_pending = False

        self.files = FileController(self, self.editor, self.output)
        self.chrome = WindowChrome(self, self._action_handlers(), self.theme_manager.mode)
        self.panels.fill_menu(self.chrome.panels_menu)
        self.actions = self.chrome.actions
        for name in ("run", "step_next", "step_back", "step_first", "step_last", "play", "presentation"):
            self.actions[name].triggered.connect(self.reading_pane.put_away)  # the learner moves on
        self.status = WindowStatus(self, self.worker, self.session)
        self.runs = RunController(self, self.worker, self.session, self.editor, self.output, self.status,
                                  self.chrome.device_combo, self.files.run_file)
        self.environments = EnvironmentController(self, self.worker, self.output, self.run_script,
                                                  before=self.chrome.help_menu, apply_saved=self._owns_worker)
        self.trace_files = TraceFileController(self, self.session, self.runs.show_trace, self.output.append_info,
                                               show_source=self.files.show_recorded_source)
        self.files.open_trace = self.trace_files.open  # a .json in Open Recent
        self._connect()

        screen = self.screen().availableGeometry() if self.screen() else None
        if screen is not None and screen.width() > 0:
            self.resize(min(1500, int(screen.width() * 0.95)), min(950, int(screen.height() * 0.92)))
        else:
            self.resize(1500, 950)
        self.apply_default_sizes()
        self._default_state = self.saveState(STATE_VERSION)
        self._sized = self._restore_layout()  # (a first launch sizes its docks to the window when shown)
        self.graph_view.set_legend_shown(bool(settings.get("graph/legend", False, bool)))
        self.graph_view.legend_box.toggled.connect(lambda on: settings.put("graph/legend", on))
        # View ▸ Fold Repeated Layers / Left to Right: kept between launches
        self.session.set_fold_repeated(bool(settings.get("graph/fold_repeated", True, bool)))
        self.session.set_direction(str(settings.get("graph/direction", "TB")))
        self._graph_options_changed()
        self.session.layoutOptionsChanged.connect(self._graph_options_changed)
        self.panels.show_for_trace()  # a restored layout must not show a panel with nothing to show
        self._built = True
        self.retranslate()
        self.runs.update_devices()

        restored = restore_autosave and self.files.restore_autosave()
        if open_path and is_trace_file(open_path):  # `autogradviz TRACE.json`: shown, nothing runs
            self.trace_files.open(open_path)
            start_lesson_run, open_path = False, None
        else:
            start_lesson_run = start_worker
        if open_path and not restored:
            # A file named on the command line is loaded, not run (only Run executes code).
            restored = self.files.open_file(open_path, ask=False)
        if not restored:
            lesson = default_lesson()
            if lesson is not None:
                self.files.open_lesson(lesson, run=start_lesson_run)
        self.environments.report_saved_missing()
        if start_worker and self.worker.state not in (READY, RUNNING, STARTING):
            self.worker.start()
        elif self.worker.state == READY:
            self.runs.on_ready(self.worker.info)

    def _action_handlers(self) -> dict[str, Callable]:
        gv, ed, files = self.graph_view, self.editor, self.files
        return {
            "new": files.new_file, "open": files.open_file_dialog, "save": files.save,
            "save_as": files.save_as, "export": self.export, "quit": self.close,
            "open_trace": lambda: self.trace_files.open_dialog(),
            "save_trace": lambda: self.trace_files.save_dialog(),
            "undo": ed.undo, "redo": ed.redo, "comment": lambda: ed.toggle_comment(),
            "run": self.run_script, "stop": self.stop_script, "timeout": lambda: self.runs.ask_timeout(),
            "zoom_in": gv.zoom_in, "zoom_out": gv.zoom_out, "zoom_fit": lambda: gv.fit(),
            "find": gv.show_search, "show_saved": gv.set_show_saved,
            "fold_repeated": self.session.set_fold_repeated,
            "left_to_right": lambda on: self.session.set_direction("LR" if on else "TB"),
            "reset_layout": self.reset_layout, "presentation": lambda on: self.presentation.set_on(on),
            "step_next": self.stepper.go_forward, "step_back": self.stepper.go_back,
            "step_first": self.stepper.go_first, "step_last": self.stepper.go_last,
            "play": self.stepper.toggle_play, "about": self.about, "shortcuts": self.show_shortcuts,
            "lessons_help": self._show_lessons, "theme": self.set_theme_mode, "language": self.set_language,
            "recent": files.fill_recent_menu,
        }

    def _graph_options_changed(self) -> None:
        """The View menu's graph options follow the session (the graph's
        toolbar changes them too) and are kept for the next launch."""
        self.chrome.set_checked("fold_repeated", self.session.fold_repeated)
        self.chrome.set_checked("left_to_right", self.session.direction == "LR")
        if settings.get("graph/fold_repeated", True, bool) != self.session.fold_repeated:
            settings.put("graph/fold_repeated", self.session.fold_repeated)
        if settings.get("graph/direction", "TB") != self.session.direction:
            settings.put("graph/direction", self.session.direction)

    def _connect(self) -> None:
        act, files, runs, status, gv = self.actions, self.files, self.runs, self.status, self.graph_view
        self.editor.undoAvailable.connect(act["undo"].setEnabled)
        self.editor.redoAvailable.connect(act["redo"].setEnabled)
        act["undo"].setEnabled(False)
        act["redo"].setEnabled(False)
        self.editor.document().modificationChanged.connect(self._update_title)
        self.lessons_panel.lessonActivated.connect(lambda lesson: files.open_lesson(lesson, run=True))
        self.output.lineActivated.connect(self._go_to_line)
        self.session.lineRequested.connect(self._show_line)
        self.code_link = CodeGraphLink(self.session, self.editor, self.graph_view, self)
        files.documentChanged.connect(self._update_title)
        files.lessonOpened.connect(self._on_lesson_opened)
        self.lesson_guide = connect_lesson_browser(self)  # look-at links, reset, progress
        files.runRequested.connect(self.run_script)
        self.session.rerunRequested.connect(self._rerun_file)
        files.statusMessage.connect(status.show_message)
        runs.busyChanged.connect(act["stop"].setEnabled)
        act["stop"].setEnabled(self.worker.is_busy())
        # View ▸ Show Saved Tensors mirrors the session, which owns the option.
        self.session.layoutOptionsChanged.connect(
            lambda: self.chrome.set_show_saved_checked(self.session.show_saved))
        gv.layoutStarted.connect(status.layout_started)
        gv.layoutFinished.connect(status.layout_finished)
        gv.layoutFailed.connect(status.layout_failed)
        gv.layoutDropped.connect(status.layout_dropped)
        gv.layoutFailed.connect(runs.report_layout_failure)
        self.theme_manager.themeChanged.connect(self._apply_theme)
        self._apply_theme(self.theme_manager.effective)
        # a run longer than a second: the canvas says so over the dimmed old graph
        runs.busyChanged.connect(self._on_busy)
        gv.running.stopRequested.connect(self.stop_script)
        # a node clicked in the graph: its details in front (the Inspector is a tab under the code)
        gv.graph_scene().nodeClicked.connect(lambda _node: self._bring_forward("inspector"))
        # the lesson text says when the editor holds the learner's own script
        files.documentChanged.connect(
            lambda: self.lessons_panel.set_own_script(files.lesson is None, files.display_name()))

    def _bring_forward(self, panel_id: str) -> None:
        """Raise a shown dock that sits behind another tab (a closed one stays closed)."""
        dock = self.panels.dock(panel_id)
        if not dock.isHidden() and dock.visibleRegion().isEmpty() and not self.presentation.is_on():
            dock.raise_()

    def _on_busy(self, busy: bool) -> None:
        if busy:
            self.graph_view.running.start(self.files.display_name(), self.worker.running_seconds,
                                          self.worker.waiting_for_input)
        else:
            self.graph_view.running.finish()

    # -- the window's commands ------------------------------------------------------
    @property
    def runFinished(self):  # noqa: N802  (a Qt signal: RunController.runFinished)
        """Emitted with the Trace once it reached the session."""
        return self.runs.runFinished

    @property
    def ask_unsaved(self) -> Callable[[], str]:
        """What to do with unsaved changes: "save", "discard" or "cancel" (a dialog by default)."""
        return self.files.ask_unsaved

    @ask_unsaved.setter
    def ask_unsaved(self, ask: Callable[[], str]) -> None:
        self.files.ask_unsaved = ask

    def _rerun_file(self, path: str) -> None:
        """Open `path` (asking about unsaved text, as Open does) and run it:
        what "Check numerically" offers for a saved trace, after the learner confirmed."""
        if self.files.open_file(path):
            self.run_script()

    def run_script(self) -> None:
        self.runs.run_script()

    def stop_script(self) -> None:
        self.runs.stop_script()

    def on_run_timed_out(self, line: Optional[int]) -> None:
        """Slot for the worker client's report of the line a timed-out run was on."""
        self.runs.on_run_timed_out(line)

    def on_progress(self, code: str, params: Mapping[str, Any]) -> None:
        """Slot for the worker client's `progress(code, params)`."""
        self.runs.on_progress(code, params)

    def export(self) -> None:
        try:
            from autogradviz.app.export.dialog import ExportDialog
        except ImportError:
            ExportDialog = None  # type: ignore[misc, assignment]  # (then a plain image save, below)
        if ExportDialog is not None:
            ExportDialog(self.graph_view, self.session, self).exec()
            return
        path, _ = QFileDialog.getSaveFileName(self, self.tr("Export the graph view"), "graph.png",
                                              self.tr("PNG image (*.png)"))
        if path:
            self.graph_view.grab().save(path)

    def _go_to_line(self, line: int) -> None:
        self.panels.dock("editor").show()
        self.editor.go_to_line(line)
        self.editor.setFocus()

    def _show_line(self, line: int) -> None:
        """A panel asked to show a script line: scroll there, leave the focus where it is."""
        self.editor.go_to_line(line)

    def _show_lessons(self) -> None:
        dock = self.panels.dock("lessons")
        dock.show()
        dock.raise_()
        self.lessons_panel.set_catalog_shown(True)
        self.lessons_panel.tree.setFocus()

    def _on_lesson_opened(self, name: str) -> None:
        """A lesson opens with its text in front and the whole pane for it;
        a text too long for its column opens whole in the reading pane."""
        self.reading_pane.hide()
        self.lessons_panel.open_reading(name)
        dock = self.panels.dock("lessons")
        if not self.presentation.is_on() and not dock.isHidden():  # (a panel the learner closed stays closed)
            dock.raise_()
            self._reading_pending = True
            QTimer.singleShot(0, self, self._fit_lesson_text)

    def lesson_text_settled(self) -> bool:
        """The opened lesson's text has its room: the column sized, the reading pane shown if needed."""
        return not self._reading_pending

    def _offer_reading_pane(self) -> None:
        """After the column took its size: the text that still scrolls there opens in the reading pane."""
        if not self._reading_pending or not self.isVisible():  # (not shown yet: showEvent fits the column, then asks)
            return
        self._reading_pending = False
        if (not self.lessons_panel.text_fits() and not self.presentation.is_on()
                and not self.panels.dock("lessons").isHidden() and self.files.lesson is not None):
            self.lessons_panel.open_pane()

    def _fit_lesson_text(self, passes: int = 4) -> None:
        """Give the lesson tabs the height the text needs, when they sit under
        the code: all of it where the code keeps `CODE_MIN_LINES` lines (and
        the tabs at most `LESSON_SHARE` of the column); a short text gives
        the code the rest (the tabs keep `LESSON_MIN_SHARE`)."""
        lessons, editor = self.panels.dock("lessons"), self.panels.dock("editor")
        if (lessons.isFloating() or editor.isFloating() or not editor.isVisible() or lessons.isHidden()
                or self.dockWidgetArea(lessons) != self.dockWidgetArea(editor)
                or abs(lessons.x() - editor.x()) > 4):
            self._offer_reading_pane()
            return
        layout = self.lessons_panel.layout()
        if layout is not None:
            layout.activate()  # (the buttons' row just folded away)
        text = self.lessons_panel.text
        overflow = text.verticalScrollBar().maximum()  # exact, after the text's own layout
        delta = overflow + 6 if overflow > 0 else int(text.document().size().height()) + 6 - text.viewport().height()
        column = lessons.height() + editor.height()
        code_min = self.editor.fontMetrics().lineSpacing() * CODE_MIN_LINES + 60  # (+ title, scrollbar)
        high = min(int(column * LESSON_SHARE), column - code_min)
        wanted = max(min(lessons.height() + delta, high), int(column * LESSON_MIN_SHARE))
        if abs(wanted - lessons.height()) > 2:
            # only the code's size is set: the tabs under it take what it gives up (naming
            # both, Qt would share out the tab bar's height between them as well)
            self.resizeDocks([editor], [editor.height() - (wanted - lessons.height())], Qt.Orientation.Vertical)
            if passes > 1:  # again once the text is laid out at its new size (a scroll bar gone, a stale width)
                QTimer.singleShot(0, self, lambda: self._fit_lesson_text(passes - 1))
                return
        QTimer.singleShot(0, self, self._offer_reading_pane)  # (once the text is laid out at its size)

    # -- texts --------------------------------------------------------------------------
    def retranslate(self) -> None:
        """(Re)apply the window's own strings; panels and docks retranslate themselves."""
        self.chrome.retranslate()
        self.environments.retranslate()
        self.status.retranslate()
        self.runs.update_devices()
        self._update_title()

    def changeEvent(self, event):  # noqa: N802
        if event.type() == QEvent.LanguageChange and self._built:
            self.retranslate()
        super().changeEvent(event)

    def _update_title(self, *_):
        self.setWindowTitle(f"{self.files.display_name()}[*] — {APP_NAME}")
        self.setWindowModified(self.editor.document().isModified())

    # -- theme / language -----------------------------------------------------------------
    def set_theme_mode(self, mode: str) -> None:
        self.theme_manager.set_mode(mode)
        self.chrome.check_theme(mode)

    def _apply_theme(self, name: str) -> None:
        self.graph_view.set_theme(name)
        self.chrome.apply_theme(name)
        self.setWindowIcon(icon("app", name))

    def set_language(self, code: str) -> None:
        """Switch the UI language live (Qt re-sends LanguageChange to every widget)."""
        i18n.set_language(code)
        self.chrome.check_language(i18n.current_language())
        self.retranslate()

    # -- help ---------------------------------------------------------------------------------
    def shortcuts_html(self) -> str:
        rows = [
            ("Ctrl+Enter", self.tr("Run the script")),
            ("Ctrl+.", self.tr("Stop the running script")),
            ("F10 / Shift+F10", self.tr("Next / previous step of the backward pass (wherever the focus is)")),
            ("Alt+Home / Alt+End", self.tr("First / last step (also Ctrl+Shift+F10 / Ctrl+F10)")),
            ("F9", self.tr("Play / pause the backward pass")),
            ("→ / ← / Space / Home / End", self.tr("The same, while the graph has the focus")),
            ("F11", self.tr("Presentation mode (Esc leaves)")),
            ("Ctrl+F, F3", self.tr("Find a node by name or op; next match")),
            ("+ / − / Ctrl+0", self.tr("Zoom in / out / fit the graph")),
            ("Ctrl+/", self.tr("Comment or uncomment lines")),
            ("Tab / Shift+Tab", self.tr("Indent / unindent (4 spaces)")),
            ("Ctrl+N / O / S", self.tr("New / open / save a script")),
            ("Ctrl+Alt+O / S", self.tr("Open / save a trace")),
            ("Ctrl+E", self.tr("Export the graph")),
            ("F1", self.tr("Show the lessons")),
        ]
        body = "".join(f"<tr><td style='padding-right:16px'><b>{k}</b></td><td>{v}</td></tr>" for k, v in rows)
        return f"<table>{body}</table>"

    def show_shortcuts(self) -> None:
        box = QMessageBox(QMessageBox.Icon.Information, self.tr("Keyboard shortcuts"), self.shortcuts_html(),
                          QMessageBox.StandardButton.Close, self)
        box.setTextFormat(Qt.TextFormat.RichText)
        box.exec()

    def about(self) -> None:
        from autogradviz import __version__
        torch_v = self.worker.info.get("torch_version", self.tr("unknown (worker not ready)"))
        QMessageBox.about(self, self.tr("About Autograd Visualizer"), self.tr(
            "<h3>Autograd Visualizer {version}</h3>"
            "<p>See the grad_fn graph PyTorch builds and step through the real backward pass.</p>"
            "<p>Scripts run in a separate worker process (torch {torch}).</p>").format(
            version=__version__, torch=torch_v))

    # -- layout persistence ----------------------------------------------------------------------
    def _restore_layout(self) -> bool:
        """The saved geometry and dock state; True when a dock state was restored."""
        s = settings.settings()
        geometry = s.value("window/geometry")
        state = s.value("window/state")
        if isinstance(geometry, QByteArray) and not geometry.isEmpty():
            self.restoreGeometry(geometry)
        if isinstance(state, QByteArray) and not state.isEmpty():
            return bool(self.restoreState(state, STATE_VERSION))
        return False

    def apply_default_sizes(self) -> None:
        """The default dock sizes for the window's size: the code column
        `CODE_SHARE` of the width, the stepper a `STRIP_HEIGHT` strip, the code
        over the tabs about half and half - the canvas keeps the rest."""
        w, h = max(self.width(), 640), max(self.height(), 480)
        editor, lessons, stepper = (self.panels.dock(p) for p in ("editor", "lessons", "stepper"))
        self.resizeDocks([editor], [int(min(max(w * CODE_SHARE, 340), 620))], Qt.Orientation.Horizontal)
        self.resizeDocks([stepper], [STRIP_HEIGHT], Qt.Orientation.Vertical)
        column = h - 90
        self.resizeDocks([editor, lessons], [int(column * 0.5), int(column * 0.5)], Qt.Orientation.Vertical)

    def showEvent(self, event) -> None:  # noqa: N802
        super().showEvent(event)
        if not self._sized:  # first launch: the docks take their share of the size it opens at
            self._sized = True
            self.apply_default_sizes()
            QTimer.singleShot(0, self, self._fit_lesson_text)  # (then the lesson's text all in view)

    def save_layout(self) -> None:
        s = settings.settings()
        s.setValue("window/geometry", self.saveGeometry())
        s.setValue("window/state", self.saveState(STATE_VERSION))
        s.sync()

    def reset_layout(self) -> None:
        self.presentation.set_on(False)
        self.restoreState(self._default_state, STATE_VERSION)
        self.panels.show_all()
        self.apply_default_sizes()
        QTimer.singleShot(0, self, self._fit_lesson_text)

    # -- closing ------------------------------------------------------------------------------------
    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802
        if not self.files.maybe_save():
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
        self.presentation.set_on(False)  # (the saved layout is the one outside presentation)
        self.status.stop_clock()
        self.save_layout()
        self.files.autosave.set_enabled(False)
        if not keep_autosave:
            self.files.autosave.discard()
        self.graph_view.shutdown()
        if self._owns_worker:
            self.worker.shutdown()
