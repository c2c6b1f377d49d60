"""The Checkpoint panel: the script's `torch.utils.checkpoint` segments, what
each kept instead of its activations, and every time backward re-ran one.

It appears when a trace has `checkpoints`. The recomputation list follows the
backward stepper: when the session's run and step reach the node that needed a
segment's saved tensors, that re-run is highlighted and the caption says why;
clicking a re-run (or Up/Down in the list) moves the session there. Everything
shown is read from the trace: the panel never guesses what torch would re-run.

Step numbers: a `Recomputation.step` is the 0-based index of the run's step
whose node triggered it (`steps[step].node == trigger`), while the session's
step counts the steps already done (step k shows `steps[k - 1]` as current).
So a re-run is "now" at session step `step + 1`, and that is what is shown and
set (the stepper's numbers are the session's).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView, QFrame, QHeaderView, QLabel, QListWidget, QListWidgetItem, QScrollArea, QSplitter,
    QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget,
)

from autogradviz.app.graph.items import shape_text, summary_text
from autogradviz.app.panels.checkpoint.masks_view import masks_html
from autogradviz.app.services.text_safety import plain_tip
from autogradviz.app.theme import colors

# Op names whose presence in a segment makes a re-run draw random numbers.
_RANDOM_OPS = ("dropout", "bernoulli")


@dataclass(frozen=True)
class RecomputeRef:
    """One row of the re-run list: checkpoint index and re-run index in it."""

    checkpoint: int
    index: int


def session_step_of(rec) -> Optional[int]:
    """The session step at which `rec` is happening (its trigger is the current
    node), or None when it was not during a recorded backward."""
    if rec.run is None or rec.step is None:
        return None
    return rec.step + 1


def input_text(s) -> str:
    """A kept input: shape and dtype always (what memory it costs), plus the
    values or norm `summary_text` gives."""
    if s is None:
        return summary_text(s)
    head = f"{shape_text(s)} {s.dtype}"
    body = summary_text(s)
    return f"{head} {body}" if not body.startswith(shape_text(s)) else f"{head} {body[len(shape_text(s)):].strip()}".strip()


def has_random_ops(ops) -> bool:
    return any(any(r in op.lower() for r in _RANDOM_OPS) for op in ops)


class CheckpointPanel(QWidget):
    """Takes the session (the trace's owner); shows its `checkpoints`."""

    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.session = session
        self.checkpoints: list = []
        self.refs: list[RecomputeRef] = []  # the re-run list's rows, in backward order
        self.highlighted: list[int] = []  # rows of re-runs happening at the session's step
        self.current_checkpoint = -1
        self._triggers: dict = {}
        self._theme = "light"
        self._syncing = False

        self.intro = QLabel(self)
        self.intro.setWordWrap(True)
        self.segments = QListWidget(self)
        self.segments.setSelectionMode(QAbstractItemView.SingleSelection)
        self.segments.currentRowChanged.connect(self._on_segment)
        self.reruns = QListWidget(self)
        self.reruns.setSelectionMode(QAbstractItemView.SingleSelection)
        self.reruns.currentRowChanged.connect(self._on_rerun_row)
        self.reruns.itemClicked.connect(self._on_rerun_clicked)
        # whole sentences: wrapped, never cut off behind a scroll bar
        self.reruns.setWordWrap(True)
        self.reruns.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.reruns.setResizeMode(QListWidget.Adjust)
        self.reruns.setSpacing(2)
        self.details = QLabel(self)
        self.details.setWordWrap(True)
        self.details.setTextFormat(Qt.RichText)
        self.details.setAlignment(Qt.AlignTop | Qt.AlignLeft)
        self.ops = QTableWidget(0, 2, self)
        self.ops.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.ops.setSelectionMode(QAbstractItemView.NoSelection)
        self.ops.horizontalHeader().setSectionResizeMode(QHeaderView.Stretch)
        self.ops.verticalHeader().setDefaultSectionSize(self.ops.fontMetrics().height() + 6)
        self.caption = QLabel(self)
        self.caption.setWordWrap(True)
        self.caption.setTextFormat(Qt.RichText)

        left = QSplitter(Qt.Vertical, self)
        left.addWidget(self.segments)
        left.addWidget(self.reruns)
        left.setStretchFactor(0, 1)
        left.setStretchFactor(1, 2)
        # Dropout masks, forward and re-run side by side (masks_view.py)
        self.masks = QLabel(self)
        self.masks.setTextFormat(Qt.RichText)
        self.masks.setWordWrap(True)
        # the segment's text and masks scroll: in a low dock a squeezed label
        # would cut off its last lines (the masks' verdict) without a trace
        texts = QWidget(self)
        tv = QVBoxLayout(texts)
        tv.setContentsMargins(0, 0, 0, 0)
        tv.addWidget(self.details)
        tv.addWidget(self.masks)
        tv.addStretch(1)
        self.texts_scroll = QScrollArea(self)
        self.texts_scroll.setWidget(texts)
        self.texts_scroll.setWidgetResizable(True)
        self.texts_scroll.setFrameShape(QFrame.NoFrame)
        self.texts_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        right = QSplitter(Qt.Vertical, self)
        right.addWidget(self.texts_scroll)
        right.addWidget(self.ops)
        right.setStretchFactor(0, 3)
        right.setStretchFactor(1, 2)
        right.setSizes([300, 200])  # texts first: the op table scrolls as well
        split = QSplitter(Qt.Horizontal, self)
        split.addWidget(left)
        split.addWidget(right)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 1)
        lay = QVBoxLayout(self)
        lay.addWidget(self.intro)
        lay.addWidget(split, 1)
        lay.addWidget(self.caption)
        self.retranslate()
        session.traceChanged.connect(self.reload)
        session.runChanged.connect(self._follow_session)
        session.stepChanged.connect(self._follow_session)
        session.recompute.changed.connect(self._follow_session)
        self.reload()

    # -- texts ---------------------------------------------------------------
    def retranslate(self) -> None:
        self.intro.setText(self.tr(
            "Checkpointed segments keep only their inputs; their activations are recomputed in "
            "backward when a node needs them. Click a re-run (or use Up/Down) to go to that step."))
        self.segments.setToolTip(self.tr("Each checkpoint call of the script, in call order"))
        self.reruns.setToolTip(self.tr("Each time backward re-ran a segment, in order. "
                                       "Click to go to that step of the backward run."))
        self._refill()

    def changeEvent(self, event) -> None:  # noqa: N802
        """Every text is rebuilt in the new UI language (kinds, captions, the table header)."""
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def set_theme(self, name: str) -> None:
        self._theme = name
        self._refill()

    def kind_text(self, kind: str) -> str:
        if kind == "reentrant":
            return self.tr("reentrant")
        if kind == "non_reentrant":
            return self.tr("non-reentrant")
        return kind

    def ops_text(self, n: int) -> str:
        """"1 op" / "n ops" (a caption reads wrong with "1 ops")."""
        return self.tr("1 op") if n == 1 else self.tr("{0} ops").format(n)

    def segment_text(self, i: int) -> str:
        c = self.checkpoints[i]
        parts = [self.tr("checkpoint {0}").format(i + 1), self.kind_text(c.kind)]
        if c.function:
            parts.append(c.function)
        if c.line:
            parts.append(self.tr("line {0}").format(c.line))
        return " · ".join(parts)

    def node_text(self, run: Optional[int], node_id: Optional[str]) -> str:
        """The trigger as the user sees it: its label and op (from the run's graph)."""
        if node_id is None:
            return self.tr("a node that was not captured")
        node = self._node(run, node_id)
        if node is None:
            return node_id
        return f"{node.label} ({node.op})" if node.label else node.op

    def rerun_text(self, ref: RecomputeRef) -> str:
        c = self.checkpoints[ref.checkpoint]
        r = c.recomputations[ref.index]
        where = (self.tr("run #{0}, step {1}").format(r.run + 1, session_step_of(r))
                 if session_step_of(r) is not None else self.tr("outside a recorded backward"))
        what = self.tr("checkpoint {0} re-ran {1} of {2} ops").format(
            ref.checkpoint + 1, len(r.ops), len(c.forward_ops))
        text = f"{where} · {what}"
        if r.early_stopped:
            text += " · " + self.tr("stopped early")
        text += " · " + self.tr("needed by {0}").format(self.node_text(r.run, r.trigger))
        if r.error:
            text += " · " + r.error
        return text

    # -- data ----------------------------------------------------------------
    def _node(self, run: Optional[int], node_id: str):
        """The trigger's Node: the session's when its run is shown, else from the
        table `reload` built (node ids are unique in a trace)."""
        if run is not None and run == self.session.run_index:
            node = self.session.node(node_id)
            if node is not None:
                return node
        return self._triggers.get(node_id)

    def reload(self) -> None:
        trace = self.session.trace
        self.checkpoints = list(getattr(trace, "checkpoints", None) or []) if trace is not None else []
        refs = [RecomputeRef(i, j) for i, c in enumerate(self.checkpoints)
                for j in range(len(c.recomputations))]

        def order(ref: RecomputeRef):
            r = self.checkpoints[ref.checkpoint].recomputations[ref.index]
            inf = float("inf")
            return (inf if r.run is None else r.run, inf if r.step is None else r.step)
        self.refs = sorted(refs, key=order)  # stable: call order within one step
        # the trigger nodes, found once (one pass over the graphs), not per row
        wanted = {r.trigger for c in self.checkpoints for r in c.recomputations if r.trigger}
        self._triggers = {n.id: n for g in (trace.graphs if wanted else []) for n in g.nodes if n.id in wanted}
        self.current_checkpoint = 0 if self.checkpoints else -1
        self.highlighted = []  # rows of the old trace's list
        self._refill()
        self._follow_session()

    def _refill(self) -> None:
        pal = colors(self._theme)
        red = QColor(pal["error"])
        self.segments.blockSignals(True)
        self.segments.clear()
        for i, c in enumerate(self.checkpoints):
            item = QListWidgetItem(self.segment_text(i))
            if c.error:
                item.setForeground(red)
            self.segments.addItem(item)
        if 0 <= self.current_checkpoint < self.segments.count():
            self.segments.setCurrentRow(self.current_checkpoint)
        self.segments.blockSignals(False)
        row = self.reruns.currentRow()
        self.reruns.blockSignals(True)
        self.reruns.clear()
        for ref in self.refs:
            item = QListWidgetItem(self.rerun_text(ref))
            item.setToolTip(plain_tip(item.text()))
            if self.checkpoints[ref.checkpoint].recomputations[ref.index].error:
                item.setForeground(red)
            self.reruns.addItem(item)
        if not self.refs:
            item = QListWidgetItem(self.tr("No segment was re-run: no backward needed their saved tensors."))
            item.setFlags(Qt.ItemFlag.NoItemFlags)
            self.reruns.addItem(item)
        elif 0 <= row < len(self.refs):
            self.reruns.setCurrentRow(row)
        self.reruns.blockSignals(False)
        self._paint_highlight()
        self._show_segment()
        self._update_caption()

    # -- the selected segment --------------------------------------------------
    def _selected_ref(self) -> Optional[RecomputeRef]:
        """The re-run whose ops the table shows: the selected one when it is of
        the shown segment, else the segment's first."""
        row = self.reruns.currentRow()
        if 0 <= row < len(self.refs) and self.refs[row].checkpoint == self.current_checkpoint:
            return self.refs[row]
        c = self.checkpoints[self.current_checkpoint] if self.current_checkpoint >= 0 else None
        if c is not None and c.recomputations:
            return RecomputeRef(self.current_checkpoint, 0)
        return None

    def _show_segment(self) -> None:
        pal = colors(self._theme)
        if not (0 <= self.current_checkpoint < len(self.checkpoints)):
            self.details.setText(self.tr("No checkpoint calls were recorded."))
            self.masks.hide()
            self.ops.setRowCount(0)
            return
        c = self.checkpoints[self.current_checkpoint]
        lines = [f"<b>{_esc(self.segment_text(self.current_checkpoint))}</b>"]
        if c.inputs:
            ins = ", ".join(_esc(input_text(s)) for s in c.inputs)
            lines.append(self.tr("Kept: the inputs {0}. Only the inputs are kept; the segment's "
                                 "activations are recomputed in backward.").format(ins))
        else:
            lines.append(self.tr("Kept: no tensor inputs. The segment's activations are recomputed in backward."))
        if not c.preserve_rng_state and has_random_ops(c.forward_ops):
            lines.append("<span style='color:{0}'>{1}</span>".format(pal["stderr"], _esc(self.tr(
                "preserve_rng_state=False and the segment uses dropout: the re-run draws a new random "
                "mask, which may differ from the forward's, so the gradients may not match the forward."))))
        if c.error:
            lines.append("<span style='color:{0}'>{1}</span>".format(
                pal["error"], _esc(self.tr("The call raised: {0}").format(c.error))))
        ref = self._selected_ref()
        r = c.recomputations[ref.index] if ref is not None else None
        if r is not None:
            if r.early_stopped:
                lines.append(self.tr("Stopped early: every needed tensor was recovered after {0} of {1} ops.")
                             .format(len(r.ops), len(c.forward_ops)))
            if r.error:
                lines.append("<span style='color:{0}'>{1}</span>".format(
                    pal["error"], _esc(self.tr("The re-run raised: {0}").format(r.error))))
        elif not c.recomputations:
            lines.append(self.tr("Never re-run: no recorded backward needed its saved tensors."))
        self.details.setText("<br>".join(lines))
        masks = masks_html(c, r, pal)
        self.masks.setText(masks)
        self.masks.setVisible(bool(masks))
        self._fill_ops(c, ref)

    def _fill_ops(self, c, ref: Optional[RecomputeRef]) -> None:
        pal = colors(self._theme)
        rerun = c.recomputations[ref.index].ops if ref is not None else []
        head = (self.tr("re-run {0} op").format(ref.index + 1) if ref is not None else self.tr("re-run op"))
        self.ops.setHorizontalHeaderLabels([self.tr("forward op"), head])
        n = max(len(c.forward_ops), len(rerun))
        self.ops.setRowCount(n)
        muted = QColor(pal["muted"])
        for i in range(n):
            fwd = QTableWidgetItem(c.forward_ops[i] if i < len(c.forward_ops) else "")
            if i < len(rerun):
                again = QTableWidgetItem(rerun[i])
                if i < len(c.forward_ops) and rerun[i] != c.forward_ops[i]:
                    again.setForeground(QColor(pal["error"]))
            else:
                again = QTableWidgetItem(self.tr("— not re-run") if ref is not None else "")
                again.setForeground(muted)
            self.ops.setItem(i, 0, fwd)
            self.ops.setItem(i, 1, again)

    def forward_column(self) -> list[str]:
        return [self.ops.item(i, 0).text() for i in range(self.ops.rowCount()) if self.ops.item(i, 0).text()]

    def rerun_column(self) -> list[str]:
        """The re-run ops in the table (rows past an early stop say so and are left out)."""
        ref = self._selected_ref()
        n = len(self.checkpoints[ref.checkpoint].recomputations[ref.index].ops) if ref is not None else 0
        return [self.ops.item(i, 1).text() for i in range(min(n, self.ops.rowCount()))]

    # -- moving ----------------------------------------------------------------
    def _on_segment(self, row: int) -> None:
        if 0 <= row < len(self.checkpoints):
            self.current_checkpoint = row
            self._show_segment()
            line = self.checkpoints[row].line
            if line and not self._syncing:
                self.session.request_line(line)

    def _on_rerun_row(self, row: int) -> None:
        if self._syncing or not 0 <= row < len(self.refs):
            return
        self.go_to(row)

    def _on_rerun_clicked(self, item: QListWidgetItem) -> None:
        row = self.reruns.row(item)
        if 0 <= row < len(self.refs):
            self.go_to(row)

    def go_to(self, row: int) -> None:
        """Move the session to re-run `row`: its run, the step its trigger ran at,
        the trigger selected, and the segment's line in the editor."""
        ref = self.refs[row]
        c = self.checkpoints[ref.checkpoint]
        r = c.recomputations[ref.index]
        self._syncing = True
        try:
            if self.reruns.currentRow() != row:
                self.reruns.setCurrentRow(row)
            self.current_checkpoint = ref.checkpoint
            self.segments.setCurrentRow(ref.checkpoint)
        finally:
            self._syncing = False
        step = session_step_of(r)
        if step is not None:
            self.session.select_run(r.run)
            self.session.set_step(step)
            if r.trigger is not None:
                self.session.select_node(r.trigger)
        self._show_segment()
        if c.line:
            self.session.request_line(c.line)

    def _now(self) -> list[int]:
        """Rows of the re-runs happening at the session's run and step."""
        run, step = self.session.run_index, self.session.step
        frame = self.session.recompute.frame  # inside the stepper's recompute phase
        out = []
        for row, ref in enumerate(self.refs):
            c = self.checkpoints[ref.checkpoint]
            r = c.recomputations[ref.index]
            if frame is not None:
                if r.run == run and r.step == frame.step and c.id == frame.checkpoint:
                    out.append(row)
            elif r.run == run and session_step_of(r) == step:
                out.append(row)
        return out

    def _follow_session(self, *_args) -> None:
        self.highlighted = self._now()
        if self.highlighted:
            row = self.highlighted[0]
            self._syncing = True
            try:
                self.reruns.setCurrentRow(row)
                self.current_checkpoint = self.refs[row].checkpoint
                self.segments.setCurrentRow(self.current_checkpoint)
            finally:
                self._syncing = False
            self._show_segment()
        self._paint_highlight()
        self._update_caption()

    def _paint_highlight(self) -> None:
        pal = colors(self._theme)
        on = QBrush(QColor(pal["stopped_bg"]))
        for row in range(len(self.refs)):
            item = self.reruns.item(row)
            if item is None:
                continue
            lit = row in self.highlighted
            item.setBackground(on if lit else QBrush())
            f = item.font()
            f.setBold(lit)
            item.setFont(f)

    def _update_caption(self) -> None:
        if not self.checkpoints:
            self.caption.setText("")
            return
        if self.highlighted:
            texts = []
            for row in self.highlighted:
                ref = self.refs[row]
                r = self.checkpoints[ref.checkpoint].recomputations[ref.index]
                texts.append(self.tr("<b>Recomputing checkpoint {0}</b> ({1}) because {2} needs its "
                                     "saved tensors.").format(ref.checkpoint + 1, self.ops_text(len(r.ops)),
                                                               _esc(self.node_text(r.run, r.trigger))))
            self.caption.setText(" ".join(texts))
            return
        nxt = self._next_row()
        if nxt is None:
            self.caption.setText(self.tr("No more recomputations in the recorded backward runs after this step."))
            return
        ref = self.refs[nxt]
        r = self.checkpoints[ref.checkpoint].recomputations[ref.index]
        self.caption.setText(self.tr("Next: checkpoint {0} is recomputed ({1}) at run #{2}, step {3}, "
                                     "when {4} needs its saved tensors.").format(
            ref.checkpoint + 1, self.ops_text(len(r.ops)), r.run + 1, session_step_of(r), _esc(self.node_text(r.run, r.trigger))))

    def _next_row(self) -> Optional[int]:
        run, step = self.session.run_index, self.session.step
        for row, ref in enumerate(self.refs):
            r = self.checkpoints[ref.checkpoint].recomputations[ref.index]
            s = session_step_of(r)
            if s is None:
                continue
            if r.run > run or (r.run == run and s > step):
                return row
        return None

    def keyPressEvent(self, event) -> None:
        """Up/Down move between re-runs from anywhere in the panel."""
        if event.key() in (Qt.Key.Key_Up, Qt.Key.Key_Down) and self.refs:
            row = self.reruns.currentRow()
            row = 0 if row < 0 else row + (1 if event.key() == Qt.Key.Key_Down else -1)
            self.go_to(max(0, min(len(self.refs) - 1, row)))
            event.accept()
            return
        super().keyPressEvent(event)


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
