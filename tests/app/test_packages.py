"""Packages and interpreters in the GUI, with real processes throughout: the
worker restarted in another interpreter (a venv made here that sees this
project's torch), a missing module explained and installed by clicking the
output pane's link (pip in a QProcess, offline, from a wheel made here),
Run Again, Cancel ending pip, and Preferences refusing a Python without torch.
Nothing is installed into the project's own environment.
"""

from __future__ import annotations

import socket
import subprocess
import sys

import pytest
from output_links import hrefs as _hrefs  # (tests/app/output_links.py)
from PySide6.QtCore import Qt, QUrl
from PySide6.QtWidgets import QDialogButtonBox

from autogradviz.app.environments.install_dialog import DONE, FAILED, InstallDialog
from autogradviz.app.environments.packages_dialog import PackagesDialog
from autogradviz.app.environments.preferences import PreferencesDialog
from autogradviz.app.services import settings
from autogradviz.app.services.worker_process import READY
from venv_factory import make_venv, make_wheel, offline_pip_env

DEMO = "agvz_gui_demo"
USES_DEMO = f"""\
import torch
import {DEMO}
x = torch.tensor([1.0, 2.0], requires_grad=True)
(x * {DEMO}.FACTOR).sum().backward()
print("grad", x.grad.tolist())
"""


@pytest.fixture(scope="module")
def envs(tmp_path_factory):
    root = tmp_path_factory.mktemp("gui-envs")
    wheels = root / "wheels"
    make_wheel(wheels, DEMO, DEMO, "FACTOR = 7.0\n")
    return {"torch": make_venv(root / "torchenv", with_this_sites=True),
            "bare": make_venv(root / "bare", with_this_sites=False), "wheels": wheels}


@pytest.fixture
def offline_pip(envs, monkeypatch):
    for key, value in offline_pip_env(envs["wheels"]).items():
        monkeypatch.setenv(key, value)


def _run(qtbot, window, source: str):
    window.editor.setPlainText(source)
    with qtbot.waitSignal(window.runFinished, timeout=60_000) as blocker:
        window.run_script()
    return blocker.args[0]


def test_preferences_refuse_a_python_without_torch(qtbot, main_window, envs):
    before = settings.worker_python()
    main_window.environments.open_preferences()
    dialog = main_window.environments.dialog
    assert isinstance(dialog, PreferencesDialog) and dialog.isVisible()
    dialog.path_edit.setText(envs["bare"])
    assert dialog.other_radio.isChecked()
    qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.Ok), Qt.LeftButton)
    qtbot.waitUntil(lambda: dialog.report is not None, timeout=60_000)
    assert dialog.isVisible(), "a Python without torch must not be accepted"
    text = dialog.result.text()
    assert "torch, msgspec" in text and f"{envs['bare']} -m pip install torch msgspec" in text
    # made --without-pip: no pip to install with, and the dialog says so
    assert "no pip" in text and not dialog.install_button.isVisibleTo(dialog)
    assert settings.worker_python() == before
    dialog.reject()
    assert main_window.environments.dialog is None


def test_another_interpreter_then_missing_module_installed_from_the_gui(
        qtbot, main_window, shared_worker, envs, offline_pip):
    env_python = envs["torch"]
    controller = main_window.environments
    controller.open_preferences()
    dialog = controller.dialog
    dialog.path_edit.setText(env_python)
    dialog.accept()  # checks first, accepts once the check passes
    qtbot.waitUntil(lambda: controller.dialog is None, timeout=60_000)
    assert settings.worker_python() == env_python
    assert shared_worker.python == env_python
    qtbot.waitUntil(lambda: shared_worker.state == READY, timeout=60_000)

    qtbot.waitUntil(lambda: main_window.status.worker_label.text().endswith(" · torchenv"), timeout=10_000)
    assert env_python in main_window.status.worker_label.toolTip()
    trace = _run(qtbot, main_window, "import sys\nprint('python', sys.executable)\n")
    assert f"python {env_python}\n" in trace.stdout

    trace = _run(qtbot, main_window, USES_DEMO)
    error = trace.error
    assert error.type == "ModuleNotFoundError" and error.code == "missing_module"
    assert error.params["python"] == env_python and error.params["distribution"] == DEMO
    shown = main_window.output.plain_text
    assert f"{env_python} -m pip install {DEMO}" in shown  # the exact command, for this interpreter
    href = f"install:{DEMO}"
    assert href in _hrefs(main_window.output)

    main_window.output.anchorClicked.emit(QUrl(href))  # what clicking the link does
    install = controller.dialog
    assert isinstance(install, InstallDialog) and install.python == env_python
    qtbot.mouseClick(install.start_button, Qt.LeftButton)
    assert install.progress.isVisible() and install.progress.maximum() == 0  # busy, not blocking
    qtbot.waitUntil(lambda: install.state in (DONE, FAILED), timeout=90_000)
    assert install.state == DONE, install.log.toPlainText()
    assert f"Successfully installed {DEMO}" in install.log.toPlainText().replace("-", "_")
    assert install.run_button.isVisible()
    with qtbot.waitSignal(main_window.runFinished, timeout=60_000) as blocker:
        qtbot.mouseClick(install.run_button, Qt.LeftButton)
    trace = blocker.args[0]
    assert trace.error is None, trace.error
    import torch

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (x * 7.0).sum().backward()
    assert f"grad {x.grad.tolist()}" in trace.stdout
    # installed into the chosen environment only
    assert subprocess.run([sys.executable, "-c", f"import {DEMO}"], capture_output=True).returncode != 0

    # Tools > Manage Packages lists that environment's distributions; uninstall from there
    controller.open_packages()
    packages = controller.dialog
    assert isinstance(packages, PackagesDialog) and packages.python == env_python
    qtbot.waitUntil(lambda: bool(packages.packages), timeout=30_000)
    listed = dict(packages.packages)
    assert listed[DEMO] == "1.0" and listed["torch"] == torch.__version__
    packages.filter_edit.setText("gui_demo")
    assert packages.table.rowCount() == 1
    packages.table.selectRow(0)
    assert packages.uninstall_button.isEnabled()
    qtbot.mouseClick(packages.uninstall_button, Qt.LeftButton)
    remove = packages.pip_dialog
    assert remove.uninstall and remove.distributions == [DEMO]
    with qtbot.waitSignal(packages.changed, timeout=60_000):
        qtbot.mouseClick(remove.start_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: DEMO not in dict(packages.packages), timeout=30_000)
    remove.close()
    packages.reject()

    controller.set_python("")  # back to the app's own Python for the rest of the module
    assert settings.worker_python() == "" and shared_worker.python == sys.executable


