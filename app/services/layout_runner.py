"""Runs the graph layout off the GUI thread, with progress and Cancel.

Graphviz on a big graph can take seconds; the GUI must keep painting. One
`LayoutRunner` owns at most one background `QThread` at a time; starting a new
layout cancels the previous one (its result is dropped). Results come back
through queued signals. A cancelled or failed layout only emits a message: the
caller keeps showing the previous picture.

There are two layout algorithms, both in engine/layout: Graphviz and the fast
layered layout; `LayoutResult.engine` says which one ran. The layout package
is imported at module level: if it is broken, importing this module fails
loudly instead of drawing a lesser picture.
"""

from __future__ import annotations

import sys
import traceback
from typing import Any, Optional

from PySide6.QtCore import QCoreApplication, QLineF, QObject, QRectF, QThread, Signal

from autogradviz.engine.layout import LayoutCancelled, LayoutOptions, check_option_names, layout_graph
from autogradviz.engine.trace.gc_pause import freeze, pause_gc, resume_gc, thaw
from autogradviz.engine.trace.model import Graph


# From this many boxes on, zooming far out swaps the items for one overview
# item painted with a few bulk calls (30,000 Python paint calls take ~0.5 s);
# the layout thread makes that item's data (app/graph is the layer above
# this one: it imports these two names from here, never the reverse).
OVERVIEW_MIN_BOXES = 1500


class OverviewData:
    """What the overview draws, as plain Qt value objects (QRectF, QLineF).

    Made in the layout's background thread for big graphs (no widgets, no
    items: value types only), so the GUI thread can show the overview the
    moment the layout arrives."""

    def __init__(self, layout):
        self.keys = []
        self.rects = []
        self.node_of = []
        self.kinds = []
        for b in layout.boxes:
            self.keys.append(b.key)
            self.rects.append(QRectF(b.x, b.y, b.w, b.h))
            self.node_of.append(b.node if b.node is not None else b.copy_of)
            self.kinds.append(b.kind)
        self.lines = []
        for e in layout.edges:
            if len(e.points) >= 2:
                (x0, y0), (x1, y1) = e.points[0], e.points[-1]
                self.lines.append(QLineF(x0, y0, x1, y1))
        self.width = max(layout.width, 1.0)
        self.height = max(layout.height, 1.0)


# How long a thread running Python keeps the GIL while another one waits for
# it (CPython's default: 5 ms). The layout thread runs Python for seconds;
# every Python method Qt calls on the GUI thread meanwhile (a paintEvent, a
# pyqtgraph item's boundingRect) waits up to this long for the GIL, and a
# repaint that makes twenty such calls stalled ~110 ms (bench_gui.py's
# heartbeat). At 1 ms the GUI thread gets its turns at once; the layout is
# as fast as before (measured: the same time to the overview).
GIL_SWITCH_S = 0.001


def gui_thread_first() -> None:
    """Let a GUI thread that needs the GIL have it soon (see GIL_SWITCH_S)."""
    if sys.getswitchinterval() > GIL_SWITCH_S:
        sys.setswitchinterval(GIL_SWITCH_S)


class _Cancelled(Exception):
    pass


class _LayoutThread(QThread):
    progressed = Signal(float, str)
    done = Signal(object, object)  # LayoutResult, OverviewData or None
    failed = Signal(str)
    was_cancelled = Signal()

    def __init__(self, graph: Graph, options: LayoutOptions, parent: Optional[QObject] = None):
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
        # (engine/trace/gc_pause.py: one count of pauses for both threads)
        pause_gc()
        try:
            outcome = self._compute()
        finally:
            if self._big:
                freeze("layout")
            else:  # a small graph now: the last big result's objects may go back
                thaw("layout")
            resume_gc()
        kind, value = outcome
        if kind == "done":
            self.done.emit(*value)
        elif kind == "cancelled":
            self.was_cancelled.emit()
        else:
            self.failed.emit(value)

    def _compute(self) -> tuple:
        try:
            try:
                # looked up at call time (module global), so a test can put a
                # failing or slow layout in its place
                result = layout_graph(
                    self.graph, self.options,
                    progress=lambda f, msg: self.progressed.emit(float(f), str(msg)),
                    cancelled=lambda: self._cancel,
                )
            except LayoutCancelled:
                raise _Cancelled() from None
            if self._cancel:
                raise _Cancelled()
            overview = None
            if len(result.boxes) >= OVERVIEW_MIN_BOXES:
                # a big graph's overview as plain Qt values, made here so that
                # the GUI can show it the moment the result arrives (handed over
                # beside the result: engine objects get no attributes from app/)
                overview = OverviewData(result)
                self._big = True
            if self._cancel:
                raise _Cancelled()
            return "done", (result, overview)
        except _Cancelled:
            return "cancelled", None
        except Exception as exc:  # report, never crash the GUI
            traceback.print_exc()
            return "failed", f"{type(exc).__name__}: {exc}"


def layout_options(options: Optional[dict[str, Any]]) -> LayoutOptions:
    """`LayoutOptions` from a dict; an unknown (misspelled) key raises
    ValueError naming it, instead of being dropped."""
    options = dict(options or {})
    check_option_names(options)
    return LayoutOptions(**options)


class LayoutRunner(QObject):
    """Start/cancel layouts; emits `finished(graph_id, LayoutResult, overview)`
    where overview is the big graph's `OverviewData` (None for a small one)."""

    started = Signal()
    progress = Signal(float, str)
    finished = Signal(str, object, object)
    failed = Signal(str)
    cancelled = Signal()

    def __init__(self, parent: Optional[QObject] = None):
        super().__init__(parent)
        gui_thread_first()
        self._thread: Optional[_LayoutThread] = None
        self._graph_id = ""
        self._old: list[_LayoutThread] = []
        app = QCoreApplication.instance()
        if app is not None:  # never leave a layout thread running at exit
            app.aboutToQuit.connect(self.shutdown)

    def is_running(self) -> bool:
        return self._thread is not None and self._thread.isRunning()

    def start(self, graph: Graph, options: Optional[dict[str, Any]] = None) -> None:
        """Lay out `graph` in the background. `options` are `LayoutOptions`
        fields; an unknown name raises ValueError here, in the caller."""
        opts = layout_options(options)
        self._drop_current()
        t = _LayoutThread(graph, opts)
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

    def _on_done(self, result, overview) -> None:
        if self.sender() is self._thread:
            self.finished.emit(self._graph_id, result, overview)

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
