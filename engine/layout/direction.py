"""The left-to-right layout: our layered layout, laid out transposed.

A long chain (an RNN unrolled, a deep MLP) is a tall thin column in the
top-to-bottom picture; on a wide screen it reads better from left to right.
Graphviz does that itself (`rankdir=LR`, graphviz_backend.layout_source); the
layered layout (layered.py) only knows top to bottom, so it lays out the
graph with every box's width and height swapped and then mirrors the result
on the diagonal: ranks become columns, edges leave a box's right side and
enter the next one's left side. A frame's title strip sits on its top in the
picture, which is a frame's *side* while laid out transposed: the sides get
the strip's room there (`side_pad`), and nothing is widened for the title.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Optional

from .layered import GROUP_LABEL, layout_layered
from .model import LayoutResult
from .prepare import DrawGraph


def layout_layered_lr(dg: DrawGraph, progress: Optional[Callable[[float, str], None]] = None,
                      cancelled: Optional[Callable[[], bool]] = None) -> LayoutResult:
    turned = replace(dg, nodes=[replace(dn, w=dn.h, h=dn.w) for dn in dg.nodes])
    res = layout_layered(turned, progress, cancelled, side_pad=GROUP_LABEL + 4, title_room=False)
    for b in res.boxes:
        b.x, b.y, b.w, b.h = b.y, b.x, b.h, b.w
    for e in res.edges:
        e.points = [(y, x) for x, y in e.points]
    for g in res.groups:
        g.x, g.y, g.w, g.h = g.y, g.x, g.h, g.w
    res.width, res.height = res.height, res.width
    res.direction = "LR"
    return res
