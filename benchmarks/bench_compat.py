"""Speed of what makes scripts behave as under python in a terminal.

- Output pane: the worker forwards at most 1,000,000 characters per run
  (OUTPUT_CAP). A tqdm-like bar rewriting its line with `\\r` and ANSI colours
  for all of them must be drawn (fed in the worker's 16 KiB batches, each
  flushed) within 1.0 s; 40,000 plain lines within 1.0 s.
- Saved traces: opening the ~10,000-node chain (workloads.DEEP_CHAIN, recorded
  by `autogradviz trace`) off the GUI thread, decode + stepper tables,
  within 2.0 s; saving it within 2.0 s.
- No display: `autogradviz` without a display exits 2 within 1.5 s (an
  interpreter start, no Qt).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from targets import Targets  # noqa: E402
from workloads import DEEP_CHAIN  # noqa: E402

BATCH = 16_384


def _pane():
    from autogradviz.app.startup import keep_none_alive

    keep_none_alive()
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([sys.argv[0]])
    from autogradviz.app.panels.output import OutputPane

    return app, OutputPane()


def _feed(pane, text: str) -> float:
    pane.clear()
    t0 = time.perf_counter()
    for i in range(0, len(text), BATCH):
        pane.append_output("stdout", text[i:i + BATCH])
        pane.flush()
    return time.perf_counter() - t0


def bench_output(targets: Targets) -> None:
    _app, pane = _pane()
    bar, i = [], 0
    while sum(map(len, bar)) < 1_000_000:
        bar.append(f"\r\x1b[32m{i % 101:3d}%\x1b[0m|{'#' * (i % 50):<50}| {i}/100000 [00:{i % 60:02d}<00:10]")
        i += 1
    text = "".join(bar)
    took = _feed(pane, text)
    ok = pane.plain_text == bar[-1].replace("\x1b[32m", "").replace("\x1b[0m", "").lstrip("\r")
    print(f"progress bar, {len(text):,} characters, {i:,} rewrites: {took:.2f} s", flush=True)
    targets.check("output_progress_1MB_under_1s", ok and took < 1.0, f"{took:.2f} s")
    plain = "".join(f"epoch {n}: loss {n * 0.001:.4f}\n" for n in range(40_000))
    took = _feed(pane, plain)
    print(f"plain output, 40,000 lines: {took:.2f} s", flush=True)
    targets.check("output_plain_40k_lines_under_1s", took < 1.0, f"{took:.2f} s")


def bench_saved_trace(targets: Targets) -> None:
    from autogradviz.app.window.trace_file_controller import read_trace_file, write_trace_file

    folder = tempfile.mkdtemp(prefix="autogradviz-bench-compat-")
    script = os.path.join(folder, "chain.py")
    with open(script, "w") as f:
        f.write(DEEP_CHAIN)
    path = os.path.join(folder, "chain.trace.json")
    subprocess.run([sys.executable, "-m", "autogradviz", "trace", script, "-o", path], check=True, timeout=600)
    t0 = time.perf_counter()
    trace = read_trace_file(path)
    opened = time.perf_counter() - t0
    nodes = sum(len(g.nodes) for g in trace.graphs)
    print(f"open a saved trace of {nodes:,} nodes ({os.path.getsize(path) / 1e6:.1f} MB): {opened:.2f} s")
    targets.check("open_saved_10k_node_trace_under_2s", nodes >= 9_000 and opened < 2.0, f"{opened:.2f} s")
    t0 = time.perf_counter()
    write_trace_file(trace, os.path.join(folder, "again.trace.json"))
    saved = time.perf_counter() - t0
    print(f"save it again: {saved:.2f} s", flush=True)
    targets.check("save_10k_node_trace_under_2s", saved < 2.0, f"{saved:.2f} s")


def bench_no_display(targets: Targets) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "autogradviz"], env=env, capture_output=True, timeout=60)
    took = time.perf_counter() - t0
    print(f"no display: exit {r.returncode} in {took:.2f} s", flush=True)
    targets.check("no_display_exit_2_under_1.5s", r.returncode == 2 and took < 1.5, f"{took:.2f} s")


def main() -> int:
    targets = Targets()
    bench_output(targets)
    bench_saved_trace(targets)
    bench_no_display(targets)
    return targets.exit_code()


if __name__ == "__main__":
    raise SystemExit(main())
