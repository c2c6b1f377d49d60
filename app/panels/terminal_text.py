"""What a terminal would show for a script's output: `\\r`, backspace, ANSI colours.

A progress bar (tqdm and the like) rewrites its line with `\\r`; Keras-style
bars step back with `\\b`; many libraries colour their logs with ANSI SGR
sequences (`\\x1b[31m`). Appended as plain text these run together or show as
garbage. `TerminalText` keeps the one line still being written (the text after
the last newline) as cells with a cursor, the way a terminal does, and hands
back what changed.

Its cost is linear in the output: `write` and `take` never walk the whole
unfinished line. `take` hands the Output pane only what changed since the last
take: how many leading characters of the line shown last time stay as they are
(`Flush.keep`), then the runs that follow them. A million `print(".", end="")`
therefore add a million characters once, instead of redrawing an ever longer
line at every flush (that froze the app for minutes). `feed` is the simple
form (finished text and the whole line), for callers that redraw everything.

Understood: `\\n` (a new line; as on a terminal in cooked mode it also returns
to column 0), `\\r`, `\\b`, CSI `m` (SGR: reset, bold, the 8 + 8 basic colours,
256-colour and 24-bit foregrounds, default), CSI `K` (erase in line), CSI `C`,
`D`, `G` (cursor right, left, to column). Every other escape sequence (cursor
up, screen clearing, OSC titles) is removed, never shown. Sequences split
across two writes are completed by the next one. Pure Python, no Qt: unit-
tested on its own (tests/app/test_terminal_text.py).
"""

from __future__ import annotations

import re
from itertools import groupby
from typing import NamedTuple, Optional, Union

Color = Union[int, tuple, None]  # 0-15 (basic palette index), (r, g, b), None: the stream's colour

