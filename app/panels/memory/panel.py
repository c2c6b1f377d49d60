"""The Memory panel: what the backward pass keeps, as the memory probe measured it.

Left, the activation curve of the session's run (bytes held for backward over
forward and backward, the checkpoint re-run bumps, a marker at the session's
step; clicking the curve moves the step). Right, the four parts of training
memory at the end of forward, after backward and after the optimizer step.
"Compare without checkpoint" runs the same script again in a worker of its own
with checkpoint(fn, ...) called as fn(...) and draws that run on the same axes,
with the difference in words. Every number comes from `Trace.memory` (or the
comparison run's); the panel computes only sums and differences of those.
"""

from __future__ import annotations


from PySide6.QtCore import QCoreApplication, QEvent, Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (QFrame, QHBoxLayout, QLabel, QProgressBar, QPushButton, QScrollArea,
                               QVBoxLayout, QWidget)

from autogradviz.app.panels.memory import curve_data as cd
from autogradviz.app.panels.memory.activation_chart import ActivationChart
from autogradviz.app.panels.memory.comparison_run import ComparisonRun
from autogradviz.app.panels.memory.parts_chart import PartsChart, moment_name, part_name, PARTS, MOMENTS
from autogradviz.app.services.text_safety import plain
from autogradviz.app.theme import colors

COMPARE_SHORTCUT = "Ctrl+Shift+M"


