"""The links in the Output pane's document: what a click there could ask the
app to do (the missing-module Install link; nothing for a saved trace)."""

from __future__ import annotations


def hrefs(output) -> list[str]:
    """Every link in the output pane's document (what a click would emit)."""
    found = []
    block = output.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fmt = it.fragment().charFormat()
            if fmt.isAnchor():
                found.append(fmt.anchorHref())
            it += 1
        block = block.next()
    return found
