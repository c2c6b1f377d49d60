"""Lessons run in the window: a representative few show a graph and a backward
pass, and the stepper's final leaf gradients equal what torch computes on its
own (in one plain-python subprocess: the GUI process never imports torch).

Every lesson's own facts - it runs, its look items resolve, its final leaf
gradients are torch's - are checked in tests/engine/test_lessons_in_worker.py
with one worker and no window; what only the window adds (layout, scene, the
stepper replaying to the end) needs no more than a few lessons: one with a
single backward (01), one with a hook and autograd.grad (02, opened by the
hook test too), one with broadcasting (03)."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

from autogradviz.app.resources_loader import default_lesson, lessons
from autogradviz.app.services.worker_process import READY

RUN_TIMEOUT_MS = 30_000
LAYOUT_TIMEOUT_MS = 30_000
READY_TIMEOUT_MS = 60_000

# Runs each lesson given with plain torch and prints, as the last line,
# {path: {name: grad values}} for every tensor in the namespace that has a .grad
# right after the script's last backward() (what the stepper shows at the end of
# that run; scaler.step() or clipping change .grad afterwards). One process for
# all of them: importing torch is the costly part.
EXPECTED = r"""
import io, json, sys, contextlib, torch
real_backward = torch.autograd.backward
result = {}
for path in sys.argv[1:]:
    ns = {"__name__": "__main__", "__file__": path}
    snap = result[path] = {}
    def backward(*args, **kwargs):
        out = real_backward(*args, **kwargs)
        snap.clear()
        snap.update({k: v.grad.detach().flatten().tolist() for k, v in list(ns.items())
                     if isinstance(v, torch.Tensor) and v.is_leaf and v.grad is not None})
        return out
    torch.autograd.backward = backward
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        exec(compile(open(path, encoding="utf-8").read(), path, "exec"), ns)
print(json.dumps(result))
"""

LESSONS = lessons()
# Run through the whole window here (graph, layout, stepper); every lesson runs in the
# worker and is checked against torch in tests/engine/test_lessons_in_worker.py.
WINDOW_LESSONS = [l for l in LESSONS if l.name[:2] in ("01", "02", "03")]


@pytest.fixture(scope="module")
def expected_grads() -> dict:
    """{lesson path: {name: grad values}} for WINDOW_LESSONS, from one plain-torch process."""
    paths = [str(l.path) for l in WINDOW_LESSONS]
    done = subprocess.run([sys.executable, "-c", EXPECTED, *paths], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_four_starter_lessons_with_both_languages():
    assert len(LESSONS) >= 4
    assert default_lesson() == LESSONS[0]
    for lesson in LESSONS:
        assert lesson.source.strip()
        for lang in ("en", "zh_CN"):
            md = lesson.path.with_name(f"{lesson.name}.{lang}.md")
            assert md.exists(), md
            assert lesson.title(lang) != lesson.name


@pytest.mark.parametrize("lesson", WINDOW_LESSONS, ids=[l.name for l in WINDOW_LESSONS])
def test_lesson_runs_shows_graph_and_correct_gradients(qtbot, lesson_window, lesson, wait_until, expected_grads):
    w = lesson_window
    wait_until(lambda: w.worker.state == READY, READY_TIMEOUT_MS, "worker ready")
    with qtbot.waitSignals([w.runFinished, w.graph_view.layoutFinished],
                           timeout=RUN_TIMEOUT_MS + LAYOUT_TIMEOUT_MS):
        w.files.open_lesson(lesson, run=True)
    trace = w.session.trace
    assert trace.error is None, trace.error
    assert trace.graphs and trace.backward_runs
    scene = w.graph_view.graph_scene()
    assert any(scene.node_items.values())

    # Step to the end of the last backward() run: the leaves' .grad must equal torch's.
    runs = [i for i, r in enumerate(trace.backward_runs) if r.kind == "backward"]
    last = runs[-1]
    w.session.select_run(last)
    w.session.set_step(w.session.step_count)
    state = w.session.state
    assert state is not None and state.step == len(trace.backward_runs[last].steps) > 0
    graph = trace.graph(trace.backward_runs[last].graph)
    labels = {n.id: n.label for n in graph.nodes if n.kind == "leaf"}
    shown = {labels[nid]: s.values for nid, s in state.leaf_grads.items() if labels.get(nid)}
    expected = expected_grads[str(lesson.path)]
    compared = 0
    for name, values in expected.items():
        if name in shown:
            assert len(shown[name]) == len(values)
            for a, b in zip(shown[name], values):
                assert math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-6), (name, shown[name], values)
            compared += 1
    assert compared >= 1, (expected.keys(), shown.keys())


def test_hook_lesson_shows_the_hook_firing_with_its_value(qtbot, lesson_window, wait_until):
    w = lesson_window
    lesson = next(l for l in LESSONS if "intermediate" in l.name)
    wait_until(lambda: w.worker.state == READY, READY_TIMEOUT_MS, "worker ready")
    with qtbot.waitSignal(w.runFinished, timeout=RUN_TIMEOUT_MS):
        w.files.open_lesson(lesson, run=True)
    trace = w.session.trace
    hooks = [e for r in trace.backward_runs for e in r.events if e.kind == "tensor_hook"]
    assert hooks, [e.kind for r in trace.backward_runs for e in r.events]
    assert hooks[0].received is not None and hooks[0].received.values == [1.0] * 4
    assert "global_grad    = 0.0" in w.output.plain_text
    assert any(r.kind == "grad" for r in trace.backward_runs)


def test_clicking_a_lesson_opens_it_once(qtbot, qapp):
    from PySide6.QtCore import Qt

    from autogradviz.app.panels.lessons import LessonsPanel

    panel = LessonsPanel()
    qtbot.addWidget(panel)
    panel.show()
    qtbot.waitExposed(panel)
    opened = []
    panel.lessonActivated.connect(opened.append)
    item = panel.item_for(LESSONS[1].name)
    rect = panel.tree.visualItemRect(item)
    qtbot.mouseClick(panel.tree.viewport(), Qt.LeftButton, pos=rect.center())
    assert [l.name for l in opened] == [LESSONS[1].name]
    assert panel.text.toPlainText().strip()
