"""Colours and fonts of the graph, light and dark.

One place decides how each kind of node looks, so the scene, the legend and
the exporters agree: the colours are engine/layout/palette.py's (the DOT
and SVG exports read the same data), the widths and shapes are here. Colours are chosen to stay distinct for common colour
vision deficiencies: kinds differ by hue *and* by shape/border (leaves are
rounded, ops are square, outputs have a double border).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from PySide6.QtGui import QColor, QFont

from autogradviz.engine.layout.palette import palette


def _c(hexstr: str) -> QColor:
    return QColor(hexstr)


@dataclass
class NodeLook:
    fill: QColor
    border: QColor
    text: QColor
    border_width: float = 1.2
    rounded: bool = False
    double: bool = False


@dataclass
class GraphStyle:
    name: str
    background: QColor
    text: QColor
    leaf: NodeLook  # leaf tensors that require grad (AccumulateGrad)
    leaf_special: NodeLook  # leaves with retain_grad or hooks
    op: NodeLook  # non-leaf op nodes
    output: NodeLook  # outputs / roots
    saved: NodeLook  # saved tensors
    group_fill: QColor
    group_border: QColor
    group_text: QColor
    edge: QColor
    edge_grad: QColor  # edges a gradient has flowed along
    edge_hover: QColor
    copy_hover: QColor  # per-use leaf copies lit up together
    current: QColor  # strong highlight of the node executing now
    done_border: QColor
    selected: QColor
    search_hit: QColor
    pending_opacity: float
    badge_retain: QColor
    badge_hook: QColor
    badge_text: QColor
    grad_label_fill: QColor
    grad_label_text: QColor
    callout_fill: QColor
    callout_border: QColor
    callout_text: QColor
    hook_callout_border: QColor
    # the message banner above the graph (errors; notes such as "large graph")
    banner_error_fill: Optional[QColor] = None
    banner_error_border: Optional[QColor] = None
    banner_info_fill: Optional[QColor] = None
    banner_info_border: Optional[QColor] = None
    banner_text: Optional[QColor] = None
    font_family: str = "DejaVu Sans"
    # Sizes in scene units (= layout points): engine/layout/text_metrics sizes
    # boxes for DejaVu Sans at 10 units, so the font is set in pixels of the
    # scene, not in screen points (10 pt would be 13.3 units at 96 dpi).
    font_size: float = 10.0
    small_font_size: float = 9.0
    extra: dict = field(default_factory=dict)
    # ring around the nodes made by the editor's cursor line (app/panels/code_link)
    line_hit: Optional[QColor] = None

    def font(self, bold: bool = False) -> QFont:
        f = QFont(self.font_family)
        f.setPixelSize(max(1, round(self.font_size)))
        f.setBold(bold)
        return f

    def small_font(self, bold: bool = False) -> QFont:
        f = QFont(self.font_family)
        f.setPixelSize(max(1, round(self.small_font_size)))
        f.setBold(bold)
        return f


def _look(colours: tuple, width: float, **shape) -> NodeLook:
    fill, border, text = colours
    return NodeLook(_c(fill), _c(border), _c(text), width, **shape)


def _style(name: str) -> GraphStyle:
    """The style of a theme: colours from the one palette the exports share
    (engine/layout/palette.py), widths and shapes here."""
    p = palette(name)
    plain: dict[str, Any] = {k: _c(v) for k, v in p.items() if isinstance(v, str)}
    return GraphStyle(
        name=name,
        leaf=_look(p["leaf"], 1.4, rounded=True),
        leaf_special=_look(p["leaf_special"], 2.0, rounded=True),
        op=_look(p["op"], 1.2),
        output=_look(p["output"], 1.6, double=True),
        saved=_look(p["saved"], 1.0, rounded=True),
        pending_opacity=0.45,
        **plain,
    )


def _light() -> GraphStyle:
    return _style("light")


def _dark() -> GraphStyle:
    return _style("dark")


def style_for(theme: str) -> GraphStyle:
    """`"light"` or `"dark"` (anything else: light)."""
    return _dark() if str(theme).lower() == "dark" else _light()
