"""Every number a panel shows says what it counts, checked against torch's own
figures computed here, independently of the app (issue 20):

- the GradScaler lesson: the table's scale per iteration is the scale torch's
  GradScaler had; the chart marks a skipped step and the backoff it caused at
  the same iteration (× at i, ▼ at the end of i), and a refused call's words
  overlap no other caption of the stage diagram;
- the memory lesson: "parameters" is the modules' parameters (612 B in lesson
  30, not 740 B with the input x), the input and its gradient are said apart;
- the Modules table says when its call counts include checkpoint re-runs."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from autogradviz.app.panels.grad_scaler import GradScalerPanel
from autogradviz.app.panels.memory.curve_data import human_bytes
from autogradviz.app.panels.memory.panel import MemoryPanel
from autogradviz.app.panels.modules.panel import ModulesPanel
from autogradviz.app.session import TraceSession

from test_graph_support import trace_of

LESSONS = Path(__file__).resolve().parents[2] / "resources" / "lessons"


def _source(name: str) -> str:
    return (LESSONS / name).read_text(encoding="utf-8")


def _exec(source: str) -> dict:
    """The script run here with plain torch (no app, no worker): its namespace."""
    ns = {"__name__": "__main__"}
    exec(compile(source, "<lesson>", "exec"), ns)
    return ns


@pytest.fixture(scope="module")
def scaler_trace():
    return trace_of(_source("22_overflow_and_growth.py"))


@pytest.fixture
def scaler_panel(qtbot, scaler_trace):
    session = TraceSession()
    p = GradScalerPanel(session)
    qtbot.addWidget(p)
    p.resize(1100, 700)
    p.show()
    session.set_trace(scaler_trace)
    return p


def test_scaler_table_scales_are_torchs(scaler_panel, capsys):
    # the lesson again in plain torch, with the scale each iteration ran with and after its update()
    source = _source("22_overflow_and_growth.py").replace(
        "    scale = scaler.get_scale()\n", "    scale = scaler.get_scale(); RAN.append(scale)\n").replace(
        "    scaler.update()", "    SKIPPED.append(skipped); scaler.update(); AFTER.append(scaler.get_scale())\n    #")
    ns = _exec("RAN, AFTER, SKIPPED = [], [], []\n" + source)
    capsys.readouterr()
    ran, after, skipped = ns["RAN"], ns["AFTER"], ns["SKIPPED"]
    assert any(skipped) and len(ran) == 8
    table = scaler_panel.table
    assert table.rowCount() == len(ran)
    assert [float(table.item(r, 2).text()) for r in range(len(ran))] == ran
    assert [table.item(r, 4).text() != scaler_panel.tr("no") for r in range(len(ran))] == skipped
    # the chart: iteration i at the scale it ran with; the update at its end, at the new scale
    import math

    marks = scaler_panel.chart.marks()
    ran_with = scaler_panel.chart._ran_with()
    assert [2 ** ran_with[i] for i in range(len(ran))] == ran
    skipped_at = [i for i, s in enumerate(skipped) if s]
    assert [x for x, _ in marks["skipped"]] == skipped_at
    for i in skipped_at:
        # torch backed off in the same iteration's update(): its ▼ is at that iteration's end
        assert (i + 0.5, math.log2(after[i])) in marks["backoff"]
        assert after[i] < ran[i]
    grown = [i for i in range(len(ran)) if after[i] > ran[i]]
    assert [x for x, _ in marks["growth"]] == [i + 0.5 for i in grown]


SCALER_REFUSED = """\
import torch
w = torch.zeros(2, requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1)
scaler = torch.amp.GradScaler("cpu")
scaler.scale(w.sum()).backward()
scaler.unscale_(opt)
try:
    scaler.unscale_(opt)
except RuntimeError as e:
    print(e)
scaler.step(opt)
scaler.update()
"""


def test_a_refused_call_overlaps_no_caption_and_its_message_is_whole(qtbot):
    session = TraceSession()
    panel = GradScalerPanel(session)
    qtbot.addWidget(panel)
    panel.resize(900, 600)
    panel.show()
    session.set_trace(trace_of(SCALER_REFUSED))
    refused = [i for i, e in enumerate(panel.events) if e.error is not None]
    assert refused
    panel.set_index(refused[0])
    d = next(iter(panel.diagrams.values()))
    assert d.refused is not None and d.message
    rects = d.text_rects()
    assert {"refused", "message", "arrow:update"} <= set(rects)
    names = list(rects)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            assert not rects[a].intersects(rects[b]), (a, rects[a], b, rects[b])
        assert rects[a].bottom() <= d.height(), a
    # the call list wraps a refusal: all of torch's message is in the row, none cut off
    item = panel.calls.item(refused[0])
    assert panel.events[refused[0]].error.message in item.text()
    assert panel.calls.wordWrap()


@pytest.fixture(scope="module")
def memory_trace():
    return trace_of(_source("30_checkpoint_mlp.py"))


def test_memory_parameters_are_the_modules_and_the_input_is_said_apart(qtbot, memory_trace, capsys):
    ns = _exec(_source("30_checkpoint_mlp.py"))
    capsys.readouterr()
    params = sum(p.numel() * p.element_size() for m in (ns["mlp"], ns["head"]) for p in m.parameters())
    x = ns["x"]
    assert isinstance(x, torch.Tensor) and x.requires_grad
    session = TraceSession()
    panel = MemoryPanel(session)
    qtbot.addWidget(panel)
    panel.resize(1100, 500)
    panel.show()
    try:
        session.set_trace(memory_trace)
        values = panel.parts.values()
        for moment, parts in values.items():
            assert parts["parameters"] == params, moment  # 612, not 740 with x
        assert values["after_backward"]["gradients"] == params  # every parameter got a .grad
        legend = panel.parts_legend.text().replace("&nbsp;", " ").replace("\u2060", "")
        assert f"parameters {human_bytes(params)}" in legend
        assert panel.leaves_note.isVisibleTo(panel)
        x_bytes = human_bytes(x.numel() * x.element_size())
        assert panel.leaves_note.text().count(x_bytes) == 2  # x and x.grad: 128 B each
    finally:
        panel.shutdown()


def test_modules_table_says_its_counts_include_the_recompute(qtbot, memory_trace):
    session = TraceSession()
    panel = ModulesPanel(session)
    qtbot.addWidget(panel)
    panel.show()
    session.set_trace(memory_trace)
    rows = {r[0].split()[0]: int(r[3]) for r in panel.rows()}
    assert rows["mlp.0"] == 3 and rows["mlp.2"] == 2  # forward, the re-run (cut short in mlp.2), plain
    assert panel.recompute_note.isVisibleTo(panel)
    note = panel.recompute_note.text()
    assert "mlp" in note and "1 checkpoint re-run" in note and "stopped a re-run early" in note
