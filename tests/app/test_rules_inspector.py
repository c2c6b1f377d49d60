"""The Inspector explains each gradient and checks it numerically, in the real window.

A script runs in the real worker; at the last step the Inspector shows the
node's rule with the recorded numbers ending in the gradient torch sent, the
stepper's caption quotes the rule, a node outside the table shows torch's own
formula, and "Compare with finite differences" (button and shortcut) brings
back float64 differences that agree with the gradient torch computes here.
"""

from __future__ import annotations

import re

import torch
from PySide6.QtCore import Qt

from autogradviz.engine.trace.tensor_text import inline_text

SCRIPT = """import torch
x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
w = torch.tensor([[0.5, -1.0], [2.0, 1.0]], requires_grad=True)
y = x * w
loss = torch.linalg.vector_norm(y @ w)
loss.backward()
"""


def _run(qtbot, w):
    w.editor.setPlainText(SCRIPT)
    with qtbot.waitSignals([w.runFinished, w.graph_view.layoutFinished], timeout=120_000):
        w.actions["run"].trigger()
    assert w.session.trace.error is None, w.session.trace.error
    w.session.set_step(w.session.step_count)


def _node(w, label=None, op=None):
    return next(n for n in w.session.graph.nodes if (label and n.label == label) or (op and n.op == op))


def _plain(label) -> str:
    text = re.sub("<[^>]+>", " ", label.text())
    for entity, char in (("&lt;", "<"), ("&gt;", ">"), ("&nbsp;", " "), ("&#x27;", "'"), ("\u200b", "")):
        text = text.replace(entity, char)
    return re.sub(r"\s+", " ", text)


def test_rule_numbers_caption_yaml_and_finite_differences(qtbot, main_window):
    w = main_window
    _run(qtbot, w)
    insp = w.panels.widget("inspector")
    y = _node(w, "y")
    w.session.select_node(y.id)
    text = _plain(insp.why_box.label)
    assert "∂L/∂x = grad ⊙ w = [[" in text and "∂L/∂w = grad ⊙ x = [[" in text, text
    x_values = next(n for n in w.session.graph.nodes if n.label == "x").tensor
    assert inline_text(x_values) in text  # the recorded x plugged into ∂L/∂w
    step = w.session.state.node_steps[y.id]
    assert inline_text(step.grad_inputs[0]) in text  # ends in the gradient torch sent to x
    # the caption of the step that ran y quotes the rule
    pos = w.session.run.steps.index(step) + 1
    w.session.set_step(pos)
    stepper = w.panels.widget("stepper")
    assert "∂L/∂x = grad ⊙ w" in stepper.step_label.text()
    # ...and names the line that made the node (the script's line 4)
    assert y.line == 4 and "Made by line 4: y = x * w" in _plain(stepper.step_label)
    w.session.set_step(w.session.step_count)
    # a node outside the table: torch's formula from derivatives.yaml
    norm = _node(w, op="LinalgVectorNormBackward0")
    w.session.select_node(norm.id)
    assert "linalg_vector_norm_backward(grad, self, ord, result, dim, keepdim)" in _plain(insp.why_box.label)
    # a torch without the yaml: said so (trace fields as the worker writes them then)
    trace = w.session.trace
    formulas, trace.torch_formulas, trace.torch_formulas_missing = trace.torch_formulas, {}, "absent"
    insp.why_box.refresh()
    assert "derivatives.yaml was not found" in _plain(insp.why_box.label)
    trace.torch_formulas, trace.torch_formulas_missing = formulas, None
    # finite differences for the leaf w, by the shortcut
    leaf = _node(w, "w")
    w.session.select_node(leaf.id)
    leaf_step = w.session.state.node_steps[leaf.id]
    assert "w.grad += grad = " + inline_text(leaf_step.grad_outputs[0]) in _plain(insp.why_box.label)
    box = insp.fd_box
    assert box.isVisible() and box.button.isEnabled()
    assert "Ctrl+Shift+D" in box.button.toolTip()
    w.activateWindow()
    box.button.setFocus()
    with qtbot.waitSignal(w.session.gradientCheckArrived, timeout=60_000) as blocker:
        qtbot.keyClick(box.button, Qt.Key_D, Qt.ControlModifier | Qt.ShiftModifier)
    reply = blocker.args[0]
    assert "error" not in reply, reply
    ns: dict = {}
    exec(SCRIPT, ns)  # torch's gradient of w, computed here
    fd = torch.tensor(reply["fd"], dtype=torch.float64).reshape(2, 2)
    assert torch.allclose(fd, ns["w"].grad.double(), rtol=1e-5, atol=1e-6)
    shown = _plain(box.result)
    assert "they agree" in shown and "largest difference" in shown, shown


