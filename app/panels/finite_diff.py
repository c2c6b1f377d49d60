"""The Inspector's "Check numerically" box: finite differences beside autograd.

For a named leaf of at most 1,000 elements, one click (or Ctrl+Shift+D) asks
the worker for central finite differences of the checked backward's loss with
respect to that leaf, in float64 (engine/worker/finite_diff.py says how the
loss is evaluated again), and shows them beside the gradient autograd
recorded for the leaf in that backward, with the largest difference and where
it is. The worker answers with codes; the reasons are translated here.
"""

from __future__ import annotations

import html
import math
import os
from typing import Optional

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QGroupBox, QLabel, QMessageBox, QProgressBar, QPushButton, QVBoxLayout, QWidget

from autogradviz.engine.trace.model import Node, TensorSummary
from autogradviz.engine.trace.tensor_text import number_text, tensor_html

from autogradviz.app.graph.items import tr as items_tr
from autogradviz.app.services.text_safety import escaped, message_box
from autogradviz.app.session import TraceSession

MAX_ELEMENTS = 1000
SHORTCUT = "Ctrl+Shift+D"
# Below this relative difference the two gradients "agree" (float32 autograd vs float64 differences).
AGREE_RTOL = 1e-3


def tr(text: str) -> str:
    return QCoreApplication.translate("FiniteDiff", text)


def largest_difference(fd: list, autograd: list) -> tuple[float, int, float]:
    """(largest |fd - autograd|, its flat index, that difference relative to max(|autograd|, 1e-12))."""
    best, at = -1.0, 0
    for i, (a, b) in enumerate(zip(fd, autograd)):
        d = abs(float(a) - float(b))
        if d > best or math.isnan(d):
            best, at = d, i
            if math.isnan(d):
                break
    scale = max((abs(float(b)) for b in autograd), default=0.0)
    return best, at, best / max(scale, 1e-12)


def index_text(flat: int, shape: list) -> str:
    idx = []
    for d in reversed(shape):
        idx.append(flat % d if d else 0)
        flat //= d if d else 1
    return "[" + ", ".join(str(i) for i in reversed(idx)) + "]"


