"""Folded repeated modules in the scene: which copy runs, and folding back.

N identical sibling modules (a TransformerEncoder's layers) are drawn as the
first one with "×N" (engine/layout/repeats.py), as a module called N times
is (rolled_items.py). Stepping lights the drawn box standing for the node
that runs; the frame's title then says which of the N copies that is ("▶
copy 7 of 11: enc.layers.7"), from `LayoutResult.copies`. Unfolded, each of
the modules offers to fold them back (its frame's context menu).
"""

from __future__ import annotations

from typing import Optional

from PySide6.QtCore import QCoreApplication


def tr(text: str) -> str:
    return QCoreApplication.translate("FoldedModules", text)


def copy_text(layout, module: str, k: int, n: int, short: bool = False) -> str:
    """"copy 7 of 11: enc.layers.7" (folded siblings; `short`: "copy 7 of 11")
    or "call 7 of 11" (a module called N times)."""
    members = (getattr(layout, "repeats", None) or {}).get(module)
    if members and 0 <= k < len(members):
        if short:
            return tr("copy {0} of {1}").format(k + 1, n)
        return tr("copy {0} of {1}: {2}").format(k + 1, n, members[k])
    return tr("call {0} of {1}").format(k + 1, n)


def running_copy(layout, node_id: Optional[str]) -> Optional[tuple[str, int]]:
    """(module path of the folded frame, copy index) of the node running now."""
    hit = (getattr(layout, "copies", None) or {}).get(node_id) if node_id else None
    return (hit[0], int(hit[1])) if hit else None


def show_running_copy(scene, state) -> None:
    """Put "▶ copy k of N" on the folded frame whose copy runs (and take it
    off the others)."""
    layout = scene.layout
    hit = running_copy(layout, state.current if state is not None else None)
    for gi in scene.group_items:
        g = gi.group
        text = short = ""
        if hit is not None and g.repeat > 1 and g.module == hit[0]:
            text = copy_text(layout, g.module, hit[1], g.repeat)
            short = copy_text(layout, g.module, hit[1], g.repeat, short=True)
        if getattr(gi, "running", "") != text:
            gi.running, gi.running_short = text, short
            gi.update(gi.title_rect().adjusted(-2, -2, 2, 2))  # (the title alone: not the whole frame)


def fold_actions(scene, group) -> list:
    """Extra context-menu actions: a module that is one of N identical ones
    drawn unfolded offers to fold them back into one."""
    layout = getattr(scene, "layout", None)
    repeats = getattr(layout, "repeats", None) or {}
    unrolled = set(getattr(layout, "unrolled", None) or ())
    for path, members in repeats.items():
        if path in unrolled and group.module in members:
            return [(tr("Fold the {0} identical modules {1} into one (×{0})").format(len(members), path),
                     lambda p=path: scene.groupRolled.emit(p))]
    return []