# An escape sequence, complete: CSI (ESC [ params intermediates final), OSC
# (ESC ] ... BEL or ESC \), or a two-character escape.
_ESCAPE = re.compile(r"\x1b\[([0-9;:?<=>]*)[ -/]*([@-~])|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
# The start of an escape sequence that the next write completes.
_PARTIAL = re.compile(r"\x1b(?:\[[0-9;:?<=>]*[ -/]*|\][^\x07\x1b]*)?$")
_CONTROL = re.compile(r"[\r\b\x1b]")
_LINE_CONTROL = re.compile(r"[\r\n\b]")
MAX_PARTIAL = 256  # a longer unfinished "sequence" is not one: dropped


class Style(NamedTuple):
    stream: str = "stdout"
    fg: Color = None
    bold: bool = False


class Update(NamedTuple):
    """What a write changed: `done` (runs of finished text, every line ending
    in "\\n") and `line` (runs of the unfinished last line as it is now)."""

    done: list
    line: list


class Flush(NamedTuple):
    """What changed since the last `TerminalText.take`: the first `keep`
    characters of the line shown then stay as they are; `done` (runs that end
    that line and every line finished since, each ending in "\\n") and then
    `line` (runs of the unfinished line) replace the rest of it. `finished` is
    the plain text of the lines finished since, whole."""

    keep: int
    done: list
    line: list
    finished: str


def _runs(chars: list, styles: list, start: int = 0) -> list:
    """[(text, Style)] of chars[start:], with neighbours of one style joined
    (grouped at C speed: a 1 M-character line of one style is one join)."""
    runs: list = []
    pos = start
    for style, group in groupby(styles[start:]):
        n = len(list(group))
        runs.append(("".join(chars[pos:pos + n]), style))
        pos += n
    return runs


def merge_runs(done: list, runs: list) -> None:
    """Append `runs` to `done`, joining text of one style."""
    for text, style in runs:
        if not text:
            continue
        if done and done[-1][1] == style:
            done[-1] = (done[-1][0] + text, style)
        else:
            done.append((text, style))


class TerminalText:
    """One terminal's unfinished line, cursor and colour state."""

    def __init__(self):
        self.clear()

    def clear(self) -> None:
        self._chars: list = []
        self._styles: list = []
        self._col = 0
        self._fg: Color = None
        self._bold = False
        self._partial = ""
        # Since the last take(): leading characters of the current line left
        # untouched (0 once the line shown then was finished: a new line is all
        # new), that value for the line shown then, runs to add after it, and
        # the plain text of the lines finished.
        self._keep = 0
        self._shown_keep: Optional[int] = None  # None: the line shown is still being written
        self._done: list = []
        self._finished: list = []

    @property
    def line_text(self) -> str:
        """The unfinished line as it stands."""
        return "".join(self._chars)

    @property
    def line_length(self) -> int:
        return len(self._chars)

    def has_open_line(self) -> bool:
        return bool(self._chars)

    def feed(self, stream: str, text: str) -> Update:
        """Write `text` (from "stdout" or "stderr"); see `Update`. Walks the
        whole unfinished line: the Output pane uses `write` and `take`."""
        self._keep = 0  # (the caller redraws the whole line)
        if self._shown_keep is not None:
            self._shown_keep = 0
        self.write(stream, text)
        flush = self.take()
        return Update(flush.done, flush.line)

    def write(self, stream: str, text: str) -> None:
        """Write `text` (from "stdout" or "stderr"); `take` says what changed."""
        if self._partial:
            text, self._partial = self._partial + text, ""
        partial = _PARTIAL.search(text)
        if partial is not None and partial.start() >= len(text) - MAX_PARTIAL:
            self._partial = text[partial.start():]
            text = text[:partial.start()]
        if _CONTROL.search(text) is None and self._col == len(self._chars):
            self._plain(stream, text)
        else:
            pos = 0
            for m in _ESCAPE.finditer(text):
                self._text(stream, text[pos:m.start()])
                if m.group(2) is not None:
                    self._csi(m.group(1), m.group(2))
                pos = m.end()
            self._text(stream, text[pos:].replace("\x1b", ""))

    def take(self) -> Flush:
        """What changed since the last take (see `Flush`); the line as it
        stands is then the one shown. Costs what changed, never the whole line."""
        keep = self._keep if self._shown_keep is None else self._shown_keep
        flush = Flush(keep, self._done, _runs(self._chars, self._styles, self._keep), "".join(self._finished))
        self._keep, self._shown_keep, self._done, self._finished = len(self._chars), None, [], []
        return flush

    # -- writing ----------------------------------------------------------------------
    def _style(self, stream: str) -> Style:
        return Style(stream, self._fg, self._bold)

    def _touch(self, col: int) -> None:
        """Characters from `col` on change."""
        if col < self._keep:
            self._keep = col

    def _end_line(self, rest: str, style: Style) -> None:
        """The line is finished, followed by `rest` (finished lines of one
        style, ending in "\\n")."""
        merge_runs(self._done, _runs(self._chars, self._styles, self._keep) + [(rest, style)])
        self._finished.append("".join(self._chars) + rest)
        if self._shown_keep is None:
            self._shown_keep = self._keep
        self._chars, self._styles, self._col, self._keep = [], [], 0, 0

    def _plain(self, stream: str, text: str) -> None:
        """Fast path: no control characters and the cursor at the line's end."""
        style = self._style(stream)
        head, newline, tail = text.rpartition("\n")
        if newline:
            self._end_line(head + "\n", style)
            text = tail
        if text:
            self._chars.extend(text)
            self._styles.extend([style] * len(text))
            self._col = len(self._chars)

    def _text(self, stream: str, text: str) -> None:
        """Text without escape sequences, with \\r, \\b and \\n."""
        if not text:
            return
        style = self._style(stream)
        start = 0
        for m in _LINE_CONTROL.finditer(text):
            i, ch = m.start(), m.group()
            self._put(text[start:i], style)
            start = i + 1
            if ch == "\n":
                self._end_line("\n", style)
            elif ch == "\r":
                self._col = 0
            else:
                self._col = max(0, self._col - 1)
        self._put(text[start:], style)

    def _put(self, text: str, style: Style) -> None:
        if not text:
            return
        col, chars, styles = self._col, self._chars, self._styles
        self._touch(col)
        if col > len(chars):  # the cursor was moved right past the end
            chars.extend(" " * (col - len(chars)))
            styles.extend([style] * (col - len(styles)))
        end = col + len(text)
        chars[col:end] = text
        styles[col:end] = [style] * len(text)
        self._col = end

    # -- escape sequences -------------------------------------------------------------
    def _csi(self, params: str, final: str) -> None:
        numbers = [int(p) if p.isdigit() else 0 for p in params.replace(":", ";").split(";")] if params else []
        first = numbers[0] if numbers else 0
        if final == "m" and not params.startswith(("?", "<", "=", ">")):
            self._sgr(numbers or [0])
        elif final == "K":
            self._touch(self._col if first == 0 else 0)
            if first == 0:
                del self._chars[self._col:], self._styles[self._col:]
            elif first == 1:
                n = min(self._col + 1, len(self._chars))
                self._chars[:n] = " " * n
            elif first == 2:
                self._chars[:] = " " * len(self._chars)
        elif final == "C":
            self._col += max(first, 1)
        elif final == "D":
            self._col = max(0, self._col - max(first, 1))
        elif final == "G":
            self._col = max(first, 1) - 1

    def _sgr(self, codes: list) -> None:
        i = 0
        while i < len(codes):
            c = codes[i]
            if c == 0:
                self._fg, self._bold = None, False
            elif c == 1:
                self._bold = True
            elif c == 22:
                self._bold = False
            elif 30 <= c <= 37:
                self._fg = c - 30
            elif 90 <= c <= 97:
                self._fg = c - 90 + 8
            elif c == 39:
                self._fg = None
            elif c == 38 and i + 1 < len(codes):
                fg, used = _extended_color(codes[i + 1:])
                self._fg = fg if fg is not None else self._fg
                i += used
            elif c == 48 and i + 1 < len(codes):  # backgrounds are not drawn: skip their numbers
                i += _extended_color(codes[i + 1:])[1]
            i += 1


def _extended_color(rest: list) -> tuple[Optional[Color], int]:
    """A 38;5;n or 38;2;r;g;b colour (the numbers after 38): (colour, numbers used)."""
    if rest[0] == 5 and len(rest) >= 2:
        n = rest[1]
        if n < 16:
            return n, 2
        if n < 232:  # the 6x6x6 cube
            n -= 16
            steps = (0, 95, 135, 175, 215, 255)
            return (steps[n // 36], steps[n // 6 % 6], steps[n % 6]), 2
        grey = 8 + 10 * (n - 232)
        return (grey, grey, grey), 2
    if rest[0] == 2 and len(rest) >= 4:
        return tuple(max(0, min(255, v)) for v in rest[1:4]), 4
    return None, 1