class FiniteDiffBox(QGroupBox):
    def __init__(self, session: TraceSession, parent: Optional[QWidget] = None):
        super().__init__(parent)
        self.session = session
        self.node: Optional[Node] = None
        self._waiting: Optional[tuple] = None
        self._autograd: Optional[TensorSummary] = None
        self.button = QPushButton(self)
        self.button.clicked.connect(self.check)
        self.busy = QProgressBar(self)
        self.busy.setRange(0, 0)  # busy until the worker's first progress report
        self.busy.setMaximumHeight(10)
        self.busy.setTextVisible(False)
        self.busy.hide()
        self.result = QLabel(self)
        self.result.setWordWrap(True)
        self.result.setTextFormat(Qt.TextFormat.RichText)
        self.result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # A saved trace: no worker ran it, so the check needs its script to run again
        self.rerun_button = QPushButton(self)
        self.rerun_button.clicked.connect(self.ask_rerun)
        self.rerun_button.hide()
        self.confirm: Optional[QMessageBox] = None  # the "run it again?" question while it is open
        lay = QVBoxLayout(self)
        lay.addWidget(self.button)
        lay.addWidget(self.busy)
        lay.addWidget(self.result)
        lay.addWidget(self.rerun_button)
        session.gradientCheckArrived.connect(self._on_reply)
        session.gradientCheckProgress.connect(self._on_progress)
        self.retranslate()

    def retranslate(self) -> None:
        self.setTitle(tr("Check numerically"))
        self.button.setText(tr("Compare with finite differences"))
        self.button.setShortcut(QKeySequence(SHORTCUT))  # after setText, which resets it
        self.button.setToolTip(tr("Nudge each element of this leaf up and down by a tiny step, evaluate the "
                                  "loss again (in float64) and compare the slope with autograd's gradient "
                                  "({0}).").format(SHORTCUT))
        self.rerun_button.setText(tr("Run the script again…"))
        self.rerun_button.setToolTip(tr("Open this trace's script and run it: the check needs a live run"))
        self.refresh()

    # -- which node --------------------------------------------------------------------------
    def set_node(self, node: Optional[Node]) -> None:
        if node is not self.node:
            self.result.clear()
            self._waiting = None
            self.busy.hide()
        self.node = node
        self.refresh()

    def _eligible(self) -> Optional[str]:
        """None when the check can be made, else why not (translated)."""
        n = self.node
        assert n is not None  # (asked only about a leaf: refresh() and check() test for one)
        if self.session.saved_file:  # the worker never ran this trace: it would re-run another script
            if self.rerun_script():
                return tr("This is a saved trace: the check needs its script to run again. Run it again, "
                          "then check this leaf.")
            return tr("This is a saved trace and its script is not here: open the script and run it, "
                      "then check this leaf.")
        if self.session.run is None:
            return tr("No backward run was recorded for this graph.")
        if not n.label:
            return tr("This leaf has no name in the script, so it cannot be found when the script runs again.")
        numel = n.tensor.numel if n.tensor is not None else 0
        if numel > MAX_ELEMENTS:
            return tr("This leaf has {0} elements; finite differences are limited to {1}.").format(
                numel, MAX_ELEMENTS)
        return None

    def rerun_script(self) -> Optional[str]:
        """The saved trace's own script file, when it names one that is here."""
        trace = self.session.trace
        path = getattr(trace, "script", None) if self.session.saved_file else None
        if not isinstance(path, str) or not path or not os.path.isabs(path):
            return None
        try:
            return path if os.path.isfile(path) else None
        except (OSError, ValueError):
            return None

    def refresh(self) -> None:
        n = self.node
        if n is None or n.kind != "leaf":
            self.setVisible(False)
            return
        self.setVisible(True)
        why = self._eligible()
        self.button.setEnabled(why is None and self._waiting is None)
        self.rerun_button.setVisible(self.rerun_script() is not None)
        if why is not None and self._waiting is None:
            self.result.setText(escaped(why))

    def ask_rerun(self) -> None:
        """Ask before running the trace's script (it is code: only the learner starts it)."""
        path = self.rerun_script()
        if path is None:
            return
        box = message_box(QMessageBox.Icon.Question, self, tr("Run the script again"),
                          tr("Run {path} again? It runs as with Run, and the check then uses that "
                             "run.").format(path=path), QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.finished.connect(lambda _r, b=box, p=path: self._confirmed(b.clickedButton() is b.button(QMessageBox.StandardButton.Yes), p))
        self.confirm = box
        box.open()  # window-modal, no nested event loop

    def _confirmed(self, yes: bool, path: str) -> None:
        self.confirm = None
        if yes and path == self.rerun_script():
            self.session.rerunRequested.emit(path)

    def _recorded_gradient(self) -> Optional[TensorSummary]:
        """What autograd sent to this leaf in the run: its AccumulateGrad step's
        input; for torch.autograd.grad, the result it returned for the leaf."""
        run = self.session.run
        if run is None or self.node is None:
            return None
        for node_id, result in zip(run.result_nodes, run.results):
            if node_id == self.node.id and result is not None:
                return result
        for st in run.steps:
            if st.node == self.node.id and st.grad_outputs:
                return st.grad_outputs[0]
        return None

    # -- ask and answer ---------------------------------------------------------------------
    def check(self) -> None:
        if self.node is None or self._eligible() is not None or self._waiting is not None:
            return  # (a saved trace never asks the worker: it holds another script's run)
        run = self.session.run
        self._autograd = self._recorded_gradient()
        request = {"leaf": self.node.label, "run": run.index}
        if self._autograd is not None and self._autograd.truncated and self._autograd.id:
            request["grad_tensor"] = self._autograd.id
        self._waiting = (self.node.label, run.index)
        self.button.setEnabled(False)
        self.busy.setRange(0, 0)
        self.busy.show()
        self.result.setText(tr("Running the script again and evaluating the loss {0} times…").format(
            2 * max(1, self.node.tensor.numel if self.node.tensor else 1)))
        self.session.request_gradient_check(request)

    def _on_progress(self, done: int, total: int) -> None:
        """Elements of the leaf done so far (the worker reports every 50)."""
        if self._waiting is None:
            return
        self.busy.setRange(0, total)
        self.busy.setValue(min(done, total))

    def _on_reply(self, reply: dict) -> None:
        if self._waiting is None or (reply.get("leaf"), reply.get("run")) != self._waiting:
            return
        self._waiting = None
        self.busy.hide()
        self.button.setEnabled(True)
        if reply.get("error"):
            self.result.setText(self._error_text(reply.get("error") or "", reply.get("message", "")))
            return
        fd, shape = reply.get("fd") or [], reply.get("shape") or []
        fd_summary = TensorSummary(shape=shape, dtype="float64", device="cpu", values=fd, numel=len(fd))
        auto = reply.get("autograd")
        if auto is None and self._autograd is not None and not self._autograd.truncated:
            auto = list(self._autograd.values)
        parts = ["<b>" + tr("finite differences (float64)") + "</b> = " + tensor_html(fd_summary, 64, items_tr)]
        if auto is None:
            parts.append(tr("Autograd's gradient for this leaf was not recorded in this run "
                            "(torch.autograd.grad was not asked for it)."))
        else:
            auto_summary = TensorSummary(shape=shape, dtype="float32", device="cpu", values=auto, numel=len(auto))
            parts.append("<b>" + tr("autograd") + "</b> = " + tensor_html(auto_summary, 64, items_tr))
            diff, at, rel = largest_difference(fd, auto)
            verdict = tr("they agree") if rel <= AGREE_RTOL else tr("they differ")
            parts.append(tr("largest difference {0} at {1} (relative {2}): {3}").format(
                number_text(diff), index_text(at, shape), number_text(rel), verdict))
        loss, recorded = reply.get("loss"), reply.get("loss_recorded")
        if isinstance(loss, float) and isinstance(recorded, float) and abs(loss - recorded) > 1e-4 * max(1, abs(recorded)):
            parts.append("<b>" + tr("Warning: evaluating the loss again gave {0}, the script computed {1}; the "
                                    "script may be random or compute through Python numbers.").format(
                number_text(loss), number_text(recorded)) + "</b>")
        self.result.setText("<br>".join(parts))

    def _error_text(self, code: str, message: str) -> str:
        texts = {
            "too_many": tr("This leaf has more than {0} elements.").format(MAX_ELEMENTS),
            "leaf_not_found": tr("When the script ran again, no tensor had this leaf's name at that backward "
                                 "call."),
            "backward_not_reached": tr("When the script ran again, it did not reach this backward call."),
            "rerun_failed": tr("The script raised an error when it ran again."),
            "not_connected": tr("The loss does not depend on this leaf through torch operations (it may go "
                                "through Python numbers such as .item())."),
            "no_run": tr("Run the script first."),
            "no_label": tr("This leaf has no name."),
        }
        text = texts.get(code, tr("The check failed."))
        return text + (f"<br><small>{html.escape(message)}</small>" if message else "")
