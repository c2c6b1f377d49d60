"""Colours and fonts of the graph, light and dark.

One place decides how each kind of node looks, so the scene, the legend and
the exporter agree. Colours are chosen to stay distinct for common colour
vision deficiencies: kinds differ by hue *and* by shape/border (leaves are
rounded, ops are square, outputs have a double border).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtGui import QColor, QFont


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
    banner_error_fill: QColor = None
    banner_error_border: QColor = None
    banner_info_fill: QColor = None
    banner_info_border: QColor = None
    banner_text: QColor = None
    font_family: str = "DejaVu Sans"
    # Sizes in scene units (= layout points): engine/layout/text_metrics sizes
    # boxes for DejaVu Sans at 10 units, so the font is set in pixels of the
    # scene, not in screen points (10 pt would be 13.3 units at 96 dpi).
    font_size: float = 10.0
    small_font_size: float = 9.0
    extra: dict = field(default_factory=dict)
    # ring around the nodes made by the editor's cursor line (app/panels/code_link)
    line_hit: QColor = None

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


def _light() -> GraphStyle:
    return GraphStyle(
        name="light",
        background=_c("#ffffff"),
        text=_c("#1d2330"),
        leaf=NodeLook(_c("#dff0d8"), _c("#3c8d40"), _c("#1d2330"), 1.4, rounded=True),
        leaf_special=NodeLook(_c("#c9ecf5"), _c("#1f7a99"), _c("#1d2330"), 2.0, rounded=True),
        op=NodeLook(_c("#eef1f6"), _c("#6b7688"), _c("#1d2330"), 1.2),
        output=NodeLook(_c("#fde8c8"), _c("#c06d00"), _c("#1d2330"), 1.6, double=True),
        saved=NodeLook(_c("#fff7d6"), _c("#a08a2a"), _c("#4a3f10"), 1.0, rounded=True),
        group_fill=_c("#f4f1fb"),
        group_border=_c("#8a7cc0"),
        group_text=_c("#4b3f85"),
        edge=_c("#7a8494"),
        edge_grad=_c("#c2185b"),
        edge_hover=_c("#1565c0"),
        copy_hover=_c("#1565c0"),
        current=_c("#e6007a"),
        done_border=_c("#2e7d32"),
        selected=_c("#1565c0"),
        search_hit=_c("#ffb300"),
        pending_opacity=0.45,
        badge_retain=_c("#1f7a99"),
        badge_hook=_c("#8e24aa"),
        badge_text=_c("#ffffff"),
        grad_label_fill=_c("#fff0f6"),
        grad_label_text=_c("#8c1048"),
        callout_fill=_c("#fffde7"),
        callout_border=_c("#b59f00"),
        callout_text=_c("#3e3500"),
        hook_callout_border=_c("#8e24aa"),
        line_hit=_c("#1a7f37"),
        banner_error_fill=_c("#fdecea"),
        banner_error_border=_c("#c62828"),
        banner_info_fill=_c("#eef4fb"),
        banner_info_border=_c("#5b7fa8"),
        banner_text=_c("#1d2330"),
    )


def _dark() -> GraphStyle:
    return GraphStyle(
        name="dark",
        background=_c("#1e2128"),
        text=_c("#e6e9ef"),
        leaf=NodeLook(_c("#23402a"), _c("#7cc47f"), _c("#e6e9ef"), 1.4, rounded=True),
        leaf_special=NodeLook(_c("#163d4a"), _c("#5cc8e8"), _c("#e6e9ef"), 2.0, rounded=True),
        op=NodeLook(_c("#2c313c"), _c("#8d97a8"), _c("#e6e9ef"), 1.2),
        output=NodeLook(_c("#4a3418"), _c("#ffa940"), _c("#f5eadb"), 1.6, double=True),
        saved=NodeLook(_c("#3d3717"), _c("#d4bf5a"), _c("#f3e9b5"), 1.0, rounded=True),
        group_fill=_c("#272336"),
        group_border=_c("#a596e0"),
        group_text=_c("#c9bff5"),
        edge=_c("#8791a3"),
        edge_grad=_c("#ff6fae"),
        edge_hover=_c("#64b5f6"),
        copy_hover=_c("#64b5f6"),
        current=_c("#ff4fa3"),
        done_border=_c("#81c784"),
        selected=_c("#64b5f6"),
        search_hit=_c("#ffca28"),
        pending_opacity=0.45,
        badge_retain=_c("#2aa7cf"),
        badge_hook=_c("#ba68c8"),
        badge_text=_c("#ffffff"),
        grad_label_fill=_c("#3a1f2c"),
        grad_label_text=_c("#ffb3d4"),
        callout_fill=_c("#33301c"),
        callout_border=_c("#d4bf5a"),
        callout_text=_c("#f3e9b5"),
        hook_callout_border=_c("#ba68c8"),
        line_hit=_c("#3fb950"),
        banner_error_fill=_c("#3d2426"),
        banner_error_border=_c("#ef8a8a"),
        banner_info_fill=_c("#222c3a"),
        banner_info_border=_c("#7fa7d6"),
        banner_text=_c("#e6e9ef"),
    )


def style_for(theme: str) -> GraphStyle:
    """`"light"` or `"dark"` (anything else: light)."""
    return _dark() if str(theme).lower() == "dark" else _light()
