"""In the app a script behaves as under `python script.py` in a terminal, with
the real worker: it runs in its own folder, input() takes a line typed in the
Output pane (the run timeout waits meanwhile), a `\\r` progress line shows as
its last state."""

from __future__ import annotations

import os

import pytest
from PySide6.QtCore import Qt

from autogradviz.app.services import settings
from autogradviz.app.services.worker_process import READY

RUN_TIMEOUT_MS = 30_000


@pytest.fixture
def window(main_window, wait_until, shared_worker):
    wait_until(lambda: shared_worker.state == READY, 60_000, "worker ready")
    yield main_window
    settings.put("run/timeout_s", 60)


def _run_and_wait(qtbot, w):
    with qtbot.waitSignal(w.runFinished, timeout=RUN_TIMEOUT_MS) as blocker:
        w.actions["run"].trigger()
    return blocker.args[0]


def test_script_from_a_file_runs_in_its_folder(qtbot, window, tmp_path):
    w = window
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "numbers.csv").write_text("1,2,3\n")
    script = folder / "read_data.py"
    script.write_text("import os\nprint(open('numbers.csv').read().strip())\nprint(os.getcwd())\n")
    assert w.files.open_file(str(script), ask=False)
    trace = _run_and_wait(qtbot, w)
    assert trace.error is None, trace.error
    text = w.output.plain_text
    assert f"Working folder: {folder}" in text
    assert f"1,2,3\n{folder}\n" in text


def test_unsaved_text_runs_in_the_home_folder(qtbot, window):
    w = window
    w.files.new_file()
    w.editor.setPlainText("import os\nprint(os.getcwd())\n")
    _run_and_wait(qtbot, w)
    home = os.path.expanduser("~")
    assert f"Working folder: {home} (your home folder" in w.output.plain_text
    assert f"\n{home}\n" in w.output.plain_text


def test_input_round_trip_in_the_output_pane_while_the_timeout_waits(qtbot, window):
    w = window
    settings.put("run/timeout_s", 1)  # the learner takes longer than the run timeout to answer
    w.panels.dock("output").hide()  # (it comes back when the script asks)
    w.files.new_file()
    w.editor.setPlainText("name = input('Name? ')\nprint(f'hello {name}')\nn = input('n? ')\nprint(int(n) * 2)\n")
    with qtbot.waitSignal(w.worker.inputRequested, timeout=RUN_TIMEOUT_MS) as asked:
        w.actions["run"].trigger()
    assert asked.args == ["Name? "]
    line = w.output.input_line
    assert w.panels.dock("output").isVisible()
    assert line.isVisible() and line.hasFocus()
    assert w.output.plain_text.endswith("Name? ")
    qtbot.wait(1600)  # past the 1 s timeout: waiting for the learner is not running
    assert w.worker.waiting_for_input()
    assert "Waiting for your input" in w.status.worker_label.text()
    with qtbot.waitSignal(w.worker.inputRequested, timeout=RUN_TIMEOUT_MS) as asked:
        qtbot.keyClicks(line, "Ada")
        qtbot.keyClick(line, Qt.Key_Return)
    assert asked.args == ["n? "]
    with qtbot.waitSignal(w.runFinished, timeout=RUN_TIMEOUT_MS) as done:
        qtbot.keyClicks(line, "21")
        qtbot.keyClick(line, Qt.Key_Return)
    trace = done.args[0]
    assert trace.error is None
    assert not line.isVisible()
    # The transcript reads as in a terminal: prompt, the typed line, what the script printed.
    assert "Name? Ada\nhello Ada\nn? 21\n42\n" in w.output.plain_text
    assert trace.stdout == "Name? hello Ada\nn? 42\n"  # (stdout alone: no echo, as python's)


def test_ctrl_d_ends_the_input_and_the_error_is_explained(qtbot, window):
    w = window
    w.files.new_file()
    w.editor.setPlainText("x = input('Value: ')\n")
    with qtbot.waitSignal(w.worker.inputRequested, timeout=RUN_TIMEOUT_MS):
        w.actions["run"].trigger()
    with qtbot.waitSignal(w.runFinished, timeout=RUN_TIMEOUT_MS) as done:
        qtbot.keyClick(w.output.input_line, Qt.Key_D, Qt.ControlModifier)
    assert done.args[0].error.type == "EOFError"
    assert "input box" in w.output.plain_text


def test_progress_line_from_a_real_run_shows_its_last_state(qtbot, window):
    w = window
    w.files.new_file()
    w.editor.setPlainText(
        "import sys, time\n"
        "for i in range(0, 101, 20):\n"
        "    sys.stdout.write(f'\\r\\x1b[32m{i:3d}%\\x1b[0m |' + '#' * (i // 10))\n"
        "    sys.stdout.flush()\n"
        "    time.sleep(0.01)\n"
        "print()\nprint('done')\n")
    _run_and_wait(qtbot, w)
    text = w.output.plain_text
    assert "100% |##########\ndone\n" in text
    assert " 20%" not in text and "\x1b" not in text and "\r" not in text


def test_stop_while_waiting_for_input_hides_the_input_line(qtbot, window):
    """(Last in the module: Stop ends the shared worker, the next test would wait for a new one.)"""
    w = window
    w.files.new_file()
    w.editor.setPlainText("input('? ')\n")
    with qtbot.waitSignal(w.worker.inputRequested, timeout=RUN_TIMEOUT_MS):
        w.actions["run"].trigger()
    with qtbot.waitSignal(w.worker.runStopped, timeout=5000):
        w.actions["stop"].trigger()
    assert not w.output.input_line.isVisible()
    assert not w.worker.waiting_for_input()