def test_cancel_ends_pip(qtbot, envs, monkeypatch, pid_alive):
    # An index that accepts the connection and never answers: pip waits.
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    try:
        monkeypatch.setenv("PIP_NO_INDEX", "1")
        monkeypatch.setenv("PIP_FIND_LINKS", f"http://127.0.0.1:{server.getsockname()[1]}/")
        monkeypatch.setenv("PIP_RETRIES", "0")
        dialog = InstallDialog(envs["torch"], ["agvz-never-there"], offer_run=False)
        qtbot.addWidget(dialog)
        dialog.show()
        dialog.start()
        qtbot.waitUntil(lambda: "Looking in links" in dialog.log.toPlainText(), timeout=30_000)
        pid = dialog.pip._proc.processId()
        dialog.reject()  # Cancel / Esc while pip runs: pip ends, the dialog stays
        qtbot.waitUntil(lambda: dialog.state == FAILED, timeout=10_000)
        assert dialog.isVisible()
        assert "Cancelled" in dialog.status.text()
        assert not pid_alive(pid)
        assert dialog.start_button.isVisible()  # "Try Again"
    finally:
        server.close()


def test_saved_interpreter_applied_at_start_and_a_vanished_one_reported(qtbot, envs, tmp_path):
    from autogradviz.app.theme import ThemeManager
    from autogradviz.app.window.main_window import MainWindow

    def window():
        theme = ThemeManager()
        w = MainWindow(theme_manager=theme, start_worker=False, restore_autosave=False)
        qtbot.addWidget(w)
        return w, theme

    old = settings.worker_python()
    try:
        settings.set_worker_python(envs["torch"])
        w, theme = window()
        assert w.worker.python == envs["torch"]  # the next worker starts in the chosen env
        w.shutdown()
        theme.deleteLater()
        gone = str(tmp_path / "deleted-env" / "bin" / "python")
        settings.set_worker_python(gone)
        w, theme = window()
        assert w.worker.python == sys.executable
        shown = w.output.plain_text
        assert "no longer exists" in shown and gone in shown
        w.shutdown()
        theme.deleteLater()
    finally:
        settings.set_worker_python(old)


def test_pip_failures_are_explained(qtbot, envs, offline_pip):
    # the bare venv has no pip; the torch one has no such package in the (offline) index
    for python, name, expected in ((envs["bare"], DEMO, "has no pip"),
                                   (envs["torch"], "agvz-not-in-the-index", "found no package called")):
        dialog = InstallDialog(python, [name], offer_run=False)
        qtbot.addWidget(dialog)
        dialog.start()
        qtbot.waitUntil(lambda: dialog.state == FAILED, timeout=60_000)
        assert expected in dialog.status.text(), dialog.log.toPlainText()
        assert dialog.start_button.isVisibleTo(dialog) and not dialog.run_button.isVisibleTo(dialog)


def test_preferences_list_the_environments_found(qtbot, tmp_path, monkeypatch):
    from autogradviz.app.environments.discovery import find_interpreters

    def fake_python(*parts, executable=True):
        path = tmp_path.joinpath(*parts, "bin", "python")
        path.parent.mkdir(parents=True)
        path.write_text("#!/bin/sh\n")
        path.chmod(0o755 if executable else 0o644)
        return str(path)

    conda = fake_python("miniconda3", "envs", "cuda")
    venv = fake_python(".virtualenvs", "dl")
    active = fake_python("work", "active")
    fake_python("miniconda3", "envs", "broken", executable=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("VIRTUAL_ENV", str(tmp_path / "work" / "active"))
    monkeypatch.setenv("PATH", "")
    monkeypatch.delenv("CONDA_PREFIX", raising=False)
    assert find_interpreters() == [active, conda, venv]
    dialog = PreferencesDialog("")
    qtbot.addWidget(dialog)
    assert [dialog.path_combo.itemText(i) for i in range(dialog.path_combo.count())] == [active, conda, venv]
    assert dialog.own_radio.isChecked() and dialog.chosen_python() == ""
    dialog.path_combo.setCurrentIndex(1)
    assert dialog.other_radio.isChecked() and dialog.chosen_python() == conda


def test_a_worker_that_cannot_start_there_points_to_preferences(qtbot, main_window, shared_worker, envs):
    # A saved interpreter that lost its torch: the worker fails to start there,
    # and the output says which Python it was and where to change it.
    controller = main_window.environments
    main_window.output.clear()
    controller.set_python(envs["bare"])
    qtbot.waitUntil(lambda: shared_worker.state == "failed", timeout=30_000)
    shown = main_window.output.plain_text
    assert "could not be started" in shown and "No module named" in shown
    assert f"Scripts run with {envs['bare']}, chosen in Tools ▸ Preferences" in shown
    controller.set_python("")
    assert shared_worker.python == sys.executable
