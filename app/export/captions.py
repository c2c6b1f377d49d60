"""The words under an exported picture: which step it shows and the rule with its numbers.

The same sentences as the stepper and the Inspector's "Why this gradient"
(app/panels/why_gradient.py computes the rule bound to the step's numbers),
as plain text in the UI language, for a slide caption, a handout page and
the web page. A headless `TraceSession` (no window) holds the trace, run and
step, so the rule is bound exactly as the Inspector binds it.
"""

from __future__ import annotations

from typing import Optional

from PySide6.QtCore import QCoreApplication

from autogradviz.app.panels.why_gradient import _leaf_text, rule_lines
from autogradviz.app.session import TraceSession

CODE_CONTEXT = 5  # lines of code shown either side of the step's line on a handout page


def tr(text: str) -> str:
    return QCoreApplication.translate("ExportCaption", text)


def session_for(trace, run: int) -> TraceSession:
    """A session showing backward run `run` of `trace` (no window attached)."""
    s = TraceSession()
    s.set_trace(trace)
    if 0 <= run < len(trace.backward_runs):
        s.select_run(run, force=True)
    return s


def step_node(session: TraceSession):
    st = session.state
    return session.node(st.current) if st is not None and st.current is not None else None


def headline(session: TraceSession, k: int) -> str:
    """"Step 4 of 6: y (MulBackward0) ran", or the step-0 / last-step sentence."""
    n = session.step_count
    if k <= 0:
        return tr("Step 0 of {0}: backward has not started.").format(n)
    node = step_node(session)
    st = session.state
    name = (f"{node.label} ({node.op})" if node is not None and node.label
            else (node.op if node is not None else str(st.current if st is not None else "?")))
    text = tr("Step {0} of {1}: {2} ran").format(k, n, name)
    if k >= n:
        text += tr(" \u2014 backward is complete.")
    return text


def rule(session: TraceSession) -> list[str]:
    """The rule the step's node applied, with its numbers (Inspector's text)."""
    node = step_node(session)
    if node is None:
        return []
    if node.kind == "leaf":
        return [_leaf_text(session, node)]
    return rule_lines(session, node, numbers=True)


def caption_lines(session: TraceSession, k: int, with_rule: bool = True) -> list[str]:
    """Set `session` to step `k` and return its caption: the headline, the
    script line that made the node, then the rule lines."""
    session.set_step(k)
    lines = [headline(session, k)]
    node = step_node(session)
    if k > 0 and node is not None and node.line is not None and node.code:
        lines.append(tr("Made by line {0}: {1}").format(node.line, node.code.strip()))
    if with_rule and k > 0:
        r = rule(session)
        if r:
            lines.append(tr("Rule:"))
            lines.extend("   " + line for line in r)
    return lines


def code_lines(trace, line: Optional[int], context: int = CODE_CONTEXT) -> list[tuple[int, str, bool]]:
    """(number, text, is the step's line) around `line` of the trace's script."""
    src = getattr(trace, "source", None) or ""
    rows = src.splitlines()
    if not rows:
        return []
    if line is None or not (1 <= line <= len(rows)):
        lo, hi = 1, min(len(rows), 2 * context + 1)
    else:
        lo, hi = max(1, line - context), min(len(rows), line + context)
    return [(i, rows[i - 1], i == line) for i in range(lo, hi + 1)]