def test_check_is_offered_only_where_it_can_be_made(qtbot, main_window):
    w = main_window
    _run(qtbot, w)
    insp = w.panels.widget("inspector")
    w.session.select_node(_node(w, "y").id)
    assert not insp.fd_box.isVisible()  # an op node: nothing to nudge
    w.session.select_node(_node(w, "x").id)
    assert insp.fd_box.isVisible() and insp.fd_box.button.isEnabled()
    assert insp.fd_box.button.shortcut().toString() == "Ctrl+Shift+D"
    assert Qt.TextSelectableByMouse & insp.fd_box.result.textInteractionFlags()


GRAD_SCRIPT = """import torch
x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
w = torch.tensor([[0.5, -1.0], [2.0, 1.0]], requires_grad=True)
loss = (torch.sin(x) * w).pow(2).sum()
gx, gw = torch.autograd.grad(loss, [x, w])
"""


def test_finite_differences_beside_what_autograd_grad_returned(qtbot, main_window):
    """A torch.autograd.grad run fills no .grad; the check compares with the
    result grad() returned for that leaf (recorded as the run's result)."""
    w = main_window
    w.editor.setPlainText(GRAD_SCRIPT)
    with qtbot.waitSignals([w.runFinished, w.graph_view.layoutFinished], timeout=120_000):
        w.actions["run"].trigger()
    assert w.session.trace.error is None, w.session.trace.error
    run = w.session.run
    assert run.kind == "grad"
    ns: dict = {}
    exec(GRAD_SCRIPT, ns)  # what grad() returns, computed here
    box = w.panels.widget("inspector").fd_box
    for name, expected in (("x", ns["gx"]), ("w", ns["gw"])):
        leaf = _node(w, name)
        (k,) = [i for i, nid in enumerate(run.result_nodes) if nid == leaf.id]
        assert run.results[k].values == expected.flatten().tolist()
        w.session.select_node(leaf.id)
        with qtbot.waitSignal(w.session.gradientCheckArrived, timeout=60_000) as blocker:
            box.button.click()
        reply = blocker.args[0]
        assert "error" not in reply, reply
        fd = torch.tensor(reply["fd"], dtype=torch.float64).reshape(2, 2)
        assert torch.allclose(fd, expected.double(), rtol=1e-5, atol=1e-6)
        shown = _plain(box.result)
        assert "they agree" in shown and "not recorded" not in shown, shown


def test_the_caption_quotes_the_code_without_its_comment():
    from autogradviz.app.panels.stepper import code_without_comment

    assert code_without_comment("z = (y + c) ** 2     # no retain_grad") == "z = (y + c) ** 2"
    assert code_without_comment("s = 'a # not a comment' + t") == "s = 'a # not a comment' + t"
    assert code_without_comment("x = f(a,") == "x = f(a,"  # (a line cut inside brackets)


PROGRESS_SCRIPT = """import torch
torch.manual_seed(0)
v = torch.randn(120, dtype=torch.float64, requires_grad=True)
loss = (v.sin() * v).sum()
loss.backward()
"""


def test_the_check_shows_how_far_it_has_got(qtbot, main_window):
    """A leaf of 120 elements: the box's bar turns from busy to a count of the
    elements done as the worker reports them, and goes when the answer comes."""
    w = main_window
    w.editor.setPlainText(PROGRESS_SCRIPT)
    with qtbot.waitSignals([w.runFinished, w.graph_view.layoutFinished], timeout=120_000):
        w.actions["run"].trigger()
    box = w.panels.widget("inspector").fd_box
    w.session.select_node(_node(w, "v").id)
    seen: list = []
    box.busy.valueChanged.connect(lambda value: seen.append((value, box.busy.maximum())))
    with qtbot.waitSignal(w.session.gradientCheckArrived, timeout=60_000) as blocker:
        box.button.click()
        assert box.busy.isVisible() and box.busy.maximum() == 0  # busy until the first report
    assert "error" not in blocker.args[0]
    assert (50, 120) in seen and (100, 120) in seen  # the worker reports every 50 elements
    assert not box.busy.isVisible()
    ns: dict = {}
    exec(PROGRESS_SCRIPT, ns)
    assert torch.allclose(torch.tensor(blocker.args[0]["fd"], dtype=torch.float64), ns["v"].grad,
                          rtol=1e-6, atol=1e-8)
