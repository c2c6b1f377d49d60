"""The "running" overlay: while a run takes longer than a second, the canvas
says so over the dimmed old graph.

A run of the DDP lesson takes half a minute; with only a clock in the status
bar, the previous run's graph stayed on screen looking current. This overlay
dims that picture and says what is running, for how long, with a Stop
button. It appears only after `DELAY_MS` (a quick run never flashes it) and
goes as soon as the run ends; while the script waits for input() it steps
aside (the learner types in the Output pane).
"""

from __future__ import annotations

from typing import Callable, Optional

from PySide6.QtCore import QEvent, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import QFrame, QLabel, QPushButton, QVBoxLayout, QWidget

DELAY_MS = 1000
TICK_MS = 200


class RunningOverlay(QWidget):
    """Covers the canvas (`place`) while a run is going; `stopRequested`
    when its Stop button is clicked."""

    stopRequested = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("runningOverlay")
        self._what = ""
        self._elapsed: Callable[[], float] = lambda: 0.0
        self._waiting: Callable[[], bool] = lambda: False
        self._running = False
        self._dim = QColor(0, 0, 0, 90)
        self.card = QFrame(self)
        self.card.setObjectName("runningCard")
        self.card.setFrameShape(QFrame.StyledPanel)
        self.card.setAutoFillBackground(True)
        lay = QVBoxLayout(self.card)
        lay.setContentsMargins(18, 14, 18, 14)
        self.title = QLabel(self.card)
        self.title.setAlignment(Qt.AlignCenter)
        font = self.title.font()
        font.setPointSizeF(font.pointSizeF() * 1.3)
        font.setBold(True)
        self.title.setFont(font)
        self.detail = QLabel(self.card)
        self.detail.setAlignment(Qt.AlignCenter)
        self.detail.setWordWrap(True)
        self.stop_btn = QPushButton(self.card)
        self.stop_btn.setObjectName("runningStop")
        self.stop_btn.clicked.connect(self.stopRequested)
        lay.addWidget(self.title)
        lay.addWidget(self.detail)
        lay.addWidget(self.stop_btn, 0, Qt.AlignHCenter)
        self._delay = QTimer(self)
        self._delay.setSingleShot(True)
        self._delay.setInterval(DELAY_MS)
        self._delay.timeout.connect(self._appear)
        self._tick = QTimer(self)
        self._tick.setInterval(TICK_MS)
        self._tick.timeout.connect(self._update)
        self.retranslate()
        self.hide()

    # -- the run --------------------------------------------------------------------
    def start(self, what: str, elapsed: Callable[[], float], waiting: Optional[Callable[[], bool]] = None) -> None:
        """A run of `what` (the script's name) began; `elapsed()` gives its
        seconds, `waiting()` whether it waits for input()."""
        self._what = what
        self._elapsed = elapsed
        self._waiting = waiting or (lambda: False)
        if not self._running:
            self._running = True
            self._delay.start()

    def finish(self) -> None:
        """The run ended (finished, failed or stopped)."""
        self._running = False
        self._delay.stop()
        self._tick.stop()
        self.hide()

    def is_running(self) -> bool:
        return self._running

    def _appear(self) -> None:
        if self._running:
            self._tick.start()
            self._update()

    def _update(self) -> None:
        if not self._running:
            return
        if self._waiting():
            self.hide()
            return
        self.title.setText(self.tr("Running {0}…").format(self._what))
        self.detail.setText(self.tr("{0:.1f} s. The graph behind this is from the previous run; "
                                    "the new one appears when the run ends.").format(self._elapsed()))
        if self.isHidden():
            self.show()
            self.place()
            self.raise_()

    # -- looks --------------------------------------------------------------------------
    def retranslate(self) -> None:
        self.stop_btn.setText(self.tr("Stop"))
        self.stop_btn.setToolTip(self.tr("Stop the running script (Ctrl+.)"))
        if self._running and self.isVisible():
            self._update()

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def place(self, over: Optional[QWidget] = None) -> None:
        """Cover the widget `over` (the canvas; by default the one it was last placed over)."""
        if over is not None:
            self._over = over
        over = getattr(self, "_over", None)
        if over is None or not self.isVisible():
            return
        self.setGeometry(over.geometry())
        self.card.adjustSize()
        w = min(max(self.card.sizeHint().width(), 380), max(self.width() - 24, 200))
        self.card.setFixedWidth(w)
        self.card.adjustSize()
        self.card.move((self.width() - w) // 2, max(8, (self.height() - self.card.height()) // 2))

    def paintEvent(self, event) -> None:
        p = QPainter(self)
        p.fillRect(QRectF(self.rect()), self._dim)
        p.end()
