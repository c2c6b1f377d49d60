"""The Inspector: everything about the clicked node, at the current step.

Facts (op, variable name, module, shape/dtype/device, flags) come from the
trace; values from the node's tensor summary (complete for small tensors; for
truncated ones "Load all values" asks the worker through the session); the
gradient the node received and sent comes from the replay state at the
current step, so it appears when the stepper passes the node and disappears
when stepping back.
"""

from __future__ import annotations

import html
import math
from typing import Optional

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import (
    QFormLayout, QGroupBox, QHeaderView, QLabel, QPushButton, QScrollArea, QTableWidget,
    QTableWidgetItem, QVBoxLayout, QWidget,
)

from autogradviz.engine.trace.model import Node, TensorSummary
from autogradviz.engine.trace.tensor_text import tensor_html

from autogradviz.app.graph.items import summary_text, tr as items_tr, unscaled_summary
from autogradviz.app.panels.finite_diff import FiniteDiffBox
from autogradviz.app.panels.why_gradient import WhyGradientBox
from autogradviz.app.services.text_safety import escaped, plain, plain_tip
from autogradviz.app.session import TraceSession

MAX_TABLE_CELLS = 10000
# The most gradients listed per side of a step (a cat of 4,000 tensors sent
# 4,000): the rest as one "… and N more" line, so selecting costs what is drawn.
MAX_GRADS_LISTED = 24


def _fmt(v) -> str:
    if isinstance(v, float):
        if math.isnan(v) or math.isinf(v):
            return str(v)
        return f"{v:.6g}"
    return str(v)


