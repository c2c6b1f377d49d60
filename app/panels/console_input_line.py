"""The line the learner types into when the script waits in `input()`.

It appears at the bottom of the Output pane only while the script waits (as
Thonny's shell offers an input line), takes the focus, and sends its text
with Enter; Ctrl+D ends the input, as in a terminal (the script then gets
EOFError). The pane echoes what was sent into the output, so the transcript
reads as it would in a terminal.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtWidgets import QLineEdit


class ConsoleInputLine(QLineEdit):
    """Emits `submitted(text)` on Enter and `endOfInput()` on Ctrl+D."""

    submitted = Signal(str)
    endOfInput = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("consoleInputLine")
        self.setClearButtonEnabled(False)
        self.returnPressed.connect(self._send)
        self._retranslate()

    def _retranslate(self) -> None:
        self.setPlaceholderText(self.tr("The script waits for input(): type a line and press Enter"))
        self.setToolTip(self.tr("What you type here is the line the script's input() returns "
                                "(Enter sends it; Ctrl+D ends the input, the script then gets EOFError)"))
        self.setAccessibleName(self.tr("Input for the script"))

    def changeEvent(self, event):  # noqa: N802
        if event.type() == QEvent.LanguageChange:
            self._retranslate()
        super().changeEvent(event)

    def keyPressEvent(self, event):  # noqa: N802
        if event.key() == Qt.Key_D and event.modifiers() == Qt.ControlModifier:
            self.clear()
            self.endOfInput.emit()
            return
        super().keyPressEvent(event)

    def _send(self) -> None:
        text = self.text()
        self.clear()
        self.submitted.emit(text)
