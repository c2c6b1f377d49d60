"""The text of a collapsed module box in the learner's language.

The layout engine (no Qt, so no tr()) writes a group box's lines in English:
"RNNCell call 25/50" for one of N unrolled calls and "10 nodes" for how many
trace nodes it stands for. The scene draws them through `display_lines`, which
translates those two patterns and leaves names (module paths, classes) alone.
"""

from __future__ import annotations

import re

from PySide6.QtCore import QCoreApplication

_CALL = re.compile(r"^(.*?)\s*call (\d+)/(\d+)$")
_NODES = re.compile(r"^(\d+) nodes$")


def tr(text: str) -> str:
    return QCoreApplication.translate("GroupBox", text)


def display_lines(kind: str, lines: list[str]) -> list[str]:
    """`lines` as drawn: a group box's engine-written phrases translated."""
    if kind != "group":
        return lines
    out = []
    for line in lines:
        m = _CALL.match(line)
        if m:
            line = tr("{0} call {1}/{2}").format(m.group(1), m.group(2), m.group(3)).strip()
        else:
            m = _NODES.match(line)
            if m:
                line = tr("{0} nodes").format(m.group(1))
        out.append(line)
    return out


def folded_tip(title: str) -> str:
    """The tooltip of N identical sibling modules drawn once (a folded frame)."""
    return tr("{0}: identical modules drawn once; the loop-back edge carries each one's output "
              "into the next. While stepping, the title says which copy runs. Click the title to "
              "unfold them: every module drawn.").format(title)
