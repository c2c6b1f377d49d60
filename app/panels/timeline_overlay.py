"""A transparent layer over the stepper's timeline for marks of one kind.

The DDP all-reduce diamonds (processes.py) and the checkpoint recompute
triangles (checkpoint/recompute_marks.py) are drawn the same way: a widget
the size of the timeline that lets the mouse through and paints its marks at
the timeline's x for a step. Subclasses only say how one mark looks.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QWidget


class TimelineOverlay(QWidget):
    def __init__(self, timeline, marks):
        super().__init__(timeline)
        self.marks = marks
        self.setAttribute(Qt.WA_TransparentForMouseEvents)
        self.setGeometry(timeline.rect())
        self.hide()

    def paintEvent(self, event) -> None:  # noqa: N802
        tl = self.marks.timeline
        if tl.n <= 0:
            return
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.draw(p, tl)
        p.end()

    def draw(self, painter: QPainter, timeline) -> None:
        raise NotImplementedError
