"""Tools ▸ Manage Packages: the distributions installed in the Python that
runs the learner's scripts, with install and uninstall (Thonny's package
manager, reduced to what a learner needs). Listing reads
importlib.metadata in that interpreter (a QProcess: this app's own packages
may differ); installing and uninstalling go through InstallDialog (pip in
the background, with its log and Cancel).
"""

from __future__ import annotations

import json
from typing import Optional

from PySide6.QtCore import QProcess, Qt, Signal
from PySide6.QtWidgets import (QAbstractItemView, QDialog, QDialogButtonBox, QHBoxLayout, QHeaderView, QLabel,
                               QLineEdit, QPushButton, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)

from autogradviz.app.environments.install_dialog import InstallDialog
from autogradviz.app.services.text_safety import plain, plain_label
from autogradviz.engine.protocol.interpreter import worker_environment

_LIST_CODE = ("import importlib.metadata as m, json\n"
              "print(json.dumps(sorted({(d.metadata['Name'] or '?', d.version or '?') "
              "for d in m.distributions()}, key=lambda p: p[0].lower())))")
# Scripts need these in the worker's interpreter (engine/protocol/interpreter.py)
NEEDED = {"torch", "msgspec"}


class PackagesDialog(QDialog):
    changed = Signal()  # something was installed or uninstalled

    def __init__(self, python: str, parent: Optional[QWidget] = None):
        super().__init__(parent)
        self.setObjectName("packagesDialog")
        self.setWindowTitle(self.tr("Manage Packages"))
        self.python = python
        self.packages: list[tuple[str, str]] = []
        self._proc: Optional[QProcess] = None
        self.pip_dialog: Optional[InstallDialog] = None  # the install/uninstall dialog last opened

        self.where = plain_label(self, self.tr("Packages of the Python that runs your scripts: {path}").format(path=python))
        self.where.setWordWrap(True)
        self.where.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.filter_edit = QLineEdit(self)
        self.filter_edit.setPlaceholderText(self.tr("Filter installed packages, or type a name to install"))
        self.filter_edit.setClearButtonEnabled(True)
        self.table = QTableWidget(0, 2, self)
        self.table.setObjectName("packagesTable")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.status = plain(QLabel(self))
        self.install_button = QPushButton(self.tr("Install…"), self)
        self.install_button.setToolTip(self.tr("Install the package named in the field above with pip"))
        self.uninstall_button = QPushButton(self.tr("Uninstall…"), self)
        self.uninstall_button.setToolTip(self.tr("Uninstall the selected package with pip"))
        self.refresh_button = QPushButton(self.tr("Refresh"), self)
        self.refresh_button.setToolTip(self.tr("List the installed packages again"))
        row = QHBoxLayout()
        for b in (self.install_button, self.uninstall_button):
            row.addWidget(b)
        row.addStretch(1)
        row.addWidget(self.refresh_button)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        row.addWidget(buttons)
        layout = QVBoxLayout(self)
        for w in (self.where, self.filter_edit, self.table, self.status):
            layout.addWidget(w)
        layout.addLayout(row)

        self.filter_edit.textChanged.connect(self._fill)
        self.filter_edit.returnPressed.connect(self.install_typed)
        self.table.itemSelectionChanged.connect(self._update_buttons)
        self.install_button.clicked.connect(self.install_typed)
        self.uninstall_button.clicked.connect(self.uninstall_selected)
        self.refresh_button.clicked.connect(self.refresh)
        self.retranslate_headers()
        self.resize(560, 480)
        self.refresh()

    def retranslate_headers(self) -> None:
        self.table.setHorizontalHeaderLabels([self.tr("Package"), self.tr("Version")])

    def refresh(self) -> None:
        """List the interpreter's distributions (in the background)."""
        if self._proc is not None:
            return
        self.status.setText(self.tr("Reading the installed packages…"))
        proc = QProcess(self)
        env = proc.processEnvironment()
        for key, value in worker_environment(self.python).items():
            env.insert(key, value)
        proc.setProcessEnvironment(env)
        proc.finished.connect(self._listed)
        proc.errorOccurred.connect(self._list_failed)
        self._proc = proc
        proc.start(self.python, ["-c", _LIST_CODE])

    def install_typed(self) -> None:
        name = self.filter_edit.text().strip()
        if not name:
            self.status.setText(self.tr("Type the name of the package to install in the field above."))
            self.filter_edit.setFocus()
            return
        self._pip([name], uninstall=False)

    def uninstall_selected(self) -> None:
        row = self.table.currentRow()
        if row < 0:
            return
        item = self.table.item(row, 0)
        if item is not None:
            self._pip([item.text()], uninstall=True)

    def _installed(self, _names) -> None:
        self.changed.emit()
        self.refresh()

    def _pip(self, names: list[str], uninstall: bool) -> None:
        dialog = InstallDialog(self.python, names, self, offer_run=False, uninstall=uninstall)
        if uninstall and {n.lower() for n in names} & NEEDED:
            dialog.status.setText(self.tr("Scripts cannot run in this Python without {names}.").format(
                names=", ".join(names)))
        dialog.installed.connect(self._installed)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.pip_dialog = dialog
        dialog.open()  # window-modal, no nested event loop

    def _listed(self, code: int, _status) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        out = bytes(proc.readAllStandardOutput().data()).decode("utf-8", "replace")
        proc.deleteLater()
        try:
            self.packages = [(str(n), str(v)) for n, v in json.loads(out.strip().splitlines()[-1])]
        except (ValueError, IndexError, TypeError):
            self.packages = []
            self.status.setText(self.tr("The packages could not be listed (exit code {code}).").format(code=code))
            self._fill()
            return
        self._fill()

    def _list_failed(self, error) -> None:
        if error == QProcess.ProcessError.FailedToStart and self._proc is not None:
            self._proc = None
            self.status.setText(self.tr("This Python could not be started."))

    def _fill(self, *_args) -> None:
        needle = self.filter_edit.text().strip().lower()
        shown = [p for p in self.packages if needle in p[0].lower()]
        self.table.setRowCount(len(shown))
        for i, (name, version) in enumerate(shown):
            self.table.setItem(i, 0, QTableWidgetItem(name))
            self.table.setItem(i, 1, QTableWidgetItem(version))
        if self.packages:
            self.status.setText(self.tr("{n} of {total} packages shown.").format(n=len(shown), total=len(self.packages)))
        self._update_buttons()

    def _update_buttons(self) -> None:
        self.uninstall_button.setEnabled(self.table.currentRow() >= 0 and bool(self.table.selectedItems()))
        self.install_button.setEnabled(bool(self.filter_edit.text().strip()))

    def done(self, result: int) -> None:  # noqa: D401 - QDialog API
        if self._proc is not None:
            self._proc.kill()
            self._proc.waitForFinished(2000)
            self._proc = None
        super().done(result)
