"""Output pane under output without newlines: end to end through the app's worker.

    python benchmarks/bench_output.py [--only dots,progress,saved] [--limit SECONDS] [--repeats N]

Each workload runs in the real worker through the app's `WorkerProcess`, its
prints go to a shown `OutputPane` exactly as the run controller sends them, and
the figure is the time from Run until the pane shows all of the text (the
worker's trace has arrived and nothing is left to draw). A 10 ms heartbeat
timer on the GUI thread measures the longest freeze of the event loop meanwhile.

1. dots: `for i in range(1_000_000): print(".", end="")` - one 1 M-character
   line, written one character at a time (python runs it in well under a second).
2. progress: 100,000 `\\r` updates of one progress line (tqdm-style), 700,000
   characters, then " done" and a newline.
3. saved: File > Open Trace of a trace whose stdout is one 1 M-character line,
   in the main window (no worker): from open() until the window shows it
   (reading and decoding on the controller's thread, then the output pane).

Targets: each live workload shown within 5 s with no event-loop freeze over
0.5 s; the saved trace shown in under 1 s (the median of --repeats openings). `--limit` gives up on a workload
after that many seconds (reported as not finished; the target is missed).
Uses offscreen Qt when no display is set, and private settings/data folders.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from targets import Targets  # noqa: E402

TMP = tempfile.mkdtemp(prefix="autogradviz-bench-")
os.environ.update(XDG_DATA_HOME=os.path.join(TMP, "data"), XDG_CONFIG_HOME=os.path.join(TMP, "config"))
if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

N_DOTS = 1_000_000
N_UPDATES = 100_000
DOTS = f"for i in range({N_DOTS}):\n    print('.', end='')\n"
PROGRESS = f"for i in range({N_UPDATES}):\n    print(f'\\r{{i + 1:6d}}', end='')\nprint(' done')\n"
EXPECTED = {"dots": "." * N_DOTS, "progress": f"{N_UPDATES:6d} done\n"}
LIVE_TARGET_S = 5.0
GAP_TARGET_S = 0.5
SAVED_TARGET_S = 1.0


def _qt_app():
    from PySide6.QtCore import QCoreApplication, QSettings
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([sys.argv[0]])
    QCoreApplication.setOrganizationName("autogradviz-bench")
    QSettings.setPath(QSettings.IniFormat, QSettings.UserScope, os.path.join(TMP, "settings"))
    return app


class Heartbeat:
    """The longest gap between ticks of a 10 ms timer on the GUI thread."""

    def __init__(self):
        from PySide6.QtCore import QTimer

        self.max_gap = 0.0
        self._last = time.perf_counter()
        self._timer = QTimer()
        self._timer.setInterval(10)
        self._timer.timeout.connect(self._tick)
        self._timer.start()

    def _tick(self):
        now = time.perf_counter()
        self.max_gap = max(self.max_gap, now - self._last)
        self._last = now

    def stop(self):
        self._tick()
        self._timer.stop()


def _pane():
    from autogradviz.app.panels.output import OutputPane

    pane = OutputPane()
    pane.resize(900, 400)
    pane.show()
    return pane


def _drawn(pane) -> bool:
    """Nothing of the output is waiting to be drawn."""
    return not pane._pending and not pane._flush_timer.isActive()


def bench_live(name: str, source: str, limit_s: float):
    """(seconds from Run to all text shown or None, to the trace's arrival,
    longest freeze, text right)."""
    from PySide6.QtCore import QEventLoop

    from autogradviz.app.services.worker_process import READY, WorkerProcess

    app = _qt_app()
    worker = WorkerProcess(timeout_s=600)
    worker.start()
    end = time.monotonic() + 120
    while worker.state != READY:
        if time.monotonic() > end:
            raise RuntimeError("the worker did not start")
        app.processEvents(QEventLoop.AllEvents, 20)
    pane = _pane()
    worker.outputReceived.connect(pane.append_output)
    traces = []
    worker.traceReady.connect(lambda trace: traces.append(time.perf_counter()))
    beat = Heartbeat()
    t0 = time.perf_counter()
    worker.run(source, f"{name}.py", "cpu")
    end = time.monotonic() + limit_s
    seconds = None
    while time.monotonic() < end:
        app.processEvents(QEventLoop.AllEvents, 5)
        if traces and _drawn(pane):
            seconds = time.perf_counter() - t0
            break
    beat.stop()
    ok = seconds is not None and pane.plain_text == EXPECTED[name]
    worker_s = traces[0] - t0 if traces else None
    worker.shutdown()
    pane.close()
    return seconds, worker_s, beat.max_gap, ok


def bench_saved(limit_s: float):
    """Seconds from File > Open Trace (a trace whose stdout is one 1 M-character
    line) until the main window shows it, the CPU seconds this process used
    meanwhile (less sensitive to a busy machine), and whether the text is right."""
    from PySide6.QtCore import QEventLoop

    from autogradviz.app.theme import ThemeManager
    from autogradviz.app.window.main_window import MainWindow
    from autogradviz.engine.trace import codec
    from autogradviz.engine.trace.model import Trace

    app = _qt_app()
    path = os.path.join(TMP, "dots.trace.json")
    with open(path, "wb") as f:
        f.write(codec.encode_trace(Trace(script="dots.py", source=DOTS, stdout="." * N_DOTS)))
    theme = ThemeManager()
    w = MainWindow(theme_manager=theme, start_worker=False, restore_autosave=False)
    w.ask_unsaved = lambda: "discard"
    w.trace_files.quiet = True
    w.show()
    for _ in range(20):
        app.processEvents(QEventLoop.AllEvents, 20)
    opened = []
    w.trace_files.traceOpened.connect(opened.append)
    t0, cpu0 = time.perf_counter(), time.process_time()
    w.trace_files.open(path)
    end = time.monotonic() + limit_s
    while not opened and time.monotonic() < end:
        app.processEvents(QEventLoop.AllEvents, 5)
    w.output.repaint()
    seconds = time.perf_counter() - t0 if opened else None
    cpu = time.process_time() - cpu0
    shown = w.output.text_of() if hasattr(w.output, "text_of") else w.output.document().toPlainText()
    ok = bool(opened) and "\n" + EXPECTED["dots"] + "\n" in shown
    w.close()
    return seconds, cpu, ok


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="dots,progress,saved")
    parser.add_argument("--limit", type=float, default=120.0, help="give up on a workload after this")
    parser.add_argument("--repeats", type=int, default=3, help="times the saved trace is opened")
    args = parser.parse_args(argv)
    targets = Targets()
    only = set(args.only.split(","))
    for name, source in (("dots", DOTS), ("progress", PROGRESS)):
        if name not in only:
            continue
        seconds, worker_s, gap, ok = bench_live(name, source, args.limit)
        shown = f"{seconds:.2f} s" if seconds is not None else f"not finished after {args.limit:.0f} s"
        arrived = f"{worker_s:.2f} s" if worker_s is not None else "-"
        print(f"{name}: Run -> all text shown {shown} (trace arrived {arrived}); longest event-loop freeze "
              f"{gap * 1000:.0f} ms; text {'right' if ok else 'WRONG'}", flush=True)
        targets.check(f"{name} shown", seconds is not None and seconds < LIVE_TARGET_S and ok,
                      f"{shown}, target < {LIVE_TARGET_S:.0f} s")
        targets.check(f"{name} responsive", gap < GAP_TARGET_S,
                      f"longest freeze {gap * 1000:.0f} ms, target < {GAP_TARGET_S * 1000:.0f} ms")
    if "saved" in only:
        tries = [bench_saved(args.limit) for _ in range(args.repeats)]
        ok = all(right for _, _, right in tries)
        times = sorted(t for t, _, _ in tries if t is not None)
        seconds = times[len(times) // 2] if len(times) == len(tries) else None  # the median
        cpu = sorted(c for _, c, _ in tries)[len(tries) // 2]
        shown = f"{seconds:.2f} s (median of {len(tries)}; CPU {cpu:.2f} s)" if seconds is not None else \
            f"not finished after {args.limit:.0f} s"
        print(f"saved: Open Trace -> 1 M-character line shown {shown}; text {'right' if ok else 'WRONG'}",
              flush=True)
        targets.check("saved trace shown", seconds is not None and seconds < SAVED_TARGET_S and ok,
                      f"{shown}, target < {SAVED_TARGET_S:.0f} s")
    return targets.exit_code()


if __name__ == "__main__":
    raise SystemExit(main())
