"""The graph's colours, light and dark: the one palette of the screen and every export.

Plain data (hex strings), so that both sides read it: the app's graph style
(app/graph/style.py turns each into a QColor and adds widths and shapes), the
DOT export (dot_export.py) and the semantic SVG export (svg_export.py), and
the scene's own SVG (app/export/scene_svg.py, through the style). Before,
the same colours were typed in three places with nothing tying them
(tests/engine/test_palette.py does now).

Colours are chosen to stay distinct for common colour vision deficiencies:
kinds differ by hue *and* by shape/border (app/graph/style.py). Each node
look is (fill, border, text). Names are GraphStyle's fields.
Neither torch nor Qt.
"""

from __future__ import annotations

PALETTES: dict[str, dict] = {
    "light": {
        "background": "#ffffff",
        "text": "#1d2330",
        "leaf": ("#dff0d8", "#3c8d40", "#1d2330"),
        "leaf_special": ("#c9ecf5", "#1f7a99", "#1d2330"),
        "op": ("#eef1f6", "#6b7688", "#1d2330"),
        "output": ("#fde8c8", "#c06d00", "#1d2330"),
        "saved": ("#fff7d6", "#a08a2a", "#4a3f10"),
        "group_fill": "#f4f1fb",
        "group_border": "#8a7cc0",
        "group_text": "#4b3f85",
        "edge": "#7a8494",
        "edge_grad": "#c2185b",
        "edge_hover": "#1565c0",
        "copy_hover": "#1565c0",
        "current": "#e6007a",
        "done_border": "#2e7d32",
        "selected": "#1565c0",
        "search_hit": "#ffb300",
        "badge_retain": "#1f7a99",
        "badge_hook": "#8e24aa",
        "badge_text": "#ffffff",
        "grad_label_fill": "#fff0f6",
        "grad_label_text": "#8c1048",
        "callout_fill": "#fffde7",
        "callout_border": "#b59f00",
        "callout_text": "#3e3500",
        "hook_callout_border": "#8e24aa",
        "line_hit": "#1a7f37",
        "banner_error_fill": "#fdecea",
        "banner_error_border": "#c62828",
        "banner_info_fill": "#eef4fb",
        "banner_info_border": "#5b7fa8",
        "banner_text": "#1d2330",
    },
    "dark": {
        "background": "#1e2128",
        "text": "#e6e9ef",
        "leaf": ("#23402a", "#7cc47f", "#e6e9ef"),
        "leaf_special": ("#163d4a", "#5cc8e8", "#e6e9ef"),
        "op": ("#2c313c", "#8d97a8", "#e6e9ef"),
        "output": ("#4a3418", "#ffa940", "#f5eadb"),
        "saved": ("#3d3717", "#d4bf5a", "#f3e9b5"),
        "group_fill": "#272336",
        "group_border": "#a596e0",
        "group_text": "#c9bff5",
        "edge": "#8791a3",
        "edge_grad": "#ff6fae",
        "edge_hover": "#64b5f6",
        "copy_hover": "#64b5f6",
        "current": "#ff4fa3",
        "done_border": "#81c784",
        "selected": "#64b5f6",
        "search_hit": "#ffca28",
        "badge_retain": "#2aa7cf",
        "badge_hook": "#ba68c8",
        "badge_text": "#ffffff",
        "grad_label_fill": "#3a1f2c",
        "grad_label_text": "#ffb3d4",
        "callout_fill": "#33301c",
        "callout_border": "#d4bf5a",
        "callout_text": "#f3e9b5",
        "hook_callout_border": "#ba68c8",
        "line_hit": "#3fb950",
        "banner_error_fill": "#3d2426",
        "banner_error_border": "#ef8a8a",
        "banner_info_fill": "#222c3a",
        "banner_info_border": "#7fa7d6",
        "banner_text": "#e6e9ef",
    },
}


def palette(theme: str) -> dict:
    """The colours of `"light"` or `"dark"` (anything else: light)."""
    return PALETTES["dark"] if str(theme).lower() == "dark" else PALETTES["light"]
