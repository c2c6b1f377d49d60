"""100 runs through one app session: memory and descriptors stay flat.

    python benchmarks/bench_leaks.py [--runs N]

The real main window with its real worker runs lesson 1 N times (Run, wait for
the trace and its layout, step to the end), as a learner pressing Run again and
again would. After a warm-up of 10 runs, and again after the last, it reads from
/proc: the GUI process's resident memory and open descriptors, and the worker's
(the zygote that forks a child per run) with the number of processes in its
tree. Targets: between run 10 and run N the GUI grows by at most 40 MB and 4
descriptors, the worker by at most 20 MB and 2 descriptors, and no process is
left over (each run's child is gone once the next run starts).
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

WARMUP = 10
GUI_MB, GUI_FDS = 40.0, 4
WORKER_MB, WORKER_FDS = 20.0, 2


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def tree(pid: int) -> list[int]:
    """`pid` and its descendants (from /proc's parent links)."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    parents[int(entry)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += [c for c, pp in parents.items() if pp == p]
    return out


def snapshot(worker_pid: int) -> dict:
    me = os.getpid()
    return {"gui_mb": rss_mb(me), "gui_fds": fds(me), "worker_mb": rss_mb(worker_pid),
            "worker_fds": fds(worker_pid), "procs": len(tree(worker_pid))}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=100)
    args = parser.parse_args()
    from PySide6.QtCore import QCoreApplication, QSettings
    from PySide6.QtWidgets import QApplication

    app = QApplication([sys.argv[0]])
    QCoreApplication.setOrganizationName("autogradviz-bench")
    QSettings.setPath(QSettings.IniFormat, QSettings.UserScope, os.path.join(TMP, "settings"))
    from autogradviz.app.resources_loader import lessons
    from autogradviz.app.services.worker_process import READY
    from gui_harness import open_window, wait_until

    w = open_window(size=(1500, 950))

    def wait(predicate, seconds: float, what: str) -> None:
        wait_until(app, predicate, seconds, what)

    wait(lambda: w.worker.state == READY, 120, "the worker")
    w.editor.setPlainText(lessons()[0].source)
    done = {"n": 0}
    w.runFinished.connect(lambda *_: done.__setitem__("n", done["n"] + 1))
    marks = {}
    t0 = time.perf_counter()
    for k in range(1, args.runs + 1):
        w.run_script()
        wait(lambda: done["n"] >= k and w.worker.state == READY and not w.status.layout_busy, 120, f"run {k}")
        w.session.set_step(w.session.step_count)
        app.processEvents()
        if k in (WARMUP, args.runs):
            marks[k] = snapshot(w.worker.pid())
    elapsed = time.perf_counter() - t0
    a, b = marks[WARMUP], marks[args.runs]
    print(f"{args.runs} runs in {elapsed:.1f} s ({elapsed / args.runs * 1000:.0f} ms a run)")
    for key in a:
        print(f"  {key}: run {WARMUP} {a[key]:.1f} -> run {args.runs} {b[key]:.1f}")
    t = Targets()
    t.check("gui memory flat", b["gui_mb"] - a["gui_mb"] <= GUI_MB, f"{b['gui_mb'] - a['gui_mb']:+.1f} MB")
    t.check("gui descriptors flat", b["gui_fds"] - a["gui_fds"] <= GUI_FDS, f"{b['gui_fds'] - a['gui_fds']:+d}")
    t.check("worker memory flat", b["worker_mb"] - a["worker_mb"] <= WORKER_MB,
            f"{b['worker_mb'] - a['worker_mb']:+.1f} MB")
    t.check("worker descriptors flat", b["worker_fds"] - a["worker_fds"] <= WORKER_FDS,
            f"{b['worker_fds'] - a['worker_fds']:+d}")
    t.check("no process left over", b["procs"] <= a["procs"], f"{a['procs']} -> {b['procs']} processes")
    w.close()
    return t.exit_code()


if __name__ == "__main__":
    raise SystemExit(main())
