"""What expanding, collapsing and rolling a module group asks the layout for.

The picture's `LayoutResult` records the collapsed and unrolled module paths
it was made with (the defaults resolved); a click changes one group and keeps
every other as it is. A rolled group ("×N", the N calls of one module drawn
as one box) unrolls into one collapsed box per call; expanding one of those
expands the calls; rolling puts them back into one box. N identical sibling
modules folded into one (engine/layout/repeats.py, `LayoutResult.repeats`)
unfold into the modules themselves, and fold back by rolling. The result goes to
the session (`set_layout_groups`), which owns the layout options.
"""

from __future__ import annotations

from typing import NamedTuple


class GroupChange(NamedTuple):
    collapsed: set[str]
    unrolled: set[str]
    focus: list[str]  # trace node ids to look at once the new picture is there


def toggled(layout, module: str, collapse: bool) -> GroupChange:
    """Collapse (`collapse`) or expand/unroll `module`."""
    grps = [g for g in layout.groups if g.module == module]
    focus = [m for g in grps[:1] for m in g.members]
    coll, unr = set(layout.collapsed), set(layout.unrolled)
    rolled = any(g.repeat > 1 for g in grps)
    if not collapse and module in (getattr(layout, "repeats", None) or {}):
        unr.add(module)  # N identical modules folded into one: unfolded, each drawn
        coll.discard(module)
    elif collapse:
        coll.add(module)
    elif rolled:
        unr.add(module)
        coll.add(module)  # stays collapsed: one box per call
    else:
        coll.discard(module)
    return GroupChange(coll, unr, focus)


def rolled_up(layout, module: str) -> GroupChange:
    """Roll the separately drawn calls of `module` back into one box."""
    grps = [g for g in layout.groups if g.module == module]
    focus = [m for g in grps for m in g.members]
    coll, unr = set(layout.collapsed), set(layout.unrolled)
    unr.discard(module)
    coll.discard(module)  # a rolled module is always one box
    return GroupChange(coll, unr, focus)
