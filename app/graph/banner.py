"""What the graph area says in words: the banner line above the graph and
the busy bar floating over it while a layout runs.

The banner explains an empty or partial graph (the run failed, was stopped,
built no graph) or how a large graph was simplified. The layout engine sends
its notes and progress stages as codes (`LayoutNote`, stage names); they are
turned into text here, in the user's language. Nothing here reads the
engine's English sentences.
"""

from __future__ import annotations

from typing import Callable, Iterable, Optional

from PySide6.QtCore import QCoreApplication, QEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QProgressBar, QPushButton

from autogradviz.app.graph.style import GraphStyle
from autogradviz.app.services.text_safety import plain
from autogradviz.app.session import TraceSession




def trace_banner(session: TraceSession) -> tuple[str, bool]:
    """What the banner says about the session's trace: (text, is_error);
    ("", False) when there is nothing to say."""
    trace = session.trace
    if trace is None:
        return (QCoreApplication.translate("GraphView", "No graph: the last run did not finish (it was stopped, crashed or ran out "
                               "of time), so the previous graph was cleared. Press Run to try again."), True)
    err = trace.error
    where = ""
    if err is not None:
        where = (QCoreApplication.translate("GraphView", "{0} at line {1}").format(err.type, err.line) if err.line
                 else str(err.type))
    if session.graph is None:
        if err is not None:
            return (QCoreApplication.translate("GraphView", "No graph: the script stopped with {0} before it built an autograd "
                                   "graph. The Output pane says what went wrong.").format(where), True)
        return (QCoreApplication.translate("GraphView", "No autograd graph: the script created no tensor that requires "
                               "grad (try requires_grad=True)."), False)
    if err is not None:
        return (QCoreApplication.translate("GraphView", "The script stopped with {0}: the graph shows what it had built until "
                               "then. The Output pane says what went wrong.").format(where), True)
    return "", False


def note_text(code: str, params: dict) -> str:
    """A layout note a learner needs, in their language: how a large graph was
    simplified ("" for notes the banner leaves to the status bar, such as
    which layout engine ran)."""
    if code != "large_graph":
        return ""
    nodes, boxes = params.get("nodes", 0), params.get("boxes", 0)
    if params.get("repeats"):
        return QCoreApplication.translate(
            "GraphView", "Large graph ({0} nodes): drawn as {1} boxes. Identical layers are drawn once "
            "(×N, with a loop-back edge); the frame's title says which copy runs. Click the title to "
            "unfold them; View ▸ Fold Repeated Layers turns folding off.").format(nodes, boxes)
    if params.get("rolled") and params.get("folded"):
        return QCoreApplication.translate(
            "GraphView", "Large graph ({0} nodes): drawn as {1} boxes. A module called many times is "
            "drawn rolled: its first call, with a loop-back edge marked ×N; its frame's menu unrolls "
            "every call.").format(nodes, boxes)
    if params.get("rolled"):
        return QCoreApplication.translate("GraphView", "Large graph ({0} nodes): drawn as {1} boxes. A module called many times is "
                              "rolled into one box (×N): click it to see one box per call; click a box "
                              "with a module name to look inside.").format(nodes, boxes)
    return QCoreApplication.translate("GraphView", "Large graph ({0} nodes): drawn as {1} boxes, with module calls collapsed "
                          "into one box each. Click a box with a module name to look inside.").format(nodes, boxes)


def notes_text(notes: Iterable) -> str:
    """The banner text of a layout's `note_codes` ((code, params) pairs)."""
    return " ".join(t for t in (note_text(code, params) for code, params in notes) if t)


