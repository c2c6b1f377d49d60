"""The rolled view in the scene: stand-in boxes and the loop-back edge's "×N".

When a module called N times is drawn as its first call's graph
(engine/layout/rolled.py, `LayoutResult.stand_ins`), each drawn box of that
call stands for its counterparts in the other N-1 calls. While the backward
pass is stepped, a box shows the progress of all the nodes it stands for, as
a collapsed group box does (current while any of them runs, done when all
have run), so stepping through call 537 lights the boxes of the one call
drawn. The loop-back edge gets a "×N" badge and a tooltip saying what it is.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QBrush, QPen
from PySide6.QtWidgets import QGraphicsSimpleTextItem


def tr(text: str) -> str:
    return QCoreApplication.translate("RolledView", text)


def install_rolled(scene, layout) -> None:
    """Register the stand-ins of `layout` on `scene` (`scene.stand_in_items`:
    trace node id -> the box standing for it, its own node included; the box's
    members in `scene._group_members`) and badge the loop-back edges."""
    stand_ins = getattr(layout, "stand_ins", None) or {}
    scene.stand_in_items = {}
    if stand_ins:
        members: dict[str, list[str]] = {}
        for unit, key in stand_ins.items():
            item = scene.key_items.get(key)
            if item is None:
                continue
            nid = unit.split("#use")[0]  # a per-use copy stands for its leaf
            if item.box.kind == "leaf" and "#use" in unit:
                continue  # a leaf is one tensor: its copies already light together
            if item.node_id is None:  # a collapsed module inside the drawn copy
                lst = members.setdefault(item.key, list(scene._group_members.get(item.key, ())))
                for m in lst:
                    scene.stand_in_items.setdefault(m, item)
            else:
                lst = members.setdefault(item.key, [item.node_id])
                scene.stand_in_items[item.node_id] = item
            lst.append(nid)
            scene.stand_in_items[nid] = item
        for key, lst in members.items():
            scene._group_members[key] = lst
    for ei in scene.edge_items:
        n = getattr(ei.ledge, "loop", 0)
        if n:
            _badge(ei, n, scene.style)


def _badge(edge_item, n: int, style) -> None:
    pts = edge_item.ledge.points
    if not pts:
        return
    x, y = pts[len(pts) // 2]
    text = QGraphicsSimpleTextItem(f"\u00d7{n}", edge_item)
    text.setFont(style.font(bold=True))
    text.setBrush(QBrush(style.group_text))
    text.setPen(QPen(style.group_text, 0))
    text.setPos(float(x) + 4, float(y) - 8)
    tip = tr("Loop: the {0} calls of this module run one after another, each fed the previous "
             "call's output along this edge. Only the first call is drawn; unroll the module "
             "(its frame's menu) to see every call.").format(n)
    text.setToolTip(tip)
    edge_item.setToolTip(tip)
