"""Code <-> graph in the real window: step arrow, cursor -> nodes, node -> line.

A real run in the shared worker; what the editor and the graph show is
compared with the trace's own `Node.line` of each step's node.
"""

from __future__ import annotations

import pytest

from autogradviz.app.services.worker_process import READY

SCRIPT = """import torch

def scale(t, k):
    u = t * k
    return u - 1

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0, 4.0], requires_grad=True)
c = a * b
for i in range(2):
    c = scale(c, i + 2)
d = c.sum()
d.backward()
"""


def _line(text: str) -> int:
    return next(i for i, s in enumerate(SCRIPT.splitlines(), 1) if text in s)


@pytest.fixture
def ran(qtbot, main_window, shared_worker, wait_until):
    w = main_window
    w.ask_unsaved = lambda: "discard"  # (the tests edit the text; closing must not ask)
    wait_until(lambda: shared_worker.state == READY, 60_000, "worker ready")
    w.editor.setPlainText(SCRIPT)
    with qtbot.waitSignals([w.runFinished, w.graph_view.layoutFinished], timeout=120_000):
        w.actions["run"].trigger()
    assert w.session.trace.error is None
    return w


def test_stepping_moves_the_editor_arrow_to_the_line_of_each_step(ran):
    w = ran
    run = w.session.run
    assert run is not None and run.steps
    seen = set()
    for k in range(1, len(run.steps) + 1):
        w.session.set_step(k)
        node = w.session.node(run.steps[k - 1].node)
        assert w.editor.step_line == node.line, (k, node.op)
        if node.line is not None:
            seen.add(node.line)
            assert node.op in w.editor.marker_tip(node.line)
    # the ops inside the function and the loop's line are all visited
    assert {_line("u = t * k"), _line("return u - 1"), _line("c = a * b"), _line("d = c.sum()")} <= seen
    w.session.set_step(0)
    assert w.editor.step_line is None


def test_cursor_on_a_line_rings_the_nodes_it_made(ran):
    w = ran
    cursor = w.editor.textCursor()
    block = w.editor.document().findBlockByNumber(_line("u = t * k") - 1)
    cursor.setPosition(block.position())
    w.editor.setTextCursor(cursor)
    expected = {n.id for n in w.session.graph.nodes if n.line == _line("u = t * k")}
    assert len(expected) == 2  # one MulBackward0 per pass of the loop
    scene = w.graph_view.graph_scene()
    ringed = {nid for nid, items in scene.node_items.items() if any(it.line_hit for it in items)}
    assert ringed == expected
    # the label the line gives the unnamed nodes
    for nid in expected:
        assert any(it.box.lines[0] == "t * k" for it in scene.node_items[nid])


def test_selecting_a_node_moves_the_cursor_to_its_line_and_an_edit_drops_the_marks(ran):
    w = ran
    node = next(n for n in w.session.graph.nodes if n.op == "SumBackward0")
    w.graph_view.graph_scene().nodeClicked.emit(node.id)
    assert w.editor.textCursor().blockNumber() + 1 == node.line == _line("d = c.sum()")
    w.session.set_step(1)
    assert w.editor.step_line == node.line
    w.editor.textCursor().insertText("# ")
    assert w.editor.step_line is None
    assert not w.code_link.lit_nodes()
