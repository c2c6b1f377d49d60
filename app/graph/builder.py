"""Builds the scene for a new layout in time slices on the GUI thread.

A 10,000-box graph is ~30,000 items; made at once they would freeze the
window for seconds. `SceneBuilder` drives `GraphScene.build_steps` from a
timer, at most `SLICE_S` seconds at a time (events, paints and input run in
between; target: never blocked for more than 100 ms), and says when a big
graph's overview can be shown (`preview`) and when the build is done
(`done`). It also keeps Python's cyclic GC out of the way meanwhile (see
`_hold_gc`). A newer build replaces one in progress.
"""

from __future__ import annotations

import time
from typing import Optional

from PySide6.QtCore import QObject, QPointF, QTimer, Signal

from autogradviz.app.graph.scene import GraphScene
from autogradviz.engine.trace.gc_pause import freeze, pause_gc, resume_gc, thaw

# Longest piece of scene building done in one go on the GUI thread.
SLICE_S = 0.02


class SceneBuilder(QObject):
    preview = Signal()  # a big graph's overview item is ready to be shown
    done = Signal()  # the scene is complete (`graph_id`, `result` say what it shows)

    def __init__(self, scene: GraphScene, parent: Optional[QObject] = None):
        super().__init__(parent)
        self.scene = scene
        self._build = None  # the build in progress (a generator)
        self.graph_id = ""
        self.result = None  # the LayoutResult being (or last) built; None: cleared
        self.overview = None  # its OverviewData (big graphs), made by the layout thread
        self._gc_held = False

    def building(self) -> bool:
        return self._build is not None

    def start(self, graph, result, graph_id: str, state=None, overview=None) -> None:
        """Replace the picture by `result` (None: clear it), in time slices."""
        if overview is None:  # a small scene now: the big one's frozen objects may go back
            thaw("scene")
        self._build = self.scene.build_steps(graph, result, state=state if result is not None else None,
                                             overview_data=overview)
        self.graph_id = graph_id
        self.result = result
        self.overview = overview
        self.step()

    def drop(self) -> None:
        """Forget a build in progress (a newer one replaces it; the scene takes
        apart what it left on the next build)."""
        self._build = None
        self._hold_gc(False)

    def step(self) -> None:
        """One slice of at most SLICE_S seconds; the next one is queued."""
        if self._build is None:
            return
        build = self._build
        t0 = time.perf_counter()
        # Python's cyclic GC, triggered by the many new objects, pauses for
        # 30-150 ms at a time on a 10,000-node scene: it is held off for the
        # whole build of a big scene (whose objects are then frozen), and
        # during each slice of a small one.
        self._hold_gc(True)
        try:
            while time.perf_counter() - t0 < SLICE_S * 0.8:
                if next(build) == "overview":
                    self.preview.emit()
                    break  # let it paint now
            # index this slice's new items now (Qt does it lazily, at the next
            # paint or hit test: all 30,000 of a big graph at once)
            self.scene.items(QPointF(-1e9, -1e9))
        except StopIteration:
            if self._build is build:
                self._build = None
                if self.scene.overview is not None:
                    # a big scene is ~100,000 long-lived Python objects; full
                    # GC passes over them stall the GUI for 0.1-0.3 s again and
                    # again. Take them out of the collector's sight (they are
                    # still freed normally when dropped).
                    freeze("scene")
                self._hold_gc(False)
                self.done.emit()
            return
        if self._build is build:
            if self.scene.overview is None:
                self._hold_gc(False)
            # (a timer, not a posted call: timers and input get their turn in between)
            QTimer.singleShot(1, self, self.step)
        else:
            self._hold_gc(False)

    def _hold_gc(self, on: bool) -> None:
        # (engine/trace/gc_pause.py: the layout thread pauses the GC too)
        if on and not self._gc_held:
            self._gc_held = True
            pause_gc()
        elif not on and self._gc_held:
            self._gc_held = False
            resume_gc()
