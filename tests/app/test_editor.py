"""The code editor, highlighter, output pane and autosave (no worker needed)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QTextCharFormat, QTextCursor

from autogradviz.app.services.autosave import Autosave
from autogradviz.app.panels.editor import CodeEditor
from autogradviz.app.panels.highlighter import IN_DOUBLE_TRIPLE, PALETTES
from autogradviz.app.theme import colors
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


def _tinted_lines(ed, colour_key: str) -> list[int]:
    """1-based lines that an extra selection paints in the theme's `colour_key`."""
    want = QColor(colors("light")[colour_key]).name()
    return [s.cursor.blockNumber() + 1 for s in ed.extraSelections()
            if s.format.background().style() != Qt.NoBrush and s.format.background().color().name() == want]


def _gutter_colour(ed, line: int) -> str:
    """The colour of the line-number gutter beside `line`, as drawn."""
    block = ed.document().findBlockByNumber(line - 1)
    top = ed.blockBoundingGeometry(block).translated(ed.contentOffset()).top()
    cr = ed.contentsRect()
    img = ed.grab().toImage()
    return img.pixelColor(cr.left() + 2, cr.top() + int(top) + 2).name()


def test_error_marker_and_message(qtbot):
    ed = _editor(qtbot, "a = 1\nb = a + 'x'\nc = 3\n")
    ed.set_error(2, "TypeError: unsupported operand")
    assert ed.error_line == 2
    assert "TypeError" in ed.error_message
    assert _tinted_lines(ed, "error_bg") == [2]
    assert _gutter_colour(ed, 2) == QColor(colors("light")["error_underline"]).name()
    assert _gutter_colour(ed, 1) == QColor(colors("light")["line_numbers_bg"]).name()
    assert ed.marker_tip(2) == "TypeError: unsupported operand" and ed.marker_tip(1) == ""
    ed.set_error(99, "out of range")  # ignored line number, message kept
    assert ed.error_line is None and ed.error_message == "out of range"
    assert _tinted_lines(ed, "error_bg") == []
    ed.clear_error()
    assert ed.error_line is None and not ed.error_message


def test_gutter_widens_for_more_digits(qtbot):
    ed = _editor(qtbot, "x\n" * 5)
    narrow = ed.line_number_width()
    ed.setPlainText("x\n" * 5000)
    assert ed.line_number_width() > narrow


def test_line_running_when_stopped_is_marked_and_scrolled_to(qtbot):
    ed = _editor(qtbot, "".join(f"x{i} = {i}\n" for i in range(1, 301)))
    ed.resize(400, 200)
    ed.verticalScrollBar().setValue(0)
    assert ed.mark_stopped_line(250, "still running here")
    assert ed.stopped_line == 250
    assert ed.textCursor().blockNumber() == 249
    assert ed.firstVisibleBlock().blockNumber() > 200  # scrolled down to it
    assert ed.line_at_y(ed.cursorRect().center().y()) == 250
    # centred, so that the lines around it (the loop it is in) show too
    h = ed.viewport().height()
    assert h / 3 < ed.cursorRect().center().y() < 2 * h / 3
    assert _tinted_lines(ed, "stopped_bg") == [250]
    assert _gutter_colour(ed, 250) == QColor(colors("light")["stopped_marker"]).name()
    assert ed.marker_tip(250) == "still running here"
    assert ed.blockCount() == 301  # the text ends with a newline: an empty line 301
    assert not ed.mark_stopped_line(302)  # past the end: nothing marked
    assert ed.stopped_line is None and _tinted_lines(ed, "stopped_bg") == []
    ed.mark_stopped_line(3)
    ed.clear_stopped_line()
    assert ed.stopped_line is None and _tinted_lines(ed, "stopped_bg") == []
    assert ed.marker_tip(3) == ""


def _format_at(ed, line: int, column: int):
    """The highlighter's character format at 1-based `line`, 0-based `column`."""
    block = ed.document().findBlockByNumber(line - 1)
    ranges = block.layout().formats()
    for r in ranges:
        if r.start <= column < r.start + r.length:
            return QTextCharFormat(r.format)
    return None


def test_highlighter_handles_multiline_strings_and_themes(qtbot):
    ed = _editor(qtbot, 'x = """a\n# not a comment\n"""\ny = 2  # comment\n')
    states = [ed.document().findBlockByNumber(i).userState() for i in range(4)]
    assert states == [IN_DOUBLE_TRIPLE, IN_DOUBLE_TRIPLE, 0, 0]
    string, comment = PALETTES["light"]["string"][0], PALETTES["light"]["comment"][0]
    inside = _format_at(ed, 2, 0)  # "# not a comment" is inside the string
    assert inside.foreground().color().name() == string and not inside.fontItalic()
    real = _format_at(ed, 4, len("y = 2  "))
    assert real.foreground().color().name() == comment and real.fontItalic()
    ed.set_theme("dark")
    assert _format_at(ed, 2, 0).foreground().color().name() == PALETTES["dark"]["string"][0]
    ed.set_theme("light")
    assert _format_at(ed, 2, 0).foreground().color().name() == string


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
