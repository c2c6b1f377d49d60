"""The drawn graph as a semantic SVG: a document one can read, search and restyle.

Written from the layout (boxes, edges, module frames) and the trace, not
painted: every box is one `<g class="node KIND" id="...">` with a `<title>`
(op, label, shape, the script line that made it: a browser shows it on
hover), a shape and real `<text>`; every edge one `<g class="edge">` with a
`<title>` and its path; module frames `<g class="frame">`. Colours live in
one `<style>` block keyed by CSS classes (`leaf`, `op`, `output`, `group`,
`saved`; at a backward step also `current`, `done`, `pending` and `grad` on
edges a gradient flowed along; `loop` on a rolled module's loop-back edge, with
its "×N"), so a document can restyle the picture with
its own CSS, and the file stays small: for the whole GPT-2-small graph it is
smaller than torchviz's. Qt-free and fast (a few ms per thousand boxes): the
CLI writes it without starting Qt.
"""

from __future__ import annotations

import math
import re
from typing import NamedTuple, Optional, Sequence

from autogradviz.engine.trace.model import Graph, TensorSummary
from .dot_export import _THEMES
from .escape import xml_text
from .model import LayoutResult
from .palette import PALETTES
from .text_metrics import FONT_SIZE, LINE_HEIGHT, shape_line

# Colours of the step states and edges beyond dot_export's, from the same palette.
_STEP = {name: dict(current=p["current"], done=p["done_border"], grad=p["edge_grad"], label_bg=p["background"])
         for name, p in PALETTES.items()}
_ID_BAD = re.compile(r"[^A-Za-z0-9_.-]")


# Text for XML content and attribute values: cleaned (control characters,
# lone surrogates) and escaped, by the one escaping module (escape.py).
_x = xml_text


def _id(prefix: str, key: str) -> str:
    return prefix + _ID_BAD.sub("_", key)


def _n(v: float) -> str:
    r = round(v, 1)
    return str(int(r)) if r == int(r) else str(r)


def _values(s: Optional[TensorSummary], limit: int = 6) -> str:
    if s is None:
        return "None"
    n = s.numel or (math.prod(s.shape) if s.shape else 1)
    if not s.truncated and s.values and n <= limit:
        vals = [f"{v:.4g}" if isinstance(v, float) else str(v) for v in s.values]
        return vals[0] if not s.shape else "[" + ", ".join(vals) + "]"
    shape = "(" + ", ".join(str(d) for d in s.shape) + ")"
    return shape + (f" norm {s.norm:.4g}" if s.norm is not None else "")


class Overlay(NamedTuple):
    """One shape drawn over the layout: `css` its class ("checkpoint-region",
    "not-stored"), `title` the hover text, `label` the text drawn at its top
    left ("" for none), `rect` (x, y, w, h) in layout coordinates; with
    `points` ((x, y), ...) the shape is that polygon and `rect` only places
    the label."""

    css: str
    title: str
    label: str
    rect: tuple[float, float, float, float]
    points: tuple = ()


def _style(theme: str) -> str:
    th = _THEMES.get(theme, _THEMES["light"])
    st = _STEP.get(theme, _STEP["light"])
    rules = [
        f".node text,.frame text,.edge text{{font-family:'DejaVu Sans',sans-serif;font-size:{_n(FONT_SIZE)}px;"
        f"fill:{th['text']};text-anchor:middle}}",
        ".node text.name{font-weight:bold}",
        ".node rect{stroke-width:1.2}",
    ]
    for cls, key in (("leaf", "leaf"), ("op", "op"), ("output", "out"), ("group", "group"), ("saved", "saved")):
        fill, border = th[key]
        rules.append(f".node.{cls} rect{{fill:{fill};stroke:{border}}}")
    rules += [
        ".node.output rect{stroke-width:1.6}",
        ".node.saved rect{stroke-width:1}",
        f".frame rect{{fill:none;stroke:{th['group'][1]};stroke-dasharray:5 3}}",
        f".frame text{{fill:{th['group'][1]};text-anchor:start}}",
        f".edge path{{fill:none;stroke:{th['edge']};stroke-width:1.2}}",
        f".edge polygon{{fill:{th['edge']}}}",
        ".edge.saved path{stroke-dasharray:4 3}",
        f".node.current rect{{stroke:{st['current']};stroke-width:3.2}}",
        f".node.done rect{{stroke:{st['done']}}}",
        ".node.pending{opacity:.45}",
        f".edge.grad path{{stroke:{st['grad']};stroke-width:1.8}}",
        f".edge.grad polygon{{fill:{st['grad']}}}",
        f".edge text.grad{{fill:{st['grad']};font-size:9px}}",
        f".edge.loop path{{stroke:{th['group'][1]};stroke-width:1.8}}",
        f".edge.loop polygon{{fill:{th['group'][1]}}}",
        f".edge text.loop{{fill:{th['group'][1]};font-weight:bold}}",
        f".checkpoint-region rect,.checkpoint-region polygon{{fill:none;stroke-linejoin:round;stroke:{st['current']};stroke-width:1.5;stroke-dasharray:8 4}}",
        f".checkpoint-region text{{font-family:'DejaVu Sans',sans-serif;font-size:{_n(FONT_SIZE)}px;"
        f"font-weight:bold;fill:{st['current']}}}",
        f".not-stored rect{{fill:none;stroke:{th['text']};stroke-opacity:.5;stroke-dasharray:3 3}}",
        f".not-stored text{{font-family:'DejaVu Sans',sans-serif;font-size:9px;fill:{th['text']};"
        f"fill-opacity:.6}}",
    ]
    return "\n".join(rules)


