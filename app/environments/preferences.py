"""Preferences: which Python runs the learner's scripts.

The learner may already have an environment with the torch they want (a venv
or conda env with a CUDA build, torchvision and friends). Here they pick it,
as in Thonny's "Interpreter" page: the app checks it in the background
(InterpreterCheck: Python and torch versions, CUDA, whether the worker can
start there) and says what is missing, with the install command and a button
that runs it. An interpreter that cannot run scripts is never saved: OK
checks first and keeps the dialog open with the reason.
"""

from __future__ import annotations

import os
import sys
from typing import Optional, cast

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QButtonGroup, QComboBox, QDialog, QDialogButtonBox, QFileDialog, QGroupBox,
                               QHBoxLayout, QLabel, QLineEdit, QProgressBar, QPushButton, QRadioButton, QSizePolicy,
                               QVBoxLayout, QWidget)

from autogradviz.app.environments.discovery import find_interpreters
from autogradviz.app.environments.interpreter_check import InterpreterCheck
from autogradviz.app.environments.texts import EnvironmentTexts
from autogradviz.app.services.text_safety import plain
from autogradviz.engine.protocol.interpreter import MISSING_PACKAGES, InterpreterReport, same_interpreter


class PreferencesDialog(QDialog):
    """`python` is the current choice ("" = the app's own interpreter).
    After `accept`, `chosen_python()` is the choice to keep."""

    checked = Signal(object)  # InterpreterReport, after each check
    # the check's outcome; the name hides QDialog.result(), which nothing calls here
    result: QLabel  # type: ignore[assignment]

    def __init__(self, python: str = "", parent: Optional[QWidget] = None, own_torch: Optional[str] = None):
        super().__init__(parent)
        self.setObjectName("preferencesDialog")
        self.setWindowTitle(self.tr("Preferences"))
        self.texts = EnvironmentTexts(self)
        self.report: Optional[InterpreterReport] = None
        self._accept_when_checked = False
        self.check = InterpreterCheck(self)
        self.check.finished.connect(self._on_checked)

        box = QGroupBox(self.tr("Python that runs your scripts"), self)
        self.own_radio = QRadioButton(self.tr("This app's own Python"), box)
        own = sys.executable + (f"  (torch {own_torch})" if own_torch else "")
        self.own_label = QLabel(own, box)
        self.own_label.setObjectName("mutedLabel")
        self.own_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.other_radio = QRadioButton(self.tr("Another Python interpreter (a venv or conda environment "
                                                "that has torch):"), box)
        self.group = QButtonGroup(self)
        self.group.addButton(self.own_radio)
        self.group.addButton(self.other_radio)
        # editable: type a path, or pick an environment found in the usual places
        self.path_combo = QComboBox(box)
        self.path_combo.setEditable(True)
        self.path_combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.path_combo.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.path_combo.addItems(find_interpreters())
        self.path_combo.setToolTip(self.tr("Type the path of an interpreter, or pick one of the environments "
                                           "found on this computer"))
        self.path_edit = cast(QLineEdit, self.path_combo.lineEdit())  # (editable: it has one)
        self.path_edit.setObjectName("interpreterPath")
        self.path_edit.setPlaceholderText(self.tr("for example ~/miniconda3/envs/torch/bin/python"))
        self.browse_button = QPushButton(self.tr("Browse…"), box)
        self.browse_button.setToolTip(self.tr("Choose the interpreter's file"))
        self.check_button = QPushButton(self.tr("Check"), box)
        self.check_button.setToolTip(self.tr("Start this interpreter once and see whether scripts can run "
                                             "there (torch, CUDA, the worker's packages)"))
        self.progress = QProgressBar(box)
        self.progress.setRange(0, 0)
        self.progress.setTextVisible(False)
        self.progress.setMaximumHeight(8)
        self.progress.setVisible(False)
        self.result = plain(QLabel(box))  # the interpreter's own words: plain text
        self.result.setObjectName("interpreterResult")
        self.result.setWordWrap(True)
        self.result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.install_button = QPushButton(self.tr("Install Missing Packages…"), box)
        self.install_button.setToolTip(self.tr("Run pip in this interpreter to install what it lacks"))
        self.install_button.setVisible(False)
        self.hint = QLabel(self.tr("Scripts then run with that environment's torch and packages; "
                                   "the app itself is unchanged."), box)
        self.hint.setObjectName("mutedLabel")
        self.hint.setWordWrap(True)

        path_row = QHBoxLayout()
        path_row.addSpacing(22)
        path_row.addWidget(self.path_combo, 1)
        path_row.addWidget(self.browse_button)
        path_row.addWidget(self.check_button)
        own_row = QHBoxLayout()
        own_row.addSpacing(22)
        own_row.addWidget(self.own_label, 1)
        inner = QVBoxLayout(box)
        inner.addWidget(self.own_radio)
        inner.addLayout(own_row)
        inner.addWidget(self.other_radio)
        inner.addLayout(path_row)
        inner.addWidget(self.progress)
        inner.addWidget(self.result)
        install_row = QHBoxLayout()
        install_row.addStretch(1)
        install_row.addWidget(self.install_button)
        inner.addLayout(install_row)
        inner.addWidget(self.hint)

        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(box)
        layout.addStretch(1)
        layout.addWidget(self.buttons)

        other = bool(python) and not same_interpreter(python)
        self.path_edit.setText(python if other else "")
        (self.other_radio if other else self.own_radio).setChecked(True)
        self.group.buttonToggled.connect(self._update_enabled)
        self.path_edit.textChanged.connect(self._path_changed)
        self.path_edit.returnPressed.connect(self.start_check)
        self.path_combo.activated.connect(lambda _i: self.start_check())
        self.browse_button.clicked.connect(self.browse)
        self.check_button.clicked.connect(self.start_check)
        self.install_button.clicked.connect(self._install_missing)
        self._update_enabled()
        self.resize(640, 340)

    # -- the choice ---------------------------------------------------------------------
    def chosen_python(self) -> str:
        """"" for the app's own interpreter, else the path typed or browsed."""
        if self.own_radio.isChecked():
            return ""
        return os.path.expanduser(self.path_edit.text().strip())

    def browse(self) -> None:
        start = os.path.dirname(self.chosen_python()) or os.path.expanduser("~")
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Choose a Python interpreter"), start,
                                              self.tr("Python interpreter (python* python*.exe);;All files (*)"))
        if path:
            self.other_radio.setChecked(True)
            self.path_edit.setText(path)
            self.start_check()

    def start_check(self) -> None:
        python = self.chosen_python()
        if not python:
            self.result.setText(self.tr("Type or browse the path of a Python interpreter first."))
            return
        self.report = None
        self.install_button.setVisible(False)
        self.progress.setVisible(True)
        self.check_button.setEnabled(False)
        self.result.setText(self.tr("Checking {path}… (importing torch can take a few seconds)").format(path=python))
        self.check.start(python)

    def accept(self) -> None:
        python = self.chosen_python()
        if not python or same_interpreter(python):
            super().accept()
            return
        if self.report is not None and self.report.python == python:
            if self.report.ok:
                super().accept()
            return  # the reason it cannot be used is on screen
        self._accept_when_checked = True
        self.start_check()

    def reject(self) -> None:
        self.check.cancel()
        super().reject()

    # -- internals ----------------------------------------------------------------------------
    def _on_checked(self, report: InterpreterReport) -> None:
        self.progress.setVisible(False)
        self.check_button.setEnabled(True)
        self.report = report
        text = self.texts.report_summary(report)
        color = "ok" if report.ok else "error"
        self.result.setProperty("state", color)
        self.result.setText(("✔ " if report.ok else "✖ ") + text)
        self.result.style().unpolish(self.result)
        self.result.style().polish(self.result)
        self.install_button.setVisible(report.problem == MISSING_PACKAGES and report.has_pip)
        self.checked.emit(report)
        if self._accept_when_checked:
            self._accept_when_checked = False
            if report.ok and report.python == self.chosen_python():
                super().accept()

    def _install_missing(self) -> None:
        from autogradviz.app.environments.install_dialog import InstallDialog

        if self.report is None:
            return
        dialog = InstallDialog(self.report.python, self.report.missing, self, offer_run=False)
        dialog.installed.connect(lambda _names: self.start_check())
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()

    def _path_changed(self) -> None:
        self.report = None
        self.install_button.setVisible(False)
        self.result.clear()
        if self.path_edit.text().strip():
            self.other_radio.setChecked(True)

    def _update_enabled(self, *_args) -> None:
        other = self.other_radio.isChecked()
        for w in (self.browse_button, self.check_button):
            w.setEnabled(other)
        if not other:
            self.result.clear()
            self.install_button.setVisible(False)
