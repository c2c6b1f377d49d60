"""Text from a script or a trace, made safe for each output format: one module for every writer.

Why: module, variable and class names come from the learner's script (or
from a trace file from anywhere) and reach DOT, SVG, and the DOT that
Graphviz lays out. A module registered as 'a\\n  x [URL="javascript:…",
image="/etc/passwd"];\\n  //' added statements to the DOT (a javascript link
reading /etc/passwd once rendered); '\\x01' made Graphviz's JSON unreadable
and the SVG ill-formed; a lone surrogate ('\\ud800') made every export fail
(it cannot be UTF-8). So every writer builds strings only through:

- `clean(text)`: what every format can carry. Lone surrogates and the
  non-characters U+FFFE/U+FFFF become U+FFFD; control characters (C0 but
  tab and newline, DEL, C1) become visible: C0 and DEL as their Control
  Pictures (U+2401 ␁ for '\\x01', ␍ for '\\r'), C1 as U+FFFD - all legal
  in XML 1.0 and in DOT.
- `dot_string(text)`: a complete quoted DOT string (an ID, an attribute
  value, a name in a comment): backslashes, quotes and newlines escaped, so a name can never end
  the string; Graphviz's own escapes (\\N, \\G, \\l) stay literal text.
- `xml_text(text)`: XML/SVG content and attribute values (&, <, >, " and ').

The writers themselves never put data in an attribute that links or loads
(URL, href, image, xlink:*): only in labels, titles and tooltips.
Plain Python: no torch, no Qt.
"""

from __future__ import annotations

import re

# Characters no format may carry as they are (see `clean`): C0 but tab and
# newline, DEL and C1, surrogates (only lone ones exist in a str), U+FFFE/U+FFFF.
_BAD = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def _visible(m: re.Match) -> str:
    c = ord(m.group())
    if c < 0x20:
        return chr(0x2400 + c)  # ␀ ␁ … ␟ (Control Pictures)
    if c == 0x7F:
        return "\u2421"  # ␡
    return "\ufffd"


def clean(text) -> str:
    """`text` as a str every output format can carry (see the module doc)."""
    s = text if text.__class__ is str else str(text)
    return _BAD.sub(_visible, s) if _BAD.search(s) else s


def dot_string(text) -> str:
    """A quoted DOT string holding exactly `text` (cleaned); newlines as \\n."""
    s = clean(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return '"' + s + '"'


def xml_text(text) -> str:
    """`text` for XML content or a quoted attribute value (cleaned, escaped)."""
    return (clean(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("'", "&#39;"))
