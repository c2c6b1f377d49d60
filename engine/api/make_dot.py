"""`make_dot(var, params)`: torchviz's call, our picture.

A torchviz user switches by changing one import: same signature, and the
result behaves as graphviz's `Digraph` where torchviz users touch it -
`.source` (DOT), `.render(filename, format=...)` and inline display in
Jupyter (`_repr_svg_` / `_repr_html_`). What it draws is the app's picture
of the graph (engine/layout: names from `params`, shapes, leaf/op/output
kinds, saved tensors with `show_saved`, folded repeats), not torchviz's.

The graph is walked by the worker's own capture (engine/worker/capture.py,
iterative: a 1000-step RNN is no RecursionError); the layout waits until the
picture is asked for, so the call itself costs the walk. `node_objects`
maps each node id to the autograd node it stands for (a tool - or the
parity test - can match it with another drawing of the same graph).

PNG and PDF are painted by the app's scene (Qt), handed in as `painter` by
`autogradviz.make_dot`; SVG and DOT need no Qt.
"""

from __future__ import annotations

import os
from typing import Callable, Optional

import torch

from autogradviz.engine.trace.atomic_file import write_atomic
from autogradviz.engine.trace.model import Graph
from autogradviz.engine.worker.capture import CaptureState, capture, root_edges
from autogradviz.engine.worker.names import Names
from autogradviz.engine.worker.summarize import Summarizer, TensorStore

FORMATS = ("svg", "png", "pdf", "dot", "gv")


def make_dot(var, params: Optional[dict] = None, show_attrs: bool = False, show_saved: bool = False,
             max_attr_chars: int = 50, *, painter: Optional[Callable] = None) -> "AutogradDot":
    """The autograd graph behind `var` (a tensor or a tuple of tensors).
    `params`: {name: tensor} naming leaves (e.g. `dict(model.named_parameters())`).
    `show_saved`: draw what each node saved for backward. `show_attrs`: read
    the nodes' saved attributes too (in each box's details: `graph.nodes[i].saved`).
    `max_attr_chars`: longest attribute text kept."""
    if params is not None:
        if not all(isinstance(p, torch.Tensor) for p in params.values()):
            raise TypeError("make_dot: every value of params must be a tensor")
    summ = Summarizer(TensorStore())
    summ.values = bool(show_saved or show_attrs)
    state = CaptureState(summ)
    state.read_saved = bool(show_saved or show_attrs)
    names = Names()
    if params:
        names.add_params({id(p): str(k) for k, p in params.items()}, list(params.values()))
    roots = root_edges(list(var) if isinstance(var, (tuple, list)) else var)
    if not roots:
        raise ValueError("make_dot: no autograd graph behind var (no grad_fn and no requires_grad)")
    graph, ids = capture(state, roots, names, origin="namespace", reuse=False)
    summ.flush()
    if max_attr_chars is not None:
        limit = max(int(max_attr_chars), 3)
        for n in graph.nodes:
            for s in n.saved:
                text = getattr(s, "value", None)
                if isinstance(text, str) and len(text) > limit:
                    s.value = text[:limit - 3] + "..."
    objects = {ids[n]: n for n in ids.index}
    return AutogradDot(graph, objects, show_saved=show_saved, painter=painter)


class AutogradDot:
    """What `make_dot` returns: graphviz Digraph's surface over our picture."""

    format = "pdf"  # (graphviz's Digraph default for render())

    def __init__(self, graph: Graph, node_objects: dict, show_saved: bool = False, theme: str = "light",
                 painter: Optional[Callable] = None):
        self.graph = graph
        self.node_objects = node_objects
        self.show_saved = show_saved
        self.theme = theme
        self._painter = painter
        self._layout = None

    @property
    def layout(self):
        """The picture's layout (engine/layout), made on first use."""
        if self._layout is None:
            from autogradviz.engine.layout import LayoutOptions, layout_graph
            self._layout = layout_graph(self.graph, LayoutOptions(show_saved=self.show_saved))
        return self._layout

    @property
    def source(self) -> str:
        """The picture as DOT (positions in points; `neato -n2` reproduces it)."""
        from autogradviz.engine.layout.dot_export import dot_source
        return dot_source(self.graph, self.layout, theme=self.theme)

    def svg(self) -> str:
        from autogradviz.engine.layout.svg_export import svg_source
        return svg_source(self.graph, self.layout, theme=self.theme)

    def _repr_svg_(self) -> str:
        return self.svg()

    def _repr_html_(self) -> str:
        text = self.svg()
        return text.split("?>", 1)[1].lstrip() if text.startswith("<?xml") else text

    def __str__(self) -> str:
        return self.source

    def save(self, filename: Optional[str] = None, directory: Optional[str] = None) -> str:
        """Write the DOT source (as Digraph.save); returns its path."""
        path = os.path.join(directory or "", filename or "Digraph.gv")
        write_atomic(path, self.source)
        return path

    def pipe(self, format: Optional[str] = None) -> bytes:
        """The picture's bytes in `format` (svg, dot; png and pdf with Qt)."""
        fmt = (format or self.format).lower()
        if fmt == "svg":
            return self.svg().encode("utf-8")
        if fmt in ("dot", "gv"):
            return self.source.encode("utf-8")
        import tempfile
        with tempfile.TemporaryDirectory() as folder:
            path = self._paint(os.path.join(folder, "graph." + fmt), fmt)
            with open(path, "rb") as f:
                return f.read()

    def render(self, filename: Optional[str] = None, directory: Optional[str] = None, view: bool = False,
               cleanup: bool = False, format: Optional[str] = None, outfile: Optional[str] = None) -> str:
        """As Digraph.render: the DOT source saved to `filename` (default
        "Digraph.gv") and the picture to `filename.<format>` (or `outfile`);
        `cleanup` removes the source afterwards. Returns the picture's path."""
        fmt = (format or (os.path.splitext(outfile)[1].lstrip(".") if outfile else self.format)).lower()
        if fmt not in FORMATS:
            raise ValueError(f"unknown format {fmt!r} (use one of {', '.join(FORMATS)})")
        source = self.save(filename, directory)
        out = outfile if outfile is not None else f"{source}.{fmt}"
        if fmt == "svg":
            write_atomic(out, self.svg())
        elif fmt in ("dot", "gv"):
            write_atomic(out, self.source)
        else:
            self._paint(out, fmt)
        if cleanup:
            os.remove(source)
        if view:
            _view(out)
        return out

    def _paint(self, path: str, fmt: str) -> str:
        if self._painter is None:
            raise RuntimeError(f"{fmt.upper()} is painted by the app (Qt): use autogradviz.make_dot, "
                               "or render svg")
        self._painter(self.graph, self.layout, path, fmt, self.theme)
        return path


def _view(path: str) -> None:
    """Open the file with the system's viewer (as graphviz's view=True)."""
    import subprocess
    import sys

    if sys.platform.startswith("darwin"):
        subprocess.Popen(["open", path])
    elif os.name == "nt":
        os.startfile(path)  # type: ignore[attr-defined]
    else:
        subprocess.Popen(["xdg-open", path])
