"""The Output pane shows prints as a terminal would: a `\\r` progress line ends
as its last state, ANSI colours are colours (not garbage), messages start on a
line of their own."""

from __future__ import annotations

from PySide6.QtGui import QColor, QTextCursor

from autogradviz.app.panels.output import ANSI_COLORS, OutputPane


def _color_at(pane: OutputPane, text: str) -> QColor:
    doc = pane.document()
    cursor = doc.find(text)
    assert not cursor.isNull(), f"{text!r} not in the pane"
    probe = QTextCursor(doc)
    probe.setPosition(cursor.selectionStart() + 1)
    return probe.charFormat().foreground().color()


def test_progress_line_rewrites_in_place(qtbot):
    pane = OutputPane()
    qtbot.addWidget(pane)
    pane.append_output("stdout", "epoch 1\n")
    for p in range(0, 101, 10):
        pane.append_output("stdout", f"\r{p:3d}%|{'#' * (p // 10):<10}|")
        pane.flush()  # each state really reaches the document
        assert pane.document().toPlainText().endswith(f"{p:3d}%|{'#' * (p // 10):<10}|")
    pane.append_output("stderr", "\n")
    pane.append_info("Finished")
    assert pane.plain_text == "epoch 1\n100%|##########|\nFinished\n"
    assert pane.document().toPlainText() == "epoch 1\n100%|##########|\nFinished\n"


def test_ansi_colours_render_as_colours_not_garbage(qtbot):
    pane = OutputPane(theme="dark")
    qtbot.addWidget(pane)
    pane.append_output("stdout", "\x1b[31mred\x1b[0m and \x1b[1;32mgreen\x1b[0m\n")
    pane.flush()
    assert pane.document().toPlainText() == "red and green\n"
    assert "\x1b" not in pane.plain_text
    assert _color_at(pane, "red") == QColor(ANSI_COLORS["dark"][1])
    assert _color_at(pane, "green") == QColor(ANSI_COLORS["dark"][2])
    assert _color_at(pane, "and") != QColor(ANSI_COLORS["dark"][1])


def test_message_after_an_unfinished_line_starts_on_its_own_line(qtbot):
    pane = OutputPane()
    qtbot.addWidget(pane)
    pane.append_output("stdout", "loading\b\b\b...")
    pane.append_problem("Stopped.", "The script was ended by Stop.")
    assert pane.plain_text == "load...\nStopped.\nThe script was ended by Stop.\n"
