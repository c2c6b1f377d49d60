"""The SVG of what the scene shows, written by walking its items.

One drawing, several outputs: PNG/PDF/GIF paint the `GraphScene`, and the SVG
is written from the same scene's visible items - module frames, checkpoint
regions, edges (with the state's classes), boxes (status, R/H badges, the
"already ran" tick), gradient labels on edges (matrices as several lines, as
placed on the screen), `.grad`/retained/hook callouts and the rolled view's
"×N" badges. So an SVG at step N is the screen at step N, but stays semantic
and small: one `<g>` with a `<title>` per box and edge, CSS classes for the
states, real `<text>`. Colours come from the scene's `GraphStyle` (the
screen's theme). QSvgGenerator is not used: it writes unnamed paths and
glyph outlines, nothing a reader can search or restyle.

Every string from the script goes through engine/layout/escape.py.
"""

from __future__ import annotations

from typing import Optional, Sequence

from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QFont, QFontMetricsF
from PySide6.QtWidgets import QGraphicsSimpleTextItem

from autogradviz.app.export.phase_export import overlay_classes, phase_data, phase_style, phase_svg
from autogradviz.app.graph.group_text import display_lines
from autogradviz.app.graph.items import EdgeItem, LabelItem, NodeItem
from autogradviz.engine.layout.escape import xml_text as _x
from autogradviz.engine.layout.svg_export import TITLE_WORDS, _arrow, _id, _n, _node_title, _path

LABEL_KINDS = ("grad", "callout", "hook")
CAPTION_LINE = 14.0  # px per caption line under the picture


def _c(colour) -> str:
    c = QColor(colour)
    return c.name() if c.alpha() == 255 else f"rgba({c.red()},{c.green()},{c.blue()},{c.alphaF():.2f})"


def style_sheet(st) -> str:
    """CSS of the screen's theme (app/graph/style.py), keyed by the classes
    written below; the web page reuses it."""
    f, s = _n(st.font_size), _n(st.small_font_size)
    rules = [
        f"text{{font-family:'{st.font_family}',sans-serif;font-size:{f}px;fill:{_c(st.text)};"
        "dominant-baseline:central}",
        ".node text{text-anchor:middle}", ".caption text{font-size:11px}", ".node text.name{font-weight:bold}",
        f".label text{{font-size:{s}px}}", ".label text.first{font-weight:bold}",
    ]
    for cls, look in (("leaf", st.leaf), ("leaf.special", st.leaf_special), ("op", st.op),
                      ("output", st.output), ("saved", st.saved)):
        rules.append(f".node.{cls} .box{{fill:{_c(look.fill)};stroke:{_c(look.border)};"
                     f"stroke-width:{_n(look.border_width)}}}.node.{cls} text{{fill:{_c(look.text)}}}")
    rules += [
        f".node.group .box{{fill:{_c(st.group_fill)};stroke:{_c(st.group_border)}}}"
        f".node.group text{{fill:{_c(st.group_text)}}}",
        ".node .inner{fill:none;stroke-width:1}",
        f".node.output .inner{{stroke:{_c(st.output.border)}}}",
        f".node.current .box,.node.current .inner{{stroke:{_c(st.current)};stroke-width:3.2}}",
        f".node .glow{{display:none;fill:none;stroke:{_c(st.current)};stroke-opacity:.27;stroke-width:9}}",
        ".node.current .glow{display:inline}",
        f".node .tick{{display:none;fill:none;stroke:{_c(st.done_border)};stroke-width:2}}",
        ".node.done .tick{display:inline}",
        f".node.pending{{opacity:{st.pending_opacity}}}",
        f".badge text{{font-size:{s}px;font-weight:bold;fill:{_c(st.badge_text)};text-anchor:middle}}",
        f".badge.retain circle{{fill:{_c(st.badge_retain)}}}.badge.hook circle{{fill:{_c(st.badge_hook)}}}",
        f".frame rect{{fill:{_c(st.group_fill)};fill-opacity:.55;stroke:{_c(st.group_border)};"
        "stroke-dasharray:4 3}",
        f".frame text{{font-size:{s}px;font-weight:bold;fill:{_c(st.group_text)}}}",
        f".edge path{{fill:none;stroke:{_c(st.edge)};stroke-width:1.2}}.edge polygon{{fill:{_c(st.edge)}}}",
        f".edge.grad path{{stroke:{_c(st.edge_grad)};stroke-width:1.8}}.edge.grad polygon{{fill:{_c(st.edge_grad)}}}",
        f".edge.current path{{stroke:{_c(st.current)};stroke-width:2.8}}"
        f".edge.current polygon{{fill:{_c(st.current)}}}",
        f".edge text.loop{{font-weight:bold;fill:{_c(st.group_text)}}}",
        f".label.grad rect{{fill:{_c(st.grad_label_fill)};stroke:{_c(st.edge_grad)}}}"
        f".label.grad text{{fill:{_c(st.grad_label_text)}}}",
        f".label.callout rect{{fill:{_c(st.callout_fill)};stroke:{_c(st.callout_border)}}}",
        f".label.hook rect{{fill:{_c(st.callout_fill)};stroke:{_c(st.hook_callout_border)}}}",
        f".label.callout text,.label.hook text{{fill:{_c(st.callout_text)}}}",
        f".label.fresh rect{{stroke:{_c(st.current)};stroke-width:2}}",
        f".label line.leader{{stroke:{_c(st.callout_border)};stroke-dasharray:4 2;fill:none}}",
        f".label.grad line.leader{{stroke:{_c(st.edge_grad)}}}",
        f".checkpoint-region polygon,.checkpoint-region rect{{fill:none;stroke:{_c(st.current)};"
        "stroke-width:1.5;stroke-dasharray:8 4;stroke-linejoin:round}",
        f".checkpoint-region text{{font-weight:bold;fill:{_c(st.current)}}}",
        f".not-stored rect{{fill:none;stroke:{_c(st.text)};stroke-opacity:.5;stroke-dasharray:3 3}}",
    ]
    return "\n".join(rules + phase_style(st, _c(st.current)))


