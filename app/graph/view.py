"""The graph widget: zoomable, pannable view of the GraphScene, with search,
minimap, legend and the background layout.

It subscribes to a `TraceSession`: a new graph starts a layout in the
background (`LayoutRunner`); when it arrives the scene is rebuilt and the
current replay state applied. A step change only calls `scene.apply_step`.
"""

from __future__ import annotations

import gc
import re
import time
from typing import Optional

from PySide6.QtCore import QEvent, QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QKeySequence, QPainter, QShortcut
from PySide6.QtWidgets import (
    QCheckBox, QFrame, QGraphicsView, QHBoxLayout, QLabel, QLineEdit, QProgressBar, QPushButton,
    QToolButton, QVBoxLayout, QWidget,
)

from autogradviz.app.graph.scene import OVERVIEW_MIN_BOXES, GraphScene
from autogradviz.app.graph.style import style_for
from autogradviz.app.services.layout_runner import LayoutRunner
from autogradviz.app.resources_loader import icon_or_standard as _icon
from autogradviz.app.session import TraceSession

# Longest piece of scene building done in one go on the GUI thread; events
# and paints run between pieces (target: never blocked for more than 100 ms).
SLICE_S = 0.02
# Below this zoom a box's 10-unit text is under 6 px: a "fit" that would go
# lower on a long, narrow graph fits its narrow side instead (see fit).
MIN_READABLE_ZOOM = 0.6
# Below this a whole-graph fit shows boxes under 2 px: only worth it when the
# graph is not much longer than wide (then it is the overview of a big graph).
MIN_OVERVIEW_ZOOM = 0.03




class _View(QGraphicsView):
    """QGraphicsView with wheel zoom, drag pan, pinch and double-click centring."""

    zoomed = Signal()
    userMoved = Signal()  # the user zoomed or panned by hand

    def __init__(self, scene, parent=None):
        super().__init__(scene, parent)
        self.setRenderHints(QPainter.Antialiasing | QPainter.TextAntialiasing)
        self.setDragMode(QGraphicsView.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.AnchorViewCenter)
        self.setViewportUpdateMode(QGraphicsView.MinimalViewportUpdate)
        # no scrollbars: pan by dragging, the minimap shows where you are
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.viewport().grabGesture(Qt.PinchGesture)
        self.setFocusPolicy(Qt.StrongFocus)

    def zoom_by(self, factor: float) -> None:
        cur = self.transform().m11()
        new = min(max(cur * factor, 0.002), 8.0)
        f = new / cur if cur else 1.0
        self.scale(f, f)
        self.zoomed.emit()

    def wheelEvent(self, event) -> None:
        delta = event.angleDelta().y()
        if delta == 0:
            return super().wheelEvent(event)
        self.zoom_by(1.0015 ** delta)
        self.userMoved.emit()
        event.accept()

    def viewportEvent(self, event) -> bool:
        if event.type() == QEvent.Gesture:
            pinch = event.gesture(Qt.PinchGesture)
            if pinch is not None:
                self.zoom_by(pinch.scaleFactor())
                self.userMoved.emit()
                return True
        return super().viewportEvent(event)

    def mouseDoubleClickEvent(self, event) -> None:
        self.centerOn(self.mapToScene(event.position().toPoint()))
        self.zoomed.emit()
        self.userMoved.emit()
        event.accept()

    backgroundClicked = Signal()

    def mousePressEvent(self, event) -> None:
        self._press = event.position().toPoint()
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event) -> None:
        if event.buttons() & Qt.LeftButton:
            self.userMoved.emit()  # dragging pans
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event) -> None:
        super().mouseReleaseEvent(event)
        press = getattr(self, "_press", None)
        pos = event.position().toPoint()
        if press is not None and (pos - press).manhattanLength() < 4 and event.button() == Qt.LeftButton:
            item = self.itemAt(pos)
            if item is None or not item.acceptHoverEvents():
                self.backgroundClicked.emit()  # a click on empty space, not a pan

    def scrollContentsBy(self, dx: int, dy: int) -> None:
        super().scrollContentsBy(dx, dy)
        self.zoomed.emit()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.zoomed.emit()


