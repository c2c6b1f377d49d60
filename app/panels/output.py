"""The output pane: the script's prints, errors with a plain-language explanation,
and what happened to the worker (timeouts, crashes, restarts).

A script can print thousands of lines a second, so prints are buffered and
written at most every 50 ms as plain text runs (one insert per batch, never
HTML), and the document keeps only the last MAX_BLOCKS lines: the GUI stays
responsive under `while True: print(...)`.

Prints go through a terminal model (terminal_text.py): a line rewritten with
`\r` or `\b` (a progress bar) shows as its last state and ANSI colours as
colours, as in a terminal. The line still being written is always at the
document's end; a flush replaces only what changed in it (from the first
changed column on) and appends what was finished, so a line written one
character at a time costs each character once, not the whole line per flush.

Qt lays out a block whole, and a wrapped block's layout grows faster than its
length (a 1 M-character line took 90 s: each visual line looks for a word
boundary in the rest of the block). So a long line is shown as blocks of at
most CHUNK characters (a multiple of the columns that fit, so the breaks fall
where the line wraps anyway); the blocks after the first are marked as
continuations and copying joins them again (`text_of`).
"""

from __future__ import annotations

from typing import Sequence

from PySide6.QtCore import QMimeData, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QFontDatabase, QTextBlockFormat, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QDockWidget, QTextBrowser

from autogradviz.app.panels.console_input_line import ConsoleInputLine
from autogradviz.app.panels.output_colors import recolor
from autogradviz.app.panels.terminal_text import Style, TerminalText
from autogradviz.app.theme import colors

MAX_BLOCKS = 5000           # lines kept in the pane
MAX_PLAIN_CHARS = 400_000   # text kept for `plain_text` (tests, copy)
FLUSH_MS = 50
MAX_LINES_PER_FLUSH = 800   # lines inserted per flush; older ones in a fast burst are skipped
CHUNK = 1024                # a longer line is shown as blocks of at most this many characters
_CONTINUATION = QTextBlockFormat.Property.UserProperty + 1  # block property: this block goes on the line before
# Characters that QTextCursor.insertText turns into block breaks: shown as U+FFFD,
# so that the document's blocks stay the pane's lines and chunks.
_BREAKS = str.maketrans({"\u2029": "\ufffd", "\ufdd0": "\ufffd", "\ufdd1": "\ufffd"})
# The 16 basic terminal colours (SGR 30-37, 90-97), readable on each theme's background.
ANSI_COLORS = {
    "light": ["#3b3b3b", "#c62828", "#2e7d32", "#9a6700", "#1f5fbf", "#8e24aa", "#00838f", "#6b6b6b",
              "#5c5c5c", "#e53935", "#43a047", "#b7791f", "#3b82f6", "#ab47bc", "#0097a7", "#8a8a8a"],
    "dark": ["#9da5b4", "#ef6b6b", "#7fcf7f", "#e5c07b", "#61afef", "#c678dd", "#56b6c2", "#c8ccd4",
             "#7f8896", "#ff8a80", "#a5e6a5", "#f0d58c", "#8cc4ff", "#dca3f0", "#8ee0e8", "#ffffff"],
}


