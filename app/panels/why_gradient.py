""""Why this gradient": a node's local derivative rule, with the recorded numbers.

The Inspector shows it in its own box and the stepper's caption quotes it
for the node that just ran. The rules come from the table in
engine/rules/ (bound to the learner's names and, at a step that ran the node,
to the values torch recorded, ending in the gradient torch really sent); for
any other node, torch's own formula as the worker read it from the installed
torch's derivatives.yaml (`Trace.torch_formulas`). Only the prose around the
formulas is translated here; the formulas are math.
"""

from __future__ import annotations

import html
from typing import Optional

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QGroupBox, QLabel, QVBoxLayout, QWidget

from autogradviz.engine.rules.bind import MAX_PLUGGED, bind, line_text
from autogradviz.engine.trace.tensor_text import complete, inline_text
from autogradviz.engine.trace.model import Node

from autogradviz.app.session import TraceSession


# Past this many characters the caption quotes the formulas without their numbers.
CAPTION_CHARS = 240
# The most inputs whose rule is bound and shown (a cat of 4,000 tensors: the
# first ones, then "… and N more inputs"): selecting a node costs what is drawn.
MAX_SLOTS_SHOWN = 24


def tr(text: str) -> str:
    return QCoreApplication.translate("WhyGradient", text)


def _words(text: str) -> str:
    return tr(text)


def _current_step(session: TraceSession, node_id: str):
    st = session.state
    return st.node_steps.get(node_id) if st is not None else None


def bound_rule(session: TraceSession, node: Node, numbers: bool = True):
    """The table's rule for `node` bound to the trace (engine/rules/bind.py), or None."""
    g = session.graph
    if g is None or node.kind == "leaf":
        return None
    step = _current_step(session, node.id) if numbers else None
    try:
        return bind(g, node, step, words=_words, max_slots=MAX_SLOTS_SHOWN)
    except Exception:  # a trace from another torch with other saved values: show torch's formula instead
        return None


def rule_lines(session: TraceSession, node: Node, numbers: bool = True) -> list[str]:
    """The rule's lines as plain text (no HTML): one per input, then "where …"
    lines; empty when the table has no rule for the node."""
    bound = bound_rule(session, node, numbers)
    if bound is None:
        return []
    lines = [line_text(s) if numbers else s.formula for s in bound.slots]
    if bound.omitted:
        lines.append(more_inputs_text(bound.omitted))
    lines += [tr("where {0}").format(w) for w in bound.wheres]
    return lines


def more_inputs_text(count: int) -> str:
    """The line after the inputs shown, for the ones left out."""
    return tr("… and {0} more inputs").format(f"{count:,}")


def rule_html(session: TraceSession, node: Node) -> str:
    """The rule for the Inspector: each input's formula, then (indented, one
    per line) the numbers plugged in and the gradient torch sent."""
    bound = bound_rule(session, node)
    if bound is None:
        return ""
    out = []
    for s in bound.slots:
        rows = [f"<b>{html.escape(s.formula)}</b>"]
        for more in (s.numbers, s.result):
            if more:
                rows.append("&nbsp;&nbsp;&nbsp;= " + html.escape(more))
        out.append("<br>".join(rows))
    if bound.omitted:
        out.append(html.escape(more_inputs_text(bound.omitted)))
    out += [html.escape(tr("where {0}").format(w)) for w in bound.wheres]
    return "<br>".join(out)


def torch_formula_lines(session: TraceSession, node: Node) -> list[str]:
    """torch's formula from derivatives.yaml for a node the table lacks, or why there is none."""
    t = session.trace
    if t is None or node.kind == "leaf":
        return []
    f = t.torch_formulas.get(node.op)
    if f is not None:
        return [f"{name}: {formula}" for name, formula in f.grads.items()]
    if t.torch_formulas_missing:
        return [tr("torch's derivatives.yaml was not found in the torch that ran, so its formula "
                   "cannot be shown.")]
    return [tr("derivatives.yaml has no entry for {0} (a custom autograd.Function or a node "
               "torch defines in C++ by hand).").format(node.op)]


def _leaf_text(session: TraceSession, node: Node) -> str:
    """AccumulateGrad's rule: "x.grad += grad", with the gradient it received at this step."""
    name = node.label or "leaf"
    text = f"{name}.grad += grad"
    step = _current_step(session, node.id)
    if step is not None and step.grad_outputs:
        g = step.grad_outputs[0]
        if complete(g, MAX_PLUGGED):
            text += " = " + inline_text(g, MAX_PLUGGED, _words)
    return text


def _breakable(text: str) -> str:
    """C++ formulas have long runs without spaces: let them wrap after ( , ? (zero-width spaces)."""
    for ch in ("(", ",", "?"):
        text = text.replace(ch, ch + "\u200b")
    return text


def caption_text(session: TraceSession, node_id: Optional[str]) -> str:
    """One HTML line for the stepper: the rule the node just applied."""
    node = session.node(node_id)
    if node is None:
        return ""
    lines = rule_lines(session, node, numbers=True)
    if not lines:
        return ""
    if sum(len(t) for t in lines) > CAPTION_CHARS:  # numbers too long for a caption: the formulas only
        lines = rule_lines(session, node, numbers=False)
    return tr("Rule: {0}").format(html.escape("; ".join(lines)))


class WhyGradientBox(QGroupBox):
    """The Inspector's box: the rule with numbers, or torch's formula."""

    def __init__(self, session: TraceSession, parent: Optional[QWidget] = None):
        super().__init__(parent)
        self.session = session
        self.node: Optional[Node] = None
        self.label = QLabel(self)
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.RichText)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        lay = QVBoxLayout(self)
        lay.addWidget(self.label)
        self.retranslate()

    def retranslate(self) -> None:
        self.setTitle(tr("Why this gradient"))
        self.setToolTip(tr("The local derivative rule of this operation: how the gradient it received "
                           "(grad) becomes the gradient of each input.\n"
                           "⊙ element-wise product · matrix product ᵀ transpose\n"
                           "Σ_bcast: summed over the dimensions broadcasting added\n"
                           "𝟙[…]: 1 where the condition holds, else 0"))
        self.refresh()

    def _leaf_html(self, n: Node) -> str:
        return ("<b>" + html.escape(_leaf_text(self.session, n)) + "</b><br><i>"
                + html.escape(tr("A leaf adds every gradient it receives to .grad: across backward calls "
                                 "they add up until you zero .grad (optimizer.zero_grad()).")) + "</i>")

    def set_node(self, node: Optional[Node]) -> None:
        self.node = node
        self.refresh()

    def refresh(self) -> None:
        n = self.node
        if n is None:
            self.setVisible(False)
            return
        self.setVisible(True)
        if n.kind == "leaf":
            self.label.setText(self._leaf_html(n))
            return
        rule = rule_html(self.session, n)
        parts = []
        if rule:
            parts.append(rule)
            step = _current_step(self.session, n.id)
            if step is None:
                parts.append("<i>" + html.escape(tr("The numbers appear when the stepper reaches this node."))
                             + "</i>")
            else:
                parts.append("<i>" + html.escape(tr("grad: what this node received; the last value is the "
                                                    "gradient torch sent to that input.")) + "</i>")
        else:
            parts.append(html.escape(tr("Not in the rule table; torch's own formula "
                                        "(derivatives.yaml of the torch that ran):")))
            parts.append("<br>".join("<code>" + _breakable(html.escape(t)) + "</code>"
                                     for t in torch_formula_lines(self.session, n)))
        self.label.setText("<br>".join(parts))
