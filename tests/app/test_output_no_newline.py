"""Output without newlines does not freeze the app (issue 24).

`for i in range(1_000_000): print(".", end="")` runs at once under python; the
Output pane used to redraw the whole unfinished line at every flush (and Qt lays
a wrapped block out whole, superlinearly), so the app froze for minutes. Now
each character is laid out once, a long line is shown as blocks of at most
CHUNK characters, and copying joins them again. Work is counted (characters
the document had to take in), not timed; the event loop's longest freeze gets
only a generous bound."""

from __future__ import annotations

import time

from PySide6.QtCore import QTimer
from PySide6.QtGui import QTextCursor

from autogradviz.app.panels.output import CHUNK, OutputPane
from autogradviz.app.services.worker_process import READY
from autogradviz.engine.trace import codec
from autogradviz.engine.trace.model import Trace

RUN_TIMEOUT_MS = 120_000
DOTS = "for i in range(1_000_000):\n    print('.', end='')\n"
PROGRESS = "for i in range(100_000):\n    print(f'\\r{i + 1:6d}', end='')\nprint(' done')\n"


class Work:
    """What the document took in: characters added and removed, and how many changes."""

    def __init__(self, pane: OutputPane):
        self.added = self.removed = self.changes = 0
        pane.document().contentsChange.connect(self._change)

    def _change(self, position: int, removed: int, added: int) -> None:
        self.added += added
        self.removed += removed
        self.changes += 1


class Heartbeat:
    """The longest gap between ticks of a 50 ms timer on the GUI thread."""

    def __init__(self):
        self.max_gap, self._last = 0.0, time.monotonic()
        self.timer = QTimer()
        self.timer.timeout.connect(self._tick)
        self.timer.start(50)

    def _tick(self) -> None:
        now = time.monotonic()
        self.max_gap, self._last = max(self.max_gap, now - self._last), now


def _longest_block(pane: OutputPane) -> int:
    block, longest = pane.document().begin(), 0
    while block.isValid():
        longest = max(longest, block.length() - 1)
        block = block.next()
    return longest


def _pane(qtbot) -> OutputPane:
    pane = OutputPane()
    qtbot.addWidget(pane)
    pane.resize(700, 300)
    pane.show()
    return pane


def test_a_line_written_a_character_at_a_time_is_laid_out_once_and_copies_whole(qtbot):
    pane = _pane(qtbot)
    work = Work(pane)
    n = 20_000
    for i in range(n):
        pane.append_output("stderr" if 5000 <= i < 5010 else "stdout", ".")
        if i % 100 == 99:
            pane.flush()  # (what the 50 ms timer does while the script prints)
    pane.append_info("Finished")
    # Each character went in once (plus the breaks between the line's blocks);
    # before, every flush took the whole line out and in again (~2 M characters).
    assert work.added <= n + n // 100 + 100 and work.removed <= 100
    assert _longest_block(pane) <= CHUNK
    assert pane.plain_text == "." * n + "\nFinished\n"
    assert pane.text_of() == "." * n + "\nFinished\n"
    # Copying a selection across the line's blocks gives the line, unbroken.
    cursor = QTextCursor(pane.document())
    cursor.setPosition(10)
    cursor.movePosition(QTextCursor.End, QTextCursor.KeepAnchor)
    pane.setTextCursor(cursor)
    assert pane.createMimeDataFromSelection().text() == "." * (n - 10) + "\nFinished\n"


def test_output_without_newlines_through_the_real_worker(qtbot, shared_worker, wait_until):
    """1 M characters on one line, then 100,000 `\\r` updates of a progress line:
    shown as a terminal shows them, each character laid out about once."""
    wait_until(lambda: shared_worker.state == READY, 60_000, "worker ready")
    for source, expected, most_added in ((DOTS, "." * 1_000_000, 1_100_000),
                                         (PROGRESS, f"{100_000:6d} done\n", None)):
        pane = _pane(qtbot)
        work = Work(pane)
        shared_worker.outputReceived.connect(pane.append_output)
        beat = Heartbeat()
        try:
            with qtbot.waitSignal(shared_worker.traceReady, timeout=RUN_TIMEOUT_MS) as blocker:
                shared_worker.run(source, "no_newline.py", "cpu")
        finally:
            shared_worker.outputReceived.disconnect(pane.append_output)
        assert blocker.args[0].error is None
        assert pane.plain_text == expected
        assert pane.text_of() == expected
        assert _longest_block(pane) <= CHUNK
        if most_added is not None:  # (before: every flush laid out the whole line again)
            assert work.added <= most_added, work.added
        beat.timer.stop()
        assert beat.max_gap < 5.0, f"the event loop froze for {beat.max_gap:.1f} s"


def test_a_saved_trace_with_a_million_character_line_opens(qtbot, main_window, tmp_path):
    w = main_window
    w.trace_files.quiet = True
    w.ask_unsaved = lambda: "discard"
    path = tmp_path / "dots.trace.json"
    path.write_bytes(codec.encode_trace(Trace(script="dots.py", source=DOTS, stdout="." * 1_000_000)))
    work = Work(w.output)
    with qtbot.waitSignal(w.trace_files.traceOpened, timeout=60_000):
        w.trace_files.open(str(path))
    text = w.output.text_of()
    assert "\n" + "." * 1_000_000 + "\n" in text and "Saved trace" in text
    assert _longest_block(w.output) <= CHUNK
    assert work.added <= 1_100_000
