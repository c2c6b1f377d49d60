"""Text from a script or a trace file shown as what it is: plain text.

Qt reads a QLabel in its default AutoText mode, a tooltip, a status tip and a
QMessageBox text as HTML whenever `Qt::mightBeRichText` says the text looks
like it. A script's exception class, a module name, a printed line or any
field of a saved trace can then render as markup: `<img src="/dev/zero">`
makes Qt read that file to the end (memory runs out; a FIFO hangs the GUI),
and `<a>`/`<b>`/`<table>` spoof what the window says. So every widget that
shows such data goes through this module:

- `plain(label)` / `plain_label(parent)`: a QLabel that never parses markup;
- `escaped(text)`: the data piece of a string the app deliberately builds as
  HTML (a rich label with bold titles: the data is escaped, the markup is ours);
- `plain_tip(text)`: a tooltip or status tip Qt shows literally, escaped and
  marked as rich text only when Qt would otherwise parse it;
- `message_box(...)`: a QMessageBox whose text is plain.
"""

from __future__ import annotations

import html
from typing import Optional

from PySide6.QtCore import Qt
from PySide6.QtGui import Qt as QtGuiNamespace
from PySide6.QtWidgets import QLabel, QMessageBox, QWidget


def escaped(text) -> str:
    """`text` (any value, shown by str()) made safe inside HTML the app builds."""
    return html.escape(str(text), quote=True)


def looks_rich(text: str) -> bool:
    """Whether Qt would read `text` as HTML in a tooltip or an AutoText label."""
    return bool(text) and QtGuiNamespace.mightBeRichText(text)


def plain_tip(text: Optional[str]) -> str:
    """A tooltip / status tip that shows `text` literally. Text Qt would
    take for plain is returned unchanged (it keeps its line breaks and
    no-wrap); text it would parse is escaped inside an explicit `<qt>`
    document, line breaks kept."""
    text = "" if text is None else str(text)
    if not looks_rich(text):
        return text
    body = html.escape(text, quote=False).replace("\n", "<br>")
    return f"<qt>{body}</qt>"


def plain(label: QLabel) -> QLabel:
    """`label` set to show its text as plain text, whatever it holds; returned."""
    label.setTextFormat(Qt.TextFormat.PlainText)
    return label


def plain_label(parent: Optional[QWidget] = None, text: str = "") -> QLabel:
    """A new QLabel that shows its text as plain text."""
    return plain(QLabel(text, parent))


def message_box(icon, parent: Optional[QWidget], title: str, text: str,
                buttons=QMessageBox.StandardButton.Ok) -> QMessageBox:
    """A QMessageBox whose text (it may name a file or a script's error) is plain text."""
    box = QMessageBox(icon, title, text, buttons, parent)
    box.setTextFormat(Qt.TextFormat.PlainText)
    return box


def warn(parent: Optional[QWidget], title: str, text: str) -> None:
    """QMessageBox.warning, with the text shown as plain text."""
    message_box(QMessageBox.Icon.Warning, parent, title, text).exec()
