"""File ▸ Save Trace and File ▸ Open Trace with the real worker: a saved trace
opens exactly as it was recorded (graph, steps, values, GradScaler and
checkpoint panels) without a worker; full values say they are not available;
newer versions and garbage are refused with a clear message."""

from __future__ import annotations

import json

import pytest

from autogradviz.engine.trace import codec
from autogradviz.engine.trace.model import VERSION

from autogradviz.app.services.worker_process import READY

RUN_TIMEOUT_MS = 60_000

SCRIPT = """\
import torch
from torch.utils.checkpoint import checkpoint
torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu", init_scale=8.0)
x = torch.randn(4, 3, requires_grad=True)
h = checkpoint(lambda t: torch.tanh(model(t)), x, use_reentrant=False)
loss = (h ** 2).mean()
scaler.scale(loss).backward()
scaler.step(opt)
scaler.update()
big = torch.arange(100.0, requires_grad=True)
(big * 2).sum().backward()
print("loss", loss.item())
"""


@pytest.fixture
def recorded(qtbot, main_window, wait_until, shared_worker, tmp_path):
    """The window after a real run of SCRIPT, and that run's trace."""
    w = main_window
    wait_until(lambda: shared_worker.state == READY, 60_000, "worker ready")
    w.trace_files.quiet = True
    w.ask_unsaved = lambda: "discard"
    w.files.new_file()
    w.editor.setPlainText(SCRIPT)
    with qtbot.waitSignal(w.runFinished, timeout=RUN_TIMEOUT_MS) as blocker:
        w.actions["run"].trigger()
    trace = blocker.args[0]
    assert trace.error is None, trace.error
    return w, trace


def _save(qtbot, w, path):
    with qtbot.waitSignal(w.trace_files.traceSaved, timeout=20_000):
        w.trace_files.save(str(path))


def _open(qtbot, w, path):
    with qtbot.waitSignal(w.trace_files.traceOpened, timeout=20_000):
        w.trace_files.open(str(path))
    return w.session.trace


def test_save_then_open_shows_the_same_trace_without_a_worker(qtbot, recorded, tmp_path):
    w, trace = recorded
    before = codec.to_builtins(trace)
    steps_before = w.session.step_count
    nodes_before = sorted(n.id for n in w.session.graph.nodes)
    path = tmp_path / "run.trace.json"
    _save(qtbot, w, path)
    assert json.loads(path.read_text())["format"] == "autogradviz-trace"
    assert f"Saved the trace to {path}" in w.output.plain_text

    w.session.set_trace(None)  # (what a new run that failed would leave)
    w.output.clear()
    w.editor.setPlainText("print('other code')\n")
    opened = _open(qtbot, w, path)
    assert opened.source == SCRIPT and w.editor.toPlainText() == SCRIPT  # the code it was recorded from
    assert opened is not trace
    assert codec.to_builtins(opened) == before  # graphs, steps, values, scaler and checkpoint records
    assert w.session.saved_file == str(path)
    assert w.session.step_count == steps_before
    assert sorted(n.id for n in w.session.graph.nodes) == nodes_before
    # The same leaf gradient values as torch computed in the run.
    run = opened.backward_runs[0]
    assert run.leaf_grads == trace.backward_runs[0].leaf_grads
    # The panels that belong to such a trace show, as after the run.
    assert w.panels.dock("gradScaler").isVisibleTo(w)
    assert w.panels.dock("checkpoint").isVisibleTo(w)
    # The output shows the recorded prints and says where the trace is from.
    assert "Saved trace" in w.output.plain_text and "loss " in w.output.plain_text

    # Full values of a truncated tensor: not available, said in words.
    big = next(n for g in opened.graphs for n in g.nodes
               if n.tensor is not None and n.tensor.truncated and n.tensor.id)
    with qtbot.waitSignal(w.session.valuesArrived, timeout=5000) as answer:
        w.session.request_values(big.tensor.id)
    assert answer.args[0] == big.tensor.id
    assert isinstance(answer.args[1], str) and "not available for a saved trace" in answer.args[1]


def test_newer_version_and_garbage_are_refused_and_nothing_changes(qtbot, recorded, tmp_path):
    w, trace = recorded
    path = tmp_path / "t.json"
    _save(qtbot, w, path)
    data = json.loads(path.read_text())
    data["version"] = VERSION + 1
    newer = tmp_path / "newer.json"
    newer.write_text(json.dumps(data))
    garbage = tmp_path / "garbage.json"
    garbage.write_bytes(b"\x00\x01 not json at all")
    other = tmp_path / "other.json"
    other.write_text('{"format": "something-else", "version": 1}')

    for bad, expect in ((newer, "newer Autograd Visualizer"), (garbage, "is not an Autograd Visualizer trace"),
                        (other, "is not an Autograd Visualizer trace"),
                        (tmp_path / "missing.json", "Could not open")):
        with qtbot.waitSignal(w.trace_files.failed, timeout=10_000) as failure:
            w.trace_files.open(str(bad))
        assert expect in failure.args[0] and str(bad) in failure.args[0]
        assert w.session.trace is trace  # what was shown stays
        assert w.session.saved_file is None


def test_older_trace_file_still_opens(qtbot, main_window):
    """tests/data/trace_v1.json: written before the space-saving rules."""
    import pathlib

    w = main_window
    w.trace_files.quiet = True
    path = pathlib.Path(__file__).parents[1] / "data" / "trace_v1.json"
    opened = _open(qtbot, w, path)
    assert opened.graphs and w.session.saved_file.endswith("trace_v1.json")


def test_app_started_on_a_trace_file_shows_it_and_runs_nothing(qtbot, recorded, tmp_path, shared_worker):
    from autogradviz.app.theme import ThemeManager
    from autogradviz.app.window.main_window import MainWindow

    w, trace = recorded
    path = tmp_path / "cli.trace.json"
    _save(qtbot, w, path)
    theme = ThemeManager()
    second = MainWindow(theme_manager=theme, worker=shared_worker, start_worker=True, restore_autosave=False,
                        open_path=str(path))
    qtbot.addWidget(second)
    second.trace_files.quiet = True
    qtbot.waitUntil(lambda: second.session.trace is not None, timeout=20_000)
    assert codec.to_builtins(second.session.trace) == codec.to_builtins(trace)
    assert second.session.saved_file == str(path)
    assert shared_worker.state == READY  # the default lesson was not run
    assert second.editor.toPlainText() == SCRIPT
    second.ask_unsaved = lambda: "discard"
    second.close()
    theme.deleteLater()


def test_open_recent_reopens_a_saved_trace_as_a_trace(qtbot, recorded, tmp_path):
    from PySide6.QtWidgets import QMenu

    from autogradviz.app.services import settings

    w, trace = recorded
    path = tmp_path / "recent.trace.json"
    _save(qtbot, w, path)
    assert settings.recent_files()[0] == str(path)
    menu = QMenu()
    w.files.fill_recent_menu(menu)
    entry = next(a for a in menu.actions() if a.toolTip() == str(path))
    w.session.set_trace(None)
    with qtbot.waitSignal(w.trace_files.traceOpened, timeout=20_000):
        entry.trigger()
    assert w.session.saved_file == str(path)
    assert codec.to_builtins(w.session.trace) == codec.to_builtins(trace)
