"""The graph as Graphviz DOT text, for users who want to restyle it themselves.

Written from the *drawn* graph (the layout's boxes and edges: per-use leaf
copies, collapsed groups) so the DOT matches the picture; each node carries
its position (`pos`, in points, Graphviz's y-up convention) so
`neato -n2 -Tsvg` reproduces our layout, while plain `dot` re-lays it out.
Colours follow the app's light/dark themes. Qt-free: the CLI can write DOT
without rendering anything.
"""

from __future__ import annotations

from typing import Optional

from autogradviz.engine.trace.model import Graph
from .escape import dot_string
from .model import LayoutResult

_THEMES = {
    "light": dict(bg="#ffffff", text="#1d2330", leaf=("#dff0d8", "#3c8d40"), op=("#eef1f6", "#6b7688"),
                  out=("#fde8c8", "#c06d00"), group=("#f4f1fb", "#8a7cc0"), saved=("#fff7d6", "#a08a2a"),
                  edge="#7a8494"),
    "dark": dict(bg="#1e2128", text="#e6e9ef", leaf=("#23402a", "#7cc47f"), op=("#2c313c", "#8d97a8"),
                 out=("#4a3418", "#ffa940"), group=("#272336", "#a596e0"), saved=("#3d3717", "#d4bf5a"),
                 edge="#8791a3"),
}


# Every string from the trace goes out through escape.py (quoted, cleaned).
_q = dot_string


def dot_source(graph: Graph, layout: Optional[LayoutResult] = None, theme: str = "light") -> str:
    if layout is None:
        from . import LayoutOptions, layout_graph
        layout = layout_graph(graph, LayoutOptions(engine="layered"))
    th = _THEMES.get(theme, _THEMES["light"])
    roots = set(graph.roots)
    H = layout.height
    out = [
        f"// Autograd graph {_q(graph.id)} ({_q(graph.origin)}), exported by Autograd Visualizer",
        "// positions in points; reproduce this layout with: neato -n2 -Tsvg this.dot",
        f"digraph {_q(graph.id or 'autograd')} {{",
        f'  graph [rankdir=TB, bgcolor="{th["bg"]}", fontname="DejaVu Sans", '
        f'bb="0,0,{layout.width:.1f},{H:.1f}"];',
        f'  node [shape=box, style="filled", fontname="DejaVu Sans", fontsize=10, '
        f'fontcolor="{th["text"]}"];',
        f'  edge [color="{th["edge"]}", arrowsize=0.6];',
    ]
    for g in layout.groups:
        if not g.collapsed and g.w > 0:
            # (quoted even in a comment: a name is only ever inside a DOT string)
            out.append(f"  // module group {_q(g.module)}" + (f" ({_q(g.module_class)})" if g.module_class else ""))
    for b in layout.boxes:
        if b.kind == "group":
            fill, border = th["group"]
            shape = "box3d"
        elif b.kind == "leaf":
            fill, border = th["leaf"]
            shape = "box"
        elif b.kind == "saved":
            fill, border = th["saved"]
            shape = "note"
        elif b.node in roots:
            fill, border = th["out"]
            shape = "box"
        else:
            fill, border = th["op"]
            shape = "box"
        style = '"filled,rounded"' if b.kind == "leaf" else '"filled"'
        cx, cy = b.x + b.w / 2, H - (b.y + b.h / 2)
        attrs = [f"label={_q(chr(10).join(b.lines))}", f"shape={shape}", f"style={style}",
                 f'fillcolor="{fill}"', f'color="{border}"', f'pos="{cx:.1f},{cy:.1f}!"',
                 f"width={b.w / 72:.3f}", f"height={b.h / 72:.3f}"]
        if b.node:
            attrs.append(f"tooltip={_q(b.node)}")
        if b.copy_of:
            attrs.append(f"comment={_q('copy of ' + b.copy_of)}")
        out.append(f"  {_q(b.key)} [{', '.join(attrs)}];")
    kinds = {b.key: b.kind for b in layout.boxes}
    for e in layout.edges:
        extra = ", style=dashed" if "saved" in (kinds.get(e.src), kinds.get(e.dst)) else ""
        out.append(f"  {_q(e.src)} -> {_q(e.dst)}{' [' + extra[2:] + ']' if extra else ''};")
    out.append("}")
    return "\n".join(out) + "\n"