def stage_text(stage: str) -> str:
    """The busy bar's words for a layout progress stage (a code from
    engine/layout); unknown stages keep the general words."""
    texts = {
        "preparing": QCoreApplication.translate("GraphView", "Preparing the graph…"),
        "prepared": QCoreApplication.translate("GraphView", "Preparing the graph…"),
        "graphviz": QCoreApplication.translate("GraphView", "Graphviz is placing the boxes…"),
        "graphviz_output": QCoreApplication.translate("GraphView", "Reading the Graphviz result…"),
        "layout": QCoreApplication.translate("GraphView", "Placing the boxes…"),
        "ranks": QCoreApplication.translate("GraphView", "Placing the boxes…"),
        "ordering": QCoreApplication.translate("GraphView", "Ordering the boxes…"),
        "placing": QCoreApplication.translate("GraphView", "Placing the boxes…"),
        "routing": QCoreApplication.translate("GraphView", "Drawing the edges…"),
        "done": QCoreApplication.translate("GraphView", "Drawing the graph…"),
    }
    return texts.get(stage, QCoreApplication.translate("GraphView", "Laying out the graph…"))


class Banner(QLabel):
    """One line of text above the graph, red-edged for errors, blue for notes,
    in the graph theme's colours (readable in light and dark)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        plain(self)  # it names the script's error: never markup
        self.setWordWrap(True)
        self._error = True
        self._style: Optional[GraphStyle] = None
        self._render: Optional[Callable[[], tuple[str, bool]]] = None
        self.hide()

    def show_message(self, text: str, error: bool = True,
                     render: Optional[Callable[[], tuple[str, bool]]] = None) -> None:
        """Show `text`; `render()` -> (text, error) says it again in the UI
        language after a live switch (without it the text stays as given)."""
        self._error = error
        self._render = render
        self.setText(text)
        self._restyle()
        self.show()

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.LanguageChange and self._render is not None and not self.isHidden():
            text, error = self._render()
            if text:
                self._error = error
                self.setText(text)
                self._restyle()
        super().changeEvent(event)

    def set_style(self, style: GraphStyle) -> None:
        self._style = style
        self._restyle()

    def _restyle(self) -> None:
        st = self._style
        if st is None:
            return
        fill = st.banner_error_fill if self._error else st.banner_info_fill
        border = st.banner_error_border if self._error else st.banner_info_border
        if fill is None or border is None or st.banner_text is None:
            return  # (a style without banner colours: the palette always gives them)
        self.setStyleSheet(
            "QLabel { padding: 5px 8px; background: %s; color: %s; border: none; "
            "border-left: 4px solid %s; }" % (fill.name(), st.banner_text.name(), border.name()))

    def shown_text(self) -> str:
        """The text ("" when hidden)."""
        return self.text() if not self.isHidden() else ""


class BusyBar(QFrame):
    """Progress and Cancel of a running layout. It floats over the top of the
    view (`place`), so the picture does not jump when it comes and goes."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setFrameShape(QFrame.StyledPanel)
        self.setAutoFillBackground(True)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(4, 2, 4, 2)
        self.label = QLabel(self)
        self.progress = QProgressBar(self)
        self.progress.setRange(0, 100)
        self.progress.setMaximumWidth(220)
        self.cancel_btn = QPushButton(self)
        lay.addWidget(self.label, 1)
        lay.addWidget(self.progress)
        lay.addWidget(self.cancel_btn)
        self.hide()

    def start(self) -> None:
        self.label.setText(QCoreApplication.translate("GraphView", "Laying out the graph…"))
        self.progress.setValue(0)
        self.show()

    def set_progress(self, fraction: float, stage: str) -> None:
        self.progress.setValue(int(max(0.0, min(1.0, fraction)) * 100))
        if stage:
            self.label.setText(stage_text(stage))

    def place(self, over) -> None:
        """Centre it along the top of the widget `over` (the canvas)."""
        if self.isVisible():
            self.adjustSize()
            g = over.geometry()
            w = min(max(self.sizeHint().width(), 360), g.width() - 16)
            self.setGeometry(g.x() + (g.width() - w) // 2, g.y() + 8, w, self.sizeHint().height())
            self.raise_()

    def retranslate(self) -> None:
        self.cancel_btn.setText(QCoreApplication.translate("GraphView", "Cancel"))
        self.cancel_btn.setToolTip(QCoreApplication.translate("GraphView", "Stop laying out the graph; the previous picture stays."))
