"""The code editor, highlighter, output pane and autosave (no worker needed)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor

from autogradviz.app.services.autosave import Autosave
from autogradviz.app.panels.editor import CodeEditor
from autogradviz.app.panels.output import OutputPane

AUTOSAVE_TIMEOUT_MS = 5_000


def _editor(qtbot, text=""):
    ed = CodeEditor()
    qtbot.addWidget(ed)
    ed.setPlainText(text)
    ed.show()
    qtbot.waitExposed(ed)
    return ed


def _end(ed):
    c = ed.textCursor()
    c.movePosition(QTextCursor.End)
    ed.setTextCursor(c)


def test_tab_inserts_four_spaces_and_backtab_removes_them(qtbot):
    ed = _editor(qtbot)
    qtbot.keyClick(ed, Qt.Key_Tab)
    qtbot.keyClicks(ed, "x")
    assert ed.toPlainText() == "    x"
    qtbot.keyClick(ed, Qt.Key_Backtab, Qt.ShiftModifier)
    assert ed.toPlainText() == "x"


def test_enter_keeps_and_adds_indentation(qtbot):
    ed = _editor(qtbot, "def f(x):")
    _end(ed)
    qtbot.keyClick(ed, Qt.Key_Return)
    qtbot.keyClicks(ed, "return x")
    assert ed.toPlainText() == "def f(x):\n    return x"
    qtbot.keyClick(ed, Qt.Key_Return)
    assert ed.toPlainText().endswith("\n    ")
    qtbot.keyClick(ed, Qt.Key_Backspace)
    assert ed.toPlainText().endswith("return x\n")


def test_undo_redo(qtbot):
    ed = _editor(qtbot)
    qtbot.keyClicks(ed, "abc")
    ed.undo()
    assert ed.toPlainText() == ""
    ed.redo()
    assert ed.toPlainText() == "abc"


def test_error_marker_and_message(qtbot):
    ed = _editor(qtbot, "a = 1\nb = a + 'x'\nc = 3\n")
    ed.set_error(2, "TypeError: unsupported operand")
    assert ed.error_line == 2
    assert "TypeError" in ed.error_message
    kinds = [s.format.background().color().name() for s in ed.extraSelections()]
    assert len(kinds) >= 2  # current line + error line (+ underline)
    ed.set_error(99, "out of range")  # ignored line number, message kept
    assert ed.error_line is None
    ed.clear_error()
    assert ed.error_line is None and not ed.error_message
    assert ed.line_number_width() > 0


def test_highlighter_handles_multiline_strings_and_themes(qtbot):
    ed = _editor(qtbot, 'x = """a\n# not a comment\n"""\ny = 2  # comment\n')
    block = ed.document().findBlockByNumber(1)
    assert block.userState() in (-1, 0) or ed.highlighter.currentBlockState() is not None
    assert ed.document().findBlockByNumber(1).previous().userState() != 0
    ed.set_theme("dark")
    ed.set_theme("light")
    assert not ed.grab().isNull()


def test_output_pane_shows_errors_with_explanation(qtbot):
    pane = OutputPane()
    qtbot.addWidget(pane)
    pane.append_output("stdout", "hello\n")
    pane.append_error("RuntimeError", "shapes do not match", 7, "The two tensors have different shapes.")
    text = pane.plain_text
    assert "hello" in text and "RuntimeError: shapes do not match" in text
    assert "line 7" in text and "different shapes" in text
    with qtbot.waitSignal(pane.lineActivated, timeout=1000) as blocker:
        pane.anchorClicked.emit(__import__("PySide6.QtCore", fromlist=["QUrl"]).QUrl("line:7"))
    assert blocker.args == [7]
    pane.clear()
    assert pane.plain_text == ""


def test_autosave_writes_and_restores(qtbot):
    ed = _editor(qtbot)
    saver = Autosave(ed, lambda: None, interval_ms=100)
    saver.discard()
    assert saver.pending() is None
    with qtbot.waitSignal(saver.saved, timeout=AUTOSAVE_TIMEOUT_MS):
        ed.setPlainText("print('unsaved')\n")
    assert saver.pending() == ("print('unsaved')\n", None)
    saver.mark_clean()
    assert saver.pending() is None


def test_ctrl_slash_toggles_comments(qtbot):
    ed = _editor(qtbot, "x = 1\n    y = 2\n")
    ed.selectAll()
    qtbot.keyClick(ed, Qt.Key_Slash, Qt.ControlModifier)
    assert ed.toPlainText() == "# x = 1\n#     y = 2\n"
    ed.selectAll()
    qtbot.keyClick(ed, Qt.Key_Slash, Qt.ControlModifier)
    assert ed.toPlainText() == "x = 1\n    y = 2\n"


def test_output_pane_survives_a_print_flood(qtbot):
    from autogradviz.app.panels import output as output_pane

    pane = OutputPane()
    qtbot.addWidget(pane)
    for i in range(3000):
        pane.append_output("stdout", f"line {i}\n")
    pane.flush()
    text = pane.toPlainText()
    assert "lines skipped" in text and "line 2999" in text
    assert pane.document().blockCount() <= output_pane.MAX_LINES_PER_FLUSH + 3
    for i in range(20):  # the pane keeps at most MAX_BLOCKS lines
        for j in range(output_pane.MAX_LINES_PER_FLUSH):
            pane.append_output("stdout", f"x{i}.{j}\n")
        pane.flush()
    assert pane.document().blockCount() <= output_pane.MAX_BLOCKS
