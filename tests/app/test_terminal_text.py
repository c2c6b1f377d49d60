"""TerminalText shows what a terminal would: rewrites, backspaces, colours."""

from __future__ import annotations

import pytest

from autogradviz.app.panels.terminal_text import Style, TerminalText


def screen(writes, stream="stdout"):
    """Everything a terminal shows after `writes` (finished text + the open line)."""
    term = TerminalText()
    finished = []
    for text in writes:
        update = term.feed(stream, text)
        finished.extend(t for t, _ in update.done)
    return "".join(finished) + term.line_text


def test_plain_text_passes_through():
    assert screen(["hello\n", "wor", "ld\nnext"]) == "hello\nworld\nnext"


def test_carriage_return_progress_line_ends_as_its_last_state():
    writes = [f"\r{p:3d}%|{'#' * (p // 10):<10}| {p}/100" for p in range(0, 101, 5)] + ["\n", "done\n"]
    assert screen(writes) == "100%|##########| 100/100\ndone\n"


def test_shorter_rewrite_keeps_the_tail_as_a_terminal_does():
    assert screen(["abcdef\rXY"]) == "XYcdef"
    assert screen(["abcdef\rXY\x1b[K"]) == "XY"  # erase to the end of the line


def test_backspace_steps_back_and_overwrites():
    assert screen(["12345\b\b\bab\n"]) == "12ab5\n"
    assert screen(["\b\bx"]) == "x"  # never before column 0


def test_ansi_colours_are_not_shown_but_become_styles():
    term = TerminalText()
    update = term.feed("stdout", "\x1b[1;31mERROR\x1b[0m plain \x1b[38;5;46mgreen\x1b[39m\n")
    assert "".join(t for t, _ in update.done) == "ERROR plain green\n"
    styles = {t: s for t, s in update.done}
    assert styles["ERROR"] == Style("stdout", 1, True)
    assert styles[" plain "] == Style("stdout", None, False)
    assert styles["green"] == Style("stdout", (0, 255, 0), False)


def test_other_escape_sequences_are_removed():
    assert screen(["\x1b]0;title\x07a\x1b[2Jb\x1b[?25lc\x1b[Ad\n"]) == "abcd\n"


def test_sequence_split_across_writes_is_completed():
    term = TerminalText()
    first = term.feed("stdout", "red: \x1b[3")
    assert first.line == [("red: ", Style())]
    second = term.feed("stdout", "1mX\x1b[0m\n")
    assert second.done == [("red: ", Style()), ("X", Style("stdout", 1, False)), ("\n", Style())]


def test_stderr_keeps_its_stream_and_lines_interleave():
    term = TerminalText()
    term.feed("stdout", "out ")
    update = term.feed("stderr", "err\n")
    assert update.done == [("out ", Style("stdout")), ("err\n", Style("stderr"))]


@pytest.mark.parametrize("text, shown", [
    ("ab\x1b[3Dc", "cb"),         # cursor left past column 0 stops there
    ("ab\x1b[5Gc", "ab  c"),      # to column 5
    ("abc\x1b[2D\x1b[1K!", " !c"),  # erase up to the cursor, which stays
])
def test_cursor_moves(text, shown):
    assert screen([text]) == shown


def test_many_lines_in_one_write_are_one_run():
    term = TerminalText()
    update = term.feed("stdout", "".join(f"line {i}\n" for i in range(1000)) + "tail")
    assert len(update.done) == 1 and update.done[0][0].count("\n") == 1000
    assert update.line == [("tail", Style())]


def test_take_hands_over_only_what_changed():
    """The Output pane redraws from `keep` on: a line written a character at a
    time costs each character once; a rewrite says from where it changed."""
    term = TerminalText()
    for i in range(1000):
        term.write("stdout", ".")
        flush = term.take()
        assert flush == (i, [], [(".", Style())], "")
    term.write("stdout", "\x1b[5D!")  # five back, overwrite one
    assert term.take() == (995, [], [("!....", Style())], "")
    term.write("stdout", "\x1b[3D\x1b[K")  # three back (the cursor was after "!"), erase to the end
    assert term.take() == (993, [], [], "")
    term.write("stdout", "\rab\nnext\n\x1b[31mopen")  # rewrite, end it, more lines, a new open line
    flush = term.take()
    assert flush.keep == 0
    assert flush.done == [("ab" + "." * 991 + "\nnext\n", Style())]
    assert flush.line == [("open", Style("stdout", 1, False))]
    assert flush.finished == "ab" + "." * 991 + "\nnext\n"
    term.write("stdout", " more\n")  # the open line goes on, then ends
    assert term.take() == (4, [(" more\n", Style("stdout", 1, False))], [], "open more\n")
