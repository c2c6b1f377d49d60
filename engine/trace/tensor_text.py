"""Tensor summaries as text that looks like a tensor: one module for every place.

Edge labels, `.grad` callouts, the Inspector and the derivative rules with
numbers plugged in all show values through these functions, so a 2x2 gradient
reads as the same small matrix everywhere instead of a flattened list:

    scalar   2.0
    1-D      [1.0, -2.0, 0.5]
    2-D      ⎡1.0  2.0⎤        (`tensor_lines`: one line per row, for labels)
             ⎣3.0  4.0⎦
             [[1.0, 2.0], [3.0, 4.0]]   (`inline_text`: one line, for formulas)
    n-D      its last two dimensions, each slice headed by its index: [0] ⎡…⎤

Larger tensors fall back to "(shape) norm …". Plain text only (no torch, no
Qt): the app translates the one English word ("norm") through `words`.
"""

from __future__ import annotations

import math
from typing import Callable, Optional, Sequence

from autogradviz.engine.trace.summary import TensorSummary

# U+2007 FIGURE SPACE: as wide as a digit in most fonts, so padded columns line up.
FIGURE_SPACE = "\u2007"
# How many rows a matrix may have in a label before it is summarised instead.
MAX_ROWS = 6


def number_text(v) -> str:
    """One element: ints as ints, whole floats with one decimal, else 4 significant digits."""
    if isinstance(v, bool):
        return "True" if v else "False"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, (list, tuple)) and len(v) == 2:  # complex as [re, im]
        return f"{number_text(v[0])}{'+' if float(v[1]) >= 0 else '-'}{number_text(abs(float(v[1])))}j"
    try:
        f = float(v)
    except (TypeError, ValueError):
        return str(v)
    if math.isnan(f) or math.isinf(f):
        return str(f)
    if f == int(f) and abs(f) < 1e6:
        return f"{f:.1f}"
    text = f"{f:.4g}"
    return text + ".0" if text.lstrip("-").isdigit() else text  # 2.0000000002 reads as 2.0, like 2.0


def shape_text(s: TensorSummary) -> str:
    return "(" + ", ".join(str(d) for d in s.shape) + ")"


def numel(s: TensorSummary) -> int:
    return s.numel or (math.prod(s.shape) if s.shape else 1)


def complete(s: Optional[TensorSummary], max_values: int) -> bool:
    """True when `s` carries all its values and has at most `max_values`: as
    many values as its shape has elements (a summary whose shape says more,
    e.g. [1e9, 1, 1] with one value, is never laid out element by element)."""
    if s is None or s.truncated or not s.values:
        return False
    n = math.prod(s.shape)
    return n <= max_values and len(s.values) == n and s.numel in (0, n)


def _rows_of(s: TensorSummary) -> tuple[list[tuple[str, list[list[str]]]], int]:
    """(index prefix, matrix of texts) per 2-D slice, and the column width."""
    shape = list(s.shape)
    texts = [number_text(v) for v in s.values]
    if len(shape) == 1:
        return [("", [texts])], max((len(t) for t in texts), default=1)
    r, c = shape[-2], shape[-1]
    lead = shape[:-2]
    out = []
    for k in range(math.prod(lead) if lead else 1):
        idx, rem = [], k
        for d in reversed(lead):
            idx.append(rem % d)
            rem //= d
        prefix = "[" + ", ".join(str(i) for i in reversed(idx)) + "] " if lead else ""
        base = k * r * c
        out.append((prefix, [texts[base + i * c: base + (i + 1) * c] for i in range(r)]))
    return out, max((len(t) for t in texts), default=1)


def _matrix_lines(rows: list[list[str]], width: int) -> list[str]:
    """Rows with columns padded to one width, framed by bracket pieces."""
    cells = [FIGURE_SPACE.join(t.rjust(width, FIGURE_SPACE) for t in row) for row in rows]
    if len(cells) == 1:
        return ["[" + cells[0] + "]"]
    out = []
    for i, cell in enumerate(cells):
        left, right = ("⎡", "⎤") if i == 0 else ("⎣", "⎦") if i == len(cells) - 1 else ("⎢", "⎥")
        out.append(left + cell + right)
    return out


def summary_fallback(s: TensorSummary, words: Callable[[str], str] = str) -> str:
    """"(shape) norm x" for a tensor too big to show."""
    text = shape_text(s)
    if s.norm is not None:
        text += " " + words("norm {0}").format(number_text(s.norm))
    return text


def tensor_lines(s: Optional[TensorSummary], max_values: int = 6,
                 words: Callable[[str], str] = str, none_text: str = "None") -> list[str]:
    """Lines of a label: a scalar or a vector on one line, a matrix one row per
    line, higher dimensions slice by slice with their index; too big: shape and norm."""
    if s is None:
        return [none_text]
    if not complete(s, max_values):
        return [summary_fallback(s, words)]
    if not s.shape:
        return [number_text(s.values[0])]
    if len(s.shape) == 1:
        return ["[" + ", ".join(number_text(v) for v in s.values) + "]"]
    if s.shape[-2] > MAX_ROWS or 0 in s.shape:
        return [summary_fallback(s, words)]
    slices, width = _rows_of(s)
    lines: list[str] = []
    for prefix, rows in slices:
        mat = _matrix_lines(rows, width)
        pad = FIGURE_SPACE * len(prefix)
        lines.extend((prefix if i == 0 else pad) + m for i, m in enumerate(mat))
    return lines


def _nested(values: Sequence, shape: Sequence[int]) -> str:
    if len(shape) == 0:
        return number_text(values[0])
    if len(shape) == 1:
        return "[" + ", ".join(number_text(v) for v in values) + "]"
    step = math.prod(shape[1:]) if shape[1:] else 1
    return "[" + ", ".join(_nested(values[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])) + "]"


def inline_text(s: Optional[TensorSummary], max_values: int = 16,
                words: Callable[[str], str] = str, none_text: str = "None") -> str:
    """One line, nested like Python's repr: [[1.0, 2.0], [3.0, 4.0]]."""
    if s is None:
        return none_text
    if not complete(s, max_values):
        return summary_fallback(s, words)
    return _nested(s.values, list(s.shape))


def tensor_html(s: Optional[TensorSummary], max_values: int = 16,
                words: Callable[[str], str] = str, none_text: str = "None") -> str:
    """`tensor_lines` for rich text: a matrix as rows in a fixed-width block."""
    import html

    lines = tensor_lines(s, max_values, words, none_text)
    if len(lines) == 1:
        return html.escape(lines[0])
    # in a fixed-width font plain (non-breaking) spaces line the columns up
    rows = "<br>".join(html.escape(line).replace(FIGURE_SPACE, "&nbsp;") for line in lines)
    return f"<br><span style='font-family:monospace'>{rows}</span>"