# The words of the hover titles, in English; the app passes them in the UI
# language (`words` of svg_source), the CLI writes these.
TITLE_WORDS = {
    "op": "op: {0}",
    "label": "label: {0}",
    "shape": "shape: {0}",
    "module": "module: {0}",
    "line": "line {0}: {1}",
    "start": "backward starts here",
    "rolled": "{0}: {1} calls, the first one drawn; the loop-back edge feeds each call the last",
}


def _node_title(graph_nodes: dict, b, roots: set, words: dict) -> str:
    node = graph_nodes.get(b.node or b.copy_of) if (b.node or b.copy_of) else None
    if node is None:
        return "\n".join(b.lines)
    parts = [words["op"].format(node.op)]
    if node.label:
        parts.append(words["label"].format(node.label))
    shape = shape_line(node.tensor)
    if shape:
        parts.append(words["shape"].format(shape))
    if node.module:
        parts.append(words["module"].format(node.module))
    if node.line is not None:
        parts.append(words["line"].format(node.line, node.code or "").rstrip())
    if node.id in roots:
        parts.append(words["start"])
    return "\n".join(parts)


def _path(points, spline: bool) -> str:
    if not points:
        return ""
    d = [f"M{_n(points[0][0])},{_n(points[0][1])}"]
    if spline and len(points) >= 4 and (len(points) - 1) % 3 == 0:
        d.append("C" + " ".join(f"{_n(x)},{_n(y)}" for x, y in points[1:]))
    else:
        d.append("L" + " ".join(f"{_n(x)},{_n(y)}" for x, y in points[1:]))
    return "".join(d)


def _arrow(points) -> str:
    """A small filled arrowhead at the end of the polyline/spline."""
    if len(points) < 2:
        return ""
    (x0, y0), (x1, y1) = points[-2], points[-1]
    dx, dy = x1 - x0, y1 - y0
    d = math.hypot(dx, dy) or 1.0
    ux, uy = dx / d, dy / d
    L, W = 7.0, 3.2
    bx, by = x1 - ux * L, y1 - uy * L
    return (f"{_n(x1)},{_n(y1)} {_n(bx - uy * W)},{_n(by + ux * W)} "
            f"{_n(bx + uy * W)},{_n(by - ux * W)}")