# -- the items, each as one semantic group ---------------------------------------------------------
def node_classes(item: NodeItem, roots: set) -> str:
    kind = item.box.kind
    if kind not in ("leaf", "group", "saved"):
        kind = "output" if item.node_id in roots and kind != "group" else "op"
    cls = f"node {kind}"
    if kind == "leaf" and (item.retain or item.hooks):
        cls += " special"
    if item.status:
        cls += f" {item.status}"
    return cls


def node_svg(item: NodeItem, roots: set, nodes: dict, words: dict, with_state: bool = True) -> str:
    b, look = item.box, item.look
    x, y, w, h = b.x, b.y, b.w, b.h
    rad = min(h / 2, 12) if look.rounded else 0
    rx = f' rx="{_n(rad)}"' if rad else ""
    cls = node_classes(item, roots) if with_state else node_classes_plain(item, roots)
    nid = item.node_id or getattr(item, "owner", None)
    parts = [f'<g class="{cls}" id="{_id("node-", b.key)}"' + (f' data-node="{_x(nid)}"' if nid else "") + ">",
             f"<title>{_x(_node_title(nodes, b, roots, words))}</title>",
             f'<rect class="glow" x="{_n(x)}" y="{_n(y)}" width="{_n(w)}" height="{_n(h)}"{rx}/>'
             if not with_state or item.status == "current" else "",
             f'<rect class="box" x="{_n(x)}" y="{_n(y)}" width="{_n(w)}" height="{_n(h)}"{rx}/>']
    if look.double:
        parts.append(f'<rect class="inner" x="{_n(x + 3)}" y="{_n(y + 3)}" width="{_n(w - 6)}" '
                     f'height="{_n(h - 6)}"/>')
    lines = display_lines(b.kind, b.lines or [])
    lh = QFontMetricsF(item.style.font()).height()
    top = y + (h - lh * len(lines)) / 2 + lh / 2
    for k, line in enumerate(lines):
        name = ' class="name"' if k == 0 else ""
        parts.append(f'<text{name} x="{_n(x + w / 2)}" y="{_n(top + k * lh)}">{_x(line)}</text>')
    bx = x + w - 2
    for flag, text, css in ((item.hooks, "H", "hook"), (item.retain, "R", "retain")):
        if flag:
            parts.append(f'<g class="badge {css}"><circle cx="{_n(bx - 6)}" cy="{_n(y)}" r="8"/>'
                         f'<text x="{_n(bx - 6)}" y="{_n(y)}">{text}</text></g>')
            bx -= 18
    if not with_state or item.status == "done":  # (the web page toggles it)
        x0, y0 = x - 11, y + 5
        parts.append(f'<polyline class="tick" points="{_n(x0)},{_n(y0)} {_n(x0 + 3)},{_n(y0 + 3)} '
                     f'{_n(x0 + 8)},{_n(y0 - 3)}"/>')
    parts.append("</g>")
    return "".join(parts)


def node_classes_plain(item: NodeItem, roots: set) -> str:
    status, item.status = item.status, None
    try:
        return node_classes(item, roots)
    finally:
        item.status = status


