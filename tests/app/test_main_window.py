"""The main window with the REAL worker: type, run, see the graph; Stop; crashes;
errors; themes and languages; autosave; layout persistence."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QApplication, QDockWidget, QLabel

from autogradviz.app.window.main_window import MainWindow
from autogradviz.app.theme import ThemeManager
from autogradviz.app.services.worker_process import READY

RUN_TIMEOUT_MS = 30_000
LAYOUT_TIMEOUT_MS = 30_000
RESTART_TIMEOUT_MS = 60_000
# Stop must end the run (how fast: benchmarks/bench_unit_timings.py, target 2 s)
STOP_TIMEOUT_MS = 60_000

SCRIPT = """import torch
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0, 4.0], requires_grad=True)
c = a * b
d = c.sum()
"""
TYPED_LINE = "d.backward()"


@pytest.fixture
def window(qtbot, shared_worker, wait_until, no_leftovers):
    wait_until(lambda: shared_worker.state == READY, RESTART_TIMEOUT_MS, "worker ready")
    theme = ThemeManager()
    w = MainWindow(theme_manager=theme, worker=shared_worker, start_worker=False,
                   restore_autosave=False)
    w.ask_unsaved = lambda: "discard"
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    yield w
    w.close()
    theme.deleteLater()


def _run(qtbot, w, wait_layout=True):
    signals = [w.runFinished]
    if wait_layout and hasattr(w.graph_view, "layoutFinished"):
        signals.append(w.graph_view.layoutFinished)
    with qtbot.waitSignals(signals, timeout=RUN_TIMEOUT_MS + LAYOUT_TIMEOUT_MS):
        w.actions["run"].trigger()
    return w.session.trace


def test_type_run_and_see_the_graph(qtbot, window):
    w = window
    w.editor.setPlainText(SCRIPT)
    w.editor.setFocus()
    cursor = w.editor.textCursor()
    cursor.movePosition(cursor.MoveOperation.End)
    w.editor.setTextCursor(cursor)
    qtbot.keyClicks(w.editor, TYPED_LINE)
    assert w.editor.toPlainText().endswith(TYPED_LINE)
    signals = [w.runFinished, w.graph_view.layoutFinished]
    with qtbot.waitSignals(signals, timeout=RUN_TIMEOUT_MS + LAYOUT_TIMEOUT_MS):
        qtbot.keyClick(w.editor, Qt.Key_Return, Qt.ControlModifier)  # Ctrl+Enter runs
    assert w.editor.toPlainText().endswith(TYPED_LINE)  # ...and types no newline
    trace = w.session.trace
    assert trace.error is None, trace.error
    graph = w.session.graph
    assert graph is not None and graph.nodes
    scene = w.graph_view.graph_scene()
    shown = {nid for nid, items in scene.node_items.items() if items}
    assert shown == {n.id for n in graph.nodes}
    for node in graph.nodes:
        if node.label:
            texts = [" ".join(item.box.lines) for item in scene.node_items[node.id]]
            assert any(node.label in t for t in texts), (node.label, texts)
    labels = {n.label for n in graph.nodes}
    assert {"a", "b"} <= labels
    assert str(len(graph.nodes)) in w.status.graph_label.text()
    assert "Finished" in w.output.plain_text
    assert w.status.layout_label.text()


def test_stop_ends_endless_loop_and_next_run_works(qtbot, window, wait_until):
    w = window
    w.editor.setPlainText("while True:\n    pass\n")
    with qtbot.waitSignal(w.worker.runStarted, timeout=RUN_TIMEOUT_MS):
        w.actions["run"].trigger()
    qtbot.wait(200)
    assert "Running" in w.status.worker_label.text()
    assert w.actions["stop"].isEnabled()
    with qtbot.waitSignal(w.worker.runStopped, timeout=STOP_TIMEOUT_MS):
        qtbot.keyClick(w.editor, Qt.Key_Period, Qt.ControlModifier)  # Ctrl+. stops
    assert "Stopped" in w.output.plain_text
    wait_until(lambda: w.worker.state == READY, RESTART_TIMEOUT_MS, "fresh worker")
    w.editor.setPlainText(SCRIPT + TYPED_LINE + "\n")
    trace = _run(qtbot, w)
    assert trace.error is None and trace.graphs


def test_crash_is_reported_editor_text_survives_and_next_run_works(qtbot, window, wait_until):
    w = window
    source = "import os\nprint('about to crash')\nos._exit(3)\n"
    w.editor.setPlainText(source)
    with qtbot.waitSignal(w.worker.crashed, timeout=RUN_TIMEOUT_MS):
        w.actions["run"].trigger()
    assert "stopped unexpectedly" in w.output.plain_text
    assert "code 3" in w.output.plain_text
    assert w.editor.toPlainText() == source
    assert w.session.trace is None  # the old graph no longer matches the code
    wait_until(lambda: w.worker.state == READY, RESTART_TIMEOUT_MS, "fresh worker")
    w.editor.setPlainText(SCRIPT + TYPED_LINE + "\n")
    trace = _run(qtbot, w)
    assert trace.error is None and trace.graphs


def test_error_line_is_marked_with_message(qtbot, window):
    w = window
    w.editor.setPlainText("import torch\nx = torch.ones(2, 3)\ny = x @ x\n")
    trace = _run(qtbot, w, wait_layout=False)
    assert trace.error is not None
    assert w.editor.error_line == 3
    assert trace.error.type in w.editor.error_message
    assert trace.error.type in w.output.plain_text


def test_unsaved_changes_prompt(qtbot, window):
    w = window
    w.files.new_file()  # (a lesson's edits are kept without a question: test_lessons)
    w.editor.setPlainText("keep me")
    w.editor.document().setModified(True)
    w.ask_unsaved = lambda: "cancel"
    w.actions["new"].trigger()
    assert w.editor.toPlainText() == "keep me"
    w.ask_unsaved = lambda: "discard"
    w.actions["new"].trigger()
    assert w.editor.toPlainText().startswith("import torch")


def test_open_and_save_files(qtbot, window, tmp_path):
    w = window
    path = tmp_path / "mine.py"
    path.write_text("print('hi')\n", encoding="utf-8")
    assert w.files.open_file(str(path))
    assert w.editor.toPlainText() == "print('hi')\n"
    assert "mine.py" in w.windowTitle()
    w.editor.insertPlainText("# edited\n")
    assert w.files.save()
    assert "# edited" in path.read_text(encoding="utf-8")
    from autogradviz.app.services import settings
    assert str(path) in settings.recent_files()


def test_theme_and_language_switches_keep_the_window_working(qtbot, window):
    w = window
    for mode in ("dark", "light", "system"):
        w.set_theme_mode(mode)
        QApplication.processEvents()
        assert w.theme_manager.mode == mode and w.actions[f"theme_{mode}"].isChecked()
    w.set_theme_mode("dark")
    dark_base = QApplication.palette().base().color().lightness()
    assert _editor_background(w) < 80  # drawn dark
    w.set_theme_mode("light")
    assert QApplication.palette().base().color().lightness() > dark_base
    assert _editor_background(w) > 200
    w.set_language("zh_CN")
    QApplication.processEvents()
    assert w.chrome.file_menu.title() == "文件(&F)"
    assert w.panels.dock("editor").windowTitle() == "代码"
    assert "叶子" in w.lessons_panel.item_for(w.lessons_panel.lessons[0].name).text(0)  # titles follow the language
    assert "叶子" in w.lessons_panel.text.toPlainText()
    w.set_language("en")
    QApplication.processEvents()
    assert w.chrome.file_menu.title() == "&File"
    assert w.panels.dock("editor").windowTitle() == "Code"


def _editor_background(w) -> int:
    """Lightness of the editor's bottom-right corner as drawn (beyond any text)."""
    QApplication.processEvents()
    img = w.editor.viewport().grab().toImage()
    return img.pixelColor(img.width() - 3, img.height() - 3).lightness()