class OutputPane(QTextBrowser):
    """Read-only, append-only log. Error lines carry a link: clicking jumps to the line."""

    lineActivated = Signal(int)
    actionActivated = Signal(str)  # a link added by `append_action` was clicked (its href)
    inputSubmitted = Signal(object)  # the line typed for the script's input(), or None: end of input

    def __init__(self, parent=None, theme: str = "light"):
        super().__init__(parent)
        self.setObjectName("outputPane")
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.anchorClicked.connect(self._anchor)
        self.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.document().setMaximumBlockCount(MAX_BLOCKS)
        self.document().setUndoRedoEnabled(False)
        # Always there: a scroll bar appearing narrows the text and makes Qt lay
        # the whole document out again (0.5 s for a 1 M-character line).
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.LinksAccessibleByMouse
                                     | Qt.TextInteractionFlag.TextSelectableByKeyboard)
        self._theme = theme
        self._plain: list[str] = []
        self._plain_len = 0
        self._pending: list[tuple[str, str]] = []  # (stream, text) not yet shown
        self._terminal = TerminalText()  # the line being written, cursor, colours
        self._shown_len = 0  # characters of the unfinished line in the document (its last blocks)
        self._chunk = CHUNK  # characters per block of that line (fixed while it is written)
        self._new_chunk = CHUNK  # the same for a line that starts now
        self._line_block = QTextBlockFormat()
        self._continuation_block = QTextBlockFormat()
        self._continuation_block.setProperty(_CONTINUATION, True)
        self._flush_timer = QTimer(self)
        self._flush_timer.setSingleShot(True)
        self._flush_timer.setInterval(FLUSH_MS)
        self._flush_timer.timeout.connect(self.flush)
        self.input_line = ConsoleInputLine(self)  # shown while the script waits in input()
        self.input_line.hide()
        self.input_line.submitted.connect(self._input_sent)
        self.input_line.endOfInput.connect(lambda: self._input_sent(None))
        self._style_input_line()

    def set_theme(self, theme: str) -> None:
        old, self._theme = self._theme, theme
        self._style_input_line()
        recolor(self.document(), old, theme, ANSI_COLORS)  # what is shown already, in the new colours

    def _style_input_line(self) -> None:
        """The input line stands out in the theme's link colour (it asks for something)."""
        c = colors(self._theme)
        self.input_line.setStyleSheet(
            f"QLineEdit#consoleInputLine {{ border: 1px solid {c['link']}; border-radius: 3px; "
            f"padding: 2px 4px; background: {c['base']}; color: {c['text']}; }}")

    @property
    def plain_text(self) -> str:
        """Everything shown so far as text, as a terminal shows it (pending prints included)."""
        self.flush()
        return "".join(self._plain) + self._terminal.line_text

    def clear(self) -> None:  # noqa: D401
        self._pending.clear()
        self._flush_timer.stop()
        super().clear()
        self._plain.clear()
        self._plain_len = 0
        self._terminal.clear()
        self._shown_len = 0

    # -- writing ----------------------------------------------------------------
    def _fmt(self, color_key: str, bold: bool = False, href: str | None = None) -> QTextCharFormat:
        fmt = QTextCharFormat()
        fmt.setForeground(QColor(colors(self._theme)[color_key]))
        fmt.setFontWeight(QFont.Weight.DemiBold if bold else QFont.Weight.Normal)
        if href:
            fmt.setAnchor(True)
            fmt.setAnchorHref(href)
            fmt.setFontUnderline(True)
        return fmt

    # -- input() ----------------------------------------------------------------
    def request_input(self, prompt: str = "") -> None:
        """The script waits in input(): show the input line below the output and focus it."""
        self.flush()
        dock = self.parentWidget()  # a hidden or tabbed-away Output dock comes to the front
        while dock is not None and not isinstance(dock, QDockWidget):
            dock = dock.parentWidget()
        if dock is not None:
            dock.show()
            dock.raise_()
        self.input_line.setAccessibleDescription(prompt)  # (screen readers read the prompt)
        self.input_line.show()
        self._place_input_line()
        self.input_line.setFocus()

    def end_input(self) -> None:
        """The run no longer waits (it ended, was stopped or replaced)."""
        if not self.input_line.isHidden():  # (isHidden: also right while the dock is hidden)
            self.input_line.hide()
            self._place_input_line()

    def _input_sent(self, text) -> None:
        if text is not None:  # the echo a terminal shows, in the input colour
            self._pending.append(("stdin", text + "\n"))
            self.flush()
        self.end_input()
        self.inputSubmitted.emit(text)

    def _place_input_line(self) -> None:
        height = 0 if self.input_line.isHidden() else self.input_line.sizeHint().height()
        self.setViewportMargins(0, 0, 0, height)
        view = self.viewport().geometry()  # (beside the scroll bar, not under it)
        self.input_line.setGeometry(view.left(), self.contentsRect().bottom() - height + 1, view.width(), height)
        self.verticalScrollBar().setValue(self.verticalScrollBar().maximum())

    def resizeEvent(self, event):  # noqa: N802
        super().resizeEvent(event)
        if not self.input_line.isHidden():
            self._place_input_line()

    def _output_fmt(self, style: Style) -> QTextCharFormat:
        """The format of printed text: the stream's colour unless an ANSI colour was set."""
        if style.stream == "stdin":
            return self._fmt("link", bold=True)
        fmt = self._fmt("stderr" if style.stream == "stderr" else "stdout", bold=style.bold)
        if isinstance(style.fg, int):
            fmt.setForeground(QColor(ANSI_COLORS.get(self._theme, ANSI_COLORS["light"])[style.fg]))
        elif isinstance(style.fg, tuple):
            fmt.setForeground(QColor(*style.fg))
        return fmt

    def _write(self, runs: list[tuple[str, QTextCharFormat]],
               open_line: Sequence[tuple[str, QTextCharFormat]] = (), keep: int = 0) -> None:
        """Replace the unfinished line shown from column `keep` on by `runs`
        (its rest, then finished lines, each ending in "\\n") and then
        `open_line` (the new unfinished line, from where `runs` leave off)."""
        bar = self.verticalScrollBar()
        at_end = bar.value() >= bar.maximum() - 4
        cursor = QTextCursor(self.document())
        cursor.beginEditBlock()
        cursor.setPosition(self._line_position(keep))
        cursor.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
        if cursor.hasSelection():
            cursor.removeSelectedText()
            # (blocks merged by the removal may take the last one's format)
            block = (keep - 1 if keep and keep % self._chunk == 0 else keep) // self._chunk
            cursor.setBlockFormat(self._continuation_block if block else self._line_block)
        self._new_chunk = self._chunk_size()  # (for the lines that start now)
        if not keep:
            self._chunk = self._new_chunk
        col = keep
        for text, fmt in runs:
            col = self._insert(cursor, text, fmt, col)
        for text, fmt in open_line:
            col = self._insert(cursor, text, fmt, col)
        self._shown_len = col
        cursor.endEditBlock()
        if at_end:
            bar.setValue(bar.maximum())

    def _line_position(self, col: int) -> int:
        """The document position of column `col` of the unfinished line shown
        (the separator before it when a block starts there): its blocks are the
        document's last ones. Found through its block, as Qt counts UTF-16 units."""
        doc = self.document()
        end = doc.characterCount() - 1
        chunk, shown = self._chunk, self._shown_len
        if col >= shown:
            return end
        blocks = max(1, -(-shown // chunk))
        block = doc.findBlockByNumber(max(0, doc.blockCount() - blocks + col // chunk))
        if col and col % chunk == 0:
            return max(0, block.position() - 1)
        return min(end, block.position() + len(block.text()[:col % chunk].encode("utf-16-le")) // 2)

    def _insert(self, cursor: QTextCursor, text: str, fmt: QTextCharFormat, col: int) -> int:
        """Insert `text` at column `col` of a line: a long line in blocks of
        self._chunk characters (continuations), "\\n" as a new line. The column after."""
        text = text.translate(_BREAKS)
        head, newline, rest = text.partition("\n")
        col = self._insert_piece(cursor, head, fmt, col)
        if not newline:
            return col
        cursor.insertBlock(self._line_block, fmt)
        self._chunk = self._new_chunk
        body, newline, last = rest.rpartition("\n")
        if newline:
            lines = body.split("\n")
            if max(map(len, lines)) <= self._chunk:  # (short lines, as most are: one call)
                cursor.insertText(body + "\n", fmt)  # (its blocks take this block's format: a line's)
            else:
                for line in lines:
                    self._insert_piece(cursor, line, fmt, 0)
                    cursor.insertBlock(self._line_block, fmt)
        return self._insert_piece(cursor, last, fmt, 0)

    def _insert_piece(self, cursor: QTextCursor, text: str, fmt: QTextCharFormat, col: int) -> int:
        """Insert `text` (no "\\n") at column `col`: a block break before each
        column that is a multiple of self._chunk. The column after."""
        chunk, pos = self._chunk, 0
        while pos < len(text):
            if col and col % chunk == 0:
                cursor.insertBlock(self._continuation_block, fmt)
            n = min(len(text) - pos, chunk - col % chunk)
            cursor.insertText(text[pos:pos + n], fmt)
            pos += n
            col += n
        return col

    def _chunk_size(self) -> int:
        """CHUNK, rounded down to a multiple of the columns that fit in a line
        (a fixed-pitch font), so that a long line's blocks wrap seamlessly."""
        width = self.document().textWidth() - 2 * self.document().documentMargin()
        columns = int(width // max(1, self.fontMetrics().horizontalAdvance("0")))
        return max(1, CHUNK // columns) * columns if 8 <= columns <= CHUNK else CHUNK

    def text_of(self, start: int = 0, end: int | None = None) -> str:
        """The document's text from `start` to `end` (positions) as lines: a
        long line's blocks joined again. Copying uses it."""
        doc = self.document()
        end = doc.characterCount() - 1 if end is None else end
        parts: list = []
        block = doc.findBlock(start)
        while block.isValid() and block.position() <= end:
            if parts and not block.blockFormat().boolProperty(_CONTINUATION):
                parts.append("\n")
            text = block.text()
            units = text.encode("utf-16-le")  # (positions count UTF-16 units)
            lo, hi = max(0, start - block.position()), min(len(units) // 2, end - block.position())
            if lo or hi < len(units) // 2:
                text = units[2 * lo:2 * max(lo, hi)].decode("utf-16-le", "replace")
            parts.append(text)
            block = block.next()
        return "".join(parts)

    def createMimeDataFromSelection(self):  # noqa: N802
        """Copy: a long line's blocks come back as the one line it is."""
        mime = super().createMimeDataFromSelection()
        cursor = self.textCursor()
        if not cursor.hasSelection():
            return mime
        joined = QMimeData()  # (Qt's own fills in its plain text lazily, from the blocks)
        joined.setHtml(mime.html())  # (colours, for where rich text is pasted)
        joined.setText(self.text_of(cursor.selectionStart(), cursor.selectionEnd()))
        return joined

    def _message(self, runs: list[tuple[str, QTextCharFormat]]) -> None:
        """App text (not the script's) on lines of its own, after the output."""
        self._keep_plain("".join(text for text, _ in runs))
        self._write(runs, keep=self._shown_len)

    def _keep_plain(self, text: str) -> None:
        if not text:
            return
        self._plain.append(text)
        self._plain_len += len(text)
        if self._plain_len > MAX_PLAIN_CHARS:
            joined = "".join(self._plain)[-MAX_PLAIN_CHARS // 2:]
            self._plain = [joined]
            self._plain_len = len(joined)

    def flush(self) -> None:
        """Write buffered prints now: what changed in the unfinished line and
        the lines finished since the last flush (one insert per run of a style)."""
        self._flush_timer.stop()
        if not self._pending:
            return
        for stream, text in self._pending:
            self._terminal.write(stream, text)
        self._pending.clear()
        change = self._terminal.take()
        formats: dict = {}

        def formatted(pieces):
            return [(text, formats.get(style) or formats.setdefault(style, self._output_fmt(style)))
                    for text, style in pieces]

        runs, line, keep = formatted(change.done), formatted(change.line), change.keep
        # A script printing very fast: show the newest lines of this batch and say
        # how many were skipped, instead of making the GUI lay out all of them.
        total = sum(t.count("\n") for t, _ in runs)
        if total > MAX_LINES_PER_FLUSH:
            skip = total - MAX_LINES_PER_FLUSH
            skipped = self.tr("… {n} lines skipped (printed faster than they can be shown) …")
            marker = (skipped.format(n=skip) + "\n", self._fmt("info"))
            kept = []
            for text, fmt in runs:
                n = text.count("\n")
                if skip >= n:
                    skip -= n
                    continue
                if skip:
                    text = text.split("\n", skip)[-1]
                    skip = 0
                kept.append((text, fmt))
            runs, keep = [marker] + kept, 0  # (the line shown was among the skipped)
            self._keep_plain("".join(text for text, _ in runs))
        else:
            self._keep_plain(change.finished)
        self._write(runs, line, keep)

    def append_output(self, stream: str, text: str) -> None:
        """Text the script printed (stream "stdout" or "stderr"); shown within 50 ms."""
        if not text:
            return
        self._pending.append((stream, text))
        if not self._flush_timer.isActive():
            self._flush_timer.start()

    def _line(self, text: str, color_key: str, bold: bool = False) -> None:
        self.flush()
        self._ensure_newline()
        self._message([(text + "\n", self._fmt(color_key, bold))])

    def append_info(self, text: str) -> None:
        self._line(text, "info")

    def append_note(self, text: str) -> None:
        """A plain-language note about the run (e.g. an explained warning)."""
        self._line("ⓘ " + text, "link")

    def append_success(self, text: str) -> None:
        self._line(text, "ok")

    def append_problem(self, title: str, detail: str = "") -> None:
        """A crash, timeout or stop: bold title, then detail."""
        self.flush()
        self._ensure_newline()
        runs = [(title + "\n", self._fmt("error", bold=True))]
        if detail:
            runs.append((detail + "\n", self._fmt("info")))
        self._message(runs)

    def append_error(self, type_: str, message: str, line: int | None,
                     explanation: str | None, traceback: str | None = None,
                     line_format: str = "line {n}", explanation_label: str = "") -> None:
        """The script's error: "Type: message (line n)", then the explanation."""
        self.flush()
        self._ensure_newline()
        runs = [(f"{type_}: {message}", self._fmt("error", bold=True))]
        if line:
            runs.append(("  ", self._fmt("text")))
            runs.append((f"({line_format.format(n=line)})", self._fmt("link", href=f"line:{line}")))
        runs.append(("\n", self._fmt("text")))
        if explanation:
            text = (explanation_label + " " if explanation_label else "") + explanation
            runs.append((text + "\n", self._fmt("text")))
        self._message(runs)

    def append_action(self, text: str, href: str) -> None:
        """A link that asks the window to do something (e.g. "install:NAME");
        clicking it emits `actionActivated(href)`."""
        self.flush()
        self._ensure_newline()
        self._message([("→ ", self._fmt("link")), (text, self._fmt("link", bold=True, href=href)),
                       ("\n", self._fmt("text"))])

    def _ensure_newline(self) -> None:
        """End the line the script is writing (a message starts on a line of its own)."""
        if self._terminal.has_open_line():
            self._pending.append(("stdout", "\n"))
            self.flush()

    def _anchor(self, url) -> None:
        text = url.toString()
        if text.startswith("line:"):
            try:
                self.lineActivated.emit(int(text[5:]))
            except ValueError:
                pass
        elif text:
            self.actionActivated.emit(text)