def edge_classes(ei: EdgeItem) -> str:
    cls = "edge"
    if getattr(ei, "is_saved_edge", False):
        cls += " saved"
    if getattr(ei.ledge, "loop", 0):
        cls += " loop"
    if ei.current:
        cls += " current"
    elif ei.has_grad:
        cls += " grad"
    return cls


def edge_svg(ei: EdgeItem, ids: dict, with_state: bool = True) -> str:
    e = ei.ledge
    cls = edge_classes(ei) if with_state else " ".join(
        c for c in edge_classes(ei).split() if c not in ("current", "grad"))
    tip = f"{e.src} \u2192 {e.dst}"
    parts = [f'<g class="{cls}" id="edge-{ei.pos_index}" data-src="{ids.get(e.src, "")}" '
             f'data-dst="{ids.get(e.dst, "")}"><title>{_x(tip)}</title>'
             f'<path d="{_path(e.points, e.spline)}"/>']
    arrow = _arrow(e.points)
    if arrow:
        parts.append(f'<polygon points="{arrow}"/>')
    for child in ei.childItems():  # the rolled view's "×N"
        if isinstance(child, QGraphicsSimpleTextItem) and child.isVisible():
            p = child.scenePos()
            parts.append(f'<text class="loop" x="{_n(p.x())}" y="{_n(p.y() + 8)}">{_x(child.text())}</text>')
    parts.append("</g>")
    return "".join(parts)


def label_data(lab: LabelItem) -> dict:
    """A gradient label or a callout as placed on the screen."""
    p = lab.scenePos()
    r = lab.boundingRect().adjusted(2, 2, -2, -2)
    return {"kind": lab.kind, "x": round(p.x() + r.x(), 1), "y": round(p.y() + r.y(), 1),
            "w": round(r.width(), 1), "h": round(r.height(), 1), "lines": list(lab.lines),
            "fresh": bool(lab.emphasis), "leader": _leader(lab)}


def _leader(lab: LabelItem):
    """A label placed away from its edge or box: its leader line (x1, y1, x2, y2), else None."""
    line = lab.leader_line() if hasattr(lab, "leader_line") else None
    return None if line is None else [round(v, 1) for p in line for v in (p.x(), p.y())]


def label_svg(d: dict, owner: str, lh: float) -> str:
    x, y, w, h = d["x"], d["y"], d["w"], d["h"]
    cls = "label " + d["kind"] + (" fresh" if d["fresh"] else "")
    parts = [f'<g class="{cls}" data-for="{_x(owner)}"><title>{_x(chr(10).join(d["lines"]))}</title>']
    if d.get("leader"):
        x1, y1, x2, y2 = d["leader"]
        parts.append(f'<line class="leader" x1="{_n(x1)}" y1="{_n(y1)}" x2="{_n(x2)}" y2="{_n(y2)}"/>')
    parts.append(f'<rect x="{_n(x)}" y="{_n(y)}" width="{_n(w)}" height="{_n(h)}" rx="4"/>')
    for i, line in enumerate(d["lines"]):
        first = ' class="first"' if i == 0 else ""
        parts.append(f'<text{first} x="{_n(x + 5)}" y="{_n(y + 2 + (i + 0.5) * lh)}" xml:space="preserve">'
                     f"{_x(line)}</text>")
    parts.append("</g>")
    return "".join(parts)


def visible_labels(scene) -> list[tuple[str, LabelItem]]:
    """(owner, label) of every label and callout shown: owner "edge-N" or the node id."""
    out = [(f"edge-{pos}", lab) for pos, lab in sorted(scene.grad_labels.items()) if lab.isVisible()]
    out += [(nid, c) for nid, c in sorted(scene.callouts.items()) if c.isVisible()]
    return out


def label_line_height(scene) -> float:
    return QFontMetricsF(scene.style.small_font(bold=True)).height()


def caption_width(st, caption: Sequence[str]) -> float:
    """The width the caption lines take (.caption text: 11 px of the theme's font) plus the margins."""
    if not caption:
        return 0.0
    font = QFont(st.font_family)
    font.setPixelSize(11)
    fm = QFontMetricsF(font)
    return max(fm.horizontalAdvance(line) for line in caption) + 18