def test_device_selector_reflects_worker(qtbot, window):
    w = window
    item = w.chrome.device_combo.model().item(1)
    assert item.isEnabled() == bool(w.worker.info.get("cuda_available"))
    assert item.toolTip()
    assert w.chrome.device_combo.currentData() == "cpu" or w.worker.cuda_available


def test_every_action_has_a_tooltip_with_its_shortcut(window):
    for name, act in window.actions.items():
        if name.startswith("lang_"):
            continue
        assert act.toolTip(), name
        if act.shortcuts():
            key = act.shortcuts()[0].toString(QKeySequence.NativeText)
            assert f"({key})" in act.toolTip(), name


def test_dock_layout_persists(qtbot, shared_worker, wait_until):
    theme = ThemeManager()
    first = MainWindow(theme_manager=theme, worker=shared_worker, start_worker=False, restore_autosave=False)
    qtbot.addWidget(first)
    first.show()
    qtbot.waitExposed(first)
    first.panels.dock("lessons").hide()
    first.close()
    second = MainWindow(theme_manager=theme, worker=shared_worker, start_worker=False, restore_autosave=False)
    qtbot.addWidget(second)
    second.show()
    qtbot.waitExposed(second)
    assert not second.panels.dock("lessons").isVisible()
    second.reset_layout()
    assert second.panels.dock("lessons").isVisible()
    second.close()