class GraphView(QWidget):
    layoutStarted = Signal()
    layoutFinished = Signal(str)  # info: engine, seconds, notes
    layoutFailed = Signal(str)

    def __init__(self, session: TraceSession, parent: Optional[QWidget] = None):
        super().__init__(parent)
        self.session = session
        self._theme = "light"
        self._icon_theme = None  # None: the icon loader's current theme
        self._scene = GraphScene(self, style_for(self._theme))
        self._scene.item_cache = True
        self.view = _View(self._scene, self)
        self.runner = LayoutRunner(self)
        self._layout_timer = QTimer(self)
        self._layout_timer.setSingleShot(True)
        self._layout_timer.setInterval(0)
        self._layout_timer.timeout.connect(self._start_layout)
        self._pending_fit = False
        self._hits: list[str] = []
        self._hit_pos = -1
        self._layout_graph_id = ""
        self._build = None  # scene build in progress (generator)
        self._build_graph_id = ""
        self._build_result = None
        self._gc_held = False
        self._gc_was = True
        self.follow = True  # scroll to the running node when it leaves the view
        self._focus_nodes: list[str] = []
        self._auto_fit = False
        self._fit_mode = "whole"  # what the last fit did: "whole" or "readable"
        self._fit_whole = False  # the user asked for the whole graph
        self._legend_auto_hidden = False  # a fit hid the legend for lack of room

        # busy bar (progress + cancel), hidden when idle; it floats over the
        # top of the view, so the picture does not jump when it comes and goes
        self.busy = QFrame(self)
        self.busy.setFrameShape(QFrame.StyledPanel)
        self.busy.setAutoFillBackground(True)
        bl = QHBoxLayout(self.busy)
        bl.setContentsMargins(4, 2, 4, 2)
        self.busy_label = QLabel(self.busy)
        self.progress = QProgressBar(self.busy)
        self.progress.setRange(0, 100)
        self.progress.setMaximumWidth(220)
        self.cancel_btn = QPushButton(self.busy)
        self.cancel_btn.clicked.connect(self.runner.cancel)
        bl.addWidget(self.busy_label, 1)
        bl.addWidget(self.progress)
        bl.addWidget(self.cancel_btn)
        self.busy.hide()

        # message line (failed/cancelled layouts, empty graph)
        self.message = QLabel(self)
        self.message.setWordWrap(True)
        self.message.hide()

        # search bar (Ctrl+F)
        self.search_bar = QWidget(self)
        sl = QHBoxLayout(self.search_bar)
        sl.setContentsMargins(4, 2, 4, 2)
        self.search_edit = QLineEdit(self.search_bar)
        self.search_edit.textChanged.connect(self._search)
        self.search_edit.returnPressed.connect(self.search_next)
        self.search_count = QLabel(self.search_bar)
        self.prev_btn = QToolButton(self.search_bar)
        self.prev_btn.setArrowType(Qt.UpArrow)
        self.prev_btn.clicked.connect(self.search_previous)
        self.next_btn = QToolButton(self.search_bar)
        self.next_btn.setArrowType(Qt.DownArrow)
        self.next_btn.clicked.connect(self.search_next)
        self.close_search_btn = QToolButton(self.search_bar)
        self.close_search_btn.setText("×")
        self.close_search_btn.clicked.connect(self.hide_search)
        for w in (self.search_edit, self.search_count, self.prev_btn, self.next_btn, self.close_search_btn):
            sl.addWidget(w)
        self.search_bar.hide()

        # tool row: zoom, fit, saved toggle, legend
        self.tools = QWidget(self)
        tl = QHBoxLayout(self.tools)
        tl.setContentsMargins(4, 2, 4, 2)
        from PySide6.QtWidgets import QStyle
        self.zoom_in_btn = QToolButton(self.tools)
        self.zoom_in_btn.setIcon(_icon("zoom-in", QStyle.SP_ArrowUp))
        self.zoom_in_btn.clicked.connect(self.zoom_in)
        self.zoom_out_btn = QToolButton(self.tools)
        self.zoom_out_btn.setIcon(_icon("zoom-out", QStyle.SP_ArrowDown))
        self.zoom_out_btn.clicked.connect(self.zoom_out)
        self.fit_btn = QToolButton(self.tools)
        self.fit_btn.setIcon(_icon("zoom-fit", QStyle.SP_TitleBarMaxButton))
        self.fit_btn.clicked.connect(self._on_fit_clicked)
        self.search_btn = QToolButton(self.tools)
        self.search_btn.setIcon(_icon("search", QStyle.SP_FileDialogContentsView))
        self.search_btn.clicked.connect(self.show_search)
        self.saved_box = QCheckBox(self.tools)
        self.saved_box.toggled.connect(self.set_show_saved)
        self.legend_box = QCheckBox(self.tools)
        self.legend_box.setChecked(True)
        for w in (self.zoom_in_btn, self.zoom_out_btn, self.fit_btn, self.search_btn, self.saved_box,
                  self.legend_box):
            tl.addWidget(w)
        tl.addStretch(1)

        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        lay.addWidget(self.tools)
        lay.addWidget(self.search_bar)
        lay.addWidget(self.message)
        lay.addWidget(self.view, 1)

        # overlays: legend (top-left) and minimap (bottom-right), children of the view
        self.legend = None
        self.minimap = None
        try:
            from autogradviz.app.graph.legend import Legend
            self.legend = Legend(self._scene.style, self.view)
            self.legend_box.toggled.connect(self._on_legend_toggled)
        except Exception:
            self.legend_box.hide()
        try:
            from autogradviz.app.graph.minimap import Minimap
            self.minimap = Minimap(self.view, self)
        except Exception:
            self.minimap = None

        # shortcuts
        for seq, slot in ((QKeySequence.Find, self.show_search), (QKeySequence.ZoomIn, self.zoom_in),
                          (QKeySequence.ZoomOut, self.zoom_out), (QKeySequence("Ctrl+="), self.zoom_in),
                          (QKeySequence("Ctrl+0"), self._on_fit_clicked), (QKeySequence.FindNext, self.search_next),
                          (QKeySequence.FindPrevious, self.search_previous)):
            sc = QShortcut(seq, self)
            sc.setContext(Qt.WidgetWithChildrenShortcut)
            sc.activated.connect(slot)
        esc = QShortcut(QKeySequence(Qt.Key_Escape), self.search_bar)
        esc.setContext(Qt.WidgetWithChildrenShortcut)
        esc.activated.connect(self.hide_search)
        self._plus = QShortcut(QKeySequence(Qt.Key_Plus), self.view)
        self._plus.setContext(Qt.WidgetShortcut)
        self._plus.activated.connect(self.zoom_in)
        self._minus = QShortcut(QKeySequence(Qt.Key_Minus), self.view)
        self._minus.setContext(Qt.WidgetShortcut)
        self._minus.activated.connect(self.zoom_out)

        # wiring
        self.runner.started.connect(self._on_layout_started)
        self.runner.progress.connect(self._on_progress)
        self.runner.finished.connect(self._on_layout_done)
        self.runner.failed.connect(self._on_layout_failed)
        self.runner.cancelled.connect(self._on_layout_cancelled)
        self._scene.nodeClicked.connect(self._on_node_clicked)
        self._scene.groupToggled.connect(self._on_group_toggled)
        self._scene.groupRolled.connect(self._on_group_rolled)
        session.graphChanged.connect(self._on_graph_changed)
        session.stepChanged.connect(self._on_step)
        session.nodeSelected.connect(self._scene.set_selected)
        session.layoutOptionsChanged.connect(self._relayout)
        session.traceChanged.connect(self._on_trace_changed)
        self.view.zoomed.connect(self._update_overlays)
        self.view.userMoved.connect(self._stop_auto_fit)
        self.view.backgroundClicked.connect(lambda: self.session.select_node(None))
        self.retranslate()
        if session.graph is not None:
            self._on_graph_changed(session.graph_id)

    # -- texts -----------------------------------------------------------------------------------
    def retranslate(self) -> None:
        self.cancel_btn.setText(self.tr("Cancel"))
        self.cancel_btn.setToolTip(self.tr("Stop laying out the graph; the previous picture stays."))
        self.search_edit.setPlaceholderText(self.tr("Find a node by name or operation…"))
        self.search_edit.setToolTip(self.tr("Type part of a variable name (e.g. 'loss') or an operation "
                                            "(e.g. 'Mul'). Enter: next match."))
        self.prev_btn.setToolTip(self.tr("Previous match (Shift+F3)"))
        self.next_btn.setToolTip(self.tr("Next match (F3 or Enter)"))
        self.close_search_btn.setToolTip(self.tr("Close the search bar (Esc)"))
        self.zoom_in_btn.setToolTip(self.tr("Zoom in (+, Ctrl++ or the mouse wheel)"))
        self.zoom_out_btn.setToolTip(self.tr("Zoom out (-, Ctrl+- or the mouse wheel)"))
        self.fit_btn.setToolTip(self.tr("Fit the graph in the view (Ctrl+0). A long graph is fitted "
                                        "across at a readable size, showing where backward starts; "
                                        "press again to see all of it."))
        self.search_btn.setToolTip(self.tr("Find a node (Ctrl+F)"))
        self.saved_box.setText(self.tr("Show saved tensors"))
        self.saved_box.setToolTip(self.tr("Also draw the tensors each operation saved for its backward "
                                          "computation (like torchviz's show_saved)."))
        self.legend_box.setText(self.tr("Legend"))
        self.legend_box.setToolTip(self.tr("Show or hide the legend explaining colours and badges."))
        self.view.setToolTip(self.tr("Drag to pan, wheel or +/- to zoom, double-click to centre; "
                                     "click a node to inspect it."))
        self._update_search_count()
        if self.legend is not None:
            self.legend.retranslate()

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.LanguageChange:
            self.retranslate()
        elif event.type() in (QEvent.PaletteChange, QEvent.StyleChange):
            self._load_icons()
        super().changeEvent(event)

    def _load_icons(self) -> None:
        """(Re)load the tool icons: their ink follows the light/dark theme."""
        from PySide6.QtWidgets import QStyle
        for btn, name, fb in ((self.zoom_in_btn, "zoom-in", QStyle.SP_ArrowUp),
                              (self.zoom_out_btn, "zoom-out", QStyle.SP_ArrowDown),
                              (self.fit_btn, "zoom-fit", QStyle.SP_TitleBarMaxButton),
                              (self.search_btn, "search", QStyle.SP_FileDialogContentsView)):
            btn.setIcon(_icon(name, fb, self._icon_theme))

    # -- public API --------------------------------------------------------------------------------
    def graph_scene(self) -> GraphScene:
        return self._scene

    def visible_scene_rect(self) -> QRectF:
        return self.view.mapToScene(self.view.viewport().rect()).boundingRect()

    def zoom_in(self) -> None:
        self._auto_fit = False
        self.view.zoom_by(1.25)

    def zoom_out(self) -> None:
        self._auto_fit = False
        self.view.zoom_by(0.8)

    def _stop_auto_fit(self) -> None:
        self._auto_fit = False

    def fit(self, whole: Optional[bool] = None) -> None:
        """Fit the graph in the view, clear of the legend; small graphs at most 1.6x.

        A long, narrow graph (a 600-step chain) fitted whole would be a
        hairline with unreadable boxes. Unless `whole`, such a graph is fitted
        across its narrow side at a readable zoom and shows where backward
        starts (the output); the minimap shows the rest, and fitting again
        (the Fit button, Ctrl+0) shows the whole graph. A graph too big both
        ways is fitted whole: that is the overview of a big graph - unless it
        is so long that the whole would be a line (a 10,000-step chain): then
        it is fitted across, zoomed out, at its output."""
        layout = self._scene.layout
        if layout is not None and layout.width > 0:
            rect = QRectF(0, 0, layout.width, layout.height)
        else:
            rect = self._scene.itemsBoundingRect()
        if rect.isEmpty():
            return
        # room for what stepping adds: gradient labels beside the edges and the
        # .grad / hook callouts to the right of the boxes
        rect = rect.adjusted(-40, -10, 170, 10)
        vp = self.view.viewport().rect()
        # the legend goes where it costs the graph least: a column on the left
        # (tall graphs) or two columns along the bottom (wide graphs)
        left = bottom = 0
        if self._legend_auto_hidden and self.legend is not None:
            self.legend.show()  # hidden by an earlier fit: try again
        legend_on = self.legend is not None and self.legend.isVisible()
        cands = [(0, 0, 2)]
        if legend_on:
            tall, wide = self.legend.size_for(1), self.legend.size_for(2)
            cands = [(tall.width() + 12, 0, 1)]
            if wide.width() + 16 <= vp.width():  # two columns only where they fit
                cands.append((0, wide.height() + 12, 2))
            cands.append((0, 0, 0))  # no room for it: hidden (a small view)

        def choose(cands):
            best = None
            for l_, b_, cols in cands:
                aw = max(vp.width() - l_ - 32, 40)
                ah = max(vp.height() - b_ - 32, 40)
                sw, sh = aw / rect.width(), ah / rect.height()
                sc = min(sw, sh, 1.6)
                long_side = None
                big = max(sw, sh)
                if not whole and sc < MIN_READABLE_ZOOM and (
                        big >= MIN_READABLE_ZOOM or (sc < MIN_OVERVIEW_ZOOM and big > 4 * sc)):
                    # readable across, or (an extremely long graph, whose whole
                    # would be a hairline) at least its structure across
                    long_side = "v" if sw > sh else "h"
                    sc = min(big, 1.0)
                # readable first, then the whole graph, then bigger
                key = (sc >= MIN_READABLE_ZOOM, long_side is None, sc) if not whole else (sc,)
                if best is None or key > best[0]:
                    best = (key, sc, l_, b_, cols, long_side)
            return best

        best = choose([c for c in cands if c[2]])
        if legend_on:
            bare = choose([(0, 0, 0)])
            # the legend goes away when keeping it would shrink the graph by
            # more than a third (a small view: it would fill half of it)
            if bare[0] > best[0] and bare[1] > best[1] * 1.5:
                best = bare
        _, scale, left, bottom, cols, long_side = best
        if legend_on:
            if cols:
                self.legend.set_columns(cols)
                if self._legend_auto_hidden:
                    self._legend_auto_hidden = False
                    self.legend_box.blockSignals(True)
                    self.legend_box.setChecked(True)
                    self.legend_box.blockSignals(False)
            else:
                self.legend.hide()
                self._legend_auto_hidden = True
                self.legend_box.blockSignals(True)
                self.legend_box.setChecked(False)
                self.legend_box.blockSignals(False)
                self.legend_box.setToolTip(self.tr("The legend was hidden to leave the small view to the "
                                                   "graph; tick to show it over the graph."))
        scale = max(scale, 0.002)
        self.view.resetTransform()
        self.view.scale(scale, scale)
        cx, cy = rect.center().x(), rect.center().y()
        if long_side is not None:
            # show the start of backward: the output, at the end of the graph
            start = self._backward_start()
            # fitted across what is around it (a long graph may drift sideways:
            # its whole width can be many times the width of any one part)
            local = self._extent_near(start, long_side, vp, layout)
            if local is not None:
                local = local.adjusted(-40, -10, 170, 10)
                aw = max(vp.width() - left - 32, 40)
                ah = max(vp.height() - bottom - 32, 40)
                across = aw / local.width() if long_side == "v" else ah / local.height()
                scale = max(scale, min(across, 1.0))
                self.view.resetTransform()
                self.view.scale(scale, scale)
                if long_side == "v":
                    cx = local.center().x()
                else:
                    cy = local.center().y()
            vis_w = (vp.width() - left) / scale
            vis_h = (vp.height() - bottom) / scale
            if long_side == "v":
                y = start.y() if start is not None else rect.bottom()
                cy = min(max(y, rect.top() + vis_h / 2), rect.bottom() - vis_h / 2)
            else:
                x = start.x() if start is not None else rect.right()
                cx = min(max(x, rect.left() + vis_w / 2), rect.right() - vis_w / 2)
        # centre the graph in the part of the viewport the legend leaves free
        self.view.centerOn(cx - left / 2 / scale, cy + bottom / 2 / scale)
        self._fit_mode = "readable" if long_side is not None else "whole"
        self._fit_whole = bool(whole)  # kept when the window is resized
        self._pending_fit = False
        self._auto_fit = True  # keep fitting on resize until the user zooms/pans
        self._update_overlays()

    def _on_legend_toggled(self, on: bool) -> None:
        self._legend_auto_hidden = False
        self.legend.setVisible(on)
        self.legend_box.setToolTip(self.tr("Show or hide the legend explaining colours and badges."))
        self.place_legend()

    def _extent_near(self, start: Optional[QPointF], long_side: str, vp, layout) -> Optional[QRectF]:
        """Bounding box of the boxes within what a readable view shows along
        the long side around `start`."""
        if start is None or layout is None or not layout.boxes:
            return None
        if long_side == "v":
            band = vp.height() / MIN_READABLE_ZOOM
            lo, hi = start.y() - band, start.y() + band
            near = [b for b in layout.boxes if b.y + b.h >= lo and b.y <= hi]
        else:
            band = vp.width() / MIN_READABLE_ZOOM
            lo, hi = start.x() - band, start.x() + band
            near = [b for b in layout.boxes if b.x + b.w >= lo and b.x <= hi]
        if not near:
            return None
        x0 = min(b.x for b in near)
        y0 = min(b.y for b in near)
        return QRectF(x0, y0, max(b.x + b.w for b in near) - x0, max(b.y + b.h for b in near) - y0)

    def _backward_start(self) -> Optional[QPointF]:
        """Centre of the box of the graph's output (where backward starts), or
        of the collapsed group holding it; from the layout, so that it works
        while a big scene is still being built."""
        g, layout = self.session.graph, self._scene.layout
        if g is None or layout is None or not g.roots:
            return None
        roots = set(g.roots)
        keys = {grp.id for grp in layout.groups if grp.collapsed and roots & set(grp.members)}
        for b in layout.boxes:
            if b.node in roots or b.key in keys:
                return QRectF(b.x, b.y, b.w, b.h).center()
        return None

    def _on_fit_clicked(self) -> None:
        """Fit; pressed again on a readable fit of a long graph: all of it."""
        again = self._auto_fit and self._fit_mode == "readable"
        self.fit(whole=True if again else None)

    def place_legend(self) -> None:
        if self.legend is not None:
            vp = self.view.viewport()
            if self.legend.columns == 1:
                self.legend.move(8, 8)
            else:
                self.legend.move(8, max(8, vp.height() - self.legend.height() - 8))

    def show_search(self) -> None:
        self.search_bar.show()
        self.search_edit.setFocus()
        self.search_edit.selectAll()

    def hide_search(self) -> None:
        self.search_bar.hide()
        self._scene.set_search_hits([])
        self.view.setFocus()

    def set_show_saved(self, on: bool) -> None:
        if self.saved_box.isChecked() != bool(on):
            self.saved_box.setChecked(bool(on))  # re-enters through toggled
            return
        self._scene.set_show_saved(on)
        self.session.set_show_saved(on)  # relayout: saved boxes need their own places

    def set_theme(self, name: str) -> None:
        self._theme = "dark" if name == "dark" else "light"
        self._icon_theme = self._theme
        self._load_icons()
        style = style_for(self._theme)
        layout = self._build_result if self._build is not None else self._scene.layout
        if layout is not None and self.session.graph is not None and len(layout.boxes) >= OVERVIEW_MIN_BOXES:
            # a big graph is rebuilt in slices, like a new layout (all at once
            # it would freeze the window for a good part of a second)
            self._scene.style = style
            self._scene.setBackgroundBrush(QBrush(style.background))
            self._pending_fit = False
            self._drop_build()
            self._start_build(self.session.graph, layout, self.session.graph_id)
        else:
            self._scene.set_style(style)
        self._style_message()
        if self.legend is not None:
            self.legend.set_style(style)
        if self.minimap is not None:
            self.minimap.refresh()

    # -- layout ---------------------------------------------------------------------------------------
    def _layout_options(self) -> dict:
        return {"collapsed": self.session.collapsed, "unrolled": self.session.unrolled,
                "show_saved": self.session.show_saved}

    def _on_trace_changed(self) -> None:
        # the picture stays until the new layout arrives, but it belongs to the
        # old trace: no replay state of the new one may be applied to it
        self._layout_graph_id = ""
        self._drop_build()
        if self.session.trace is None:
            self._layout_timer.stop()
            self.runner.cancel()
            self._start_build(None, None, "")
        self._show_trace_banner()

    def _on_graph_changed(self, graph_id: str) -> None:
        g = self.session.graph
        self._layout_graph_id = ""
        self._drop_build()
        if g is None:
            self._layout_timer.stop()
            self.runner.cancel()
            self._start_build(None, None, "")
            self._show_trace_banner()
            return
        self._pending_fit = True
        self._fit_whole = False
        # started once this event is over: the rest of the trace's arrival
        # (replay tables, other widgets) runs first, without sharing the GIL
        # with the layout thread
        self._layout_timer.start()

    def _relayout(self) -> None:
        if self.session.graph is not None:
            self._pending_fit = False
            self._start_layout()

    def _start_layout(self) -> None:
        self._layout_timer.stop()
        if self.session.graph is not None:
            self.runner.start(self.session.graph, self._layout_options())

    def _on_layout_started(self) -> None:
        self.busy_label.setText(self.tr("Laying out the graph…"))
        self.progress.setValue(0)
        self.busy.show()
        self._place_busy()
        self.layoutStarted.emit()

    def _on_progress(self, f: float, msg: str) -> None:
        self.progress.setValue(int(max(0.0, min(1.0, f)) * 100))
        if msg:
            self.busy_label.setText(msg)

    def _on_layout_done(self, graph_id: str, result) -> None:
        self.busy.hide()
        if graph_id != self.session.graph_id:
            return
        self._show_trace_banner(getattr(result, "notes", None))
        self._start_build(self.session.graph, result, graph_id)

    def _start_build(self, graph, result, graph_id: str) -> None:
        """Replace the picture by `result` (None: clear it), in time slices."""
        self._build = self._scene.build_steps(
            graph, result, state=self.session.state if result is not None else None,
            overview_data=getattr(result, "overview_data", None))
        self._build_graph_id = graph_id
        self._build_result = result
        self._layout_graph_id = ""
        self._previewed = False
        if self.minimap is not None:
            self.minimap.clear()  # the old picture must not stay in the map
        self._continue_build()

    def _continue_build(self) -> None:
        """Build the scene in slices of at most SLICE_S seconds, so that a big
        graph never freezes the GUI (events, paints and input run between)."""
        if self._build is None:
            return
        build = self._build
        t0 = time.perf_counter()
        # Python's cyclic GC, triggered by the many new objects, pauses for
        # 30-150 ms at a time on a 10,000-node scene: it is held off for the
        # whole build of a big scene (whose objects are then frozen), and
        # during each slice of a small one.
        self._hold_gc(True)
        try:
            while time.perf_counter() - t0 < SLICE_S * 0.8:
                if next(build) == "overview":
                    self._preview()
                    break  # let it paint now
            # index this slice's new items now (Qt does it lazily, at the next
            # paint or hit test: all 30,000 of a big graph at once)
            self._scene.items(QPointF(-1e9, -1e9))
        except StopIteration:
            if self._build is build:
                self._build = None
                if self._scene.overview is not None:
                    # a big scene is ~100,000 long-lived Python objects; full
                    # GC passes over them stall the GUI for 0.1-0.3 s again and
                    # again. Take them out of the collector's sight (they are
                    # still freed normally when dropped).
                    gc.freeze()
                self._hold_gc(False)
                self.view.setSceneRect(self._scene.wanted_rect())
                if self._build_result is not None:
                    self._finish_build(self._build_graph_id, self._build_result)
                else:
                    self._update_overlays()
            return
        if self._build is build:
            if self._scene.overview is None:
                self._hold_gc(False)
            # (a timer, not a posted call: timers and input get their turn in between)
            QTimer.singleShot(1, self, self._continue_build)
        else:
            self._hold_gc(False)

    def _drop_build(self) -> None:
        """Forget a build in progress (a newer one replaces it; the scene takes
        apart what it left on the next build)."""
        self._build = None
        self._hold_gc(False)

    def _hold_gc(self, on: bool) -> None:
        if on and not self._gc_held:
            self._gc_held = True
            self._gc_was = gc.isenabled()
            gc.disable()
        elif not on and self._gc_held:
            self._gc_held = False
            if self._gc_was:
                gc.enable()

    def _preview(self) -> None:
        """A big graph: show the bulk-drawn overview at once, while the detailed
        items are still being built in slices (usable picture sooner)."""
        self._previewed = True
        self.view.setSceneRect(self._scene.wanted_rect())
        self._scene.set_overview_mode(True)
        self._scene.overview_locked = True  # stays on until the build is done
        if self._pending_fit or self._auto_fit:
            self._fit_when_ready()
        if self.minimap is not None:
            # after the view has painted the overview (one thing per event)
            QTimer.singleShot(0, self.minimap, self.minimap.refresh)
        self.view.viewport().update()

    def _finish_build(self, graph_id: str, result) -> None:
        self._scene.overview_locked = False
        if self._previewed:
            # a big scene: showing the details (and their first paint) is the
            # next event's work, not this one's
            QTimer.singleShot(1, self, self._update_overlays)
        else:
            self._update_overlays()  # overview or details, by the zoom
        self._layout_graph_id = graph_id
        self._scene.set_show_saved(self.session.show_saved)
        self._scene.apply_step(self.session.state)
        self._scene.set_selected(self.session.selected_node)
        if self.search_bar.isVisible() and self.search_edit.text():
            self._search(self.search_edit.text())
        if self._pending_fit or (self._auto_fit and not self._focus_nodes and not self._previewed):
            self._fit_when_ready()  # (a big graph was fitted with its preview)
        elif self._focus_nodes:
            # after expanding/collapsing a group, look at what changed
            focus = [self._scene.center_of(n) for n in self._focus_nodes[:1]]
            focus = [p for p in focus if p is not None]
            if not focus:
                for n in self._focus_nodes:
                    if n in self._scene.group_boxes:
                        focus = [self._scene.group_boxes[n].sceneBoundingRect().center()]
                        break
            if focus:
                self.view.centerOn(focus[0])
            self._focus_nodes = []
        if self.minimap is not None and not self._previewed:
            self.minimap.refresh()  # (a big graph's map was drawn with the preview)
        # (the node count is next to it in the status bar already)
        info = self.tr("Layout: {0} in {1:.2f} s").format(result.engine or "?", result.seconds)
        # The layout's notes (how a large graph was simplified) are in the
        # banner, translated; the status bar keeps to engine and time.
        self.layoutFinished.emit(info)

    def _on_layout_failed(self, msg: str) -> None:
        self.busy.hide()
        text = self.tr("The graph could not be laid out ({0}). The previous picture is still shown.").format(msg)
        self._show_message(text)
        self.layoutFailed.emit(text)

    def _on_layout_cancelled(self) -> None:
        self.busy.hide()
        text = self.tr("Layout cancelled. The previous picture is still shown.")
        self._show_message(text)
        self.layoutFailed.emit(text)

    def _show_message(self, text: str, error: bool = True) -> None:
        self._message_error = error
        self.message.setText(text)
        self._style_message()
        self.message.show()

    def _style_message(self) -> None:
        """Banner colours from the graph's theme (readable in light and dark)."""
        st = self._scene.style
        err = getattr(self, "_message_error", True)
        fill = st.banner_error_fill if err else st.banner_info_fill
        border = st.banner_error_border if err else st.banner_info_border
        self.message.setStyleSheet(
            "QLabel { padding: 5px 8px; background: %s; color: %s; border: none; "
            "border-left: 4px solid %s; }" % (fill.name(), st.banner_text.name(), border.name()))

    def banner_text(self) -> str:
        """The banner's text ("" when hidden)."""
        return self.message.text() if not self.message.isHidden() else ""

    def _trace_banner(self) -> tuple[str, bool]:
        """What the banner says about the session's trace: (text, is_error);
        ("", False) when there is nothing to say."""
        trace = self.session.trace
        if trace is None:
            return (self.tr("No graph: the last run did not finish (it was stopped, crashed or ran out "
                            "of time), so the previous graph was cleared. Press Run to try again."), True)
        err = trace.error
        where = ""
        if err is not None:
            where = (self.tr("{0} at line {1}").format(err.type, err.line) if err.line
                     else str(err.type))
        if self.session.graph is None:
            if err is not None:
                return (self.tr("No graph: the script stopped with {0} before it built an autograd "
                                "graph. The Output pane says what went wrong.").format(where), True)
            return (self.tr("No autograd graph: the script created no tensor that requires "
                            "grad (try requires_grad=True)."), False)
        if err is not None:
            return (self.tr("The script stopped with {0}: the graph shows what it had built until "
                            "then. The Output pane says what went wrong.").format(where), True)
        return "", False

    def _note_text(self, note: str) -> str:
        """The layout's notes a learner needs, in their language: how a large
        graph was simplified. (Which layout engine ran is in the status bar.)"""
        m = re.match(r"Large graph \((\d+) nodes\): .*; (\d+) boxes drawn", note)
        if m and "rolled into one box" in note:
            return self.tr("Large graph ({0} nodes): drawn as {1} boxes. A module called many times is "
                           "rolled into one box (×N): click it to see one box per call; click a box "
                           "with a module name to look inside.").format(m.group(1), m.group(2))
        if m:
            return self.tr("Large graph ({0} nodes): drawn as {1} boxes, with module calls collapsed "
                           "into one box each. Click a box with a module name to look inside.").format(
                m.group(1), m.group(2))
        return ""

    def _show_trace_banner(self, notes=None) -> None:
        text, error = self._trace_banner()
        if not text and notes:
            text = " ".join(t for t in (self._note_text(n) for n in notes) if t)
            error = False
        if text:
            self._show_message(text, error)
        else:
            self.message.hide()

    def shutdown(self) -> None:
        self._layout_timer.stop()
        self._drop_build()
        self.runner.shutdown()

    def closeEvent(self, event) -> None:
        self.shutdown()
        super().closeEvent(event)

    # -- session reactions ----------------------------------------------------------------------------------
    def _on_step(self, k: int) -> None:
        if self._layout_graph_id and self._layout_graph_id == self.session.graph_id:
            self._scene.apply_step(self.session.state)
            self._follow_current()
            if self.minimap is not None:
                self.minimap.refresh_later()

    def _follow_current(self) -> None:
        """Keep the node running now in sight (playing through a long graph)."""
        st = self.session.state
        if st is None or st.current is None or not self.follow:
            return
        items = self._scene.node_items.get(st.current) or (
            [self._scene.group_boxes[st.current]] if st.current in self._scene.group_boxes else [])
        if not items:
            return
        r = items[0].sceneBoundingRect()
        vis = self.visible_scene_rect()
        # "in sight" = inside the view and not under the minimap
        hidden = not vis.contains(r)
        if not hidden and self.minimap is not None and self.minimap.isVisible():
            g = self.minimap.geometry()
            under = self.view.mapToScene(g).boundingRect()
            hidden = under.intersects(r)
        if hidden:
            self._auto_fit = False
            self.view.centerOn(r.center())
            self._update_overlays()

    def _on_node_clicked(self, node_id) -> None:
        self.session.select_node(node_id)

    def _on_group_toggled(self, module: str, collapsed: bool) -> None:
        """Expand or collapse a module group. A rolled group ("×N", the N
        calls of one module drawn as one box) unrolls into one collapsed box
        per call; expanding one of those expands the calls."""
        layout = self._scene.layout
        if layout is None:
            return
        grps = [g for g in layout.groups if g.module == module]
        self._focus_nodes = [m for g in grps[:1] for m in g.members]
        coll, unr = set(layout.collapsed), set(layout.unrolled)
        rolled = any(g.repeat > 1 for g in grps)
        if collapsed:
            coll.add(module)
        elif rolled:
            unr.add(module)
            coll.add(module)  # stays collapsed: one box per call
        else:
            coll.discard(module)
        self.session.set_layout_groups(coll, unr)

    def _on_group_rolled(self, module: str) -> None:
        layout = self._scene.layout
        if layout is None:
            return
        grps = [g for g in layout.groups if g.module == module]
        self._focus_nodes = [m for g in grps for m in g.members]
        coll, unr = set(layout.collapsed), set(layout.unrolled)
        unr.discard(module)
        coll.discard(module)  # a rolled module is always one box
        self.session.set_layout_groups(coll, unr)

    # -- search -------------------------------------------------------------------------------------------
    def _search(self, text: str) -> None:
        g = self.session.graph
        text = text.strip().lower()
        hits: list[str] = []
        if g is not None and text:
            for n in g.nodes:
                if (n.label and text in n.label.lower()) or text in n.op.lower() or \
                        (n.module and text in n.module.lower()):
                    # drawn, or inside a collapsed group (the group box is found)
                    if self._scene.node_items.get(n.id) or n.id in self._scene.group_boxes:
                        hits.append(n.id)
        self._hits = hits
        self._hit_pos = -1
        self._scene.set_search_hits(hits)
        if hits:
            self._go_hit(0)
        self._update_search_count()

    def _go_hit(self, pos: int) -> None:
        if not self._hits:
            return
        self._hit_pos = pos % len(self._hits)
        nid = self._hits[self._hit_pos]
        c = self._scene.center_of(nid)
        if c is not None:
            self.view.centerOn(c)
        self.session.select_node(nid)
        self._update_search_count()

    def search_next(self) -> None:
        self._go_hit(self._hit_pos + 1)

    def search_previous(self) -> None:
        self._go_hit(self._hit_pos - 1)

    def search_hits(self) -> list[str]:
        return list(self._hits)

    def _update_search_count(self) -> None:
        if not self.search_edit.text().strip():
            self.search_count.setText("")
        elif not self._hits:
            self.search_count.setText(self.tr("no match"))
        else:
            self.search_count.setText(self.tr("{0} of {1}").format(self._hit_pos + 1, len(self._hits)))

    # -- overlays -------------------------------------------------------------------------------------------
    def _place_busy(self) -> None:
        if self.busy.isVisible():
            self.busy.adjustSize()
            g = self.view.geometry()
            w = min(max(self.busy.sizeHint().width(), 360), g.width() - 16)
            self.busy.setGeometry(g.x() + (g.width() - w) // 2, g.y() + 8, w, self.busy.sizeHint().height())
            self.busy.raise_()

    def _update_overlays(self) -> None:
        self._place_busy()
        self.place_legend()
        from autogradviz.app.graph.scene import OVERVIEW_MAX_SCALE
        self._scene.set_overview_mode(self.view.transform().m11() < OVERVIEW_MAX_SCALE)
        if self.minimap is not None:
            self.minimap.place()
            self.minimap.viewport().update()

    def _fit_when_ready(self) -> None:
        # fitting an unshown widget uses a bogus viewport size: wait for the show
        if self.isVisible() and self.view.viewport().width() > 50:
            self.fit(whole=True if self._fit_whole else None)
        else:
            self._pending_fit = True

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if (self._pending_fit or self._auto_fit) and self._layout_graph_id:
            self._fit_when_ready()
        self._update_overlays()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._pending_fit and self._layout_graph_id:
            QTimer.singleShot(0, self, self._fit_when_ready)