def scene_svg(scene, rect: QRectF, title: str = "", words: Optional[dict] = None,
              with_state: bool = True, with_labels: bool = True, caption: Sequence[str] = ()) -> str:
    """The SVG text of `scene` within `rect` (scene coordinates).
    `with_state`/`with_labels` False: the plain graph (the web page adds the
    per-step classes and labels itself)."""
    words = {**TITLE_WORDS, **(words or {})}
    st = scene.style
    graph = scene.graph
    nodes = {n.id: n for n in graph.nodes} if graph is not None else {}
    roots = set(graph.roots) if graph is not None else set()
    vx, vy, vw, vh = rect.x(), rect.y(), rect.width(), rect.height()
    cap_h = CAPTION_LINE * len(caption) + (6 if caption else 0)
    pic_h, vh = vh, vh + cap_h
    vw = max(vw, caption_width(st, caption))  # a caption is never cut off: the picture widens for it
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" class="autograd-graph theme-{_x(st.name)}" '
        f'width="{_n(vw)}pt" height="{_n(vh)}pt" viewBox="{_n(vx)} {_n(vy)} {_n(vw)} {_n(vh)}">',
        f"<title>{_x(title or 'Autograd graph')}</title>",
        "<desc>Exported by Autograd Visualizer from the graph as shown: one g.node per box, one g.edge "
        "per edge (arrows point from input to consumer), one g.label per gradient label or callout</desc>",
        f"<style>\n{style_sheet(st)}\n</style>",
        f'<rect class="background" x="{_n(vx)}" y="{_n(vy)}" width="{_n(vw)}" height="{_n(vh)}" '
        f'fill="{_c(st.background)}"/>',
    ]
    app = out.append
    layer_shown = scene.layer is not None and scene.layer.isVisible()
    if layer_shown:
        for gi in scene.group_items:
            if not gi.isVisible():
                continue
            g = gi.group
            name = g.module + (f" ({g.module_class})" if g.module_class else "")
            if g.repeat > 1:
                name = words["rolled"].format(name, g.repeat)
            app(f'<g class="frame{" rolled" if g.repeat > 1 else ""}" id="{_id("frame-", g.id)}">'
                f'<title>{_x(name)}</title><rect x="{_n(g.x)}" y="{_n(g.y)}" width="{_n(g.w)}" '
                f'height="{_n(g.h)}" rx="6"/><text x="{_n(g.x + 6)}" y="{_n(g.y + 8)}">'
                f'{_x(chr(0x25be) + " " + gi.title)}</text></g>')
    overlay = getattr(scene, "checkpoint_overlay", None)
    states = overlay_classes(scene) if with_state else []
    regions = list(overlay.regions.values()) if overlay is not None else []
    for k, o in enumerate(overlay.svg_overlays() if overlay is not None else ()):
        x, y, w, h = o.rect
        css = o.css + (f" {states[k]}" if k < len(states) and states[k] else "")
        shape = (f'<polygon points="{" ".join(f"{_n(px)},{_n(py)}" for px, py in o.points)}"/>' if o.points
                 else f'<rect x="{_n(x)}" y="{_n(y)}" width="{_n(w)}" height="{_n(h)}" rx="6"/>')
        tx, ty = x + 6, y + 8
        if k < len(regions):  # a region's title on its tab, as the screen draws it
            tab = regions[k].mapRectToScene(regions[k].label_rect())
            shape += (f'<rect class="tab" x="{_n(tab.x())}" y="{_n(tab.y())}" width="{_n(tab.width())}" '
                      f'height="{_n(tab.height())}" rx="4"/>')
            tx, ty = tab.x() + 6, tab.center().y()
        app(f'<g class="{_x(css)}" id="overlay-{k}"><title>{_x(o.title)}</title>{shape}'
            + (f'<text x="{_n(tx)}" y="{_n(ty)}">{_x(o.label)}</text>' if o.label else "") + "</g>")
    if layer_shown:
        ids = {key: _id("node-", key) for key in scene.key_items}
        for ei in scene.edge_items:
            if ei.isVisible():
                app(edge_svg(ei, ids, with_state))
        for item in scene.key_items.values():
            if item.isVisible():
                app(node_svg(item, roots, nodes, words, with_state))
        if with_labels:
            lh = label_line_height(scene)
            for owner, lab in visible_labels(scene):
                app(label_svg(label_data(lab), owner, lh))
    if with_state and overlay is not None and overlay.frame is not None and layer_shown:
        d = phase_data(scene)  # a checkpoint's recompute frame: its lit node, ring and panel
        if d is not None:
            app(phase_svg(d, label_line_height(scene)))
    legend = getattr(scene, "export_legend", None)  # (legend_export.py: while an export shows it)
    if legend is not None and legend.scene() is scene:
        from autogradviz.app.export.legend_export import legend_svg
        app(legend_svg(legend))
    if caption:  # the step and its rule, under the picture
        app('<g class="caption">' + "".join(
            f'<text x="{_n(vx + 6)}" y="{_n(vy + pic_h + 3 + (i + 0.5) * CAPTION_LINE)}" '
            f'xml:space="preserve">{_x(line)}</text>' for i, line in enumerate(caption)) + "</g>")
    app("</svg>")
    return "\n".join(out) + "\n"