def test_autosave_restores_text_after_a_crash_of_the_app(qtbot, shared_worker):
    theme = ThemeManager()
    first = MainWindow(theme_manager=theme, worker=shared_worker, start_worker=False, restore_autosave=False)
    qtbot.addWidget(first)
    text = "import torch\n# unsaved work\nx = torch.ones(3, requires_grad=True)\n"
    first.editor.setPlainText(text)
    with qtbot.waitSignal(first.files.autosave.saved, timeout=10_000):
        pass  # the autosave timer fires by itself
    assert first.files.autosave.text_path.read_text(encoding="utf-8") == text
    # Simulate a killed app: a second window starts while the first never shut
    # down cleanly (its autosave is still on disk).
    first.files.autosave.set_enabled(False)
    first.hide()
    second = MainWindow(theme_manager=theme, worker=shared_worker, start_worker=False, restore_autosave=True)
    qtbot.addWidget(second)
    second.ask_unsaved = lambda: "discard"
    assert second.editor.toPlainText() == text
    assert second.editor.document().isModified()
    assert "Restored" in second.output.plain_text
    second.close()  # clean exit removes the autosave
    assert not second.files.autosave.text_path.exists()


KILLED_APP = r"""
import sys
from PySide6.QtCore import QCoreApplication, QSettings, QTimer
from PySide6.QtWidgets import QApplication
app = QApplication([sys.argv[0]])
QCoreApplication.setOrganizationName("autogradviz-tests")
QCoreApplication.setApplicationName("autogradviz-tests")
QSettings.setPath(QSettings.IniFormat, QSettings.UserScope, sys.argv[2])
from autogradviz.app.window.main_window import MainWindow
w = MainWindow(start_worker=False, restore_autosave=False)
w.show()
w.files.autosave.saved.connect(lambda _p: print("SAVED", flush=True))
QTimer.singleShot(100, lambda: w.editor.setPlainText(sys.argv[1]))
app.exec()
"""


def test_autosave_survives_a_real_kill_of_the_app(qtbot, shared_worker, tmp_path):
    import os
    import signal
    import subprocess
    import sys

    text = "import torch\n# typed before the app was killed\n"
    env = dict(os.environ)
    proc = subprocess.Popen([sys.executable, "-c", KILLED_APP, text, str(tmp_path / "settings")],
                            stdout=subprocess.PIPE, text=True, env=env)
    try:
        line = proc.stdout.readline()  # blocks until the autosave was written
        assert line.strip() == "SAVED"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        proc.stdout.close()
    theme = ThemeManager()
    w = MainWindow(theme_manager=theme, worker=shared_worker, start_worker=False, restore_autosave=True)
    qtbot.addWidget(w)
    w.ask_unsaved = lambda: "discard"
    assert w.editor.toPlainText() == text
    w.close()


