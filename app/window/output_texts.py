"""The app's own lines in the Output pane said again after a live language switch.

The run controller writes lines of its own into the Output pane ("▶ Running …",
"Finished in … s", an error's explanation, notes). Each is written through
`say(render)`, which keeps the function that makes it in the UI language and
the text it made. On the pane's LanguageChange every such line still on screen
is replaced in place by what its function makes now, in the format it had; the
script's own output is never touched. A line the pane no longer shows (it
scrolled out of MAX_BLOCKS, or the pane was cleared) is left alone, and so is
one over several lines (a find does not cross lines).
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QTextDocument


class OutputTexts(QObject):
    def __init__(self, output, parent=None):
        super().__init__(parent)
        self._output = output
        self._said: list[list] = []  # [render, text now shown]
        output.installEventFilter(self)

    def clear(self) -> None:
        """The pane was cleared: nothing of ours is on it."""
        self._said.clear()

    def say(self, render: Callable[[], str]) -> str:
        """`render()` now; kept, to say it again in another language."""
        text = render()
        self._said.append([render, text])
        return text

    def retranslate(self) -> int:
        """Replace every kept line still shown by its text in the UI language;
        returns how many were replaced."""
        doc = self._output.document()
        replaced = 0
        for entry in reversed(self._said):
            render, old = entry
            try:
                new = render()
            except Exception:  # (a line's data gone: keep what is shown)
                continue
            if new == old or "\n" in old or "\n" in new or not old:
                continue
            cursor = doc.find(old, max(0, doc.characterCount() - 1),
                              QTextDocument.FindFlag.FindBackward | QTextDocument.FindFlag.FindCaseSensitively)
            if cursor.isNull():
                continue
            fmt = cursor.charFormat()
            cursor.beginEditBlock()
            cursor.insertText(new, fmt)
            cursor.endEditBlock()
            entry[1] = new
            replaced += 1
        return replaced

    def eventFilter(self, obj, event) -> bool:  # noqa: N802
        if obj is self._output and event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        return False
