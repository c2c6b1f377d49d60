"""The output pane: the script's prints, errors with a plain-language explanation,
and what happened to the worker (timeouts, crashes, restarts).

A script can print thousands of lines a second, so prints are buffered and
written at most every 50 ms as plain text runs (one insert per batch, never
HTML), and the document keeps only the last MAX_BLOCKS lines: the GUI stays
responsive under `while True: print(...)`.

Prints go through a terminal model (terminal_text.py): a line rewritten with
`\r` or `\b` (a progress bar) shows as its last state and ANSI colours as
colours, as in a terminal. The line still being written is always the
document's last block; each flush redraws it and appends what was finished.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QFontDatabase, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QDockWidget, QTextBrowser

from autogradviz.app.panels.console_input_line import ConsoleInputLine
from autogradviz.app.panels.output_colors import recolor
from autogradviz.app.panels.terminal_text import Style, TerminalText, merge_runs
from autogradviz.app.theme import colors

MAX_BLOCKS = 5000           # lines kept in the pane
MAX_PLAIN_CHARS = 400_000   # text kept for `plain_text` (tests, copy)
FLUSH_MS = 50
MAX_LINES_PER_FLUSH = 800   # lines inserted per flush; older ones in a fast burst are skipped
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
        self.setFont(QFontDatabase.systemFont(QFontDatabase.FixedFont))
        self.document().setMaximumBlockCount(MAX_BLOCKS)
        self.document().setUndoRedoEnabled(False)
        self.setTextInteractionFlags(Qt.TextSelectableByMouse | Qt.LinksAccessibleByMouse
                                     | Qt.TextSelectableByKeyboard)
        self._theme = theme
        self._plain: list[str] = []
        self._plain_len = 0
        self._pending: list[tuple[str, str]] = []  # (stream, text) not yet shown
        self._terminal = TerminalText()  # the line being written, cursor, colours
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

    # -- writing ----------------------------------------------------------------
    def _fmt(self, color_key: str, bold: bool = False, href: str | None = None) -> QTextCharFormat:
        fmt = QTextCharFormat()
        fmt.setForeground(QColor(colors(self._theme)[color_key]))
        fmt.setFontWeight(QFont.DemiBold if bold else QFont.Normal)
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
               open_line: list[tuple[str, QTextCharFormat]] = ()) -> None:
        """Replace the last block (the line being written) by `runs` (finished
        text, kept) and then `open_line` (the new unfinished line)."""
        bar = self.verticalScrollBar()
        at_end = bar.value() >= bar.maximum() - 4
        cursor = QTextCursor(self.document())
        cursor.movePosition(QTextCursor.End)
        cursor.beginEditBlock()
        cursor.movePosition(QTextCursor.StartOfBlock, QTextCursor.KeepAnchor)
        cursor.removeSelectedText()
        for text, fmt in runs:
            cursor.insertText(text, fmt)
            self._keep_plain(text)
        for text, fmt in open_line:
            cursor.insertText(text, fmt)
        cursor.endEditBlock()
        if at_end:
            bar.setValue(bar.maximum())

    def _keep_plain(self, text: str) -> None:
        self._plain.append(text)
        self._plain_len += len(text)
        if self._plain_len > MAX_PLAIN_CHARS:
            joined = "".join(self._plain)[-MAX_PLAIN_CHARS // 2:]
            self._plain = [joined]
            self._plain_len = len(joined)

    def flush(self) -> None:
        """Write buffered prints now (one insert per run of the same stream)."""
        self._flush_timer.stop()
        if not self._pending:
            return
        done, line = [], []
        for stream, text in self._pending:
            update = self._terminal.feed(stream, text)
            merge_runs(done, update.done)
            line = update.line
        self._pending.clear()
        formats: dict = {}

        def formatted(pieces):
            return [(text, formats.get(style) or formats.setdefault(style, self._output_fmt(style)))
                    for text, style in pieces]

        runs, line = formatted(done), formatted(line)
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
            runs = [marker] + kept
        self._write(runs, line)

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
        self._write([(text + "\n", self._fmt(color_key, bold))])

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
        self._write(runs)

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
        self._write(runs)

    def append_action(self, text: str, href: str) -> None:
        """A link that asks the window to do something (e.g. "install:NAME");
        clicking it emits `actionActivated(href)`."""
        self.flush()
        self._ensure_newline()
        self._write([("→ ", self._fmt("link")), (text, self._fmt("link", bold=True, href=href)),
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