def test_cuda_choice_enabled_only_when_the_worker_reports_a_gpu(qtbot, window):
    w = window
    saved = dict(w.worker.info)
    try:
        w.worker.info = dict(saved, cuda_available=True, cuda_devices=["Fake GPU"])
        w.runs.on_ready(w.worker.info)
        item = w.chrome.device_combo.model().item(1)
        assert item.isEnabled() and "Fake GPU" in item.toolTip()
        w.chrome.device_combo.setCurrentIndex(1)
        w.chrome.device_combo.activated.emit(1)
        assert w.runs.device == "cuda"
        w.worker.info = dict(saved, cuda_available=False, cuda_devices=[])
        w.runs.on_ready(w.worker.info)
        assert not w.chrome.device_combo.model().item(1).isEnabled()
        assert w.chrome.device_combo.currentData() == "cpu" and w.runs.device == "cpu"
        assert "not available" in w.chrome.device_combo.model().item(1).toolTip()
    finally:
        w.worker.info = saved
        w.runs.on_ready(saved)


def test_inspector_value_requests_reach_the_worker(qtbot, window):
    w = window
    w.editor.setPlainText("import torch\nx = torch.arange(100.0, requires_grad=True)\n"
                          "y = (x * 2).sum()\ny.backward()\n")
    trace = _run(qtbot, w)
    tid = next(n.tensor.id for g in trace.graphs for n in g.nodes
               if n.tensor is not None and n.tensor.numel == 100 and n.tensor.id)
    with qtbot.waitSignal(w.session.valuesArrived, timeout=RUN_TIMEOUT_MS) as blocker:
        w.session.request_values(tid)
    assert blocker.args[0] == tid
    summary = blocker.args[1]
    assert not isinstance(summary, str), summary
    assert len(summary.values) == 100


def test_shortcuts_help_lists_the_main_keys(window):
    html = window.shortcuts_html()
    for key in ("Ctrl+Enter", "Ctrl+.", "Space", "Ctrl+F"):
        assert key in html


def test_a_file_named_at_start_is_opened_not_run(qtbot, shared_worker, tmp_path):
    path = tmp_path / "from_cli.py"
    path.write_text("print('only when you press Run')\n", encoding="utf-8")
    theme = ThemeManager()
    w = MainWindow(theme_manager=theme, worker=shared_worker, start_worker=False,
                   restore_autosave=False, open_path=str(path))
    qtbot.addWidget(w)
    w.ask_unsaved = lambda: "discard"
    assert w.editor.toPlainText() == path.read_text(encoding="utf-8")
    assert "from_cli.py" in w.windowTitle()
    assert not shared_worker.is_busy() and w.session.trace is None
    assert "Press Run" in w.output.plain_text
    w.close()


# -- the panel registry ---------------------------------------------------------------

class DummyPanel(QLabel):
    """A panel as a newcomer would write one: a widget, and a theme hook."""

    def __init__(self, parent=None):
        super().__init__("dummy", parent)
        self.setObjectName("dummyPanel")
        self.themes: list[str] = []

    def set_theme(self, name: str) -> None:
        self.themes.append(name)


