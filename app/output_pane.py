"""The output pane: the script's prints, errors with a plain-language explanation,
and what happened to the worker (timeouts, crashes, restarts)."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontDatabase, QTextCursor
from PySide6.QtWidgets import QTextBrowser

from .theme import colors

MAX_BLOCKS = 5000


class OutputPane(QTextBrowser):
    """Read-only, append-only log. Error lines are links: clicking jumps to the line."""

    lineActivated = Signal(int)

    def __init__(self, parent=None, theme: str = "light"):
        super().__init__(parent)
        self.setObjectName("outputPane")
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.anchorClicked.connect(self._anchor)
        font = QFontDatabase.systemFont(QFontDatabase.FixedFont)
        self.setFont(font)
        self.document().setMaximumBlockCount(MAX_BLOCKS)
        self.setTextInteractionFlags(Qt.TextSelectableByMouse | Qt.LinksAccessibleByMouse
                                     | Qt.TextSelectableByKeyboard)
        self._theme = theme
        self._plain: list[str] = []  # what was shown, as text (for tests and copy)

    def set_theme(self, theme: str) -> None:
        self._theme = theme

    @property
    def plain_text(self) -> str:
        return "".join(self._plain)

    def clear(self) -> None:  # noqa: D401
        super().clear()
        self._plain.clear()

    def _append_html(self, body: str, plain: str) -> None:
        self._plain.append(plain)
        cursor = self.textCursor()
        cursor.movePosition(QTextCursor.End)
        cursor.insertHtml(body)
        self.setTextCursor(cursor)
        self.ensureCursorVisible()

    def _span(self, text: str, color_key: str, bold: bool = False) -> str:
        color = colors(self._theme)[color_key]
        escaped = html.escape(text).replace("\n", "<br>").replace("  ", "&nbsp;&nbsp;")
        weight = "font-weight:600;" if bold else ""
        return f'<span style="color:{color};{weight}white-space:pre-wrap">{escaped}</span>'

    def append_output(self, stream: str, text: str) -> None:
        """Text the script printed (stream "stdout" or "stderr")."""
        self._append_html(self._span(text, "stderr" if stream == "stderr" else "stdout"), text)

    def append_info(self, text: str) -> None:
        self._ensure_newline()
        self._append_html(self._span(text + "\n", "info"), text + "\n")

    def append_note(self, text: str) -> None:
        """A plain-language note about the run (e.g. an explained warning)."""
        self._ensure_newline()
        self._append_html(self._span("ⓘ " + text + "\n", "link"), "ⓘ " + text + "\n")

    def append_success(self, text: str) -> None:
        self._ensure_newline()
        self._append_html(self._span(text + "\n", "ok"), text + "\n")

    def append_problem(self, title: str, detail: str = "") -> None:
        """A crash, timeout or stop: bold title, then detail."""
        self._ensure_newline()
        body = self._span(title + "\n", "error", bold=True)
        plain = title + "\n"
        if detail:
            body += self._span(detail + "\n", "info")
            plain += detail + "\n"
        self._append_html(body, plain)

    def append_error(self, type_: str, message: str, line: int | None,
                     explanation: str | None, traceback: str | None = None,
                     line_format: str = "line {n}", explanation_label: str = "") -> None:
        """The script's error: "Type: message (line n)", then the explanation."""
        self._ensure_newline()
        head = f"{type_}: {message}"
        body = self._span(head, "error", bold=True)
        plain = head
        if line:
            color = colors(self._theme)["link"]
            where = line_format.format(n=line)
            body += f' &nbsp;<a href="line:{line}" style="color:{color}">({html.escape(where)})</a>'
            plain += f" ({where})"
        body += "<br>"
        plain += "\n"
        if explanation:
            text = (explanation_label + " " if explanation_label else "") + explanation
            body += self._span(text + "\n", "text")
            plain += text + "\n"
        self._append_html(body, plain)

    def _ensure_newline(self) -> None:
        if self._plain and not self._plain[-1].endswith("\n"):
            self._append_html("<br>", "\n")

    def _anchor(self, url) -> None:
        text = url.toString()
        if text.startswith("line:"):
            try:
                self.lineActivated.emit(int(text[5:]))
            except ValueError:
                pass