def svg_source(graph: Graph, layout: LayoutResult, theme: str = "light", state=None,
               title: str = "", view: Optional[tuple[float, float, float, float]] = None,
               margin: float = 16.0, overlays: Sequence[Overlay] = (), words: Optional[dict] = None) -> str:
    """The SVG text. `state`: a replay StepState (node status classes and the
    gradients on edges), or None for the plain graph. `view`: (x, y, w, h) of
    the layout to show (default: all of it, plus `margin`). `overlays`: what the
    app draws over the layout (checkpoint regions, "not stored" chips), each a
    g with its own class, title and label, so that they stay semantic too.
    `words`: TITLE_WORDS in another language (missing keys stay English)."""
    words = {**TITLE_WORDS, **(words or {})}
    th = _THEMES.get(theme, _THEMES["light"])
    if view is None:
        view = (-margin, -margin, layout.width + 2 * margin, layout.height + 2 * margin)
    vx, vy, vw, vh = view
    nodes = {n.id: n for n in graph.nodes}
    roots = set(graph.roots)
    status = state.status if state is not None else {}
    edge_grads = state.edge_grads if state is not None else {}
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" class="autograd-graph theme-{_x(theme)}" '
        f'width="{_n(vw)}pt" height="{_n(vh)}pt" viewBox="{_n(vx)} {_n(vy)} {_n(vw)} {_n(vh)}">',
        f"<title>{_x(title or 'Autograd graph ' + (graph.id or ''))}</title>",
        "<desc>Exported by Autograd Visualizer: one g.node per box (its title: op, label, shape, "
        "line), one g.edge per edge (forward direction: arrows point from input to consumer)</desc>",
        f"<style>\n{_style(theme)}\n</style>",
        f'<rect class="background" x="{_n(vx)}" y="{_n(vy)}" width="{_n(vw)}" height="{_n(vh)}" '
        f'fill="{th["bg"]}"/>',
    ]
    app = out.append
    for g in layout.groups:
        if g.collapsed or g.w <= 0:
            continue
        name = g.module + (f" ({g.module_class})" if g.module_class else "")
        label = g.module
        if g.repeat > 1:  # a rolled module drawn as its first call's graph
            name = words["rolled"].format(name, g.repeat)
            label += f" \u00d7{g.repeat}"
        app(f'<g class="frame{" rolled" if g.repeat > 1 else ""}" id="{_id("frame-", g.id)}">'
            f'<title>{_x(name)}</title>'
            f'<rect x="{_n(g.x)}" y="{_n(g.y)}" width="{_n(g.w)}" height="{_n(g.h)}" rx="6"/>'
            f'<text x="{_n(g.x + 6)}" y="{_n(g.y + 12)}">{_x(label)}</text></g>')
    for k, o in enumerate(overlays):
        x, y, w, h = o.rect
        shape = (f'<polygon points="{" ".join(f"{_n(px)},{_n(py)}" for px, py in o.points)}"/>' if o.points
                 else f'<rect x="{_n(x)}" y="{_n(y)}" width="{_n(w)}" height="{_n(h)}" rx="6"/>')
        app(f'<g class="{_x(o.css)}" id="overlay-{k}"><title>{_x(o.title)}</title>{shape}'
            + (f'<text x="{_n(x + 6)}" y="{_n(y + 12)}">{_x(o.label)}</text>' if o.label else "") + "</g>")
    kinds = {b.key: b.kind for b in layout.boxes}
    ids = {b.key: _id("node-", b.key) for b in layout.boxes}
    for i, e in enumerate(layout.edges):
        cls = "edge"
        if "saved" in (kinds.get(e.src), kinds.get(e.dst)):
            cls += " saved"
        grads = [edge_grads[t] for t in e.trace_edges if t in edge_grads]
        if grads:
            cls += " grad"
        loop = getattr(e, "loop", 0)
        if loop:
            cls += " loop"
        tip = f"{e.src} \u2192 {e.dst}"
        if loop:
            tip += f"\nloop: each of the {loop} calls feeds the next ({len(e.trace_edges)} edges)"
        if grads:
            tip += "\ngradient: " + _values(grads[0])
        parts = [f'<g class="{cls}" id="edge-{i}" data-src="{ids.get(e.src, "")}" '
                 f'data-dst="{ids.get(e.dst, "")}"><title>{_x(tip)}</title>'
                 f'<path d="{_path(e.points, e.spline)}"/>']
        arrow = _arrow(e.points)
        if arrow:
            parts.append(f'<polygon points="{arrow}"/>')
        if loop and e.points:
            mx, my = e.points[len(e.points) // 2]
            parts.append(f'<text class="loop" x="{_n(mx + 4)}" y="{_n(my)}" style="text-anchor:start">'
                         f"\u00d7{loop}</text>")
        if grads and e.points:
            mx, my = e.points[len(e.points) // 2]
            parts.append(f'<text class="grad" x="{_n(mx + 4)}" y="{_n(my)}" style="text-anchor:start">'
                         f"{_x(_values(grads[0]))}</text>")
        parts.append("</g>")
        app("".join(parts))
    for b in layout.boxes:
        nid = b.node or b.copy_of
        kind = b.kind if b.kind in ("leaf", "group", "saved") else ("output" if nid in roots else "op")
        cls = f"node {kind}"
        st = status.get(nid) if nid else None
        if st:
            cls += f" {st}"
        rx = ' rx="8"' if kind == "leaf" else (' rx="4"' if kind == "saved" else "")
        parts = [f'<g class="{cls}" id="{ids[b.key]}"' + (f' data-node="{_x(nid)}"' if nid else "") + ">",
                 f"<title>{_x(_node_title(nodes, b, roots, words))}</title>",
                 f'<rect x="{_n(b.x)}" y="{_n(b.y)}" width="{_n(b.w)}" height="{_n(b.h)}"{rx}/>']
        lines = b.lines or []
        if lines:
            top = b.y + (b.h - LINE_HEIGHT * len(lines)) / 2 + LINE_HEIGHT * 0.75
            cx = _n(b.x + b.w / 2)
            for k, line in enumerate(lines):
                name = ' class="name"' if k == 0 else ""
                parts.append(f'<text{name} x="{cx}" y="{_n(top + k * LINE_HEIGHT)}">{_x(line)}</text>')
        parts.append("</g>")
        app("".join(parts))
    app("</svg>")
    return "\n".join(out) + "\n"