def test_one_registration_gives_a_dock_a_menu_entry_a_title_and_the_theme(qtbot, shared_worker):
    from autogradviz.app.window.panel_registry import PanelSpec, register_panel, unregister_panel

    register_panel(PanelSpec("dummy", "Lessons", lambda ctx: DummyPanel(ctx.parent),
                             Qt.RightDockWidgetArea, on_theme=DummyPanel.set_theme))
    theme = ThemeManager()
    try:
        w = MainWindow(theme_manager=theme, worker=shared_worker, start_worker=False, restore_autosave=False)
    finally:
        unregister_panel("dummy")
    qtbot.addWidget(w)
    w.ask_unsaved = lambda: "discard"
    w.show()
    qtbot.waitExposed(w)
    dock = next(d for d in w.findChildren(QDockWidget) if d.objectName() == "dummyDock")
    panel = dock.widget()
    assert isinstance(panel, DummyPanel) and dock.isVisible()
    assert w.dockWidgetArea(dock) == Qt.RightDockWidgetArea
    assert dock.toggleViewAction() in w.chrome.panels_menu.actions()
    assert dock.windowTitle() == "Lessons"
    try:
        w.set_language("zh_CN")
        QApplication.processEvents()
        assert dock.windowTitle() == "课程"
        assert dock.toggleViewAction().text() == "课程"
    finally:
        w.set_language("en")
        QApplication.processEvents()
    assert dock.windowTitle() == "Lessons"
    w.set_theme_mode("dark")
    assert panel.themes[-1] == "dark"
    w.set_theme_mode("light")
    assert panel.themes[-1] == "light"
    dock.toggleViewAction().trigger()
    assert not dock.isVisible()
    w.close()
    theme.deleteLater()


def test_registry_has_every_default_panel_once():
    from autogradviz.app.window.panel_registry import PanelSpec, panels, register_panel

    ids = [p.id for p in panels()]  # the core's, then the features' (app/features/)
    assert ids == ["lessons", "editor", "output", "inspector", "stepper", "gradScaler", "checkpoint", "modules",
                   "memory"]
    with pytest.raises(ValueError):
        register_panel(PanelSpec("output", "Output", lambda ctx: QLabel(ctx.parent), Qt.LeftDockWidgetArea))
    assert [p.id for p in panels()] == ids


# -- what the worker reports: timeout line, progress, note codes ---------------------------

def test_timeout_line_is_marked_and_cleared_by_the_next_run(qtbot, window):
    w = window
    w.editor.setPlainText(SCRIPT + TYPED_LINE + "\n")
    w.on_run_timed_out(4)
    assert w.editor.stopped_line == 4
    assert w.editor.textCursor().blockNumber() == 3
    assert "running line 4" in w.output.plain_text
    w.on_run_timed_out(99)  # a line the editor does not have: nothing marked, nothing said
    assert w.editor.stopped_line is None
    assert "line 99" not in w.output.plain_text
    w.on_run_timed_out(2)
    trace = _run(qtbot, w)
    assert trace.error is None and w.editor.stopped_line is None


def test_progress_is_shown_in_the_status_bar_in_the_ui_language(qtbot, window):
    w = window
    label = w.status.worker_label
    w.on_progress("summarising", {"nodes": 10000, "done": 0})
    assert "Summarising 10,000 nodes…" in label.text()
    w.on_progress("summarising", {"nodes": 10000, "done": 4000})
    assert "Summarising 10,000 nodes… (4,000 done)" in label.text()
    try:
        w.set_language("zh_CN")
        QApplication.processEvents()
        assert "正在汇总 10,000 个节点…（已完成 4,000 个）" in label.text()
    finally:
        w.set_language("en")
        QApplication.processEvents()
    w.on_progress("a_code_from_a_newer_worker", {})
    assert "Working…" in label.text() and "Summarising" not in label.text()
    trace = _run(qtbot, w)  # the run's end clears it
    assert trace is not None and "Working" not in label.text()


