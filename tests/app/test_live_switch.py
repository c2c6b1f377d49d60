"""Switching language or theme re-renders what is already on screen, without a
re-run (issue 20). A real main window and worker run a GradScaler lesson, a
memory lesson and a script that ends in a shape mismatch; then the language is
switched live and every visible text (labels, buttons, table headers and cells,
list items, chart axes, tick labels and captions, banners, the status bar) is
walked (tests/app/ui_text_walk.py): in zh_CN no English sentence may remain, back
in English no Chinese character. The theme is switched dark -> light -> dark:
every run of text in the Output pane and the event list's highlighted row must
contrast with their background (WCAG ratio >= 4.5, from the actual
QTextCharFormat and item colours)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette

from autogradviz.app import i18n
from autogradviz.app.services.worker_process import READY

from ui_text_walk import chinese_left, cjk, english_left

RUN_TIMEOUT_MS = 60_000
SWITCH_TIMEOUT_MS = 10_000
LESSONS = Path(__file__).resolve().parents[2] / "resources" / "lessons"

ERROR_SCRIPT = """import torch
torch.manual_seed(0)
x = torch.randn(3, requires_grad=True)
y = x * 2
y.retain_grad()
y.register_hook(lambda g: g)
z = y.sum()
z.backward()
print("x.grad:", x.grad)
model = torch.nn.Sequential(torch.nn.Linear(4, 8))
model(torch.ones(2, 3))
"""


@pytest.fixture
def window(qtbot, shared_worker, wait_until, no_leftovers):
    from autogradviz.app.theme import ThemeManager
    from autogradviz.app.window.main_window import MainWindow

    wait_until(lambda: shared_worker.state == READY, RUN_TIMEOUT_MS, "worker ready")
    i18n.set_language("en", save=False)
    theme = ThemeManager()
    w = MainWindow(theme_manager=theme, worker=shared_worker, start_worker=False, restore_autosave=False)
    w.ask_unsaved = lambda: "discard"
    qtbot.addWidget(w)
    w.resize(1500, 950)
    w.show()
    qtbot.waitExposed(w)
    yield w
    i18n.set_language("en", save=False)
    for panel in ("memory",):
        widget = w.panels.widget(panel)
        if widget is not None and hasattr(widget, "shutdown"):
            widget.shutdown()
    w.close()
    theme.deleteLater()


def _run(qtbot, w, source: str):
    w.editor.setPlainText(source)
    w.editor.document().setModified(True)  # as typed (an unedited lesson follows the language)
    with qtbot.waitSignals([w.runFinished, w.graph_view.layoutFinished], timeout=2 * RUN_TIMEOUT_MS):
        w.actions["run"].trigger()
    qtbot.waitUntil(lambda: not w.status.layout_busy, timeout=RUN_TIMEOUT_MS)
    return w.session.trace


def _show(qtbot, w, panel: str):
    dock = w.panels.dock(panel)
    dock.show()
    dock.raise_()
    qtbot.waitUntil(lambda: w.panels.widget(panel).isVisible(), timeout=5_000)


def _switch_and_walk(qtbot, w, what: str):
    """English now -> zh_CN live: no English sentence; -> English: no Chinese."""
    assert not chinese_left(w), chinese_left(w)
    w.set_language("zh_CN")
    try:
        # (LanguageChange is posted: wait for every widget to have had it)
        qtbot.waitUntil(lambda: not english_left(w), timeout=SWITCH_TIMEOUT_MS)
    except Exception:
        raise AssertionError(f"{what}: English left after the switch to zh_CN:\n" + "\n".join(
            f"  {where}: {runs} in {text!r}" for where, text, runs in english_left(w)))
    finally:
        w.set_language("en")
    try:
        qtbot.waitUntil(lambda: not chinese_left(w), timeout=SWITCH_TIMEOUT_MS)
    except Exception:
        raise AssertionError(f"{what}: Chinese left after the switch back to English:\n" + "\n".join(
            f"  {where}: {text!r}" for where, text in chinese_left(w)))


def test_gradscaler_lesson_switches_language_live(qtbot, window):
    w = window
    trace = _run(qtbot, w, (LESSONS / "22_overflow_and_growth.py").read_text(encoding="utf-8"))
    assert trace.scaler_events
    _show(qtbot, w, "gradScaler")
    panel = w.panels.widget("gradScaler")
    panel.set_index(3)
    _switch_and_walk(qtbot, w, "GradScaler lesson")


def test_memory_lesson_switches_language_live(qtbot, window):
    w = window
    trace = _run(qtbot, w, (LESSONS / "30_checkpoint_mlp.py").read_text(encoding="utf-8"))
    assert trace.memory is not None
    _show(qtbot, w, "memory")
    _switch_and_walk(qtbot, w, "memory lesson, memory panel")
    _show(qtbot, w, "modules")
    _switch_and_walk(qtbot, w, "memory lesson, modules panel")


def test_error_explanation_and_banner_switch_language_live(qtbot, window):
    w = window
    trace = _run(qtbot, w, ERROR_SCRIPT)
    assert trace.error is not None and trace.error.code == "shape_matmul"
    _switch_and_walk(qtbot, w, "shape mismatch")
    # the editor's error (its hover text) is said again in the new language
    w.set_language("zh_CN")
    try:
        qtbot.waitUntil(lambda: "矩阵乘法的形状不匹配" in w.editor._error_message, timeout=SWITCH_TIMEOUT_MS)
    finally:
        w.set_language("en")
    qtbot.waitUntil(lambda: "Shape mismatch in a matrix multiplication" in w.editor._error_message,
                    timeout=SWITCH_TIMEOUT_MS)


def test_a_fresh_zh_cn_run_explains_the_error_in_chinese(qtbot, window):
    """Started in zh_CN: the Output pane says the explanation from the code, in Chinese."""
    w = window
    w.set_language("zh_CN")
    try:
        _run(qtbot, w, ERROR_SCRIPT)
        text = w.output.plain_text
        assert "矩阵乘法的形状不匹配：左矩阵是 2x3，右矩阵是 4x8" in text, text
        assert "Shape mismatch in a matrix multiplication" not in text
    finally:
        w.set_language("en")


OK_SCRIPT = """import torch
w = torch.tensor([1.0, 2.0], requires_grad=True)
(w * w).sum().backward()
print("w.grad:", w.grad)
"""


def _normal(text: str) -> str:
    """The pane's text with the run's seconds blanked (they differ between runs)."""
    import re

    return re.sub(r"\d+\.\d\d", "#", text)


@pytest.mark.parametrize("source", [ERROR_SCRIPT, OK_SCRIPT], ids=["error", "finished"])
def test_output_pane_says_its_own_lines_again_after_a_switch(qtbot, window, source):
    """Run in English, switch to zh_CN: the pane reads as a fresh zh_CN run of the
    same script does (the script's own output unchanged); back in English, no Chinese."""
    w = window
    _run(qtbot, w, source)
    english = w.output.toPlainText()
    w.set_language("zh_CN")
    try:
        qtbot.waitUntil(lambda: w.output.toPlainText() != english, timeout=SWITCH_TIMEOUT_MS)
        qtbot.wait(100)
        switched = _normal(w.output.toPlainText())
        _run(qtbot, w, source)
        fresh = _normal(w.output.toPlainText())
        assert switched == fresh
    finally:
        w.set_language("en")
    qtbot.waitUntil(lambda: not cjk(w.output.toPlainText()), timeout=SWITCH_TIMEOUT_MS)
    assert _normal(w.output.toPlainText()) == _normal(english)


# -- theme ------------------------------------------------------------------------------------------

def _luminance(c: QColor) -> float:
    def ch(v):
        v = v / 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    return 0.2126 * ch(c.red()) + 0.7152 * ch(c.green()) + 0.0722 * ch(c.blue())


def contrast(a: QColor, b: QColor) -> float:
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def _over(top: QColor, bottom: QColor) -> QColor:
    """`top` (with its alpha) painted over opaque `bottom`."""
    a = top.alphaF()
    return QColor(round(top.red() * a + bottom.red() * (1 - a)), round(top.green() * a + bottom.green() * (1 - a)),
                  round(top.blue() * a + bottom.blue() * (1 - a)))


def _output_runs(w):
    doc = w.output.document()
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            frag = it.fragment()
            if frag.isValid() and frag.text().strip():
                yield frag.text(), frag.charFormat().foreground().color()
            it += 1
        block = block.next()


def _low_contrast(w) -> list:
    bad = []
    base = w.output.viewport().palette().color(QPalette.Base)
    for text, color in _output_runs(w):
        if contrast(color, base) < 4.5:
            bad.append(("output", text[:40], color.name(), base.name(), round(contrast(color, base), 2)))
    events = w.panels.widget("stepper").events
    list_base = events.viewport().palette().color(QPalette.Base)
    for i in range(events.count()):
        item = events.item(i)
        if not item.data(Qt.UserRole + 1):  # the highlighted (current) rows
            continue
        back = _over(item.background().color(), list_base) if item.background().style() != Qt.NoBrush \
            else list_base
        fg = item.foreground().color() if item.foreground().style() != Qt.NoBrush \
            else events.palette().color(QPalette.Text)
        if contrast(fg, back) < 4.5:
            bad.append(("event", item.text()[:40], fg.name(), back.name(), round(contrast(fg, back), 2)))
    return bad


def test_theme_switch_recolours_output_and_the_highlighted_event(qtbot, window):
    w = window
    w.set_theme_mode("light")
    trace = _run(qtbot, w, ERROR_SCRIPT)
    assert trace.error is not None
    # a step with an event (the hook / retain_grad fills), highlighted in the list
    events = w.panels.widget("stepper").events
    steps = [events.item(i).data(Qt.UserRole) for i in range(events.count())]
    steps = [s for s in steps if s is not None]
    assert steps, "no hook events recorded"
    w.session.set_step(int(steps[0]))
    assert any(events.item(i).data(Qt.UserRole + 1) for i in range(events.count()))
    assert len(list(_output_runs(w))) >= 3  # the print, the error, its explanation
    try:
        for mode in ("dark", "light", "dark"):
            w.set_theme_mode(mode)
            qtbot.waitUntil(lambda: w.theme_manager.effective == mode, timeout=5_000)
            qtbot.wait(50)  # (palette change events are posted)
            bad = _low_contrast(w)
            assert not bad, (mode, bad)
    finally:
        w.set_theme_mode("light")
