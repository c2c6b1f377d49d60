"""A lesson script's comments in another language.

A lesson is one script, NAME.py, commented in English. Its translation lists
each English comment (and function docstring) with its translated text
(NAME.json, "comments" → language → {English text: translated text}), and the
script shown in that language is made from the one script by swapping those
texts. So the code a learner runs is the same in every language by
construction, and a lesson's code is written (and fixed) once.
"""

from __future__ import annotations

import io
import tokenize

_SKIP = (tokenize.NL, tokenize.COMMENT, tokenize.ENCODING)


def comments(source: str) -> list[tuple[tuple[int, int], tuple[int, int], str]]:
    """(start, end, text) of every comment (text with its "#") and every
    docstring (a string alone on the first line of an indented block) in
    `source`, as Python's tokenizer finds them (a "#" inside a string is no
    comment); [] when the source cannot be tokenized."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return []
    found = []
    code = [t for t in tokens if t.type not in _SKIP]
    for i, t in enumerate(code):
        if (t.type == tokenize.STRING and i > 0 and code[i - 1].type == tokenize.INDENT
                and i + 1 < len(code) and code[i + 1].type == tokenize.NEWLINE):
            found.append((t.start, t.end, t.string))
    found += [(t.start, t.end, t.string) for t in tokens if t.type == tokenize.COMMENT]
    return sorted(found)


def translate(source: str, table: dict) -> str:
    """`source` with each comment or docstring found in `table` replaced by
    its translation; those the table lacks stay as they are."""
    if not table:
        return source
    lines = source.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    out = source
    for (r0, c0), (r1, c1), text in reversed(comments(source)):
        new = table.get(text)
        if isinstance(new, str) and new:
            a, b = starts[r0 - 1] + c0, starts[r1 - 1] + c1
            out = out[:a] + new + out[b:]
    return out
