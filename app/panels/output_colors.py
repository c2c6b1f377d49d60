"""The Output pane's text in the colours of a new theme, in place.

The pane writes each run of text with its role's colour of the theme then
(app.theme.COLORS: stdout, stderr, error, info, ok, link; the 16 ANSI colours).
A theme switch must not leave dark text on a dark background (or pale grey on
white): `recolor(document, old, new)` gives every run the new theme's colour of
the role its old colour stood for. A colour of neither table (a script's 24-bit
ANSI colour) is the script's own and stays.
"""

from __future__ import annotations

from PySide6.QtGui import QColor, QTextCharFormat, QTextCursor, QTextDocument

from autogradviz.app.theme import colors

# the roles the pane writes, in the order that wins when two share a colour
ROLES = ("stdout", "stderr", "error", "info", "ok", "link", "text")


def color_map(old: str, new: str, ansi: dict) -> dict[int, QColor]:
    """{rgb of a colour of theme `old`: the same role's colour in theme `new`}."""
    out: dict[int, QColor] = {}
    a, b = colors(old), colors(new)
    for role in ROLES:
        out.setdefault(QColor(a[role]).rgb(), QColor(b[role]))
    for x, y in zip(ansi.get(old, ()), ansi.get(new, ())):
        out.setdefault(QColor(x).rgb(), QColor(y))
    return out


def recolor(document: QTextDocument, old: str, new: str, ansi: dict) -> int:
    """Give every text run of `document` theme `new`'s colour for its role;
    returns how many runs changed."""
    if old == new:
        return 0
    mapping = color_map(old, new, ansi)
    changed = 0
    cursor = QTextCursor(document)
    cursor.beginEditBlock()
    block = document.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            frag = it.fragment()
            if frag.isValid():
                target = mapping.get(frag.charFormat().foreground().color().rgb())
                if target is not None:
                    cursor.setPosition(frag.position())
                    cursor.setPosition(frag.position() + frag.length(), QTextCursor.MoveMode.KeepAnchor)
                    fmt = QTextCharFormat()
                    fmt.setForeground(target)
                    cursor.mergeCharFormat(fmt)
                    changed += 1
            it += 1
        block = block.next()
    cursor.endEditBlock()
    return changed
