"""The graph widget: the zoomable, pannable picture of the session's graph,
with its tools, find bar, banner, minimap and legend.

It subscribes to a `TraceSession` and keeps no view state of its own: a new
graph or new layout options start a layout in the background
(`LayoutRunner`); when it arrives the scene is rebuilt in slices
(`SceneBuilder`) and the session's replay state applied. A step change only
calls `scene.apply_step`. The pieces live in their own modules: canvas
(zoom/pan), toolbar, search, banner (texts and the busy bar), fit (where a
fit puts the graph), groups (what a click on a module group asks for).
"""

from __future__ import annotations

from typing import Optional

from PySide6.QtCore import QEvent, QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QKeySequence, QShortcut
from PySide6.QtWidgets import QVBoxLayout, QWidget

from autogradviz.app.graph import groups
from autogradviz.app.graph.fold_items import show_running_copy
from autogradviz.app.features import features
from autogradviz.app.graph.banner import Banner, BusyBar, notes_text, trace_banner
from autogradviz.app.graph.builder import SceneBuilder
from autogradviz.app.graph.canvas import GraphCanvas
from autogradviz.app.graph.fit import MAX_ZOOM, backward_start, plan_fit, show_plan
from autogradviz.app.graph.running import RunningOverlay
from autogradviz.app.graph.scene import OVERVIEW_MAX_SCALE, OVERVIEW_MIN_BOXES, GraphScene
from autogradviz.app.graph.search import SearchBar
from autogradviz.app.graph.style import style_for
from autogradviz.app.graph.toolbar import GraphToolbar
from autogradviz.app.services.layout_runner import LayoutRunner
from autogradviz.app.session import TraceSession


