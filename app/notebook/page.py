"""A trace's backward run as the interactive stepper inside a notebook cell.

The page is the exports issue's self-contained web page (app/export/webpage.py:
the scene's own drawing, stepped by a small inline script, no network). A
notebook shows HTML output inside its own page, where a `<script>` in
`innerHTML` would not run and the page's ids and styles would clash with the
notebook's; so the cell gets an `<iframe srcdoc="...">` holding the whole
page, escaped as an attribute value (every `&`, `<`, `>`, `"` of the page,
strings from the script included), sandboxed to scripts only.

Qt runs offscreen (`-platform offscreen` given to the QApplication made here,
not the environment): a notebook kernel usually has no display, and one with
a display must not flash a window. An application made by the user first is
used as it is.
"""

from __future__ import annotations

import html
import os
import sys
import tempfile
from typing import Optional

from autogradviz.engine.trace.model import Trace

FRAME_HEIGHT = 640


def _application():
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is None:
        app = QApplication([sys.argv[0] if sys.argv and sys.argv[0] else "autogradviz",
                            "-platform", os.environ.get("QT_QPA_PLATFORM") or "offscreen"])
    return app


def _scene(graph, layout, trace: Optional[Trace], theme: str):
    from autogradviz.app.graph.scene import GraphScene
    from autogradviz.app.graph.style import style_for

    _application()
    scene = GraphScene(None, style_for(theme))
    scene.trace = trace  # (checkpoint regions)
    scene.set_graph(graph, layout)
    return scene


def page_html(trace: Trace, run: int = 0, theme: str = "light", title: str = "") -> str:
    """The whole web page stepping through backward run `run` of `trace`."""
    from autogradviz.engine.layout import LayoutOptions, layout_graph
    from autogradviz.app.export.webpage import write_webpage

    # (the caller checked that run `run` exists: engine/api/recording.py)
    graph = trace.graph(trace.backward_runs[run].graph)
    scene = _scene(graph, layout_graph(graph, LayoutOptions()), trace, theme)
    fd, path = tempfile.mkstemp(prefix="autogradviz-", suffix=".html")
    os.close(fd)
    try:
        write_webpage(scene, trace, run, path, title=title)
        with open(path, encoding="utf-8") as f:
            return f.read()
    finally:
        os.remove(path)


def iframe_html(page: str, height: int = FRAME_HEIGHT) -> str:
    """`page` inside an iframe's srcdoc (escaped: nothing in it ends the attribute)."""
    return (f'<iframe srcdoc="{html.escape(page, quote=True)}" sandbox="allow-scripts" '
            f'style="width:100%;height:{int(height)}px;border:1px solid #8884"></iframe>')


class StepperPage:
    """What `run.show()` returns: a notebook displays it as the stepper
    (`_repr_html_`); `.html` is the page itself, `.save(path)` writes it."""

    def __init__(self, trace: Trace, run: int = 0, theme: str = "light", height: int = FRAME_HEIGHT,
                 title: str = ""):
        self.trace = trace
        self.run = run
        self.height = height
        self.html = page_html(trace, run, theme, title)

    def _repr_html_(self) -> str:
        return iframe_html(self.html, self.height)

    def save(self, path) -> str:
        from autogradviz.engine.trace.atomic_file import write_atomic

        path = os.fspath(path)
        write_atomic(path, self.html)
        return path


def paint(graph, layout, path: str, fmt: str, theme: str = "light") -> None:
    """`make_dot(...).render(format="png"|"pdf")`: the app's export of the picture."""
    from autogradviz.app.export import render as ex

    scene = _scene(graph, layout, None, theme)
    ex.export_scene(scene, path, fmt, theme=theme)
