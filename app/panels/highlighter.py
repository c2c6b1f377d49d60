"""Python syntax highlighting for the editor (light/dark aware).

A small regular-expression highlighter (like the Qt for Python example): enough
for a learner's script, and fast because it only sees one block at a time.
Triple-quoted strings spanning lines are tracked with the block state.
"""

from __future__ import annotations

import builtins
import keyword
import re

from PySide6.QtGui import QColor, QFont, QSyntaxHighlighter, QTextCharFormat

PALETTES = {
    "light": {
        "keyword": ("#8a2be2", True), "builtin": ("#0b6bcb", False), "string": ("#0a7d32", False),
        "comment": ("#7b8591", False, True), "number": ("#b45309", False), "decorator": ("#9a6700", False),
        "def": ("#0550ae", True), "self": ("#953800", False), "torch": ("#cf222e", False),
    },
    "dark": {
        "keyword": ("#d2a8ff", True), "builtin": ("#79c0ff", False), "string": ("#7ee787", False),
        "comment": ("#8b949e", False, True), "number": ("#ffa657", False), "decorator": ("#e3b341", False),
        "def": ("#79c0ff", True), "self": ("#ffa198", False), "torch": ("#ff7b72", False),
    },
}

_KEYWORDS = r"\b(?:" + "|".join(list(keyword.kwlist) + ["match", "case"]) + r")\b"
_BUILTINS = r"\b(?:" + "|".join(n for n in dir(builtins) if not n.startswith("_")) + r")\b"
_RULES = [
    ("number", re.compile(r"\b(?:0[xX][0-9a-fA-F_]+|\d[\d_]*\.?\d*(?:[eE][+-]?\d+)?j?)\b")),
    ("builtin", re.compile(_BUILTINS)),
    ("torch", re.compile(r"\b(?:torch|nn|F)\b")),
    ("keyword", re.compile(_KEYWORDS)),
    ("self", re.compile(r"\bself\b")),
    ("decorator", re.compile(r"^\s*@[\w.]+")),
    ("def", re.compile(r"(?<=\bdef\s)\w+|(?<=\bclass\s)\w+")),
]
# Single-line strings and comments are handled together so '#' inside a string is not a comment.
_STRING_OR_COMMENT = re.compile(
    r"""(?P<string>[rbfuRBFU]{0,2}(?:'(?:[^'\\\n]|\\.)*'?|"(?:[^"\\\n]|\\.)*"?))|(?P<comment>\#.*)"""
)
_TRIPLE = re.compile(r"[rbfuRBFU]{0,2}('''|\"\"\")")

IN_SINGLE_TRIPLE = 1
IN_DOUBLE_TRIPLE = 2


class PythonHighlighter(QSyntaxHighlighter):
    def __init__(self, document, theme: str = "light"):
        super().__init__(document)
        self._formats: dict[str, QTextCharFormat] = {}
        self.set_theme(theme, rehighlight=False)

    def set_theme(self, theme: str, rehighlight: bool = True) -> None:
        self._formats.clear()
        for name, spec in PALETTES.get(theme, PALETTES["light"]).items():
            fmt = QTextCharFormat()
            fmt.setForeground(QColor(spec[0]))
            if spec[1]:
                fmt.setFontWeight(QFont.Weight.Bold)
            if len(spec) > 2 and spec[2]:
                fmt.setFontItalic(True)
            self._formats[name] = fmt
        if rehighlight:
            self.rehighlight()

    def highlightBlock(self, text: str) -> None:  # noqa: N802 (Qt API)
        for name, rx in _RULES:
            for m in rx.finditer(text):
                self.setFormat(m.start(), m.end() - m.start(), self._formats[name])
        self.setCurrentBlockState(0)
        start = 0
        prev = self.previousBlockState()
        if prev in (IN_SINGLE_TRIPLE, IN_DOUBLE_TRIPLE):
            quote = "'''" if prev == IN_SINGLE_TRIPLE else '"""'
            end = text.find(quote)
            if end < 0:
                self.setFormat(0, len(text), self._formats["string"])
                self.setCurrentBlockState(prev)
                return
            self.setFormat(0, end + 3, self._formats["string"])
            start = end + 3
        pos = start
        while pos < len(text):
            triple = _TRIPLE.search(text, pos)
            sc = _STRING_OR_COMMENT.search(text, pos)
            if triple and (not sc or triple.start() <= sc.start()):
                quote = triple.group(1)
                end = text.find(quote, triple.end())
                if end < 0:
                    self.setFormat(triple.start(), len(text) - triple.start(), self._formats["string"])
                    self.setCurrentBlockState(IN_SINGLE_TRIPLE if quote == "'''" else IN_DOUBLE_TRIPLE)
                    return
                self.setFormat(triple.start(), end + 3 - triple.start(), self._formats["string"])
                pos = end + 3
            elif sc:
                kind = "string" if sc.group("string") is not None else "comment"
                self.setFormat(sc.start(), sc.end() - sc.start(), self._formats[kind])
                pos = max(sc.end(), pos + 1)
            else:
                break