class GraphView(QWidget):
    layoutStarted = Signal()
    layoutFinished = Signal(str)  # info: engine and seconds
    layoutFailed = Signal(str)
    layoutDropped = Signal()  # a layout given up because its trace went away (no failure)

    def __init__(self, session: TraceSession, parent: Optional[QWidget] = None):
        super().__init__(parent)
        self.session = session
        self._theme = "light"
        self._icon_theme: Optional[str] = None  # None: the icon loader's current theme
        self._scene = GraphScene(self, style_for(self._theme))
        self._scene.item_cache = True
        self.view = GraphCanvas(self._scene, self)
        self.runner = LayoutRunner(self)
        self.builder = SceneBuilder(self._scene, self)
        self._layout_timer = QTimer(self)
        self._layout_timer.setSingleShot(True)
        self._layout_timer.setInterval(0)
        self._layout_timer.timeout.connect(self._start_layout)
        self._pending_fit = False
        self._layout_graph_id = ""  # the graph the finished picture shows ("" while none / building)
        self._previewed = False
        self.follow = True  # scroll to the running node when it leaves the view
        self._focus_nodes: list[str] = []
        self._auto_fit = False
        self._fit_mode = "whole"  # what the last fit did: "whole" or "readable"
        self._fit_whole = False  # the user asked for the whole graph
        self._legend_auto_hidden = False  # a fit hid the legend for lack of room
        self._max_zoom = MAX_ZOOM  # presentation mode raises it (bigger text and strokes)
        self._refit_timer = QTimer(self)  # the canvas changed size (a banner came): fit again
        self._refit_timer.setSingleShot(True)
        self._refit_timer.setInterval(0)
        self._refit_timer.timeout.connect(self._refit_after_resize)

        self.busy = BusyBar(self)
        self._cancel_asked = False  # Cancel clicked (else a cancel is the view dropping an old graph)
        self.busy.cancel_btn.clicked.connect(self._cancel_clicked)
        self.cancel_btn = self.busy.cancel_btn
        self.message = Banner(self)
        self.message.set_style(self._scene.style)
        self.search_bar = SearchBar(session, self.graph_scene, self.view.centerOn, self)
        self.search_bar.closed.connect(self.view.setFocus)
        self.search_edit = self.search_bar.edit
        self.tools = GraphToolbar(session, self)
        self.fit_btn = self.tools.fit_btn
        self.saved_box = self.tools.saved_box
        self.legend_box = self.tools.legend_box
        self.tools.zoom_in_btn.clicked.connect(self.zoom_in)
        self.tools.zoom_out_btn.clicked.connect(self.zoom_out)
        self.tools.fit_btn.clicked.connect(self._on_fit_clicked)
        self.tools.search_btn.clicked.connect(self.show_search)

        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        lay.addWidget(self.tools)
        lay.addWidget(self.search_bar)
        lay.addWidget(self.message)
        lay.addWidget(self.view, 1)

        # overlays: legend (top-left) and minimap (bottom-right), children of the view
        from autogradviz.app.graph.legend import Legend
        from autogradviz.app.graph.minimap import Minimap

        self.legend = Legend(self._scene.style, self.view)
        self.legend_box.toggled.connect(self._on_legend_toggled)
        self.minimap = Minimap(self.view, self)
        for overlay in (self.legend, self.minimap):  # callouts avoid them (GraphScene._under_overlays)
            overlay.setProperty("coversGraph", True)
        self.running = RunningOverlay(self)  # "Running … s" over the dimmed old graph
        self.view.installEventFilter(self)

        # shortcuts
        for seq, slot in ((QKeySequence.StandardKey.Find, self.show_search), (QKeySequence.StandardKey.ZoomIn, self.zoom_in),
                          (QKeySequence.StandardKey.ZoomOut, self.zoom_out), (QKeySequence("Ctrl+="), self.zoom_in),
                          (QKeySequence("Ctrl+0"), self._on_fit_clicked), (QKeySequence.StandardKey.FindNext, self.search_next),
                          (QKeySequence.StandardKey.FindPrevious, self.search_previous)):
            sc = QShortcut(seq, self)
            sc.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            sc.activated.connect(slot)
        self._plus = QShortcut(QKeySequence(Qt.Key.Key_Plus), self.view)
        self._plus.setContext(Qt.ShortcutContext.WidgetShortcut)
        self._plus.activated.connect(self.zoom_in)
        self._minus = QShortcut(QKeySequence(Qt.Key.Key_Minus), self.view)
        self._minus.setContext(Qt.ShortcutContext.WidgetShortcut)
        self._minus.activated.connect(self.zoom_out)

        # wiring
        self.runner.started.connect(self._on_layout_started)
        self.runner.progress.connect(self.busy.set_progress)
        self.runner.finished.connect(self._on_layout_done)
        self.runner.failed.connect(self._on_layout_failed)
        self.runner.cancelled.connect(self._on_layout_cancelled)
        self.builder.preview.connect(self._preview)
        self.builder.done.connect(self._on_built)
        self._scene.nodeClicked.connect(session.select_node)
        self._scene.groupToggled.connect(self._on_group_toggled)
        self._scene.groupRolled.connect(self._on_group_rolled)
        session.graphChanged.connect(self._on_graph_changed)
        session.stepChanged.connect(self._on_step)
        session.nodeSelected.connect(self._scene.set_selected)
        for spec in features():  # the features' overlays follow the session (e.g. a recompute frame)
            if spec.connect_overlay is not None and spec.id in self._scene.overlays:
                spec.connect_overlay(self._scene.overlays[spec.id], session)
        session.layoutOptionsChanged.connect(self._relayout)
        session.traceChanged.connect(self._on_trace_changed)
        self.view.zoomed.connect(self._update_overlays)
        self.view.userMoved.connect(self._stop_auto_fit)
        self.view.backgroundClicked.connect(lambda: self.session.select_node(None))
        self.retranslate()
        if session.graph is not None:
            self._on_graph_changed(session.graph_id)

    # -- texts and looks ---------------------------------------------------------------------------
    def retranslate(self) -> None:
        self.busy.retranslate()
        self.running.retranslate()
        self.search_bar.retranslate()
        self.tools.retranslate()
        self.view.setToolTip(self.tr("Drag to pan, wheel or +/- to zoom, double-click to centre; "
                                     "click a node to inspect it."))
        self.legend.retranslate()

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        elif event.type() in (QEvent.Type.PaletteChange, QEvent.Type.StyleChange):
            self.tools.load_icons(self._icon_theme)
        super().changeEvent(event)

    def set_theme(self, name: str) -> None:
        self._theme = "dark" if name == "dark" else "light"
        self._icon_theme = self._theme
        self.tools.load_icons(self._icon_theme)
        style = style_for(self._theme)
        layout = self.builder.result if self.builder.building() else self._scene.layout
        if layout is not None and self.session.graph is not None and len(layout.boxes) >= OVERVIEW_MIN_BOXES:
            # a big graph is rebuilt in slices, like a new layout (all at once
            # it would freeze the window for a good part of a second)
            self._scene.style = style
            self._scene.setBackgroundBrush(QBrush(style.background))
            self._pending_fit = False
            self.builder.drop()
            self._start_build(self.session.graph, layout, self.session.graph_id, self.builder.overview)
        else:
            self._scene.set_style(style)
        self.message.set_style(style)
        self.legend.set_style(style)
        self.minimap.refresh()

    # -- public API --------------------------------------------------------------------------------
    def graph_scene(self) -> GraphScene:
        return self._scene

    def visible_scene_rect(self) -> QRectF:
        return self.view.mapToScene(self.view.viewport().rect()).boundingRect()

    def banner_text(self) -> str:
        """The banner's text ("" when hidden)."""
        return self.message.shown_text()

    def show_rect(self, rect: QRectF) -> None:
        """Bring scene `rect` (a flashed node or region) into sight, clear of
        the legend: centred in the largest part of the view the legend leaves
        free, zoomed out until it fits, or in when it is too small to read
        (fit.show_plan)."""
        vp = self.view.viewport().rect()
        legend = QRectF(self.legend.geometry()) if self.legend.isVisible() else None
        plan = show_plan(rect, QRectF(vp), legend, self.view.transform().m11())
        if plan.scale is not None:
            self.view.resetTransform()
            self.view.scale(plan.scale, plan.scale)
        self._auto_fit = False  # (the learner asked for this place: a resize keeps it)
        self.view.centerOn(rect.center())
        shift = plan.free.center() - QRectF(vp).center()
        for bar, d in ((self.view.horizontalScrollBar(), shift.x()), (self.view.verticalScrollBar(), shift.y())):
            bar.setValue(bar.value() - round(d))
        self._update_overlays()

    def zoom_in(self) -> None:
        self._auto_fit = False
        self.view.zoom_by(1.25)

    def zoom_out(self) -> None:
        self._auto_fit = False
        self.view.zoom_by(0.8)

    def show_search(self) -> None:
        self.search_bar.open()

    def hide_search(self) -> None:
        self.search_bar.close_bar()

    def search_next(self) -> None:
        self.search_bar.next()

    def search_previous(self) -> None:
        self.search_bar.previous()

    def search_hits(self) -> list[str]:
        return self.search_bar.hits()

    def set_show_saved(self, on: bool) -> None:
        """Kept for callers that hold the view: the option is the session's."""
        self.session.set_show_saved(on)

    def shutdown(self) -> None:
        self._layout_timer.stop()
        self.builder.drop()
        self.runner.shutdown()

    def closeEvent(self, event) -> None:
        self.shutdown()
        super().closeEvent(event)

    # -- fit -----------------------------------------------------------------------------------------
    def _stop_auto_fit(self) -> None:
        self._auto_fit = False

    def fit(self, whole: Optional[bool] = None) -> None:
        """Fit the graph in the view, clear of the legend (see fit.plan_fit)."""
        layout = self._scene.layout
        if layout is not None and layout.width > 0:
            rect = QRectF(0, 0, layout.width, layout.height)
            if len(layout.boxes) < OVERVIEW_MIN_BOXES:
                # what is drawn beyond the boxes (region title tabs above a
                # checkpoint segment, frames) must be in view too
                rect = rect.united(self._scene.itemsBoundingRect())
        else:
            rect = self._scene.itemsBoundingRect()
        if rect.isEmpty():
            return
        if self._legend_auto_hidden:
            self.legend.show()  # hidden by an earlier fit: try again
        legend_on = self.legend.isVisible()
        sizes = (self.legend.size_for(1), self.legend.size_for(2)) if legend_on else None
        plan = plan_fit(rect, self.view.viewport().size(), bool(whole), sizes, layout,
                        backward_start(self.session.graph, layout), max_zoom=self._max_zoom)
        if plan is None:
            return  # (an empty rect: returned above already)
        if legend_on:
            if plan.legend_columns:
                self.legend.set_columns(plan.legend_columns)
                if self._legend_auto_hidden:
                    self._legend_auto_hidden = False
                    self.tools.set_legend_checked(True)
            else:
                self.legend.hide()
                self._legend_auto_hidden = True
                self.tools.set_legend_checked(False)
                self.tools.set_legend_tip(True)
        self.view.resetTransform()
        self.view.scale(plan.scale, plan.scale)
        self.view.centerOn(plan.center)
        # (what the fit showed, and the zoom its label margins fit at: _keep_labels_in_sight)
        self._fitted = (rect, plan.label_scale or plan.scale)
        self._fit_mode = "readable" if plan.readable else "whole"
        self._fit_whole = bool(whole)  # kept when the window is resized
        self._pending_fit = False
        self._auto_fit = True  # keep fitting on resize until the user zooms/pans
        self._update_overlays()

    def _on_fit_clicked(self) -> None:
        """Fit; pressed again on a readable fit of a long graph: all of it."""
        again = self._auto_fit and self._fit_mode == "readable"
        self.fit(whole=True if again else None)

    def _fit_when_ready(self) -> None:
        # fitting an unshown widget uses a bogus viewport size: wait for the show
        if self.isVisible() and self.view.viewport().width() > 50:
            self.fit(whole=True if self._fit_whole else None)
        else:
            self._pending_fit = True

    # -- overlays ------------------------------------------------------------------------------------
    def _on_legend_toggled(self, on: bool) -> None:
        self._legend_auto_hidden = False
        self.legend.setVisible(on)
        self.tools.set_legend_tip(False)
        self.place_legend()
        if self._auto_fit and self._layout_graph_id:
            self.fit(whole=True if self._fit_whole else None)  # the room the legend takes or gives back

    def set_legend_shown(self, on: bool) -> None:
        """Show or hide the legend as the Legend box does (the window's saved choice)."""
        if self.legend_box.isChecked() != on:
            self.legend_box.setChecked(on)
        else:
            self._on_legend_toggled(on)

    def zoom_cap(self) -> float:
        """The most a fit zooms in (raised in presentation mode)."""
        return self._max_zoom

    def set_presentation(self, on: bool, scale: float = 1.75) -> None:
        """For a projector: a fit may zoom `scale` times further (box text and
        strokes that much bigger), and the graph is fitted again."""
        self._max_zoom = MAX_ZOOM * scale if on else MAX_ZOOM
        if self._layout_graph_id:
            self.fit(whole=True if self._fit_whole else None)

    def place_legend(self) -> None:
        vp = self.view.viewport()
        if self.legend.columns == 1:
            self.legend.move(8, 8)
        else:
            self.legend.move(8, max(8, vp.height() - self.legend.height() - 8))

    def _update_overlays(self) -> None:
        self.busy.place(self.view)
        self.running.place(self.view)
        self.place_legend()
        self._scene.set_overview_mode(self.view.transform().m11() < OVERVIEW_MAX_SCALE)
        self.minimap.place()
        self.minimap.viewport().update()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if (self._pending_fit or self._auto_fit) and self._layout_graph_id:
            self._fit_when_ready()
        self._update_overlays()

    def eventFilter(self, obj, event) -> bool:
        # The canvas alone changes size when the banner or the find bar comes
        # or goes (the widget does not): a fit made before would leave the
        # graph partly under the new edge.
        if obj is self.view and event.type() == QEvent.Type.Resize:
            if (self._pending_fit or self._auto_fit) and self._layout_graph_id:
                self._refit_timer.start()
            self.running.place(self.view)
        return super().eventFilter(obj, event)

    def _refit_after_resize(self) -> None:
        if (self._pending_fit or self._auto_fit) and self._layout_graph_id:
            self._fit_when_ready()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._pending_fit and self._layout_graph_id:
            QTimer.singleShot(0, self, self._fit_when_ready)

    # -- session reactions ----------------------------------------------------------------------------
    def _on_trace_changed(self) -> None:
        # the picture stays until the new layout arrives, but it belongs to the
        # old trace: no replay state of the new one may be applied to it
        self._layout_graph_id = ""
        self.builder.drop()
        if self.session.trace is None:
            self._layout_timer.stop()
            self.runner.cancel()
            self._start_build(None, None, "")
        self._show_banner()

    def _on_graph_changed(self, graph_id: str) -> None:
        g = self.session.graph
        self._layout_graph_id = ""
        self.builder.drop()
        if g is None:
            self._layout_timer.stop()
            self.runner.cancel()
            self._start_build(None, None, "")
            self._show_banner()
            return
        self._pending_fit = True
        self._fit_whole = False
        # started once this event is over: the rest of the trace's arrival
        # (replay tables, other widgets) runs first, without sharing the GIL
        # with the layout thread
        self._layout_timer.start()

    def _on_step(self, k: int) -> None:
        if self._layout_graph_id and self._layout_graph_id == self.session.graph_id:
            self._scene.apply_step(self.session.state)
            show_running_copy(self._scene, self.session.state)  # "copy 7 of 11" on a folded frame
            self._keep_labels_in_sight()
            self._follow_current()
            self.minimap.refresh_later()

    def _keep_labels_in_sight(self) -> None:
        """A fitted small graph's view widened when this step's labels (a
        gradient placed left of the graph, a callout) reach past it: zoomed
        out just enough to show all that is drawn, but never below 80 % of
        the zoom the fit's label margins fit at (FitPlan.label_scale: boxes
        stay readable), centred on the drawing while
        what the fit showed stays in view. Only while the fit is the learner's view
        (no zoom or pan since, no legend to keep clear of), only outward (a
        step that draws less changes nothing), never for big graphs or a fit
        around the start (they show a part on purpose)."""
        layout = self._scene.layout
        if (not self._auto_fit or layout is None or len(layout.boxes) >= OVERVIEW_MIN_BOXES
                or self.legend.isVisible() or self._fit_mode == "readable"):
            return
        drawn = self._scene.itemsBoundingRect()
        vis = self.visible_scene_rect()
        if vis.contains(drawn):
            return
        fitted = getattr(self, "_fitted", None)
        if fitted is None:
            return
        graph, fit_scale = fitted
        vp = self.view.viewport().size()
        now = self.view.transform().m11()
        need = min((vp.width() - 24) / max(drawn.width(), 1.0), (vp.height() - 24) / max(drawn.height(), 1.0))
        scale = min(now, max(need, 0.8 * fit_scale))
        if scale != now:
            self.view.resetTransform()
            self.view.scale(scale, scale)
        half_w, half_h = vp.width() / 2 / scale, vp.height() / 2 / scale
        self.view.centerOn(QPointF(_clamp(drawn.center().x(), graph.right() - half_w, graph.left() + half_w),
                                   _clamp(drawn.center().y(), graph.bottom() - half_h, graph.top() + half_h)))
        self._update_overlays()

    def _follow_current(self) -> None:
        """Keep the node running now in sight (playing through a long graph)."""
        st = self.session.state
        if st is None or st.current is None or not self.follow:
            return
        items = self._scene.node_items.get(st.current) or (
            [self._scene.group_boxes[st.current]] if st.current in self._scene.group_boxes else
            [self._scene.stand_in_items[st.current]] if st.current in self._scene.stand_in_items else [])
        if not items:
            return
        r = items[0].sceneBoundingRect()
        vis = self.visible_scene_rect()
        # "in sight" = inside the view and not under the minimap
        hidden = not vis.contains(r)
        if not hidden and self.minimap.isVisible():
            under = self.view.mapToScene(self.minimap.geometry()).boundingRect()
            hidden = under.intersects(r)
        if hidden:
            self._auto_fit = False
            self.view.centerOn(r.center())
            self._update_overlays()

    def _on_group_toggled(self, module: str, collapse: bool) -> None:
        if self._scene.layout is not None:
            self._set_groups(groups.toggled(self._scene.layout, module, collapse))

    def _on_group_rolled(self, module: str) -> None:
        if self._scene.layout is not None:
            self._set_groups(groups.rolled_up(self._scene.layout, module))

    def _set_groups(self, change: groups.GroupChange) -> None:
        self._focus_nodes = change.focus
        self.session.set_layout_groups(change.collapsed, change.unrolled)

    # -- layout ---------------------------------------------------------------------------------------
    def _relayout(self) -> None:
        if self.session.graph is not None:
            self._pending_fit = False
            self._start_layout()

    def _start_layout(self) -> None:
        self._layout_timer.stop()
        if self.session.graph is not None:
            self.runner.start(self.session.graph, self.session.layout_options())

    def _on_layout_started(self) -> None:
        self.busy.start()
        self.busy.place(self.view)
        self.layoutStarted.emit()

    def _on_layout_done(self, graph_id: str, result, overview) -> None:
        self.busy.hide()
        if graph_id != self.session.graph_id:
            return
        self._show_banner(result.note_codes)
        self._start_build(self.session.graph, result, graph_id, overview)

    def _on_layout_failed(self, msg: str) -> None:
        self.busy.hide()
        def render():
            return self.tr("The graph could not be laid out ({0}). The previous picture is still shown.").format(
                msg), True

        text = render()[0]
        self.message.show_message(text, render=render)
        self.layoutFailed.emit(text)

    def _cancel_clicked(self) -> None:
        self._cancel_asked = True
        self.runner.cancel()

    def _on_layout_cancelled(self) -> None:
        self.busy.hide()
        asked, self._cancel_asked = self._cancel_asked, False
        if not asked:  # the trace went away (a run ended without one): nothing failed
            self.layoutDropped.emit()
            return
        def render():
            return self.tr("Layout cancelled. The previous picture is still shown."), True

        text = render()[0]
        self.message.show_message(text, render=render)
        self.layoutFailed.emit(text)

    def _show_banner(self, notes=None) -> None:
        """Why there is no (whole) graph, else how a large one was simplified
        (said again in the new language on a live switch: the banner keeps how)."""
        def render():
            text, error = trace_banner(self.session)
            if not text and notes:
                text, error = notes_text(notes), False
            return text, error

        text, error = render()
        if text:
            self.message.show_message(text, error, render=render)
        else:
            self.message.hide()

    # -- building the picture -----------------------------------------------------------------------
    def _start_build(self, graph, result, graph_id: str, overview=None) -> None:
        self._layout_graph_id = ""
        self._previewed = False
        self.minimap.clear()  # the old picture must not stay in the map
        self._scene.trace = self.session.trace  # (checkpoint regions)
        self.builder.start(graph, result, graph_id, self.session.state, overview)

    def _preview(self) -> None:
        """A big graph: show the bulk-drawn overview at once, while the detailed
        items are still being built in slices (usable picture sooner)."""
        self._previewed = True
        self.view.setSceneRect(self._scene.wanted_rect())
        self._scene.set_overview_mode(True)
        self._scene.overview_locked = True  # stays on until the build is done
        if self._pending_fit or self._auto_fit:
            self._fit_when_ready()
        # after the view has painted the overview (one thing per event)
        QTimer.singleShot(0, self.minimap, self.minimap.refresh)
        self.view.viewport().update()

    def _on_built(self) -> None:
        self.view.setSceneRect(self._scene.wanted_rect())
        result = self.builder.result
        if result is None:
            self._update_overlays()
            return
        self._scene.overview_locked = False
        if self._previewed:
            # a big scene: showing the details (and their first paint) is the
            # next event's work, not this one's
            QTimer.singleShot(1, self, self._update_overlays)
        else:
            self._update_overlays()  # overview or details, by the zoom
        self._layout_graph_id = self.builder.graph_id
        self._scene.apply_step(self.session.state)
        show_running_copy(self._scene, self.session.state)
        self._scene.set_selected(self.session.selected_node)
        self.search_bar.refresh()
        if self._pending_fit or (self._auto_fit and not self._focus_nodes and not self._previewed):
            self._fit_when_ready()  # (a big graph was fitted with its preview)
        elif self._focus_nodes:
            self._look_at_focus()
        if not self._previewed:
            self.minimap.refresh()  # (a big graph's map was drawn with the preview)
        # (the node count is next to it in the status bar already; the layout's
        # notes are in the banner, translated)
        self._last_layout = (result.engine or "?", result.seconds)
        self.layoutFinished.emit(self.layout_info_text())

    def layout_info_text(self) -> str:
        """The last layout's engine and time in the UI language ("" before any)
        (the status bar says it again on a live language switch)."""
        last = getattr(self, "_last_layout", None)
        return self.tr("Layout: {0} in {1:.2f} s").format(*last) if last else ""

    def _look_at_focus(self) -> None:
        """After expanding/collapsing a group, look at what changed."""
        centers = [self._scene.center_of(n) for n in self._focus_nodes[:1]]
        focus = [p for p in centers if p is not None]
        if not focus:
            for n in self._focus_nodes:
                if n in self._scene.group_boxes:
                    focus = [self._scene.group_boxes[n].sceneBoundingRect().center()]
                    break
        if focus:
            self.view.centerOn(focus[0])
        self._focus_nodes = []


def _clamp(x: float, lo: float, hi: float) -> float:
    """`x` within [lo, hi]; the middle of them when lo > hi (the span is
    wider than the room: centred)."""
    return (lo + hi) / 2 if lo > hi else min(max(x, lo), hi)
