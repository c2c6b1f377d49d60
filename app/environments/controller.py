"""The window's side of packages and interpreters: the Tools menu
(Preferences…, Manage Packages…), the "Install NAME…" link the output pane
shows under a missing-module error, and the interpreter the worker runs with
(kept in settings, applied at start and when Preferences change it).

The window creates one and calls `retranslate`; everything else is here, so
that the main window stays a composition of collaborators.
"""

from __future__ import annotations

import sys
from typing import Callable, Optional

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDialog, QMainWindow, QMenu

from autogradviz.app.environments.texts import INSTALL_SCHEME
from autogradviz.app.panels.output import OutputPane
from autogradviz.app.services import settings
from autogradviz.app.services.worker_process import WorkerProcess
from autogradviz.engine.protocol.distributions import valid_distribution
from autogradviz.engine.protocol.interpreter import precheck, same_interpreter


class EnvironmentController(QObject):
    """See the module docstring. `before` is the menu the Tools menu goes in
    front of (Help); `run_script` runs the editor's script again."""

    def __init__(self, window: QMainWindow, worker: WorkerProcess, output: OutputPane,
                 run_script: Callable[[], None], before: Optional[QMenu] = None, apply_saved: bool = True):
        super().__init__(window)
        self._window = window
        self.worker = worker
        self._output = output
        self._run_script = run_script
        self.dialog: Optional[QDialog] = None  # the dialog open now (tests drive it)
        self.tools_menu = QMenu(window)
        self.preferences_action = QAction(window)
        self.preferences_action.setObjectName("preferences")
        self.preferences_action.setShortcut(QKeySequence("Ctrl+,"))
        self.preferences_action.triggered.connect(self.open_preferences)
        self.packages_action = QAction(window)
        self.packages_action.setObjectName("manage_packages")
        self.packages_action.triggered.connect(self.open_packages)
        self.tools_menu.addAction(self.packages_action)
        self.tools_menu.addSeparator()
        self.tools_menu.addAction(self.preferences_action)
        window.addAction(self.preferences_action)
        bar = window.menuBar()
        if before is not None:
            bar.insertMenu(before.menuAction(), self.tools_menu)
        else:
            bar.addMenu(self.tools_menu)
        output.actionActivated.connect(self._on_output_action)
        self._saved_missing: Optional[str] = None
        if apply_saved:
            self._apply_saved()
        self.retranslate()

    # -- the interpreter -----------------------------------------------------------------
    @property
    def python(self) -> str:
        """The interpreter that runs scripts now."""
        return self.worker.python

    def _apply_saved(self) -> None:
        saved = settings.worker_python()
        if not saved or same_interpreter(saved):
            return
        if precheck(saved) is not None:  # the environment was deleted or moved
            self._saved_missing = saved
            return
        self.worker.set_python(saved)

    def report_saved_missing(self) -> None:
        """Say (once) that the interpreter chosen earlier is gone: scripts use the app's own."""
        if self._saved_missing:
            self._output.append_problem(
                self.tr("The Python chosen in Preferences no longer exists: {path}").format(path=self._saved_missing),
                self.tr("Scripts run with the app's own Python. Choose another one in Tools ▸ Preferences."))
            self._saved_missing = None

    def set_python(self, python: str) -> None:
        """Run scripts with `python` ("" = the app's own) from now on, and keep the choice."""
        python = "" if not python or same_interpreter(python) else python
        settings.set_worker_python(python)
        if (python or sys.executable) != self.worker.python:
            self.worker.set_python(python or None)
            self._output.append_info(self.tr("Scripts now run with {python}.").format(
                python=python or self.tr("the app's own Python ({path})").format(path=sys.executable)))

    # -- dialogs ------------------------------------------------------------------------------
    def open_preferences(self) -> None:
        from autogradviz.app.environments.preferences import PreferencesDialog

        current = "" if same_interpreter(self.worker.python) else self.worker.python
        dialog = PreferencesDialog(current, self._window, own_torch=None if current else
                                   self.worker.info.get("torch_version"))
        dialog.accepted.connect(lambda: self.set_python(dialog.chosen_python()))
        self._show(dialog)

    def open_packages(self) -> None:
        from autogradviz.app.environments.packages_dialog import PackagesDialog

        dialog = PackagesDialog(self.worker.python, self._window)
        dialog.changed.connect(self.worker.restart)
        self._show(dialog)

    def install(self, distribution: str) -> None:
        """Offer to install `distribution` into the scripts' interpreter (the
        missing-module link); on success a fresh worker, and "Run Again".
        Nothing but a bare package name is offered (never a URL, a path or an
        option), and nothing runs before the learner presses Install in the
        dialog, which shows the exact command."""
        from autogradviz.app.environments.install_dialog import InstallDialog

        if not valid_distribution(distribution):
            return

        dialog = InstallDialog(self.worker.python, [distribution], self._window)
        dialog.installed.connect(lambda _names: self.worker.restart())
        dialog.runAgainRequested.connect(self._run_script)
        self._show(dialog)

    def _show(self, dialog: QDialog) -> None:
        """Window-modal, without a nested event loop (`open`, not `exec`)."""
        if self.dialog is not None:
            self.dialog.close()
        self.dialog = dialog
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.finished.connect(lambda _r, d=dialog: self._closed(d))
        dialog.open()

    def _closed(self, dialog: QDialog) -> None:
        if self.dialog is dialog:
            self.dialog = None

    def _on_output_action(self, href: str) -> None:
        if href.startswith(INSTALL_SCHEME) and len(href) > len(INSTALL_SCHEME):
            self.install(href[len(INSTALL_SCHEME):])

    # -- texts ------------------------------------------------------------------------------------
    def retranslate(self) -> None:
        self.tools_menu.setTitle(self.tr("&Tools"))
        for action, text, tip in (
                (self.preferences_action, self.tr("&Preferences…"),
                 self.tr("Choose the Python interpreter that runs your scripts")),
                (self.packages_action, self.tr("Manage &Packages…"),
                 self.tr("See, install and uninstall the packages of the Python that runs your scripts"))):
            action.setText(text)
            keys = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
            tip = f"{tip} ({keys})" if keys else tip
            action.setToolTip(tip)
            action.setStatusTip(tip)
