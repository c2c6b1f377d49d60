"""The stepper: walk through a recorded backward pass, forward and back.

Controls (first/back/play-pause/forward/last, a speed slider), a scrubbable
timeline with one tick per step and marks where hooks fired, and the list of
events in sync with the step (clicking an event jumps to its step). Everything
only moves `session.step`; the graph and the inspector follow the session.
"""

from __future__ import annotations

import html
from typing import Optional, Sequence

from PySide6.QtCore import QEvent, QRectF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QKeySequence, QPainter, QPalette, QPen, QShortcut
from PySide6.QtWidgets import (
    QComboBox, QFrame, QHBoxLayout, QLabel, QListWidget, QListWidgetItem, QScrollArea, QSlider,
    QSplitter, QStyle, QToolButton, QVBoxLayout, QWidget,
)

from autogradviz.engine.trace import replay
from autogradviz.engine.trace.model import MAX_RECORDED_RUNS

from autogradviz.app.features import event_text, features, step_captions
from autogradviz.app.graph.items import summary_text
from autogradviz.app.graph.scene import event_title
from autogradviz.app.panels.processes import RankSwitch
from autogradviz.app.panels.step_marks import StepMarks
from autogradviz.app.panels.why_gradient import caption_text
from autogradviz.app.resources_loader import icon_or_standard as _icon
from autogradviz.app.services.text_safety import escaped, plain, plain_tip
from autogradviz.app.session import TraceSession





def code_without_comment(code: str) -> str:
    """A line of the script without its trailing comment (the caption quotes
    the code; the comment is the lesson's, in the editor right beside it)."""
    import io
    import tokenize
    try:
        for tok in tokenize.generate_tokens(io.StringIO(code).readline):
            if tok.type == tokenize.COMMENT:
                return code[:tok.start[1]].rstrip() or code.strip()
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return code.strip()


class _CaptionArea(QScrollArea):
    """The step caption's scroll area: asks for the few lines the strip
    always had (so the canvas keeps its share of the window) and scrolls
    the rest of a long caption instead of cutting it."""

    LINES = 4

    def sizeHint(self) -> QSize:
        inner = self.widget()
        spacing = inner.fontMetrics().lineSpacing() if inner is not None else 16
        return QSize(super().sizeHint().width(), spacing * self.LINES + 4)

    def minimumSizeHint(self) -> QSize:
        inner = self.widget()
        spacing = inner.fontMetrics().lineSpacing() if inner is not None else 16
        return QSize(super().minimumSizeHint().width(), spacing * 2 + 4)


