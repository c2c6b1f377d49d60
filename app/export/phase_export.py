"""A checkpoint's recompute phase in an export, read from the scene's overlay.

During a recomputation the screen lights the segment's region, rings the
trigger node, glows the node whose op re-runs now and lists the ops in a
panel beside the region (app/graph/checkpoint_regions.py); the "not stored"
chips fill and empty as the re-run makes the tensors and backward frees them.
`phase_data` reads all of that from the scene's `CheckpointOverlay` as it is
now - after `apply_step` and `show_frame`, the same calls the stepper makes -
so the SVG (`phase_svg`) and the web page's sub-steps (webpage.py) draw what
the screen draws, not a second idea of it.
"""

from __future__ import annotations

from typing import Optional

from autogradviz.engine.layout.escape import xml_text as _x
from autogradviz.engine.layout.svg_export import _n


def _box(r) -> list[float]:
    return [round(r.x(), 1), round(r.y(), 1), round(r.width(), 1), round(r.height(), 1)]


def phase_data(scene) -> Optional[dict]:
    """{"a": index of the lit region (-1: none), "f": [[fill, text] per chip],
    "lit": [x, y, w, h, node id] (the node re-running now), "ring": [x, y, w, h]
    (the trigger), "panel": [x, y, w, h, [[text, how], ...]]}, or None when
    the scene has no checkpoint region."""
    overlay = getattr(scene, "checkpoint_overlay", None)
    if overlay is None or not (overlay.regions or overlay.placeholders):
        return None
    regions = list(overlay.regions.values())
    chips = [c for v in overlay.placeholders.values() for c in v]
    out: dict = {"a": next((i for i, r in enumerate(regions) if r.active), -1),
                 "f": [[c.fill, c.text()] for c in chips]}
    if overlay.rerun is not None:
        out["lit"] = _box(overlay.rerun._rect) + [overlay.rerun.node_id]
    if overlay.ring is not None:
        out["ring"] = _box(overlay.ring._rect)
    if overlay.panel is not None:
        out["panel"] = _box(overlay.panel._rect) + [[list(line) for line in overlay.panel.lines]]
    return out


def overlay_classes(scene) -> list[str]:
    """The state classes of each `overlay-k` group of the SVG (regions, then chips)."""
    d = phase_data(scene)
    if d is None:
        return []
    overlay = scene.checkpoint_overlay
    out = ["active" if i == d["a"] else "" for i in range(len(overlay.regions))]
    return out + [fill for fill, _ in d["f"]]


def phase_svg(d: dict, lh: float) -> str:
    """The lit node, the trigger's ring and the ops panel of a recompute
    frame as one `g.phase` (webpage.py's script draws the same from `d`)."""
    parts = ['<g class="phase">']
    if "lit" in d:
        x, y, w, h, nid = d["lit"]
        parts.append(f'<g class="rerun" data-node="{_x(nid)}"><rect class="glow" x="{_n(x)}" y="{_n(y)}" '
                     f'width="{_n(w)}" height="{_n(h)}" rx="6"/><rect x="{_n(x)}" y="{_n(y)}" '
                     f'width="{_n(w)}" height="{_n(h)}" rx="6"/></g>')
    if "ring" in d:
        x, y, w, h = d["ring"]
        parts.append(f'<rect class="ring" x="{_n(x)}" y="{_n(y)}" width="{_n(w)}" height="{_n(h)}" rx="6"/>')
    if "panel" in d:
        x, y, w, h, lines = d["panel"]
        parts.append(f'<g class="phase-panel"><rect x="{_n(x)}" y="{_n(y)}" width="{_n(w)}" height="{_n(h)}" '
                     f'rx="5"/>')
        for i, (text, how) in enumerate(lines):
            parts.append(f'<text class="{_x(how)}" x="{_n(x + 8)}" y="{_n(y + 4 + (i + 0.5) * lh)}" '
                         f'xml:space="preserve">{_x(text)}</text>')
        parts.append("</g>")
    parts.append("</g>")
    return "".join(parts)


def phase_style(st, colour: str) -> list[str]:
    """CSS of the regions and the phase, in the overlay's own colours
    (checkpoint_regions.py: a teal dash-dot frame, lightly filled, with a
    filled title tab; lit: the current colour, solid; recompute_items.py:
    amber for what the re-run makes)."""
    from autogradviz.app.graph.checkpoint_regions import _colors
    from autogradviz.app.graph.recompute_items import RECOMPUTE_COLOR as AMBER

    teal = _colors(st)[0].name()
    shape = ".checkpoint-region>polygon,.checkpoint-region>rect:not(.tab)"
    lit = ".checkpoint-region.active>polygon,.checkpoint-region.active>rect:not(.tab)"
    return [
        f"{shape}{{stroke:{teal};fill:{teal};fill-opacity:.07;stroke-width:1.4;stroke-dasharray:8 3 2 3}}",
        f"{lit}{{stroke:{colour};fill-opacity:.13;stroke-width:2.4;stroke-dasharray:none}}",
        f".checkpoint-region rect.tab{{fill:{teal};stroke:none}}.checkpoint-region.active rect.tab{{fill:{colour}}}",
        f".checkpoint-region text{{fill:#ffffff;font-size:{_n(st.small_font_size)}px}}",
        f".not-stored rect{{fill:{st.background.name()};fill-opacity:.84}}",
        f".not-stored.filled rect{{fill:{AMBER};fill-opacity:.27;stroke:{AMBER};stroke-opacity:1;"
        "stroke-dasharray:none;stroke-width:1.6}",
        ".not-stored text{font-style:italic}.not-stored.filled text{font-style:normal;font-weight:bold}",
        ".not-stored.used{opacity:.6}",
        f".phase .rerun rect{{fill:none;stroke:{AMBER};stroke-width:2.6}}"
        ".phase .rerun rect.glow{stroke-opacity:.31;stroke-width:9}",
        f".phase .ring{{fill:none;stroke:{colour};stroke-width:2.2;stroke-dasharray:2 3}}",
        f".phase-panel rect{{fill:{st.callout_fill.name()};stroke:{teal};stroke-width:1.2}}",
        f".phase-panel text{{font-size:{_n(st.small_font_size)}px}}",
        f".phase-panel text.now{{fill:{colour};font-weight:bold}}.phase-panel text.title{{font-weight:bold}}",
        ".phase-panel text.todo,.phase-panel text.skip{fill-opacity:.43}",
    ]
