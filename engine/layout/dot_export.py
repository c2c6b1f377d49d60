"""The graph as Graphviz DOT text, for users who want to restyle it themselves.

Written from the *drawn* graph (the layout's boxes and edges: per-use leaf
copies, collapsed groups) so the DOT matches the picture; each node carries
its position (`pos`, in points, Graphviz's y-up convention) so
`neato -n2 -Tsvg` reproduces our layout, while plain `dot` re-lays it out.
Colours are the app's, light or dark (engine/layout/palette.py). Qt-free:
the CLI can write DOT without rendering anything.
"""

from __future__ import annotations

from typing import Optional

from autogradviz.engine.trace.model import Graph
from .escape import dot_string
from .model import LayoutResult
from .palette import PALETTES

def _theme(p: dict) -> dict:
    """The DOT colours of one palette (engine/layout/palette.py): (fill, border) per kind."""
    return dict(bg=p["background"], text=p["text"], leaf=p["leaf"][:2], op=p["op"][:2],
                out=p["output"][:2], group=(p["group_fill"], p["group_border"]), saved=p["saved"][:2],
                edge=p["edge"])


_THEMES = {name: _theme(p) for name, p in PALETTES.items()}


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
        f'  graph [rankdir={"LR" if getattr(layout, "direction", "TB") == "LR" else "TB"}, bgcolor="{th["bg"]}", fontname="DejaVu Sans", '
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