class Timeline(QWidget):
    """One tick per step (0..n), marks where hooks fired; click or drag to scrub."""

    scrubbed = Signal(int)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.n = 0
        self.step = 0
        self.sub = 0.0  # inside a checkpoint recompute phase: how far towards step + 1 (0..1)
        self.hook_steps: set[int] = set()
        self.event_steps: set[int] = set()
        self.setMinimumHeight(34)
        self.setMouseTracking(True)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setCursor(Qt.PointingHandCursor)

    def sizeHint(self) -> QSize:
        return QSize(400, 38)

    def set_run(self, n: int, hook_steps, event_steps) -> None:
        self.n = n
        self.hook_steps = set(hook_steps)
        self.event_steps = set(event_steps)
        self.update()

    def set_step(self, k: int) -> None:
        if k != self.step:
            self.step = k
            self.update()

    def set_sub(self, fraction: float) -> None:
        """Move the handle between the ticks of `step` and `step + 1` (a
        recompute phase's frames: panels/checkpoint/phase_text.py)."""
        if fraction != self.sub:
            self.sub = fraction
            self.update()

    def position(self) -> float:
        """Where the handle is, in steps (a fraction inside a recompute phase)."""
        return self.step + self.sub

    def _x(self, k: float) -> float:
        w = self.width() - 20
        return 10 + (w * k / self.n if self.n else 0)

    def step_at(self, x: float) -> int:
        if self.n <= 0:
            return 0
        w = self.width() - 20
        return max(0, min(self.n, round((x - 10) / w * self.n)))

    def paintEvent(self, event) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        pal = self.palette()
        mid = self.height() / 2 + 2
        p.setPen(QPen(pal.color(QPalette.ColorRole.Mid), 2))
        p.drawLine(10, int(mid), self.width() - 10, int(mid))
        if self.n <= 0:
            p.end()
            return
        accent = QColor("#e6007a")
        done = pal.color(QPalette.ColorRole.Highlight)
        p.setPen(QPen(done, 4))
        p.drawLine(10, int(mid), int(self._x(self.position())), int(mid))
        # the ticks drawn: every step, or (denser than one per 3 px) every
        # n/50th step, the events' steps and both ends - listed, not tested one
        # by one (a 911-step run's paint walked every step: ~0.7 ms a step)
        if self.n > (self.width() - 20) / 3:
            ticks: Sequence[int] = sorted({0, self.n, *range(0, self.n + 1, max(1, self.n // 50)),
                            *(k for k in self.event_steps if 0 <= k <= self.n)})
        else:
            ticks = range(self.n + 1)
        passed, ahead = (QPen(pal.color(QPalette.ColorRole.WindowText), 1), QPen(pal.color(QPalette.ColorRole.Mid), 1))
        top, bottom = int(mid - 5), int(mid + 5)
        for pen, ks in ((passed, [k for k in ticks if k <= self.step]), (ahead, [k for k in ticks if k > self.step])):
            p.setPen(pen)
            for k in ks:
                tick_x = int(self._x(k))
                p.drawLine(tick_x, top, tick_x, bottom)
        for k in self.hook_steps:
            x = self._x(k)
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(QColor("#8e24aa"))
            p.drawPolygon([self._pt(x, mid - 8), self._pt(x - 5, mid - 15), self._pt(x + 5, mid - 15)])
        for k in self.event_steps - self.hook_steps:
            x = self._x(k)
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(QColor("#1f7a99"))
            p.drawEllipse(QRectF(x - 3, mid - 15, 6, 6))
        x = self._x(self.position())
        p.setPen(QPen(accent.darker(130), 1.5))
        p.setBrush(accent)
        p.drawEllipse(QRectF(x - 6, mid - 6, 12, 12))
        p.end()

    @staticmethod
    def _pt(x, y):
        from PySide6.QtCore import QPointF
        return QPointF(x, y)

    def mousePressEvent(self, event) -> None:
        self.scrubbed.emit(self.step_at(event.position().x()))

    def mouseMoveEvent(self, event) -> None:
        if event.buttons() & Qt.MouseButton.LeftButton:
            self.scrubbed.emit(self.step_at(event.position().x()))
        else:
            k = self.step_at(event.position().x())
            self.setToolTip(self.tr("Step {0} of {1}. Click or drag to move through the backward pass; "
                                    "purple marks: a hook fired; blue dots: retain_grad filled .grad; "
                                    "amber triangles: a checkpoint re-ran its forward.")
                            .format(k, self.n))


# The key that steps forward wherever the focus is (Run ▸ Next Step); the hint names it.
STEP_KEY = "F10"


class StepperPanel(QWidget):
    def __init__(self, session: TraceSession, parent: Optional[QWidget] = None):
        super().__init__(parent)
        self._unplaced: list[str] = []  # labels with no room on the graph (set_unplaced)
        self.session = session
        self._theme: Optional[str] = None  # None: the icon loader's current theme
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)

        self.run_combo = QComboBox(self)
        self.run_combo.currentIndexChanged.connect(self._on_combo)
        self.run_label = plain(QLabel(self))

        self.first_btn = QToolButton(self)
        self.first_btn.setIcon(_icon("step-first", QStyle.StandardPixmap.SP_MediaSkipBackward))
        self.back_btn = QToolButton(self)
        self.back_btn.setIcon(_icon("step-back", QStyle.StandardPixmap.SP_MediaSeekBackward))
        self.play_btn = QToolButton(self)
        self.forward_btn = QToolButton(self)
        self.forward_btn.setIcon(_icon("step-forward", QStyle.StandardPixmap.SP_MediaSeekForward))
        self.last_btn = QToolButton(self)
        self.last_btn.setIcon(_icon("step-last", QStyle.StandardPixmap.SP_MediaSkipForward))
        self.first_btn.clicked.connect(self.go_first)
        self.back_btn.clicked.connect(self.go_back)
        self.play_btn.clicked.connect(self.toggle_play)
        self.forward_btn.clicked.connect(self.go_forward)
        self.last_btn.clicked.connect(self.go_last)
        for b in (self.first_btn, self.back_btn, self.play_btn, self.forward_btn, self.last_btn):
            b.setAutoRaise(True)
            b.setIconSize(QSize(20, 20))
            b.setFocusPolicy(Qt.FocusPolicy.NoFocus)

        self.speed = QSlider(Qt.Orientation.Horizontal, self)
        self.speed.setRange(1, 20)  # steps per second
        self.speed.setValue(2)
        self.speed.setMaximumWidth(120)
        self.speed.setMinimumWidth(60)
        self.speed.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.speed.valueChanged.connect(self._on_speed)
        self.speed_label = QLabel(self)

        self.step_label = QLabel(self)
        self.step_label.setTextFormat(Qt.TextFormat.RichText)
        self.step_label.setWordWrap(True)
        self.step_label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        # A caption longer than the strip is high (a rule over a long
        # gradient, a small window) scrolls rather than being cut off.
        self.caption_area = _CaptionArea(self)
        self.caption_area.setWidget(self.step_label)
        self.caption_area.setWidgetResizable(True)
        self.caption_area.setFrameShape(QFrame.Shape.NoFrame)
        self.caption_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.caption_area.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.timeline = Timeline(self)
        self.timeline.scrubbed.connect(self.session.set_step)
        self.note = plain(QLabel(self))  # it may quote the trace
        self.note.setWordWrap(True)
        self.note.hide()

        self.events = QListWidget(self)
        self.events.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.events.setWordWrap(True)
        self.events.setSelectionMode(QListWidget.SelectionMode.NoSelection)
        self.events.itemClicked.connect(self._on_event_clicked)

        self.timer = QTimer(self)
        self.timer.timeout.connect(self._tick)

        self.rank_switch = RankSwitch(session, self.run_combo, self)  # several processes/threads
        self.marks = StepMarks(self.timeline, session)  # every feature's (app/features/)
        # A compact strip under the graph: one row of controls with the timeline
        # in it, the step caption under it, the events list beside both.
        top = QHBoxLayout()
        top.setSpacing(4)
        top.addWidget(self.rank_switch)
        top.addWidget(self.run_label)
        top.addWidget(self.run_combo)
        for b in (self.first_btn, self.back_btn, self.play_btn, self.forward_btn, self.last_btn):
            top.addWidget(b)
        top.addWidget(self.timeline, 1)
        top.addWidget(self.speed_label)
        top.addWidget(self.speed)
        self.run_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.run_combo.setMinimumContentsLength(14)
        self.controls = QWidget(self)
        self.controls.setLayout(top)
        top.setContentsMargins(0, 0, 0, 0)
        left = QWidget(self)
        ll = QVBoxLayout(left)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.setSpacing(2)
        ll.addWidget(self.controls)
        ll.addWidget(self.caption_area, 1)
        ll.addWidget(self.note)
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.addWidget(left)
        split.addWidget(self.events)
        split.setStretchFactor(0, 4)
        split.setStretchFactor(1, 1)
        split.setSizes([800, 240])
        self.events.setMinimumWidth(120)
        self.split = split
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 2, 4, 2)
        lay.addWidget(split)

        self._shortcuts: list = []
        self.install_shortcuts(self)

        session.traceChanged.connect(self._rebuild)
        session.runChanged.connect(self._on_run)
        session.stepChanged.connect(self._on_step)
        session.graphChanged.connect(lambda _g: self._on_run(session.run_index))
        self.retranslate()
        self._rebuild()
        for spec in features():  # e.g. the checkpoint's recompute frames in the step line
            if spec.stepper_attach is not None:
                spec.stepper_attach(self)

    # -- shortcuts ------------------------------------------------------------------------------
    def set_unplaced(self, texts: list[str]) -> None:
        """The labels the graph has no free place for: said in the caption
        instead of drawn over something (app/graph/placement.py)."""
        self._unplaced = list(texts)
        self._on_step(self.session.step)

    def install_shortcuts(self, widget: QWidget) -> None:
        """Left/Right/Space/Home/End on `widget` and its children (e.g. the graph view)."""
        for key, slot in ((Qt.Key.Key_Left, self.go_back), (Qt.Key.Key_Right, self.go_forward),
                          (Qt.Key.Key_Space, self.toggle_play), (Qt.Key.Key_Home, self.go_first),
                          (Qt.Key.Key_End, self.go_last)):
            sc = QShortcut(QKeySequence(key), widget)
            sc.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            sc.activated.connect(slot)
            self._shortcuts.append(sc)

    # -- texts ---------------------------------------------------------------------------------------
    def retranslate(self) -> None:
        self.run_label.setText(self.tr("Backward run:"))
        self.rank_switch.retranslate()
        self.run_combo.setToolTip(self.tr("Each call of backward() or torch.autograd.grad() the script made, "
                                          "and graphs of tensors left at the end that no backward ran on."))
        self.first_btn.setToolTip(self.tr("First: before backward starts (Alt+Home, or Home in the graph)"))
        self.back_btn.setToolTip(self.tr("Step back (Shift+F10, or ← in the graph)"))
        self.forward_btn.setToolTip(self.tr("Step forward: run the next node (F10, or → in the graph)"))
        self.last_btn.setToolTip(self.tr("Last: after the whole backward pass (Alt+End, or End in the graph)"))
        self.speed_label.setText(self.tr("Speed"))
        self.speed.setToolTip(self.tr("Playback speed: {0} steps per second").format(self.speed.value()))
        self.events.setToolTip(self.tr("Hooks and retain_grad fills, in the order they happened. "
                                       "Click one to jump to its step."))
        self.timeline.setToolTip(self.tr("One tick per step. Click or drag to move through the backward pass."))
        self._update_play_button()
        self._rebuild()

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        elif event.type() in (QEvent.Type.PaletteChange, QEvent.Type.StyleChange):
            self._load_icons()
            self._recolor_events()
        super().changeEvent(event)

    def _load_icons(self) -> None:
        """(Re)load the icons: their ink follows the light/dark theme."""
        t = self._theme
        self.first_btn.setIcon(_icon("step-first", QStyle.StandardPixmap.SP_MediaSkipBackward, t))
        self.back_btn.setIcon(_icon("step-back", QStyle.StandardPixmap.SP_MediaSeekBackward, t))
        self.forward_btn.setIcon(_icon("step-forward", QStyle.StandardPixmap.SP_MediaSeekForward, t))
        self.last_btn.setIcon(_icon("step-last", QStyle.StandardPixmap.SP_MediaSkipForward, t))
        self._update_play_button()

    def set_theme(self, name: str) -> None:
        self._theme = "dark" if name == "dark" else "light"
        self._load_icons()
        self._recolor_events()

    def _recolor_events(self) -> None:
        """The event list's colours come from the palette when the step is shown:
        a theme switch shows the step again (else dark text stays on a dark list)."""
        if self.session.state is not None:
            self._on_step(self.session.step)

    # -- building ----------------------------------------------------------------------------------
    def _rebuild(self) -> None:
        self.stop()
        t = self.session.trace
        self.run_combo.blockSignals(True)
        self.run_combo.clear()
        if t is not None:
            for i, r in enumerate(t.backward_runs):
                root = self._root_label(t, r)
                if r.kind == "grad":
                    what = f"torch.autograd.grad({root}, …)" if root else "torch.autograd.grad()"
                else:
                    what = f"{root}.backward()" if root else "backward()"
                text = self.tr("#{0}: {1}").format(i + 1, what)
                if r.line:
                    text += self.tr(" at line {0}").format(r.line)
                text += self.tr(" — {0} steps").format(len(r.steps))
                self.run_combo.addItem(text, i)
            # graphs no backward ran on (tensors left in the namespace): viewable too
            with_runs = {r.graph for r in t.backward_runs}
            for g in t.graphs:
                if g.id in with_runs or g.origin == "recompute":  # (a reentrant re-run's: drawn by
                    continue                                       # expanding its checkpoint's region)
                names = [n.label for n in g.nodes if n.id in g.roots and n.label]
                text = self.tr("graph of {0} (forward only, no backward)").format(
                    ", ".join(names[:3]) or g.id)
                self.run_combo.addItem(text, "graph:" + g.id)
        self.run_combo.blockSignals(False)
        self.rank_switch.refresh()
        self._on_run(self.session.run_index)

    @staticmethod
    def _root_label(trace, run) -> str:
        """The user's name for what backward started from (e.g. "loss")."""
        try:
            g = trace.graph(run.graph)
        except KeyError:
            return ""
        first = run.steps[0].node if run.steps else (g.roots[0] if g.roots else None)
        for n in g.nodes:
            if n.id == first:
                return n.label or ""
        return ""

    def _on_run(self, index: int) -> None:
        self.stop()
        t = self.session.trace
        self.run_combo.blockSignals(True)
        pos = self.run_combo.findData(index) if index >= 0 else \
            self.run_combo.findData("graph:" + self.session.graph_id)
        if pos >= 0:
            self.run_combo.setCurrentIndex(pos)
        self.run_combo.blockSignals(False)
        self.run_combo.setEnabled(self.run_combo.count() > 1)
        notes = []
        if t is not None and t.runs_truncated:
            notes.append(self.tr("The script called backward {0} times; only the first {1} calls were "
                                 "recorded.").format(t.backward_calls, MAX_RECORDED_RUNS))
        self.events.clear()
        if t is None or index < 0:
            self.timeline.set_run(0, (), ())
            self._set_controls(False)
            self.note.setText(self._why_empty())
            self.note.setVisible(True)
            self.step_label.setText("")
            return
        self.note.setText(" ".join(notes))
        self.note.setVisible(bool(notes))
        n = replay.step_count(t, index)
        self.timeline.set_run(n, replay.hook_steps(t, index), replay.event_steps(t, index))
        self._set_controls(n > 0)
        self.marks.refresh()
        for k, ev in replay.event_step_numbers(t, index):
            feature_text = event_text(ev.kind)  # (a feature's own event, e.g. DDP's all-reduce)
            if feature_text is not None:
                text = feature_text(k, ev)
            elif ev.kind == "retain_grad":
                val = ev.returned if ev.returned is not None else ev.received
                text = self.tr("step {0}: retain_grad filled {1}.grad = {2}").format(
                    k, self._node_name(ev.node), summary_text(val))
            else:
                text = self.tr("step {0}: {1} on {2} saw {3}").format(
                    k, event_title(ev), self._node_name(ev.node), summary_text(ev.received))
            if feature_text is None and ev.kind != "retain_grad" and (ev.replaced or ev.returned is not None):
                text += self.tr(" → returned {0}").format(summary_text(ev.returned))
            item = QListWidgetItem(text)
            item.setData(Qt.ItemDataRole.UserRole, k)
            item.setToolTip(plain_tip(text + "\n" + self.tr("Click to jump to step {0}").format(k)))
            self.events.addItem(item)
        if self.events.count() == 0:
            item = QListWidgetItem(self.tr("No hooks or retain_grad in this backward run."))
            item.setFlags(Qt.ItemFlag.NoItemFlags)
            self.events.addItem(item)
        self._on_step(self.session.step)

    def _why_empty(self) -> str:
        t = self.session.trace
        if t is None:
            return self.tr("Run a script to see its autograd graph and step through backward.")
        if t.error is not None and not t.backward_runs:
            return self.tr("The script stopped with an error before any backward pass, so there is "
                           "nothing to step through.")
        if not t.backward_runs and t.graphs:
            return self.tr("Nothing to step through: this script never called backward() or "
                           "torch.autograd.grad(). The graph shows the forward pass only; add e.g. "
                           "loss.backward() to record one.")
        if not t.backward_runs:
            return self.tr("Nothing to step through: the script built no autograd graph.")
        return self.tr("No backward run was recorded for this graph; pick another run above.")

    def _flow_text(self, st) -> str:
        """What the current node received and where its gradients went."""
        step = st.node_steps.get(st.current)
        if step is None:
            return ""
        parts = []
        if step.grad_outputs:
            parts.append(self.tr(": received {0}").format(
                html.escape(", ".join(summary_text(g) for g in step.grad_outputs))))
        g = self.session.graph
        sent = []
        if g is not None:
            for e in g.edges:
                if e.dst == st.current and 0 <= e.slot < len(step.grad_inputs) and step.grad_inputs[e.slot] is not None:
                    sent.append(self.tr("{0} → {1}").format(escaped(summary_text(step.grad_inputs[e.slot])),
                                                           html.escape(self._node_name(e.src))))
        if sent:
            parts.append(self.tr(" and sent ") + "; ".join(sent))
        elif self.session.node(st.current) is not None and self.session.node(st.current).kind == "leaf":
            parts.append(self.tr(" and accumulated it into .grad"))
        parts.append(step_captions(self.session, step))  # e.g. GradScaler's real gradient
        return "".join(parts)

    def _node_name(self, nid: str) -> str:
        n = self.session.node(nid)
        if n is None:
            return nid
        return n.label or n.op

    def _set_controls(self, on: bool) -> None:
        for w in (self.first_btn, self.back_btn, self.play_btn, self.forward_btn, self.last_btn,
                  self.timeline, self.speed):
            w.setEnabled(on)

    # -- step display ----------------------------------------------------------------------------------
    def _on_step(self, k: int) -> None:
        st = self.session.state
        n = self.session.step_count
        self.timeline.set_step(k)
        if st is None:
            return
        if k == 0:
            text = self.tr("<b>Step 0 of {0}</b>: backward has not started. Press {1} to run the first "
                           "node.").format(n, STEP_KEY)
        else:
            node = self.session.node(st.current)
            name = html.escape(node.op if node else str(st.current))
            if node is not None and node.label:
                name = html.escape(f"{node.label} ({node.op})")
            text = self.tr("<b>Step {0} of {1}</b>: {2} ran").format(k, n, name)
            text += self._flow_text(st)
            if node is not None and node.line is not None and node.code:
                # the forward line this node differentiates (the editor's arrow points at it too)
                text += "<br>" + self.tr("Made by line {0}: {1}").format(
                    node.line, f"<code>{html.escape(code_without_comment(node.code))}</code>")
            rule = caption_text(self.session, st.current)
            if rule:
                text += "<br>" + rule
            if self._unplaced:  # labels the graph had no room for (GraphScene.unplacedChanged)
                text += "<br>" + self.tr("No room on the graph for: {0}").format(
                    html.escape("; ".join(self._unplaced)))
            if k == n:
                run = self.session.run
                if run is not None and run.kind == "grad":
                    text += self.tr(" — torch.autograd.grad is complete; it returned {0} "
                                    "(nothing was stored in .grad).").format(
                        html.escape(", ".join(summary_text(r) for r in run.results)) or "—")
                else:
                    text += self.tr(" — backward is complete.")
        self.step_label.setText(text)
        # events in sync: fired ones normal, the current step's selected, future ones greyed
        self.events.blockSignals(True)
        grey = self.palette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text)
        normal = self.palette().color(QPalette.ColorRole.Text)
        mark = QColor("#e6007a")
        mark.setAlpha(60)
        first_current = None
        for i in range(self.events.count()):
            item = self.events.item(i)
            ek = item.data(Qt.ItemDataRole.UserRole)
            if ek is None:
                continue
            item.setForeground(normal if ek <= k else grey)
            now = ek == k
            item.setData(Qt.ItemDataRole.UserRole + 1, now)
            item.setBackground(mark if now else QColor(0, 0, 0, 0))
            f = item.font()
            f.setBold(now)
            item.setFont(f)
            if now and first_current is None:
                first_current = item
        if first_current is not None:
            self.events.scrollToItem(first_current)
        self.events.blockSignals(False)
        self.back_btn.setEnabled(k > 0)
        self.first_btn.setEnabled(k > 0)
        self.forward_btn.setEnabled(k < n)
        self.last_btn.setEnabled(k < n)
        if k >= n:
            self.stop()

    # -- actions ------------------------------------------------------------------------------------------
    def go_first(self) -> None:
        self.session.set_step(0)

    def go_last(self) -> None:
        self.session.set_step(self.session.step_count)

    def go_back(self) -> None:
        if any(phase.back() for phase in self.session.step_phases()):  # e.g. into a recompute phase
            return
        self.session.set_step(self.session.step - 1)

    def go_forward(self) -> None:
        if any(phase.forward() for phase in self.session.step_phases()):
            return
        self.session.set_step(self.session.step + 1)

    def is_playing(self) -> bool:
        return self.timer.isActive()

    def toggle_play(self) -> None:
        if self.timer.isActive():
            self.stop()
            return
        if self.session.step_count <= 0:
            return
        if self.session.step >= self.session.step_count:
            self.session.set_step(0)
        self.timer.start(int(1000 / self.speed.value()))
        self._update_play_button()

    def stop(self) -> None:
        if hasattr(self, "timer"):
            self.timer.stop()
            self._update_play_button()

    def _tick(self) -> None:
        if self.session.step >= self.session.step_count:
            self.stop()
        else:
            self.go_forward()

    def _on_speed(self, v: int) -> None:
        self.speed.setToolTip(self.tr("Playback speed: {0} steps per second").format(v))
        if self.timer.isActive():
            self.timer.setInterval(int(1000 / v))

    def _update_play_button(self) -> None:
        if not hasattr(self, "play_btn"):
            return
        if self.timer.isActive():
            self.play_btn.setIcon(_icon("pause", QStyle.StandardPixmap.SP_MediaPause, self._theme))
            self.play_btn.setToolTip(self.tr("Pause (F9, or Space in the graph)"))
        else:
            self.play_btn.setIcon(_icon("play", QStyle.StandardPixmap.SP_MediaPlay, self._theme))
            self.play_btn.setToolTip(self.tr("Play the backward pass step by step (F9, or Space in the graph)"))

    def _on_combo(self, pos: int) -> None:
        idx = self.run_combo.itemData(pos)
        if isinstance(idx, str) and idx.startswith("graph:"):
            self.session.select_graph(idx[len("graph:"):])
        elif idx is not None:
            self.session.select_run(int(idx))

    @staticmethod
    def is_event_current(item: QListWidgetItem) -> bool:
        """True for the events list entries that fired at the current step."""
        return bool(item.data(Qt.ItemDataRole.UserRole + 1))

    def _on_event_clicked(self, item: QListWidgetItem) -> None:
        k = item.data(Qt.ItemDataRole.UserRole)
        if k is not None:
            self.session.set_step(int(k))

    def keyPressEvent(self, event) -> None:
        # the shortcuts normally take these keys; this covers a panel that has
        # focus in a window where shortcut dispatch did not reach it
        actions = {Qt.Key.Key_Left: self.go_back, Qt.Key.Key_Right: self.go_forward, Qt.Key.Key_Space: self.toggle_play,
                   Qt.Key.Key_Home: self.go_first, Qt.Key.Key_End: self.go_last}
        action = actions.get(event.key())
        if action is not None and not event.modifiers():
            action()
            event.accept()
            return
        super().keyPressEvent(event)

    def set_shortcuts_enabled(self, on: bool) -> None:
        """Turn the bare-key shortcuts of `install_shortcuts` on or off (presentation
        mode has window-wide ones for the same keys; two would be ambiguous)."""
        for sc in self._shortcuts:
            sc.setEnabled(on)

    def set_presentation(self, on: bool, scale: float = 1.6) -> None:
        """For a projector: only the step caption, in a larger font (the
        stepping keys are the window's); off: the controls and events again."""
        self.controls.setVisible(not on)
        self.events.setVisible(not on)
        font = self.step_label.font()
        if on and not hasattr(self, "_caption_point_size"):
            self._caption_point_size = font.pointSizeF()
            font.setPointSizeF(self._caption_point_size * scale)
        elif not on and hasattr(self, "_caption_point_size"):
            font.setPointSizeF(self._caption_point_size)
            del self._caption_point_size
        self.step_label.setFont(font)

    def hideEvent(self, event) -> None:
        self.stop()
        super().hideEvent(event)
