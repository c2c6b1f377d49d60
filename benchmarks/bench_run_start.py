"""Run -> the script's first line: how long a warm worker takes to start a run.

    .venv/bin/python benchmarks/bench_run_start.py [--runs 20]

Each run is a fresh process forked from the worker's zygote (issue 24: every
run as fresh as `python script.py`); what the learner feels is the time from
pressing Run (the `run` request leaving the client) to the script's first
line running. The script's first line prints `time.time()`; the client notes
`time.time()` right before it sends the request (same machine, same clock).
Every run follows a run that built a small model and called backward, so the
previous run's process (kept for `fetch`) has to be ended first, as in the app.

Figures: median and 90th percentile of Run -> first line, and of Run -> trace
(a small script, whole run). Target: the median Run -> first line no worse
than the in-process worker before the zygote (BEFORE_MS, measured on the
reference 2-core machine with the same script), with 25 % for the noise of a
shared machine.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from autogradviz.engine.protocol.client import WorkerClient  # noqa: E402
from targets import Targets  # noqa: E402

# Median Run -> first line of the in-process worker (before the zygote), this
# benchmark, reference machine (2 cores, CPU torch).
BEFORE_MS = 79.5
NOISE = 1.25

SCRIPT = """print(__import__("time").time())
import torch
model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
loss = model(torch.randn(4, 8)).pow(2).mean()
loss.backward()
"""


def one_run(client: WorkerClient) -> tuple[float, float]:
    """(Run -> first line, Run -> trace) in seconds."""
    printed: list[str] = []
    sent = time.time()
    outcome = client.run(SCRIPT, on_output=lambda stream, text: printed.append(text), timeout=60)
    done = time.time()
    if outcome.status != "ok":
        raise SystemExit(f"the run failed: {outcome.message}")
    first = float("".join(printed).split()[0])
    return first - sent, done - sent


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    args = ap.parse_args()
    targets = Targets()
    first, whole = [], []
    with WorkerClient() as client:
        client.start()
        for _ in range(2):  # warm: the first runs import what a run needs
            one_run(client)
        for _ in range(args.runs):
            a, b = one_run(client)
            first.append(a * 1000)
            whole.append(b * 1000)

    def p90(xs):
        return sorted(xs)[max(0, int(round(0.9 * len(xs))) - 1)]

    med = statistics.median(first)
    print(f"Run -> first line: median {med:.1f} ms, p90 {p90(first):.1f} ms ({args.runs} runs)")
    print(f"Run -> trace:      median {statistics.median(whole):.1f} ms, p90 {p90(whole):.1f} ms")
    if BEFORE_MS is None:
        print("(no BEFORE_MS recorded: figures only)")
    else:
        limit = BEFORE_MS * NOISE
        targets.check("run_to_first_line", med <= limit,
                      f"median {med:.1f} ms, before {BEFORE_MS:g} ms, limit {limit:.1f} ms")
    return targets.exit_code()


if __name__ == "__main__":
    raise SystemExit(main())
