"""The text of the statement a script line belongs to, for a node's `code`.

A node records the line that made it (source_lines.py), and its `code` is
shown beside the step ("Made by line 7: ..."). For a statement written over
several lines - `w = torch.tensor([[1.0, -1.0],` / `[0.5, 2.0]], ...)` -
the line alone is half a statement; this module gives the whole one, on one
line: its lines stripped of indentation and comments, joined by a space.
A one-line statement's text is its line, stripped, as before (trailing
comment kept: readers drop it where they show code). For a compound
statement (`for`, `with`, `def`...) only its header counts, never its body.

Plain Python: ast and tokenize over the script's source (the runner put it
in linecache), parsed once per script.
"""

from __future__ import annotations

import ast
import io
import linecache
import tokenize
from typing import Optional

MAX_CHARS = 240  # a longer statement is cut with "…" (a caption, not a listing)


def statement_spans(source: str) -> dict[int, tuple[int, int]]:
    """{line: (first, last)} for every line inside a statement that spans
    several lines (a compound statement's header only); one-line
    statements are not listed. {} when the source does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    spans: dict[int, tuple[int, int]] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt):
            continue
        first, last = node.lineno, node.end_lineno or node.lineno
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
            last = max(first, body[0].lineno - 1)  # the header: up to the body
            if hasattr(body[0], "decorator_list") and body[0].decorator_list:
                last = max(first, min(last, body[0].decorator_list[0].lineno - 1))
        if last > first:
            for line in range(first, last + 1):
                spans[line] = (first, last)
    return spans


def joined_text(lines: list[str]) -> str:
    """`lines` (one statement's) on one line: each stripped of its
    indentation and comment, joined by a space, cut at MAX_CHARS."""
    cut = [line.rstrip("\r\n") for line in lines]
    try:
        for tok in tokenize.generate_tokens(io.StringIO("\n".join(cut) + "\n").readline):
            if tok.type == tokenize.COMMENT:
                row, col = tok.start
                cut[row - 1] = cut[row - 1][:col]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass  # (an odd fragment: kept as written)
    text = " ".join(part.strip() for part in cut if part.strip())
    return text if len(text) <= MAX_CHARS else text[:MAX_CHARS - 1] + "…"


class StatementText:
    """code(line) of one script file: the statement's text (see module doc)."""

    def __init__(self, filename: Optional[str]):
        self.filename = filename
        self._spans: Optional[dict[int, tuple[int, int]]] = None

    def code(self, line: Optional[int]) -> Optional[str]:
        if line is None or not self.filename:
            return None
        lines = linecache.getlines(self.filename)
        if self._spans is None:
            self._spans = statement_spans("".join(lines))
        span = self._spans.get(line)
        if span is None:
            text = lines[line - 1].strip() if 0 < line <= len(lines) else ""
            return text or None
        first, last = span
        return joined_text(lines[first - 1:last]) or None