def fill_table(table: QTableWidget, s: Optional[TensorSummary]) -> None:
    """2-D view of a tensor's values: last dimension across, the rest down."""
    table.clear()
    if s is None or not s.values:
        table.setRowCount(0)
        table.setColumnCount(0)
        return
    vals = s.values[:MAX_TABLE_CELLS]
    shape = list(s.shape) or [1]
    cols = shape[-1] if shape[-1] > 0 else 1
    if len(shape) == 1 and cols > 16:
        cols = 16 if len(vals) > 16 else max(1, len(vals))
    rows = max(1, math.ceil(len(vals) / cols))
    table.setColumnCount(cols)
    table.setRowCount(rows)
    table.setHorizontalHeaderLabels([str(c) for c in range(cols)])
    # row labels: the leading indices
    lead = shape[:-1]
    labels = []
    for r in range(rows):
        if lead:
            idx, rem = [], r
            for d in reversed(lead):
                idx.append(rem % d if d else 0)
                rem //= d if d else 1
            labels.append("[" + ", ".join(str(i) for i in reversed(idx)) + "]")
        else:
            labels.append(str(r * cols))
    table.setVerticalHeaderLabels(labels)
    for i, v in enumerate(vals):
        it = QTableWidgetItem(_fmt(v))
        it.setFlags(Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEnabled)
        it.setToolTip(plain_tip(repr(v)))
        table.setItem(i // cols, i % cols, it)


class InspectorPanel(QWidget):
    # the panel's scrolled body; the name hides QWidget.scroll(), which nothing calls here
    scroll: QScrollArea  # type: ignore[assignment]

    def __init__(self, session: TraceSession, parent: Optional[QWidget] = None):
        super().__init__(parent)
        self.session = session
        self._node: Optional[Node] = None
        self._waiting: Optional[str] = None

        self.empty = plain(QLabel(self))
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)

        self.body = QWidget()
        form_box = QGroupBox(self.body)
        self.form_box = form_box
        self.form = QFormLayout(form_box)
        self.fields: dict[str, QLabel] = {}
        self._field_names = ["op", "name", "line", "module", "kind", "shape", "dtype", "device",
                             "requires_grad", "is_leaf", "retains_grad", "hooks", "stats"]
        self._field_labels: dict[str, QLabel] = {}
        for key in self._field_names:
            lab = QLabel()
            val = plain(QLabel())  # the trace's names, shapes, code: plain text
            val.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            val.setWordWrap(True)
            self.form.addRow(lab, val)
            self.fields[key] = val
            self._field_labels[key] = lab

        self.values_box = QGroupBox(self.body)
        vl = QVBoxLayout(self.values_box)
        self.values_note = plain(QLabel())
        self.values_note.setWordWrap(True)
        self.values_table = QTableWidget()
        self.values_table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.values_table.setMinimumHeight(90)
        self.load_btn = QPushButton()
        self.load_btn.clicked.connect(self._load_all)
        vl.addWidget(self.values_note)
        vl.addWidget(self.values_table)
        vl.addWidget(self.load_btn)

        self.grad_box = QGroupBox(self.body)
        gl = QVBoxLayout(self.grad_box)
        self.grad_label = QLabel()
        self.grad_label.setWordWrap(True)
        self.grad_label.setTextFormat(Qt.TextFormat.RichText)
        self.grad_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        gl.addWidget(self.grad_label)

        self.saved_box = QGroupBox(self.body)
        sl = QVBoxLayout(self.saved_box)
        self.saved_label = QLabel()
        self.saved_label.setWordWrap(True)
        self.saved_label.setTextFormat(Qt.TextFormat.RichText)
        self.saved_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        sl.addWidget(self.saved_label)

        self.why_box = WhyGradientBox(session, self.body)
        self.fd_box = FiniteDiffBox(session, self.body)

        bl = QVBoxLayout(self.body)
        bl.addWidget(form_box)
        bl.addWidget(self.grad_box)
        bl.addWidget(self.why_box)
        bl.addWidget(self.fd_box)
        bl.addWidget(self.values_box)
        bl.addWidget(self.saved_box)
        bl.addStretch(1)

        self.scroll = QScrollArea(self)
        self.scroll.setWidgetResizable(True)
        self.scroll.setWidget(self.body)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.empty)
        lay.addWidget(self.scroll, 1)

        session.nodeSelected.connect(self._on_selected)
        session.stepChanged.connect(self._on_step)
        session.traceChanged.connect(lambda: self._on_selected(None))
        session.graphChanged.connect(lambda _g: self._on_selected(session.selected_node))
        session.valuesArrived.connect(self._on_values)
        self.retranslate()
        self._on_selected(session.selected_node)

    # -- texts ----------------------------------------------------------------------------------------
    def retranslate(self) -> None:
        names = {
            "op": self.tr("Operation"), "name": self.tr("Variable"), "module": self.tr("Module"),
            "kind": self.tr("Kind"), "shape": self.tr("Shape"), "dtype": self.tr("dtype"),
            "device": self.tr("Device"), "requires_grad": self.tr("requires_grad"),
            "is_leaf": self.tr("is_leaf"), "retains_grad": self.tr("retains_grad"),
            "hooks": self.tr("Hooks"), "stats": self.tr("Statistics"),
            "line": self.tr("Line"),
        }
        tips = {
            "op": self.tr("The autograd node: the backward function PyTorch recorded for this operation."),
            "name": self.tr("The name your script gave this tensor (or the parameter name)."),
            "module": self.tr("The nn.Module whose forward produced it."),
            "line": self.tr("The line of your script that made this node (for a leaf: where it was "
                            "made to require grad)."),
            "is_leaf": self.tr("Leaf tensors were created by you, not computed; their gradients "
                               "accumulate into .grad."),
            "retains_grad": self.tr("Non-leaf tensors keep .grad only if you called retain_grad()."),
        }
        for k, lab in self._field_labels.items():
            lab.setText(names[k] + ":")
            lab.setToolTip(tips.get(k, ""))
            self.fields[k].setToolTip(tips.get(k, ""))
        self.empty.setText(self.tr("Click a node in the graph to see its details here: operation, "
                                   "variable name, shape, values and — while stepping through backward "
                                   "— the gradient it received and sent."))
        self.form_box.setTitle(self.tr("Node"))
        self.values_box.setTitle(self.tr("Values"))
        self.values_box.setToolTip(self.tr("The tensor's values as recorded when the script ran."))
        self.grad_box.setTitle(self.tr("Gradients at this step"))
        self.grad_box.setToolTip(self.tr("What this node received from its output (grad_outputs) and "
                                         "sent to its inputs (grad_inputs) during backward."))
        self.saved_box.setTitle(self.tr("Saved for backward"))
        self.saved_box.setToolTip(self.tr("Tensors and values this operation stored during the forward "
                                          "pass to compute its gradient later."))
        self.load_btn.setText(self.tr("Load all values"))
        self.load_btn.setToolTip(self.tr("Only the first values were sent with the trace; fetch all of "
                                         "them from the worker."))
        self.values_table.setToolTip(self.tr("Rows: leading indices; columns: the last dimension."))
        self.why_box.retranslate()
        self.fd_box.retranslate()
        self._refresh()

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    # -- reactions --------------------------------------------------------------------------------------
    def _on_selected(self, node_id) -> None:
        self._node = self.session.node(node_id)
        self._waiting = None
        self._refresh()

    def _on_step(self, _k: int) -> None:
        self._refresh_grads()

    def _refresh(self) -> None:
        n = self._node
        self.empty.setVisible(n is None)
        self.scroll.setVisible(n is not None)
        if n is None:
            return
        t = n.tensor
        g = self.session.graph
        is_root = g is not None and n.id in g.roots
        kind = (self.tr("leaf tensor (AccumulateGrad)") if n.kind == "leaf"
                else self.tr("output (backward starts here)") if is_root else self.tr("operation (non-leaf)"))
        vals = {
            "op": n.op, "name": n.label or self.tr("(unnamed)"), "module": n.module or "—",
            "kind": kind,
            "shape": ("(" + ", ".join(str(d) for d in t.shape) + ")") if t else "—",
            "dtype": t.dtype if t else "—", "device": t.device if t else "—",
            "requires_grad": str(t.requires_grad) if t and t.requires_grad is not None else "True",
            "is_leaf": str(t.is_leaf) if t and t.is_leaf is not None else str(n.kind == "leaf"),
            "retains_grad": str(n.retains_grad),
            "hooks": ", ".join(n.hooks) if n.hooks else "—",
            "stats": self._stats(t),
            "line": f"{n.line}: {n.code or ''}".rstrip() if n.line is not None else "—",
        }
        if n.module and n.module_class:
            vals["module"] = f"{n.module} ({n.module_class})"
        for k, v in vals.items():
            self.fields[k].setText(v)
        self._show_values(t)
        self._refresh_saved()
        self._refresh_grads()

    @staticmethod
    def _stats(t: Optional[TensorSummary]) -> str:
        if t is None:
            return "—"
        parts = []
        for name in ("min", "max", "mean", "norm"):
            v = getattr(t, name)
            if v is not None:
                parts.append(f"{name} {_fmt(v)}")
        return ", ".join(parts) or "—"

    def _show_values(self, t: Optional[TensorSummary]) -> None:
        self.values_box.setVisible(t is not None)
        if t is None:
            return
        fill_table(self.values_table, t)
        if t.truncated:
            self.values_note.setText(self.tr("Showing the first {0} of {1} values.").format(
                len(t.values), t.numel))
        else:
            self.values_note.setText(self.tr("All {0} values.").format(t.numel or len(t.values)))
        self.load_btn.setVisible(bool(t.truncated and t.id))
        self.load_btn.setEnabled(True)

    def _load_all(self) -> None:
        n = self._node
        if n is None or n.tensor is None or not n.tensor.id:
            return
        self._waiting = n.tensor.id
        self.load_btn.setEnabled(False)
        self.values_note.setText(self.tr("Loading all values from the worker…"))
        self.session.request_values(n.tensor.id)

    def _on_values(self, tensor_id: str, payload) -> None:
        if tensor_id != self._waiting:
            return
        self._waiting = None
        if isinstance(payload, TensorSummary):
            fill_table(self.values_table, payload)
            shown = min(len(payload.values), MAX_TABLE_CELLS)
            self.values_note.setText(self.tr("All {0} values loaded (showing {1}).").format(
                payload.numel or len(payload.values), shown))
            self.load_btn.setVisible(False)
        else:
            self.values_note.setText(self.tr("Could not load the values: {0}").format(payload))
            self.load_btn.setEnabled(True)

    def _refresh_saved(self) -> None:
        n = self._node
        if n is None or not n.saved:
            self.saved_box.setVisible(False)
            return
        self.saved_box.setVisible(True)
        rows = []
        for sv in n.saved:
            if sv.skipped or sv.skipped_code:
                v = self.tr("not read: {0}").format(self._skip_reason(sv.skipped_code, sv.skipped))
            elif sv.tensor is not None:
                rows.append(f"<b>{html.escape(sv.name)}</b>: {self._tensor(sv.tensor)}")
                continue
            else:
                v = repr(sv.value)
            rows.append(f"<b>{html.escape(sv.name)}</b>: {html.escape(str(v))}")
        self.saved_label.setText("<br>".join(rows))

    def _skip_reason(self, code: Optional[str], english: Optional[str]) -> str:
        """Why a saved value was not read, in the UI language, from the engine's
        reason code; the English reason for an unknown code or a trace written
        before codes existed (it has only the English text)."""
        if code == "checkpoint":
            return self.tr("inside a non-reentrant checkpoint segment (reading it would re-run the forward)")
        if code == "saved_tensors_hooks":
            return self.tr("saved with saved_tensors_hooks (reading it would call the unpack hook)")
        if code == "freed":
            return self.tr("already freed by an earlier backward")
        if code == "changed_in_place":
            return self.tr("changed in place after it was captured, before its values were read "
                           "(activations the script cannot name are read after the script)")
        return english or code or ""

    def _unscaled(self, g, scale: Optional[float]) -> str:
        """" ÷ scale → values": what unscale_ will make of a scaled gradient."""
        if not scale or g is None:
            return ""
        unscaled = unscaled_summary(g, scale)
        return self.tr(" ÷ {0} → {1}").format(f"{scale:g}", escaped(summary_text(unscaled, 16)))

    def _tensor(self, s) -> str:
        """A gradient as text; a small matrix as rows (engine/trace/tensor_text.py)."""
        return tensor_html(s, 16, items_tr, items_tr("None"))

    def _more(self, count: int) -> str:
        return html.escape(self.tr("… and {0} more").format(f"{count:,}"))

    def _refresh_grads(self) -> None:
        n = self._node
        self.why_box.set_node(n)
        self.fd_box.set_node(n)
        if n is None:
            return
        st = self.session.state
        if st is None:
            self.grad_label.setText(self.tr("No backward pass was recorded for this graph."))
            return
        step = st.node_steps.get(n.id)
        lines = []
        if step is None:
            if st.step == 0:
                lines.append(self.tr("Backward has not started yet (step 0). Step forward to see gradients."))
            else:
                lines.append(self.tr("This node has not run yet at step {0}.").format(st.step))
        else:
            pos = self.session.run.steps.index(step) + 1 if self.session.run else "?"
            lines.append(self.tr("Ran at step {0}.").format(pos))
            scale = self.session.run_scale()
            if scale:
                lines.append(self.tr("This backward started from scaler.scale(loss): every gradient is "
                                     "{0} × the real one (shown after ÷).").format(f"{scale:g}"))
            for i, g in enumerate(step.grad_outputs[:MAX_GRADS_LISTED]):
                lines.append(self.tr("received grad_outputs[{0}] = {1}").format(i, self._tensor(g))
                             + self._unscaled(g, scale))
            if len(step.grad_outputs) > MAX_GRADS_LISTED:
                lines.append(self._more(len(step.grad_outputs) - MAX_GRADS_LISTED))
            for i, g in enumerate(step.grad_inputs[:MAX_GRADS_LISTED]):
                if g is None:
                    lines.append(self.tr("sent grad_inputs[{0}] = None (that input needs no gradient)").format(i))
                else:
                    lines.append(self.tr("sent grad_inputs[{0}] = {1}").format(i, self._tensor(g))
                                 + self._unscaled(g, scale))
            if len(step.grad_inputs) > MAX_GRADS_LISTED:
                lines.append(self._more(len(step.grad_inputs) - MAX_GRADS_LISTED))
        if n.id in st.leaf_grads:
            lines.append(self.tr("<b>.grad</b> = {0}").format(self._tensor(st.leaf_grads[n.id]))
                         + self._unscaled(st.leaf_grads[n.id], self.session.run_scale()))
        if n.id in st.retained:
            lines.append(self.tr("<b>.grad</b> (retain_grad) = {0}").format(self._tensor(st.retained[n.id])))
        for ev in st.events:
            if ev.node == n.id and ev.kind != "retain_grad":
                line = self.tr("hook {0} saw {1}").format(escaped(ev.name or ev.kind),
                                                          escaped(summary_text(ev.received, 16)))
                if ev.replaced or ev.returned is not None:
                    line += self.tr(", returned {0}").format(escaped(summary_text(ev.returned, 16)))
                lines.append(line)
        self.grad_label.setText("<br>".join(lines))
