"""`run.open()` of the Python API (engine/api/recording.py): the desktop app
starts in a process of its own on the trace the block recorded.

All real: a script in its own Python records a backward pass with
`autogradviz.record()` and calls `run.open(path)`; the real app starts
(offscreen) from that call's command line, reads the file on its reading
thread and shows it; then, told by AUTOGRADVIZ_QUIT_AFTER_OPEN
(app/gui_main.py), it writes what it loaded to a report and quits. The test
compares that with the file `run.open()` wrote and with the graph torch built
(walked in the test)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import torch

from autogradviz.engine.trace import codec

SCRIPT = r'''
import sys
import torch
import autogradviz

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
with autogradviz.record() as run:
    y = (x * x).sin().sum()
    y.backward()
app = run.open(sys.argv[1])
sys.exit(app.wait(timeout=240))
'''


def _torch_graph() -> list[str]:
    """The node names torch builds for the script's expression, depth first."""
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (x * x).sin().sum()
    names, stack, seen = [], [y.grad_fn], set()
    while stack:
        n = stack.pop()
        if n is None or n in seen:
            continue
        seen.add(n)
        names.append(n.name().split("::")[-1])
        stack.extend(m for m, _ in n.next_functions)
    return sorted(names)


def test_run_open_starts_the_app_on_the_recorded_trace(tmp_path):
    script = tmp_path / "learner.py"
    script.write_text(SCRIPT, encoding="utf-8")
    path, report = tmp_path / "run.json", tmp_path / "shown.json"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", AUTOGRADVIZ_QUIT_AFTER_OPEN=str(report),
               XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_DATA_HOME=str(tmp_path / "data"))
    proc = subprocess.run([sys.executable, str(script), str(path)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, (proc.returncode, proc.stdout[-2000:], proc.stderr[-4000:])
    shown = json.loads(report.read_text(encoding="utf-8"))
    assert "failed" not in shown, shown
    assert shown["opened"] == str(path.resolve())  # the file run.open() wrote, by its own command
    saved = codec.decode_trace(path.read_bytes())
    assert shown["script"] == saved.script == str(script)
    assert shown["nodes"] == [[n.id for n in g.nodes] for g in saved.graphs]
    assert shown["steps"] == [[s.node for s in r.steps] for r in saved.backward_runs]
    # what was shown is the backward torch ran: one run, a step per node of its graph
    assert len(shown["steps"]) == 1 and len(shown["nodes"]) == 1
    assert sorted(shown["steps"][0]) == sorted(shown["nodes"][0])
    ops = sorted(n.op.split("::")[-1] for n in saved.graphs[0].nodes)
    assert ops == _torch_graph()

