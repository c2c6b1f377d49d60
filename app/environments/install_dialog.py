"""The "install a package" dialog: pip runs in the background (PipProcess)
into the interpreter that runs the learner's scripts, with an indeterminate
progress bar, pip's live log, Cancel (ends pip), and - once installed - an
offer to run the script again. Thonny's package manager is the model.

It says which Python receives the package and shows the equivalent terminal
command, so nothing happens behind the learner's back.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from typing import Optional

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QProgressBar, QPushButton,
                               QVBoxLayout, QWidget)

from autogradviz.app.environments.pip_process import CANCELLED, FAILED_TO_START, PipProcess
from autogradviz.app.services.text_safety import escaped, plain_label

IDLE, WORKING, DONE, FAILED = "idle", "working", "done", "failed"


class InstallDialog(QDialog):
    """Install `distributions` into `python`. `offer_run` adds "Run Again"
    after a successful install (emits `runAgainRequested` and closes)."""

    installed = Signal(list)          # the distributions, after pip succeeded
    runAgainRequested = Signal()

    def __init__(self, python: str, distributions: list[str], parent: Optional[QWidget] = None,
                 offer_run: bool = True, uninstall: bool = False):
        super().__init__(parent)
        self.setObjectName("installDialog")
        self.python = python
        self.distributions = list(distributions)
        self.uninstall = uninstall
        self._offer_run = offer_run and not uninstall
        self.state = IDLE
        self.pip = PipProcess(self)
        self.pip.output.connect(self._append_log)
        self.pip.finished.connect(self._on_finished)

        names = escaped(", ".join(self.distributions))  # (a rich label: the names escaped)
        if uninstall:
            self.setWindowTitle(self.tr("Uninstall a Package"))
            heading = self.tr("Uninstall <b>{names}</b> from the Python that runs your scripts?").format(names=names)
        else:
            self.setWindowTitle(self.tr("Install a Package"))
            heading = self.tr("Install <b>{names}</b> into the Python that runs your scripts?").format(names=names)
        # exactly what Install runs, word for word, shown before anything runs
        self.command = PipProcess.command_for(python, self.distributions, uninstall)
        command = shell_words(self.command)
        self.heading = QLabel(heading, self)
        self.heading.setTextFormat(Qt.TextFormat.RichText)
        self.heading.setWordWrap(True)
        self.where = plain_label(self, self.tr("Python: {path}").format(path=python))
        self.where.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.where.setWordWrap(True)
        self.command_label = QLabel(self.tr("The same in a terminal:") + f"<br><code>{escaped(command)}</code>", self)
        self.command_label.setTextFormat(Qt.TextFormat.RichText)
        self.command_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.command_label.setWordWrap(True)
        self.progress = QProgressBar(self)
        self.progress.setRange(0, 0)  # pip does not say how far it is: indeterminate
        self.progress.setTextVisible(False)
        self.progress.setVisible(False)
        self.status = plain_label(self)  # it names the packages: plain text
        self.status.setWordWrap(True)
        self.log = QPlainTextEdit(self)
        self.log.setObjectName("pipLog")
        self.log.setReadOnly(True)
        self.log.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.log.setPlaceholderText(self.tr("pip's output appears here."))
        self.log.setMinimumHeight(160)

        self.buttons = QDialogButtonBox(self)
        self.start_button = QPushButton(self.tr("Uninstall") if uninstall else self.tr("Install"), self)
        self.start_button.setDefault(True)
        self.start_button.setToolTip(self.tr("Run pip now, in the background"))
        self.run_button = QPushButton(self.tr("Run Again"), self)
        self.run_button.setToolTip(self.tr("Run the script again, with the new package"))
        self.cancel_button = QPushButton(self.tr("Cancel"), self)
        self.cancel_button.setToolTip(self.tr("Stop pip (Esc)"))
        self.close_button = QPushButton(self.tr("Close"), self)
        for b, role in ((self.start_button, QDialogButtonBox.ButtonRole.AcceptRole), (self.run_button, QDialogButtonBox.ButtonRole.AcceptRole),
                        (self.cancel_button, QDialogButtonBox.ButtonRole.RejectRole),
                        (self.close_button, QDialogButtonBox.ButtonRole.RejectRole)):
            self.buttons.addButton(b, role)
        self._show_buttons(self.start_button, self.cancel_button)  # after addButton, which shows them
        self.start_button.clicked.connect(self.start)
        self.run_button.clicked.connect(self._run_again)
        self.cancel_button.clicked.connect(self.reject)
        self.close_button.clicked.connect(self.reject)

        layout = QVBoxLayout(self)
        for w in (self.heading, self.where, self.command_label, self.progress, self.status, self.log):
            layout.addWidget(w)
        layout.addWidget(self.buttons)
        self.resize(620, 420)  # Esc is QDialog's reject(): cancels pip while it runs

    # -- actions ---------------------------------------------------------------------
    def start(self) -> None:
        if self.state == WORKING:
            return
        self.state = WORKING
        self.log.clear()
        self._show_buttons(self.cancel_button)
        self.progress.setVisible(True)
        self.status.setText(self.tr("Running pip… (this can take a while for large packages)"))
        if self.uninstall:
            self.pip.uninstall(self.python, self.distributions)
        else:
            self.pip.install(self.python, self.distributions)
        self._append_log("$ " + " ".join(self.pip.command) + "\n")

    def reject(self) -> None:  # Cancel / Esc / the window's close button
        if self.state == WORKING:
            self.pip.cancel()  # the dialog stays, to show that pip stopped
            self.status.setText(self.tr("Stopping pip…"))
            return
        super().reject()

    def done(self, result: int) -> None:  # noqa: D401 - QDialog API
        if self.pip.is_running():
            self.pip.wait()
        super().done(result)

    # -- pip's answers --------------------------------------------------------------------
    def _append_log(self, text: str) -> None:
        self.log.moveCursor(self.log.textCursor().MoveOperation.End)
        self.log.insertPlainText(text)
        self.log.ensureCursorVisible()

    def _on_finished(self, ok: bool, code: int) -> None:
        self.progress.setVisible(False)
        names = ", ".join(self.distributions)
        if ok:
            self.state = DONE
            if self.uninstall:
                self.status.setText(self.tr("Uninstalled {names}.").format(names=names))
            else:
                self.status.setText(self.tr("Installed {names}. Run the script again to use it.").format(names=names))
            self.installed.emit(self.distributions)
            if self._offer_run:
                self._show_buttons(self.run_button, self.close_button)
                self.run_button.setDefault(True)
                self.run_button.setFocus()
            else:
                self._show_buttons(self.close_button)
            return
        self.state = FAILED
        self._show_buttons(self.start_button, self.close_button)
        self.start_button.setText(self.tr("Try Again"))
        if code == CANCELLED:
            self.status.setText(self.tr("Cancelled: pip was stopped. Nothing else was changed."))
        elif code == FAILED_TO_START:
            self.status.setText(self.tr("pip could not be started with this Python (see the log)."))
        else:
            self.status.setText(self._failure_hint(self.log.toPlainText()) or self.tr(
                "pip failed (exit code {code}): the log below says why, often a misspelt name or no "
                "network.").format(code=code))

    def _failure_hint(self, log: str) -> Optional[str]:
        """A plain explanation of the pip failures learners meet most, from its log."""
        if "No module named pip" in log:
            return self.tr("This Python has no pip. Add it with {python} -m ensurepip, or install with your "
                           "environment's own tool (conda install).").format(python=self.python)
        if "externally-managed-environment" in log:
            return self.tr("pip refuses to change this Python: it belongs to your system's package manager "
                           "(PEP 668). Make a virtual environment with torch (python3 -m venv ~/torch-env, then "
                           "~/torch-env/bin/pip install torch) and choose it in Tools ▸ Preferences.")
        if "No matching distribution found" in log or "Could not find a version" in log:
            return self.tr("pip found no package called {names} for this Python: check the name (the pip "
                           "name can differ from the import name) or the network.").format(
                names=", ".join(self.distributions))
        return None

    def _show_buttons(self, *shown: QPushButton) -> None:
        for b in (self.start_button, self.run_button, self.cancel_button, self.close_button):
            b.setVisible(b in shown)

    def _run_again(self) -> None:
        self.runAgainRequested.emit()
        self.accept()


def shell_words(command: list[str]) -> str:
    """`command` as one line a shell reads back as the same words."""
    if os.name == "nt":
        return subprocess.list2cmdline(command)
    return shlex.join(command)
