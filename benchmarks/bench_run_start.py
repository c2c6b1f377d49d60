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
(a small script, whole run), for the zygote (every run a fork) and, side by
side in the same rounds, the same worker running every script in its own
process as before the zygote (AUTOGRADVIZ_WORKER_IN_PROCESS=1): on a shared
machine only a comparison made at the same time means anything. Target: the
zygote's median Run -> first line no worse than the in-process worker's (10 %
or 5 ms of noise allowed).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from autogradviz.engine.protocol.client import WorkerClient  # noqa: E402
from targets import Targets  # noqa: E402

NOISE = 1.10
NOISE_MS = 5.0

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
    from autogradviz.engine.worker.service import IN_PROCESS_ENV

    kinds = {"zygote": WorkerClient(), "in-process": WorkerClient(env={**os.environ, IN_PROCESS_ENV: "1"})}
    first = {k: [] for k in kinds}
    whole = {k: [] for k in kinds}
    try:
        for client in kinds.values():
            client.start()
            for _ in range(2):  # warm: the first runs import what a run needs
                one_run(client)
        for _ in range(args.runs):  # (alternating: both see the same load)
            for kind, client in kinds.items():
                a, b = one_run(client)
                first[kind].append(a * 1000)
                whole[kind].append(b * 1000)
    finally:
        for client in kinds.values():
            client.close()

    def p90(xs):
        return sorted(xs)[max(0, int(round(0.9 * len(xs))) - 1)]

    for kind in kinds:
        print(f"{kind:>10}: Run -> first line median {statistics.median(first[kind]):.1f} ms, "
              f"p90 {p90(first[kind]):.1f} ms; Run -> trace median {statistics.median(whole[kind]):.1f} ms, "
              f"p90 {p90(whole[kind]):.1f} ms ({args.runs} runs)")
    med, before = statistics.median(first["zygote"]), statistics.median(first["in-process"])
    limit = max(before * NOISE, before + NOISE_MS)
    targets.check("run_to_first_line", med <= limit,
                  f"zygote {med:.1f} ms, in-process {before:.1f} ms, limit {limit:.1f} ms")
    return targets.exit_code()


if __name__ == "__main__":
    raise SystemExit(main())
