"""Tensor values on the graph's labels: small matrices, not flattened lists.

Edge labels and `.grad` callouts draw one line per text line
(items.LabelItem); a 2-D gradient becomes one line per row through the one
formatting module (engine/trace/tensor_text.py) the Inspector and the
derivative rules use too.
"""

from __future__ import annotations

from typing import Optional

from autogradviz.engine.trace.model import TensorSummary
from autogradviz.engine.trace.tensor_text import tensor_lines

from autogradviz.app.graph.items import tr

# Tensors with at most this many elements show their values on a label: a
# vector of 6 on one line (as before matrices), a matrix up to 3x3 on its rows.
LABEL_VALUES = 9
LINE_VALUES = 6


def value_lines(s: Optional[TensorSummary]) -> list[str]:
    """The label lines of a gradient on an edge."""
    most = LINE_VALUES if s is not None and len(s.shape) <= 1 else LABEL_VALUES
    return tensor_lines(s, most, tr, tr("None"))


def named_lines(prefix: str, s: Optional[TensorSummary]) -> list[str]:
    """"x.grad = 1.5" on one line; a matrix below its name: "x.grad =", "⎡…⎤", "⎣…⎦"."""
    lines = value_lines(s)
    if len(lines) == 1:
        return [prefix + lines[0]]
    return [prefix.rstrip()] + lines
