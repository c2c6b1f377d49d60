"""The code editor: line numbers, current-line highlight, error marker, 4-space tabs.

A QPlainTextEdit (as in Qt's Code Editor example) — enough for the short
scripts a learner writes, with undo/redo from Qt. The line the last run failed
on is marked in the gutter and tinted; hovering it shows the error message. A
run stopped by the run timeout marks the line it was running the same way, in
another colour, and scrolls to it: an endless loop is found where it loops.
While the backward pass is stepped, the forward line whose operation is being
differentiated gets an arrow in the gutter and a tint, as a debugger shows its
current line (`set_step_line`; app/panels/code_link keeps it in step).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPointF, QRect, QSize, Qt, Signal
from PySide6.QtGui import (QColor, QFont, QFontDatabase, QPainter, QPolygonF, QTextCursor,
                           QTextFormat)
from PySide6.QtWidgets import QPlainTextEdit, QTextEdit, QToolTip, QWidget

from autogradviz.app.panels.highlighter import PythonHighlighter
from autogradviz.app.services.text_safety import plain_tip
from autogradviz.app.theme import colors

INDENT = "    "


class _LineNumberArea(QWidget):
    def __init__(self, editor: "CodeEditor"):
        super().__init__(editor)
        self._editor = editor

    def sizeHint(self):  # noqa: N802
        return QSize(self._editor.line_number_width(), 0)

    def paintEvent(self, event):  # noqa: N802
        self._editor.paint_line_numbers(event)

    def event(self, event):
        if event.type() == event.Type.ToolTip:
            _show_tip(event, self._editor.marker_tip(self._editor.line_at_y(event.pos().y())), self)
            return True
        return super().event(event)


class CodeEditor(QPlainTextEdit):
    """Python editor. `set_error(line, message)` marks a 1-based line; `clear_error()`.
    `mark_stopped_line(line, message)` marks the line a stopped run was on."""

    errorChanged = Signal()

    def __init__(self, parent=None, theme: str = "light"):
        super().__init__(parent)
        self.setObjectName("codeEditor")
        font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        font.setPointSize(10)
        font.setStyleHint(QFont.StyleHint.Monospace)
        self.setFont(font)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.setTabStopDistance(self.fontMetrics().horizontalAdvance(" ") * 4)
        self._theme = theme
        self._error_line: int | None = None
        self._error_message = ""
        self._stopped_line: int | None = None
        self._stopped_message = ""
        self._step_line: int | None = None
        self._step_tip = ""
        self._numbers = _LineNumberArea(self)
        self.highlighter = PythonHighlighter(self.document(), theme)
        self.blockCountChanged.connect(self._update_margin)
        self.updateRequest.connect(self._update_numbers)
        self.cursorPositionChanged.connect(self._update_extra_selections)
        self._update_margin()
        self._update_extra_selections()
        self.retranslate()

    def retranslate(self) -> None:
        self.setPlaceholderText(self.tr("Write PyTorch code here, then press Run (Ctrl+Enter)."))

    def changeEvent(self, event):  # noqa: N802
        if event.type() == QEvent.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    # -- theme ---------------------------------------------------------------
    def set_theme(self, theme: str) -> None:
        self._theme = theme
        self.highlighter.set_theme(theme)
        self._update_extra_selections()
        self._numbers.update()

    # -- error marker --------------------------------------------------------
    @property
    def error_line(self) -> int | None:
        return self._error_line

    @property
    def error_message(self) -> str:
        return self._error_message

    def set_error(self, line: int | None, message: str) -> None:
        """Mark 1-based `line` as where the script failed; hovering shows `message`."""
        if line is not None and not (1 <= line <= self.blockCount()):
            line = None
        self._error_line = line
        self._error_message = message
        self._update_extra_selections()
        self._numbers.update()
        self.errorChanged.emit()

    def clear_error(self) -> None:
        if self._error_line is not None or self._error_message:
            self.set_error(None, "")

    # -- the line a stopped run was on -------------------------------------------
    @property
    def stopped_line(self) -> int | None:
        return self._stopped_line

    def mark_stopped_line(self, line: int, message: str = "") -> bool:
        """Mark 1-based `line` as running when the run was stopped (gutter marker,
        tint; hovering shows `message`) and scroll to it. False if there is no such line."""
        if not 1 <= line <= self.blockCount():
            self.clear_stopped_line()
            return False
        self._stopped_line = line
        self._stopped_message = message
        block = self.document().findBlockByNumber(line - 1)
        self.setTextCursor(QTextCursor(block))
        self.centerCursor()
        self._update_extra_selections()
        self._numbers.update()
        return True

    def clear_stopped_line(self) -> None:
        if self._stopped_line is not None:
            self._stopped_line = None
            self._stopped_message = ""
            self._update_extra_selections()
            self._numbers.update()

    # -- the line the stepped backward step differentiates ----------------------
    @property
    def step_line(self) -> int | None:
        return self._step_line

    def set_step_line(self, line: int | None, tip: str = "") -> None:
        """Arrow and tint on 1-based `line` (None: none), scrolled into view
        without moving the cursor; hovering the arrow shows `tip`."""
        if line is not None and not 1 <= line <= self.blockCount():
            line = None
        if line == self._step_line:  # (the tip alone changed: nothing to repaint; most steps stay on a line)
            self._step_tip = tip if line is not None else ""
            return
        self._step_line, self._step_tip = line, tip if line is not None else ""
        if line is not None:
            self._scroll_to_show(line)
        self._update_extra_selections()
        self._numbers.update()

    def _scroll_to_show(self, line: int) -> None:
        bar = self.verticalScrollBar()
        first = self.firstVisibleBlock().blockNumber() + 1
        rows = max(1, self.viewport().height() // max(1, self.fontMetrics().height()))
        if not first <= line < first + rows - 1:
            bar.setValue(max(0, line - 1 - rows // 3))

    def marker_tip(self, line: int | None) -> str:
        """The message of the marker on `line` (error first), or ""."""
        if line is not None and line == self._error_line:
            return self._error_message
        if line is not None and line == self._stopped_line:
            return self._stopped_message
        if line is not None and line == self._step_line:
            return self._step_tip
        return ""

    def go_to_line(self, line: int) -> None:
        block = self.document().findBlockByNumber(max(0, line - 1))
        if block.isValid():
            cursor = QTextCursor(block)
            self.setTextCursor(cursor)
            self.centerCursor()

    # -- line numbers ----------------------------------------------------------
    def line_number_width(self) -> int:
        digits = max(2, len(str(self.blockCount())))
        return 24 + self.fontMetrics().horizontalAdvance("9") * digits

    def _update_margin(self, *_):
        self.setViewportMargins(self.line_number_width(), 0, 0, 0)

    def _update_numbers(self, rect, dy):
        if dy:
            self._numbers.scroll(0, dy)
        else:
            self._numbers.update(0, rect.y(), self._numbers.width(), rect.height())
        if rect.contains(self.viewport().rect()):
            self._update_margin()

    def resizeEvent(self, event):  # noqa: N802
        super().resizeEvent(event)
        cr = self.contentsRect()
        self._numbers.setGeometry(QRect(cr.left(), cr.top(), self.line_number_width(), cr.height()))

    def line_at_y(self, y: int) -> int | None:
        block = self.firstVisibleBlock()
        top = self.blockBoundingGeometry(block).translated(self.contentOffset()).top()
        while block.isValid():
            bottom = top + self.blockBoundingRect(block).height()
            if top <= y < bottom:
                return block.blockNumber() + 1
            top = bottom
            block = block.next()
        return None

    def paint_line_numbers(self, event) -> None:
        c = colors(self._theme)
        painter = QPainter(self._numbers)
        painter.fillRect(event.rect(), QColor(c["line_numbers_bg"]))
        block = self.firstVisibleBlock()
        number = block.blockNumber()
        top = round(self.blockBoundingGeometry(block).translated(self.contentOffset()).top())
        bottom = top + round(self.blockBoundingRect(block).height())
        current = self.textCursor().blockNumber()
        height = self.fontMetrics().height()
        width = self._numbers.width()
        while block.isValid() and top <= event.rect().bottom():
            if block.isVisible() and bottom >= event.rect().top():
                line = number + 1
                marker = ("error_underline" if line == self._error_line
                          else "stopped_marker" if line == self._stopped_line else None)
                if marker is not None:
                    painter.fillRect(0, top, width, bottom - top, QColor(c[marker]))
                    painter.setPen(QColor("#ffffff"))
                    f = painter.font()
                    f.setBold(True)
                    painter.setFont(f)
                else:
                    painter.setPen(QColor(c["text"] if number == current else c["line_numbers"]))
                    f = painter.font()
                    f.setBold(False)
                    painter.setFont(f)
                painter.drawText(0, top, width - 6, height, Qt.AlignmentFlag.AlignRight, str(line))
                if line == self._step_line:
                    _paint_arrow(painter, QColor(c["step_arrow"]), top, height)
            block = block.next()
            top = bottom
            bottom = top + round(self.blockBoundingRect(block).height())
            number += 1
        painter.end()

    # -- highlights ------------------------------------------------------------
    def _update_extra_selections(self):
        c = colors(self._theme)
        selections = []
        if not self.isReadOnly():
            sel = QTextEdit.ExtraSelection()
            sel.format.setBackground(QColor(c["current_line"]))
            sel.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
            sel.cursor = self.textCursor()
            sel.cursor.clearSelection()
            selections.append(sel)
        if self._step_line is not None and self._step_line not in (self._error_line, self._stopped_line):
            block = self.document().findBlockByNumber(self._step_line - 1)
            if block.isValid():
                selections.append(_whole_line(block, c["step_line_bg"]))
        if self._stopped_line is not None and self._stopped_line != self._error_line:
            block = self.document().findBlockByNumber(self._stopped_line - 1)
            if block.isValid():
                selections.append(_whole_line(block, c["stopped_bg"]))
        if self._error_line is not None:
            block = self.document().findBlockByNumber(self._error_line - 1)
            if block.isValid():
                selections.append(_whole_line(block, c["error_bg"]))
                under = QTextEdit.ExtraSelection()
                under.format.setUnderlineStyle(QTextCharFormat_wave())
                under.format.setUnderlineColor(QColor(c["error_underline"]))
                cur = QTextCursor(block)
                text = block.text()
                cur.movePosition(QTextCursor.MoveOperation.Right, n=len(text) - len(text.lstrip()))
                cur.movePosition(QTextCursor.EndOfBlock, QTextCursor.MoveMode.KeepAnchor)
                under.cursor = cur
                selections.append(under)
        self.setExtraSelections(selections)

    # -- hover tooltip on the error line ---------------------------------------
    def event(self, event):
        if event.type() == event.Type.ToolTip and (self._error_line is not None or self._stopped_line is not None
                                                    or self._step_line is not None):
            pos = self.viewport().mapFromGlobal(event.globalPos())
            line = self.cursorForPosition(pos).blockNumber() + 1
            _show_tip(event, self.marker_tip(line) if self.line_at_y(pos.y()) == line else "", self)
            return True
        return super().event(event)

    # -- editing: tab = 4 spaces, shift+tab unindents, Enter keeps indentation --
    def keyPressEvent(self, event):  # noqa: N802
        key = event.key()
        cursor = self.textCursor()
        if key == Qt.Key_Tab and not event.modifiers() & (Qt.ControlModifier | Qt.AltModifier):
            if cursor.hasSelection() and cursor.selectedText().find("\u2029") >= 0:
                self._indent_selection(+1)
            else:
                col = cursor.positionInBlock()
                cursor.insertText(" " * (4 - col % 4))
            return
        if key == Qt.Key_Slash and event.modifiers() & Qt.ControlModifier:
            self.toggle_comment()
            return
        if key == Qt.Key_Backtab:
            self._indent_selection(-1)
            return
        if key in (Qt.Key_Return, Qt.Key_Enter) and not event.modifiers() & Qt.ControlModifier:
            text = cursor.block().text()[: cursor.positionInBlock()]
            indent = text[: len(text) - len(text.lstrip(" "))]
            if text.rstrip().endswith(":"):
                indent += INDENT
            cursor.beginEditBlock()
            cursor.insertText("\n" + indent)
            cursor.endEditBlock()
            self.ensureCursorVisible()
            return
        if key == Qt.Key_Backspace and not cursor.hasSelection():
            text = cursor.block().text()[: cursor.positionInBlock()]
            if text and not text.strip(" ") and len(text) % 4 == 0:
                cursor.movePosition(QTextCursor.Left, QTextCursor.MoveMode.KeepAnchor, 4)
                cursor.removeSelectedText()
                return
        super().keyPressEvent(event)

    def toggle_comment(self) -> None:
        """Ctrl+/: comment out the selected lines, or uncomment them if all are comments."""
        cursor = self.textCursor()
        doc = self.document()
        first = doc.findBlock(cursor.selectionStart())
        end = cursor.selectionEnd() - (1 if cursor.hasSelection() else 0)
        last = doc.findBlock(max(cursor.selectionStart(), end))
        blocks = []
        block = first
        while block.isValid():
            blocks.append(block)
            if block == last:
                break
            block = block.next()
        code = [b for b in blocks if b.text().strip()]
        uncomment = bool(code) and all(b.text().lstrip().startswith("#") for b in code)
        indent = min((len(b.text()) - len(b.text().lstrip()) for b in code), default=0)
        cursor.beginEditBlock()
        for b in code:
            c = QTextCursor(b)
            text = b.text()
            if uncomment:
                pos = text.index("#")
                n = 2 if text[pos:pos + 2] == "# " else 1
                c.movePosition(QTextCursor.MoveOperation.Right, n=pos)
                c.movePosition(QTextCursor.MoveOperation.Right, QTextCursor.MoveMode.KeepAnchor, n)
                c.removeSelectedText()
            else:
                c.movePosition(QTextCursor.MoveOperation.Right, n=indent)
                c.insertText("# ")
        cursor.endEditBlock()

    def _indent_selection(self, direction: int) -> None:
        cursor = self.textCursor()
        doc = self.document()
        first = doc.findBlock(cursor.selectionStart())
        last = doc.findBlock(max(cursor.selectionStart(), cursor.selectionEnd() - (1 if cursor.hasSelection() else 0)))
        cursor.beginEditBlock()
        block = first
        while block.isValid():
            c = QTextCursor(block)
            if direction > 0:
                c.insertText(INDENT)
            else:
                text = block.text()
                n = min(4, len(text) - len(text.lstrip(" ")))
                if n:
                    c.movePosition(QTextCursor.MoveOperation.Right, QTextCursor.MoveMode.KeepAnchor, n)
                    c.removeSelectedText()
            if block == last:
                break
            block = block.next()
        cursor.endEditBlock()


def QTextCharFormat_wave():  # noqa: N802
    from PySide6.QtGui import QTextCharFormat
    return QTextCharFormat.UnderlineStyle.WaveUnderline


def _paint_arrow(painter: QPainter, color: QColor, top: int, height: int) -> None:
    """A debugger's current-line arrow at the gutter's left edge."""
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(color)
    mid = top + height / 2
    h = max(4.0, height * 0.32)
    painter.drawPolygon(QPolygonF([QPointF(2, mid - h / 2), QPointF(6, mid - h / 2), QPointF(6, mid - h),
                                   QPointF(12, mid), QPointF(6, mid + h), QPointF(6, mid + h / 2),
                                   QPointF(2, mid + h / 2)]))
    painter.restore()


def _whole_line(block, color: str) -> QTextEdit.ExtraSelection:
    """A full-width background tint on one line of the editor (stopped / error line)."""
    sel = QTextEdit.ExtraSelection()
    sel.format.setBackground(QColor(color))
    sel.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
    sel.cursor = QTextCursor(block)
    return sel


def _show_tip(event, tip: str, widget) -> None:
    """The marker's message as a tooltip where the mouse is, or none."""
    if tip:
        QToolTip.showText(event.globalPos(), plain_tip(tip), widget)  # the script's error: plain text
    else:
        QToolTip.hideText()
