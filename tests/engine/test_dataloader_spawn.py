"""DataLoader workers started with the spawn method (the default on macOS and
Windows) re-import the script as `__mp_main__` to find its Dataset class: in
the worker they must run as under plain `python`, with the same gradients."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "data" / "dataloader_spawn.py"
GRADS = re.compile(r"weight\.grad (\S+) bias\.grad (\S+)")


def test_spawn_dataloader_workers_run_and_backward_is_recorded(worker):
    plain = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True,
                           cwd=str(SCRIPT.parent), timeout=240)
    assert plain.returncode == 0, plain.stderr
    outcome = worker.run(SCRIPT.read_text(), filename=str(SCRIPT), timeout=240)
    trace = outcome.trace
    assert trace.error is None, trace.error
    assert GRADS.search(trace.stdout).groups() == GRADS.search(plain.stdout).groups()
    # two batches of 4: two backward calls, in the main process (the loader's
    # workers only load data), the last one's bias gradient the printed one
    runs = trace.backward_runs
    assert len(runs) == 2 and {r.pid for r in runs} == {runs[0].pid}
    bias = float(GRADS.search(plain.stdout).group(2))
    last = runs[-1].leaf_grads
    labels = {n.id: n.label for n in trace.graph(runs[-1].graph).nodes}
    got = {labels[k]: v.values for k, v in last.items()}
    assert any(abs(vals[0] - bias) == 0 for name, vals in got.items() if "bias" in name), got