class MemoryPanel(QWidget):
    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.session = session
        self.other = None  # the comparison trace (without checkpoint)
        self._other_for = None  # the trace it was made for
        self._theme = "light"

        self.title = QLabel(self)
        self.title.setWordWrap(True)
        self.chart = ActivationChart(self)
        self.chart.stepClicked.connect(self._on_chart_clicked)
        self.parts = PartsChart(self)
        self.now = QLabel(self)
        self.now.setWordWrap(True)
        self.compare_button = QPushButton(self)
        # anywhere in the window while the panel shows (a dock tab hidden behind another: not)
        self.compare_shortcut = QShortcut(QKeySequence(COMPARE_SHORTCUT), self)
        self.compare_shortcut.setContext(Qt.WindowShortcut)
        self.compare_shortcut.activated.connect(self.compare)
        self.compare_button.clicked.connect(self.compare)
        self.cancel_button = QPushButton(self)
        self.cancel_button.clicked.connect(self.cancel_compare)
        self.cancel_button.hide()
        self.progress = QProgressBar(self)
        self.progress.setRange(0, 0)  # busy: a worker run reports no fraction
        self.progress.setMaximumHeight(12)
        self.progress.setTextVisible(False)
        self.progress.hide()
        self.result = plain(QLabel(self))  # it quotes the script's error: plain text
        self.result.setWordWrap(True)
        self.result.setTextInteractionFlags(Qt.TextSelectableByMouse)

        self.runner = ComparisonRun(self)
        self.runner.finished.connect(self._on_compared)
        self.runner.failed.connect(self._on_compare_failed)
        self.runner.busyChanged.connect(self._on_busy)
        app = QCoreApplication.instance()
        if app is not None:  # the comparison worker goes with the app
            app.aboutToQuit.connect(self.runner.shutdown)

        left = QWidget(self)
        lv = QVBoxLayout(left)
        lv.setContentsMargins(0, 0, 0, 0)
        lv.addWidget(self.title)
        lv.addWidget(self.chart, 1)
        lv.addWidget(self.now)
        row = QHBoxLayout()
        row.addWidget(self.compare_button)
        row.addWidget(self.progress, 1)
        row.addWidget(self.cancel_button)
        lv.addLayout(row)
        lv.addWidget(self.result)
        right = QWidget(self)
        rv = QVBoxLayout(right)
        rv.setContentsMargins(0, 0, 0, 0)
        self.parts_title = QLabel(right)
        self.parts_title.setWordWrap(True)
        self.parts_legend = QLabel(right)
        self.parts_legend.setWordWrap(True)
        self.parts_legend.setTextFormat(Qt.RichText)
        rv.addWidget(self.parts_title)
        rv.addWidget(self.parts, 1)
        rv.addWidget(self.parts_legend)
        # the graph's other leaves (an input with requires_grad=True) are not parameters: said apart
        self.leaves_note = QLabel(right)
        self.leaves_note.setWordWrap(True)
        self.leaves_note.hide()
        rv.addWidget(self.leaves_note)
        right.setMinimumWidth(360)
        # a plain row, not a QSplitter: a splitter reports no height-for-width, so
        # the scroll area below could not know the wrapped texts' real height
        split = QWidget(self)
        sh = QHBoxLayout(split)
        sh.setContentsMargins(0, 0, 0, 0)
        sh.addWidget(left, 3)
        sh.addWidget(right, 2)
        # a dock lower than the charts and texts need scrolls: squeezed, the
        # layout drew the step text over the chart's axis labels
        self.scroll = QScrollArea(self)
        self.scroll.setWidget(split)
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.NoFrame)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(self.scroll)

        session.traceChanged.connect(self._on_trace)
        session.runChanged.connect(self._on_run)
        session.stepChanged.connect(self._on_step)
        self.retranslate()
        self._on_trace()
        # as tall as the charts and one line per text need: only extra wrapped lines scroll
        self.scroll.setMinimumHeight(split.minimumSizeHint().height())

    # -- session ---------------------------------------------------------------------------
    @property
    def trace(self):
        return self.session.trace

    def _on_trace(self) -> None:
        if self.runner.busy:
            self.runner.cancel()
        self.other = None
        self._other_for = None
        self.result.clear()
        self._on_run(self.session.run_index)

    def _on_run(self, _index: int = -1) -> None:
        trace, k = self.trace, self.session.run_index
        self.main_curve = cd.curve(trace, k)
        other_curve = cd.curve(self.other, k) if self.other is not None else None
        self.chart.set_curves(self.main_curve, other_curve)
        self.parts.set_run(cd.memory_run(trace, k))
        self._update_compare_button()
        self._update_title()
        self._show_result()
        self._on_step(self.session.step)

    def _on_step(self, k: int) -> None:
        trace, run = self.trace, self.session.run_index
        c = self.main_curve
        if c is None:
            self.chart.set_cursor(0.0, None)
            self.now.setText(self.tr("No recorded backward run: nothing is held for backward."))
            return
        value = cd.value_at_step(trace, run, k)
        self.chart.set_cursor(cd.x_of_step(k, c.steps), float(value) if value is not None else None)
        if k == 0:
            where = self.tr("End of forward")
        else:
            where = self.tr("After backward step {k} of {n}").format(k=k, n=c.steps)
        self.now.setText(self.tr("{where}: {bytes} held for backward.").format(
            where=where, bytes=cd.human_bytes(value)))

    def _on_chart_clicked(self, x: float) -> None:
        if self.main_curve is not None:
            self.session.set_step(cd.step_at(x, self.main_curve.steps))

    def _update_title(self) -> None:
        mr = cd.memory_run(self.trace, self.session.run_index)
        if mr is None:
            self.title.setText(self.tr("Activation memory: run a script that calls backward()."))
            self.parts.setToolTip("")
            self._update_legend()
            return
        direct = bool(getattr(self.trace.memory, "checkpoints_direct", False))
        text = self.tr("Activations held for backward, run {run}: peak {peak}.").format(
            run=mr.run + 1, peak=cd.human_bytes(mr.peak))
        if mr.retain_graph:
            text += " " + self.tr("retain_graph: nothing is freed during this backward.")
        if direct:
            text += " " + self.tr("(run without checkpoint)")
        self.title.setText(text)
        tips = []
        for m in MOMENTS:
            parts = getattr(mr, m)
            if parts is None:
                continue
            line = moment_name(m) + ": " + ", ".join(
                f"{part_name(f)} {cd.human_bytes(getattr(parts, f))}" for f, _ in PARTS)
            if parts.cuda_allocated is not None:
                line += ", " + self.tr("CUDA allocated {a} (max {m})").format(
                    a=cd.human_bytes(parts.cuda_allocated), m=cd.human_bytes(parts.cuda_max_allocated))
            tips.append(line)
        self.parts.setToolTip("\n".join(tips))
        self._update_legend()

    def _update_legend(self) -> None:
        mr = cd.memory_run(self.trace, self.session.run_index)
        last, when = None, None
        for m in MOMENTS:
            if mr is not None and getattr(mr, m) is not None:
                last, when = getattr(mr, m), m
        items = [f"<i>{_unbreakable(moment_name(when))}:</i>"] if when is not None else []  # which bar the sizes are
        for f, _ in PARTS:
            value = ("&nbsp;" + cd.human_bytes(getattr(last, f)).replace(" ", "&nbsp;")) if last is not None else ""
            items.append(f'<span style="color:{self.parts.color(f)}">■</span>&nbsp;{_unbreakable(part_name(f))}{value}')
        self.parts_legend.setText("&nbsp;&nbsp; ".join(items))
        others = getattr(last, "other_leaves", 0) if last is not None else 0
        other_grads = getattr(last, "other_leaf_gradients", 0) if last is not None else 0
        if others or other_grads:
            self.leaves_note.setText(self.tr(
                "Not in the bars: the graph's other leaves that require grad (inputs such as x, not "
                "parameters of a module or optimizer) hold {leaves}, their gradients {grads}.").format(
                leaves=cd.human_bytes(others), grads=cd.human_bytes(other_grads)))
        self.leaves_note.setVisible(bool(others or other_grads))

    # -- comparison ---------------------------------------------------------------------------
    def can_compare(self) -> bool:
        trace, req = self.trace, self.session.run_request
        return (trace is not None and bool(getattr(trace, "checkpoints", None)) and req is not None
                and not self.session.saved_file  # a saved trace: the last run's request is another script's
                and req.get("filename") == trace.script and cd.memory_run(trace, self.session.run_index)
                is not None)

    def _update_compare_button(self) -> None:
        ok = self.can_compare()
        self.compare_button.setEnabled(ok and not self.runner.busy)
        if ok:
            tip = self.tr("Run this script again with checkpoint(fn, ...) called as fn(...) and draw both "
                          "curves ({key})").format(key=COMPARE_SHORTCUT)
        elif self.trace is not None and not getattr(self.trace, "checkpoints", None):
            tip = self.tr("This script makes no checkpoint call: there is nothing to compare.")
        else:
            tip = self.tr("Run the script first: the comparison runs the same script again.")
        self.compare_button.setToolTip(tip)

    def compare(self) -> None:
        if not self.can_compare() or self.runner.busy:
            return
        self._other_for = self.trace
        self.result.setText(self.tr("Running the script again without checkpoint…"))
        self.runner.start(self.session.run_request)

    def cancel_compare(self) -> None:
        self.runner.cancel()
        self.result.setText(self.tr("Comparison cancelled."))

    def _on_busy(self, busy: bool) -> None:
        self.progress.setVisible(busy)
        self.cancel_button.setVisible(busy)
        self._update_compare_button()

    def _on_compared(self, other) -> None:
        if self._other_for is not self.trace:
            return  # a new trace came meanwhile
        if other.error is not None:
            self.result.setText(self.tr("Without checkpoint the script failed: {type}: {message}").format(
                type=other.error.type, message=other.error.message))
            return
        self.other = other
        self._on_run(self.session.run_index)

    def _on_compare_failed(self, code: str, detail: str) -> None:
        texts = {"timeout": self.tr("The run without checkpoint timed out after {s} s.").format(s=detail),
                 "crashed": self.tr("The worker running the script without checkpoint stopped: {m}").format(
                     m=detail),
                 "unreadable": self.tr("The run without checkpoint sent an unreadable trace: {m}").format(
                     m=detail)}
        self.result.setText(texts.get(code, detail))

    def _show_result(self) -> None:
        if self.other is None:
            return
        c = cd.comparison(self.trace, self.other, self.session.run_index)
        if c is None:
            self.result.setText(self.tr("The run without checkpoint has no run {run} to compare.").format(
                run=self.session.run_index + 1))
            return
        self.result.setText(cd.comparison_text(c))

    def comparison(self):
        return cd.comparison(self.trace, self.other, self.session.run_index) if self.other is not None else None

    # -- chrome ---------------------------------------------------------------------------------
    def retranslate(self) -> None:
        self.compare_button.setText(self.tr("Compare without checkpoint"))
        self.cancel_button.setText(self.tr("Cancel"))
        self.cancel_button.setToolTip(self.tr("Stop the run without checkpoint"))
        self.chart.setToolTip(self.tr("Bytes of saved tensors held for backward (each storage once). "
                                      "▲: a checkpoint segment re-run during backward. "
                                      "Click to move to that step."))
        self.chart.getPlotItem().setLabel("left", self.tr("held for backward"))
        self.parts_title.setText(self.tr("Training memory: end of forward, after backward, after the "
                                         "optimizer step"))
        self.parts_legend.setToolTip(self.tr("Sizes at the last of the three moments recorded"))
        self._update_compare_button()

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
            self._on_run(self.session.run_index)
        super().changeEvent(event)

    def set_theme(self, name: str) -> None:
        self._theme = name
        c = colors(name)
        self.chart.set_theme(name)
        self.parts.set_theme(name)
        self._update_legend()
        self.chart.getPlotItem().getAxis("left").setTextPen(c["text"])
        self._on_step(self.session.step)

    def shutdown(self) -> None:
        """Stop the comparison worker (the window closing; tests)."""
        self.runner.shutdown()

    def closeEvent(self, event) -> None:
        self.shutdown()
        super().closeEvent(event)


def _unbreakable(name: str) -> str:
    """A legend name kept on one line: Chinese text may otherwise break between
    any two characters ("激活" at a line's end, "值 0 B" on the next)."""
    return "\u2060".join(name).replace(" ", "&nbsp;")  # U+2060 WORD JOINER: no break here
