"""Runs the graph layout off the GUI thread, with progress and Cancel.

Graphviz on a big graph can take seconds; the GUI must keep painting. One
`LayoutRunner` owns at most one background `QThread` at a time; starting a new
layout cancels the previous one (its result is dropped). Results come back
through queued signals. A cancelled or failed layout only emits a message: the
caller keeps showing the previous picture.
"""

from __future__ import annotations

import gc
import time
import traceback
from typing import Any, Optional

from PySide6.QtCore import QCoreApplication, QObject, QThread, Signal

from autogradviz.engine.layout.model import LayoutBox, LayoutEdge, LayoutResult
from autogradviz.engine.trace.model import Graph

from autogradviz.app.graph.items import OverviewData
from autogradviz.app.graph.scene import OVERVIEW_MIN_BOXES


class _Cancelled(Exception):
    pass


def _real_layout():
    """H3's layout engine, when present (imported lazily; Qt-free)."""
    try:
        from autogradviz.engine.layout import LayoutCancelled, LayoutOptions, layout_graph
    except Exception:
        return None
    return layout_graph, LayoutOptions, LayoutCancelled


def _label_lines(node) -> list[str]:
    lines = []
    if node.label:
        lines.append(node.label)
    lines.append(node.op)
    if node.tensor is not None:
        lines.append("(" + ", ".join(str(s) for s in node.tensor.shape) + ")")
    return lines


def placeholder_layout(graph: Graph, cancelled=None) -> LayoutResult:
    """A trivial layered layout (used only when the real engine is missing).

    Ranks by longest path from the sources in forward direction; boxes in a rank
    side by side. Good enough to keep the picture alive, not pretty.
    """
    t0 = time.perf_counter()
    preds: dict[str, list[str]] = {n.id: [] for n in graph.nodes}
    for e in graph.edges:
        if e.dst in preds and e.src in preds:
            preds[e.dst].append(e.src)
    rank: dict[str, int] = {}
    order = [n.id for n in graph.nodes]
    # iterative longest path (graphs are DAGs)
    indeg = {k: 0 for k in preds}
    succ: dict[str, list[str]] = {k: [] for k in preds}
    for d, ps in preds.items():
        for p in ps:
            succ[p].append(d)
            indeg[d] += 1
    queue = [k for k in order if indeg[k] == 0]
    for k in queue:
        rank.setdefault(k, 0)
    i = 0
    while i < len(queue):
        if cancelled is not None and i % 256 == 0 and cancelled():
            raise _Cancelled()
        k = queue[i]
        i += 1
        for s in succ[k]:
            rank[s] = max(rank.get(s, 0), rank[k] + 1)
            indeg[s] -= 1
            if indeg[s] == 0:
                queue.append(s)
    for k in order:
        rank.setdefault(k, 0)
    by_rank: dict[int, list[str]] = {}
    for k in order:
        by_rank.setdefault(rank[k], []).append(k)
    nodes = {n.id: n for n in graph.nodes}
    boxes = []
    pos = {}
    y = 20.0
    width = 0.0
    for r in sorted(by_rank):
        x = 20.0
        for k in by_rank[r]:
            lines = _label_lines(nodes[k])
            w = max(60.0, 7.0 * max(len(s) for s in lines) + 16)
            h = 16.0 * len(lines) + 10
            boxes.append(LayoutBox(key=k, kind=nodes[k].kind, node=k, x=x, y=y, w=w, h=h, lines=lines))
            pos[k] = (x + w / 2, y, y + h)
            x += w + 30
        width = max(width, x)
        y += 90.0
    edges = []
    for i, e in enumerate(graph.edges):
        if e.src in pos and e.dst in pos:
            sx, _, sb = pos[e.src]
            dx, dt, _ = pos[e.dst]
            edges.append(LayoutEdge(src=e.src, dst=e.dst, points=[(sx, sb), (dx, dt)], trace_edges=[i]))
    return LayoutResult(boxes=boxes, edges=edges, width=width + 20, height=y,
                        engine="placeholder", seconds=time.perf_counter() - t0)