def test_notes_are_translated_from_their_codes(window):
    from autogradviz.engine.trace.model import Note, Trace

    runs = window.runs
    trace = Trace(notes=["(English form of the truncation note)", "internal: recorder detail",
                         "Warning (line 3): a warning only the worker knows how to explain"],
                  note_codes=[Note("output_truncated", {"total": 2_000_000, "cap": 1_000_000}),
                              Note("internal", {}), Note("a_code_this_app_does_not_know", {})])
    expected_en = ["The script printed 2,000,000 characters; only the first 1,000,000 are kept.",
                   "Warning (line 3): a warning only the worker knows how to explain"]
    assert runs.note_texts(trace) == expected_en
    try:
        window.set_language("zh_CN")
        assert runs.note_texts(trace) == ["脚本共输出了 2,000,000 个字符，只保留了前 1,000,000 个。",
                                          expected_en[1]]
    finally:
        window.set_language("en")
    # Codes that do not line up with the notes (an older worker): English only, none paired wrongly.
    old = Trace(notes=["(English form of the truncation note)", "second note"],
                note_codes=[Note("output_truncated", {"total": 2_000_000, "cap": 1_000_000})])
    assert runs.note_texts(old) == ["(English form of the truncation note)", "second note"]


def test_checkpoint_rule_notes_are_translated_from_their_codes(window):
    """The worker's checkpoint notes (engine/worker/explain.py, the checkpoint
    probe) in English and Simplified Chinese, from their codes; the English
    the app writes is the worker's own."""
    from autogradviz.engine.trace.model import Note
    from autogradviz.engine.worker.explain import (NO_INPUT_REQUIRES_GRAD_WARNING, OUTPUT_LOSES_GRAD_NOTE,
                                                   USE_REENTRANT_MISSING_WARNING)

    runs = window.runs
    missing = Note("checkpoint_use_reentrant_missing", {"line": 6})
    no_input = Note("checkpoint_no_input_requires_grad", {"line": None})
    lost = Note("checkpoint_output_loses_grad", {"line": 7, "output_type": "dict"})
    assert runs.note_text(missing, "(en)") == f"Warning (line 6): {USE_REENTRANT_MISSING_WARNING}"
    assert runs.note_text(no_input, "(en)") == f"Warning: {NO_INPUT_REQUIRES_GRAD_WARNING}"
    assert runs.note_text(lost, "(en)") == OUTPUT_LOSES_GRAD_NOTE.format(where=" (line 7)", type="dict")
    # unknown codes, and a lost-gradient note without its type: the worker's English
    assert runs.note_text(Note("checkpoint_rule_from_a_newer_worker", {"line": 3}), "(en)") == "(en)"
    assert runs.note_text(Note("checkpoint_output_loses_grad", {"line": 7}), "(en)") == "(en)"
    try:
        window.set_language("zh_CN")
        assert runs.note_text(missing, "(en)").startswith(
            '警告（第 6 行）：torch 提示 "the use_reentrant parameter should be passed explicitly"：'
            '调用 checkpoint 时没有传入 use_reentrant。')
        assert runs.note_text(no_input, "(en)").startswith(
            '警告：torch 提示 "None of the inputs have requires_grad=True. Gradients will be None"：'
            "调用重入式 checkpoint（use_reentrant=True，或未指定）时")
        assert runs.note_text(lost, "(en)").startswith(
            "Checkpoint（第 7 行）：重入式 checkpoint 返回了一个 dict，其中的张量都不需要梯度，而某个输入是需要梯度的：它们本应携带的梯度")
        assert runs.note_text(Note("checkpoint_rule_from_a_newer_worker", {"line": 3}), "(en)") == "(en)"
    finally:
        window.set_language("en")


def test_a_passing_message_is_not_drawn_over_by_the_busy_indicator(qtbot, window):
    """A status-bar message hides the bar's left-hand widgets; the busy
    indicator stays hidden while it shows and comes back when it goes."""
    status = window.status
    status.layout_started()
    assert status.busy.isVisibleTo(window)
    status.show_message("Saved trace.json", 200)
    assert not status.busy.isVisibleTo(window)
    status.update_worker()  # (a worker tick meanwhile)
    assert not status.busy.isVisibleTo(window)
    qtbot.waitUntil(lambda: status.busy.isVisibleTo(window), timeout=3000)
    status.layout_dropped()
    assert not status.busy.isVisibleTo(window)
