"""What text a box shows and how big the box must be, without Qt.

The layout runs in a background thread (or in a process with no display) and
must size every box before any font is loaded, so sizes are *estimates* for a
fixed font: DejaVu Sans at `FONT_SIZE` points, the font `app/graph/style.py`
draws with. The per-character width is generous (wider than DejaVu's average,
enough for its bold capitals) so the drawn text never spills out of its box;
a few points of empty margin cost nothing, clipped text is a bug.
"""

from __future__ import annotations

from typing import Optional

from autogradviz.engine.layout.code_label import code_label
from autogradviz.engine.trace.model import Node, TensorSummary
from autogradviz.engine.trace.tensor_text import complete, number_text, tensor_lines

SAVED_VALUES = 4  # a saved tensor's box shows up to this many numbers

FONT_FAMILY = "DejaVu Sans"
FONT_SIZE = 10.0  # points; app/graph/style.py, GraphStyle.font_size
CHAR_WIDTH = 0.66 * FONT_SIZE  # generous average advance of one character
LINE_HEIGHT = 1.4 * FONT_SIZE
PAD_X = 8.0
PAD_Y = 5.0
MIN_WIDTH = 56.0
MAX_LINE_CHARS = 48  # longer lines are cut with an ellipsis


def short_dtype(dtype: str) -> str:
    """`torch.float32` -> `float32` (the prefix only adds width)."""
    return dtype[6:] if dtype.startswith("torch.") else dtype


def shape_line(t: Optional[TensorSummary]) -> Optional[str]:
    """`(3, 4) float32`; a scalar shows `()`."""
    if t is None:
        return None
    shape = "(" + ", ".join(str(s) for s in t.shape) + ")"
    return f"{shape} {short_dtype(t.dtype)}".strip()


def clip(line: str, limit: int = MAX_LINE_CHARS) -> str:
    return line if len(line) <= limit else line[: limit - 1] + "\u2026"


def node_lines(node: Node) -> list[str]:
    """Text of a node's box, top to bottom: the user's name for it (variable or
    parameter name) when there is one - else, for an op, its line's code when
    the line makes that one op (`y + c`, code_label.py) - the autograd op
    (`MulBackward0`; `AccumulateGrad` is how torch names the leaf's node),
    then shape and dtype."""
    lines = []
    if node.label:
        lines.append(node.label)
    elif node.code and node.kind == "op":
        short = code_label(node.code)
        if short:
            lines.append(short)
    lines.append(node.op)
    s = shape_line(node.tensor)
    if s:
        lines.append(s)
    return [clip(x) for x in lines]


def group_lines(module: str, module_class: Optional[str], n_nodes: int, repeat: int = 1,
                call: Optional[int] = None, calls: int = 1) -> list[str]:
    """A collapsed module group: its path, its class (with `xN` when N calls were
    rolled into it, or `call k/N` for one of N unrolled calls) and how many
    trace nodes it stands for."""
    cls = module_class or ""
    if repeat > 1:
        cls = f"{cls} \u00d7{repeat}".strip()
    elif call is not None and calls > 1:
        cls = f"{cls} call {call + 1}/{calls}".strip()
    lines = [clip(module or "(module)")]
    if cls:  # unknown when the module made no node itself (only its children did)
        lines.append(clip(cls))
    lines.append(f"{n_nodes} nodes")
    return lines


def saved_lines(name: str, t: Optional[TensorSummary], value=None) -> list[str]:
    """A saved tensor's lines: its name with shape and dtype, then the value
    read (up to SAVED_VALUES numbers, a matrix row per line; else its norm)."""
    s = shape_line(t)
    if not s:
        return [clip(name)] + ([clip(repr(value))] if value is not None else [])
    lines = [clip(f"{name} {s}")]
    if complete(t, SAVED_VALUES):
        lines.extend(clip(v) for v in tensor_lines(t, SAVED_VALUES))
    elif t is not None and t.norm is not None:  # (t has a shape line, so it is not None)
        lines.append(clip("\u2016\u00b7\u2016 " + number_text(t.norm)))
    return lines


def box_size(lines: list[str]) -> tuple[float, float]:
    """(width, height) in points for these lines in the graph font."""
    n = max((len(s) for s in lines), default=0)
    w = max(MIN_WIDTH, n * CHAR_WIDTH + 2 * PAD_X)
    h = max(1, len(lines)) * LINE_HEIGHT + 2 * PAD_Y
    return round(w, 1), round(h, 1)