class _LayoutThread(QThread):
    progressed = Signal(float, str)
    done = Signal(object)
    failed = Signal(str)
    was_cancelled = Signal()

    def __init__(self, graph: Graph, options: dict, parent: Optional[QObject] = None):
        super().__init__(parent)
        self.graph = graph
        self.options = options
        self._cancel = False
        self._big = False

    def cancel(self) -> None:
        self._cancel = True

    def run(self) -> None:  # background thread: no widgets here
        # The cyclic GC is global: a collection that runs in this thread holds
        # the GIL and so freezes the GUI thread too. The layout pauses the GC
        # while it allocates; re-enabled right after, the first collection would
        # scan everything it made (50-150 ms on 10,000 nodes). So the GC stays
        # off until the result is made, which is then frozen (taken out of the
        # collector's sight; still freed normally when dropped) - all before
        # the result is handed over, so that this never races with the GUI
        # thread holding the GC off while it builds the scene.
        gc_was = gc.isenabled()
        gc.disable()
        try:
            outcome = self._compute()
        finally:
            if gc_was:
                if self._big:
                    gc.freeze()
                gc.enable()
        kind, value = outcome
        if kind == "done":
            self.done.emit(value)
        elif kind == "cancelled":
            self.was_cancelled.emit()
        else:
            self.failed.emit(value)

    def _compute(self) -> tuple:
        try:
            real = _real_layout()
            if real is None:
                result = placeholder_layout(self.graph, lambda: self._cancel)
            else:
                layout_graph, LayoutOptions, LayoutCancelled = real
                opts = LayoutOptions()
                for k, v in self.options.items():
                    if hasattr(opts, k):
                        setattr(opts, k, v)
                try:
                    result = layout_graph(
                        self.graph, opts,
                        progress=lambda f, msg: self.progressed.emit(float(f), str(msg)),
                        cancelled=lambda: self._cancel,
                    )
                except LayoutCancelled:
                    raise _Cancelled()
            if self._cancel:
                raise _Cancelled()
            if len(result.boxes) >= OVERVIEW_MIN_BOXES:
                # a big graph's overview as plain Qt values, made here so that
                # the GUI can show it the moment the result arrives
                result.overview_data = OverviewData(result)
                self._big = True
            if self._cancel:
                raise _Cancelled()
            return "done", result
        except _Cancelled:
            return "cancelled", None
        except Exception as exc:  # report, never crash the GUI
            traceback.print_exc()
            return "failed", f"{type(exc).__name__}: {exc}"


class LayoutRunner(QObject):
    """Start/cancel layouts; emits `finished(graph_id, LayoutResult)`."""

    started = Signal()
    progress = Signal(float, str)
    finished = Signal(str, object)
    failed = Signal(str)
    cancelled = Signal()

    def __init__(self, parent: Optional[QObject] = None):
        super().__init__(parent)
        self._thread: Optional[_LayoutThread] = None
        self._graph_id = ""
        self._old: list[_LayoutThread] = []
        app = QCoreApplication.instance()
        if app is not None:  # never leave a layout thread running at exit
            app.aboutToQuit.connect(self.shutdown)

    def is_running(self) -> bool:
        return self._thread is not None and self._thread.isRunning()

    def start(self, graph: Graph, options: Optional[dict[str, Any]] = None) -> None:
        self._drop_current()
        t = _LayoutThread(graph, dict(options or {}))
        self._thread = t
        self._graph_id = graph.id
        t.progressed.connect(self._on_progress)
        t.done.connect(self._on_done)
        t.failed.connect(self._on_failed)
        t.was_cancelled.connect(self._on_cancelled)
        t.finished.connect(self._reap)
        self.started.emit()
        t.start()

    def cancel(self) -> None:
        """User pressed Cancel: stop the running layout, keep the old picture."""
        if self._thread is not None:
            self._thread.cancel()

    def _drop_current(self) -> None:
        if self._thread is not None:
            self._thread.cancel()
            self._old.append(self._thread)
            self._thread = None

    def _on_progress(self, f: float, msg: str) -> None:
        if self.sender() is self._thread:
            self.progress.emit(f, msg)

    def _on_done(self, result) -> None:
        if self.sender() is self._thread:
            self.finished.emit(self._graph_id, result)

    def _on_failed(self, msg: str) -> None:
        if self.sender() is self._thread:
            self.failed.emit(msg)

    def _on_cancelled(self) -> None:
        if self.sender() is self._thread:
            self.cancelled.emit()

    def _reap(self) -> None:
        t = self.sender()
        if t is None:
            return
        if t is self._thread:
            self._thread = None
        if t in self._old:
            self._old.remove(t)
        t.deleteLater()

    def shutdown(self, timeout_ms: int = 5000) -> None:
        """Cancel and join every thread (app exit, tests)."""
        threads = list(self._old)
        if self._thread is not None:
            threads.append(self._thread)
        for t in threads:
            t.cancel()
        for t in threads:
            t.wait(timeout_ms)
        self._thread = None
        self._old = []
