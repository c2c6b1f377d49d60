"""The GradScaler panel: the per-optimizer stage machine, a timeline of the
script's GradScaler calls, the scale over iterations and a per-iteration table.

It appears when a trace has `scaler_events`. Scrubbing works like the backward
stepper (Left/Right, Home/End, clicking a call); every move lights the stages the
recorded call left behind, animates the transition it took, and asks the editor
to show the call's line (`lineRequested`). Everything shown is read from the
trace: the panel never recomputes what a GradScaler would have done.
"""

from __future__ import annotations

import html
from typing import Optional

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView, QHeaderView, QLabel, QListWidget, QListWidgetItem, QSplitter,
    QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget,
)

from autogradviz.engine.trace import scaler_replay

from autogradviz.app.panels.grad_scaler.scale_chart import ScaleChart
from autogradviz.app.services.text_safety import escaped, plain_tip
from autogradviz.app.theme import colors
from autogradviz.app.panels.grad_scaler.state_diagram import StateDiagram
from autogradviz.app.services.number_text import six_digits


class GradScalerPanel(QWidget):
    """Takes the session (the trace's owner); shows its `scaler_events`."""

    lineRequested = Signal(int)

    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.session = session
        self.events: list = []
        self.index = -1
        self._theme = "light"
        self.diagrams: dict[str, StateDiagram] = {}

        self.intro = QLabel(self)
        self.intro.setWordWrap(True)
        self.calls = QListWidget(self)
        self.calls.setSelectionMode(QAbstractItemView.SingleSelection)
        # a refusal's message is long: wrapped in the list, not cut at its right edge
        self.calls.setWordWrap(True)
        self.calls.setTextElideMode(Qt.ElideNone)
        self.calls.setResizeMode(QListWidget.Adjust)
        self.calls.currentRowChanged.connect(self._on_row)
        self.caption = QLabel(self)
        self.caption.setWordWrap(True)
        self.caption.setTextFormat(Qt.RichText)
        self.diagram_box = QWidget(self)
        self.diagram_layout = QVBoxLayout(self.diagram_box)
        self.diagram_layout.setContentsMargins(0, 0, 0, 0)
        self.chart = ScaleChart(self)
        self.table = QTableWidget(0, 7, self)
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)

        left = QWidget(self)
        lv = QVBoxLayout(left)
        lv.setContentsMargins(0, 0, 0, 0)
        lv.addWidget(self.calls)
        right = QWidget(self)
        rv = QVBoxLayout(right)
        rv.setContentsMargins(0, 0, 0, 0)
        rv.addWidget(self.diagram_box)
        rv.addWidget(self.caption)
        split = QSplitter(Qt.Horizontal, self)
        split.addWidget(left)
        split.addWidget(right)
        split.setStretchFactor(0, 2)
        split.setStretchFactor(1, 3)
        bottom = QSplitter(Qt.Horizontal, self)
        bottom.addWidget(self.chart)
        bottom.addWidget(self.table)
        outer = QSplitter(Qt.Vertical, self)
        outer.addWidget(split)
        outer.addWidget(bottom)
        lay = QVBoxLayout(self)
        lay.addWidget(self.intro)
        lay.addWidget(outer, 1)
        self.setFocusPolicy(Qt.StrongFocus)
        self.retranslate()
        session.traceChanged.connect(self.reload)
        self.reload()

    # -- texts ---------------------------------------------------------------
    def retranslate(self) -> None:
        self.intro.setText(self.tr(
            "Each GradScaler call the script made, in order. Per optimizer the stage goes READY → "
            "UNSCALED → STEPPED and back to READY at update(). Left/Right step through the calls."))
        self.table.setHorizontalHeaderLabels([
            self.tr("iteration"), self.tr("loss"), self.tr("scale"), self.tr("found inf/NaN"),
            self.tr("step skipped"), self.tr("grad norm (scaled)"), self.tr("grad norm (unscaled)")])
        self.calls.setToolTip(self.tr("Click a call to see the stages after it and its line in the editor"))
        self.chart.retranslate()
        self._fill_calls()
        self._show(self.index, animate=False)

    def changeEvent(self, event) -> None:
        """A live language switch re-says everything on screen: the introduction,
        the table's headers and cells, the calls, the caption and the chart's axes
        (the stage diagrams paint their words anew)."""
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
            self._fill_table()
            for d in self.diagrams.values():
                d.update()
        super().changeEvent(event)

    def set_theme(self, name: str) -> None:
        self._theme = name
        self.chart.set_theme(name)
        for d in self.diagrams.values():
            d.set_colors(colors(name))
        self._fill_calls()
        self._fill_table()
        self._show(self.index, animate=False)

    # -- data ----------------------------------------------------------------
    def reload(self) -> None:
        trace = self.session.trace
        self.events = list(getattr(trace, "scaler_events", None) or []) if trace is not None else []
        for d in self.diagrams.values():
            d.setParent(None)
            d.deleteLater()
        self.diagrams = {}
        for o in scaler_replay.optimizers(self.events):
            d = StateDiagram(o, self.diagram_box)
            d.set_colors(colors(self._theme))
            self.diagram_layout.addWidget(d)
            self.diagrams[o] = d
        self._fill_calls()
        self._fill_table()
        self._fill_chart()
        self.index = -1
        if self.events:
            self.calls.setCurrentRow(0)

    def _call_text(self, e) -> str:
        opt = f"({e.optimizer})" if e.optimizer else "()"
        head = f"{e.scaler}.{e.call}{opt}"
        line = self.tr("line {0}").format(e.line) if e.line else ""
        if e.error is not None:
            what = self.tr("refused: “{0}”").format(e.error.message)  # torch's words, quoted
        elif e.call in ("unscale_", "step"):
            what = f"{e.stage_before} → {e.stage_after}"
            if e.skipped:
                what += "  " + self.tr("optimizer.step() skipped")
        elif e.call == "update":
            what = self.tr("scale {0} → {1}").format(six_digits(e.scale_before), six_digits(e.scale_after))
        else:
            what = self.tr("× {0}").format(six_digits(e.scale_before))
        return "  ".join(x for x in (line, head, what) if x)

    def _fill_calls(self) -> None:
        self.calls.blockSignals(True)
        self.calls.clear()
        red = QColor(colors(self._theme)["error"])
        for e in self.events:
            item = QListWidgetItem(self._call_text(e))
            item.setToolTip(plain_tip(item.text()))
            if e.error is not None or e.skipped:
                item.setForeground(red)
            self.calls.addItem(item)
        if 0 <= self.index < self.calls.count():
            self.calls.setCurrentRow(self.index)
        self.calls.blockSignals(False)

    def _fill_table(self) -> None:
        rows = scaler_replay.iterations(self.events)
        self.table.setRowCount(len(rows))
        yes, no = self.tr("yes"), self.tr("no")
        for r, row in enumerate(rows):
            cells = [f"{row.scaler} #{row.iteration}", six_digits(row.loss), six_digits(row.scale),
                     yes if row.found_inf else no,
                     ", ".join(row.skipped) if row.skipped else no,
                     six_digits(row.grad_norm_scaled), six_digits(row.grad_norm_unscaled)]
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if row.found_inf and c in (3, 4):
                    item.setForeground(QColor(colors(self._theme)["error"]))
                self.table.setItem(r, c, item)

    def _fill_chart(self) -> None:
        scalers = sorted({e.scaler for e in self.events})
        if not scalers:
            self.chart.set_data(0.0, [], [])
            return
        s = scalers[0]
        first = next((e for e in self.events if e.scaler == s and e.scale_before), None)
        skipped = sorted({e.iteration for e in self.events if e.scaler == s and e.skipped})
        self.chart.set_data(first.scale_before if first else 0.0, scaler_replay.scale_series(self.events, s),
                            skipped)

    # -- moving --------------------------------------------------------------
    def _on_row(self, row: int) -> None:
        self._show(row, animate=True)

    def set_index(self, k: int) -> None:
        if not self.events:
            return
        k = max(0, min(len(self.events) - 1, k))
        self.calls.setCurrentRow(k)

    def _show(self, k: int, animate: bool) -> None:
        self.index = k
        if not self.events or k < 0:
            self.caption.setText(self.tr("No GradScaler calls were recorded.") if not self.events else "")
            return
        states = scaler_replay.state_at(self.events, k)
        for o, d in self.diagrams.items():
            st = states[o]
            d.show_event(st.stage, _taken(st), (st.stage, st.refused) if st.refused else None,
                         st.message, animate=animate)
        e = self.events[k]
        self.chart.set_cursor(e.iteration)
        self.caption.setText(self._caption(e))
        if e.line:
            self.lineRequested.emit(e.line)
            self.session.request_line(e.line)

    def _caption(self, e) -> str:
        if e.error is not None:
            return self.tr("<b>{0}()</b> was refused: <span style='color:{1}'>{2}: “{3}”</span>").format(
                escaped(e.call), colors(self._theme)["error"], escaped(e.error.type), html.escape(e.error.message))
        if e.call == "scale":
            return self.tr("<b>scale()</b> multiplied the loss by {0}: every gradient of this backward "
                           "is {0} times too large until it is unscaled.").format(six_digits(e.scale_before))
        if e.call == "unscale_":
            return self.tr("<b>unscale_()</b> divided the gradients by {0} (norm {1} → {2}) and checked "
                           "them for inf/NaN.").format(six_digits(e.scale_before), six_digits(e.grad_norm_scaled),
                                                        six_digits(e.grad_norm_unscaled))
        if e.call == "step":
            first = self.tr("It unscaled the gradients itself first. ") if e.implicit_unscale else ""
            if e.skipped:
                return first + self.tr("<b>step()</b> found inf/NaN in the gradients and <b>skipped</b> "
                                       "optimizer.step(): the parameters did not change.")
            return first + self.tr("<b>step()</b> called optimizer.step() with the unscaled gradients.")
        if e.scale_after is not None and e.scale_before is not None and e.scale_after < e.scale_before:
            return self.tr("<b>update()</b>: a step had inf/NaN gradients, so the scale backs off "
                           "{0} → {1}.").format(six_digits(e.scale_before), six_digits(e.scale_after))
        if e.scale_after is not None and e.scale_before is not None and e.scale_after > e.scale_before:
            return self.tr("<b>update()</b>: enough clean iterations in a row, so the scale grows "
                           "{0} → {1}.").format(six_digits(e.scale_before), six_digits(e.scale_after))
        return self.tr("<b>update()</b>: no inf/NaN; clean iterations in a row: {0}.").format(
            e.growth_tracker)

    def keyPressEvent(self, event) -> None:
        keys = {Qt.Key.Key_Left: self.index - 1, Qt.Key.Key_Right: self.index + 1,
                Qt.Key.Key_Home: 0, Qt.Key.Key_End: len(self.events) - 1}
        if event.key() in keys and self.events:
            self.set_index(keys[event.key()])
            event.accept()
            return
        super().keyPressEvent(event)


def _taken(st) -> Optional[tuple[str, str, str]]:
    if st.taken is None:
        return None
    ends = {"unscale_": ("READY", "UNSCALED"), "step": ("UNSCALED", "STEPPED"),
            "step_implicit": ("READY", "STEPPED"), "update": ("STEPPED", "READY")}
    a, b = ends[st.taken]
    return (a, b, st.taken)
