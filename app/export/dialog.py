"""The Export dialog: save what the graph view shows as PNG, SVG, PDF, DOT or GIF.

What is exported is what the learner sees: the current stepper state
(highlights, gradient labels) of the view's scene, the whole graph or only the
visible area. A GIF animates the current backward run, one frame per step; it
is rendered on a private copy of the scene so the view does not flicker, with
a progress bar and Cancel (events are processed between frames; rendering
must stay on the GUI thread because QGraphicsScene is not thread-safe).
Errors are shown in the dialog, one clear line; nothing half-written is left.
"""

from __future__ import annotations

import os
from typing import Optional

from PySide6.QtCore import QCoreApplication, QEventLoop, QSettings, Qt, Signal
from PySide6.QtWidgets import (QButtonGroup, QCheckBox, QComboBox, QDialog, QDialogButtonBox, QDoubleSpinBox,
                               QFileDialog, QFormLayout, QHBoxLayout, QLabel, QLineEdit,
                               QProgressBar, QPushButton, QRadioButton, QVBoxLayout, QWidget)

from autogradviz.app.export import render as ex
from autogradviz.app.services.text_safety import plain

FORMATS = ["png", "svg", "pdf", "dot", "gif", "html"]
RUN_FORMATS = ("gif", "html")  # they show a whole backward run


class ExportDialog(QDialog):
    exported = Signal(str)  # path written

    def __init__(self, graph_view, session, parent: Optional[QWidget] = None):
        super().__init__(parent)
        self.graph_view = graph_view
        self.session = session
        self._cancel = False
        self._busy = False
        self.last_info: Optional[ex.ExportInfo] = None
        self.setWindowTitle(self.tr("Export graph"))
        self.setMinimumWidth(460)

        self.format_box = QComboBox(self)
        labels = {"png": self.tr("PNG image"), "svg": self.tr("SVG vector image"),
                  "pdf": self.tr("PDF document"), "dot": self.tr("Graphviz DOT source"),
                  "gif": self.tr("Animated GIF of the backward run"),
                  "html": self.tr("Web page of the backward run (interactive)")}
        for key in FORMATS:
            self.format_box.addItem(labels[key], key)
        self.scale_box = QDoubleSpinBox(self)
        self.scale_box.setRange(0.25, 8.0)
        self.scale_box.setSingleStep(0.5)
        self.scale_box.setValue(2.0)
        self.scale_box.setSuffix(" \u00d7")
        self.every_step = QCheckBox(self.tr("Every step: a folder of pictures (PNG, SVG) or a PDF "
                                            "handout, one page per step"), self)
        self.caption = QCheckBox(self.tr("Caption under the picture: the step and its rule"), self)
        self.legend_box = QCheckBox(self.tr("Legend: what each colour, border and badge means"), self)
        self.legend_box.setChecked(self._legend_on_screen())
        self.whole = QRadioButton(self.tr("Whole graph"), self)
        self.visible = QRadioButton(self.tr("Visible area only"), self)
        self.whole.setChecked(True)
        area = QButtonGroup(self)
        area.addButton(self.whole)
        area.addButton(self.visible)
        area_row = QWidget(self)
        al = QHBoxLayout(area_row)
        al.setContentsMargins(0, 0, 0, 0)
        al.addWidget(self.whole)
        al.addWidget(self.visible)
        al.addStretch(1)

        self.path_edit = QLineEdit(self)
        self.browse_btn = QPushButton(self.tr("Browse\u2026"), self)
        self.browse_btn.clicked.connect(self._browse)
        path_row = QWidget(self)
        pl = QHBoxLayout(path_row)
        pl.setContentsMargins(0, 0, 0, 0)
        pl.addWidget(self.path_edit, 1)
        pl.addWidget(self.browse_btn)

        self.state_label = plain(QLabel(self))
        self.state_label.setWordWrap(True)
        self.message = plain(QLabel(self))  # file names and errors: plain text
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.progress = QProgressBar(self)
        self.progress.hide()

        form = QFormLayout()
        form.addRow(self.tr("Format:"), self.format_box)
        self.scale_label = QLabel(self.tr("Scale:"), self)
        form.addRow(self.scale_label, self.scale_box)
        self.area_label = QLabel(self.tr("Area:"), self)
        form.addRow(self.area_label, area_row)
        form.addRow(self.tr("File:"), path_row)
        form.addRow("", self.every_step)
        form.addRow("", self.caption)
        form.addRow("", self.legend_box)

        self.buttons = QDialogButtonBox(self)
        self.export_btn = self.buttons.addButton(self.tr("Export"), QDialogButtonBox.ButtonRole.AcceptRole)
        self.cancel_btn = self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        self.export_btn.clicked.connect(self._on_export)
        self.cancel_btn.clicked.connect(self._on_cancel)

        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(self.state_label)
        lay.addWidget(self.progress)
        lay.addWidget(self.message)
        lay.addWidget(self.buttons)

        self.format_box.currentIndexChanged.connect(self._update_controls)
        self._restore()
        self._update_controls()

    # -- state -------------------------------------------------------------------------------------
    def current_format(self) -> str:
        return self.format_box.currentData()

    def set_format(self, key: str) -> None:
        i = self.format_box.findData(key)
        if i >= 0:
            self.format_box.setCurrentIndex(i)

    def _legend_on_screen(self) -> bool:
        legend = getattr(self.graph_view, "legend", None)
        return legend is not None and legend.isVisible()

    def _legend(self):
        """The screen's legend widget when the export shows it (the box), else None."""
        if not (self.legend_box.isChecked() and self.legend_box.isEnabled()):
            return None
        return getattr(self.graph_view, "legend", None)

    def _has_run(self) -> bool:
        tr = getattr(self.session, "trace", None)
        run = getattr(self.session, "run_index", -1)
        return tr is not None and 0 <= run < len(tr.backward_runs)

    def _update_controls(self) -> None:
        fmt = self.current_format()
        self.scale_box.setEnabled(fmt in ("png", "gif"))
        self.every_step.setEnabled(fmt in ("png", "svg", "pdf") and self._has_run())
        self.caption.setEnabled(fmt in ("png", "svg") and self._has_run())
        self.legend_box.setEnabled(fmt != "dot")
        self.area_label.setEnabled(fmt != "dot")
        self.whole.setEnabled(fmt != "dot")
        self.visible.setEnabled(fmt != "dot")
        path = self.path_edit.text().strip()
        if path:
            base, ext = os.path.splitext(path)
            if ext.lower().lstrip(".") in FORMATS and ext.lower().lstrip(".") != fmt:
                self.path_edit.setText(base + "." + fmt)
        run = getattr(self.session, "run_index", -1)
        step = getattr(self.session, "step", 0)
        if fmt in RUN_FORMATS:
            if self._has_run():
                n = len(self.session.trace.backward_runs[run].steps)
                if fmt == "html":
                    self.state_label.setText(self.tr("One file stepping through backward run {0} "
                                                     "({1} steps); it opens in any browser, offline.")
                                             .format(run + 1, n))
                else:
                    self.state_label.setText(self.tr("Animates backward run {0}: {1} frames, "
                                                     "one per step.")
                                             .format(run + 1, n))
            else:
                self.state_label.setText(self.tr("There is no backward run to animate."))
        elif fmt == "dot":
            self.state_label.setText(self.tr("The graph's structure and positions, without "
                                             "the stepper state."))
        elif self._has_run():
            self.state_label.setText(self.tr("Exports what the view shows now: backward run {0}, "
                                             "step {1}.").format(run + 1, step))
        else:
            self.state_label.setText(self.tr("Exports the graph as the view shows it."))
        self.export_btn.setEnabled(not self._busy and (fmt not in RUN_FORMATS or self._has_run()))

    def _restore(self) -> None:
        s = QSettings()
        self.set_format(str(s.value("export/format", "png")))
        try:
            self.scale_box.setValue(float(s.value("export/scale", 2.0)))  # type: ignore[arg-type]  # (what was stored; a bad value is caught)
        except (TypeError, ValueError):
            pass
        folder = str(s.value("export/folder", "") or "") or os.path.expanduser("~")
        self.path_edit.setText(os.path.join(folder, "autograd-graph." + self.current_format()))

    def _save(self, path: str) -> None:
        s = QSettings()
        s.setValue("export/format", self.current_format())
        s.setValue("export/scale", self.scale_box.value())
        s.setValue("export/folder", os.path.dirname(os.path.abspath(path)))

    def _browse(self) -> None:
        fmt = self.current_format()
        filt = self.tr("{0} files (*.{1})").format(fmt.upper(), fmt)
        path, _ = QFileDialog.getSaveFileName(self, self.tr("Export graph"), self.path_edit.text(), filt)
        if path:
            if not os.path.splitext(path)[1]:
                path += "." + fmt
            self.path_edit.setText(path)

    # -- export ------------------------------------------------------------------------------------
    def _on_cancel(self) -> None:
        if self._busy:
            self._cancel = True
        else:
            self.reject()

    def _on_export(self) -> None:
        info = self.export_to(self.path_edit.text().strip())
        if info is not None:
            self.accept()

    def export_to(self, path: str, fmt: Optional[str] = None) -> Optional[ex.ExportInfo]:
        """Export with the dialog's settings; returns the info, or None after
        showing why it failed (or was cancelled) in the dialog."""
        fmt = fmt or self.current_format()
        if not path:
            self._fail(self.tr("Choose a file to export to."))
            return None
        if not os.path.splitext(path)[1]:
            path += "." + fmt
        scene = self.graph_view.graph_scene()
        if getattr(scene, "graph", None) is None or getattr(scene, "layout", None) is None:
            self._fail(self.tr("There is no graph to export yet."))
            return None
        rect = self.graph_view.visible_scene_rect() if (self.visible.isChecked() and fmt != "dot") else None
        self._busy = True
        self._cancel = False
        self.message.clear()
        self._update_controls()
        try:
            if fmt in RUN_FORMATS or (self.every_step.isChecked() and self.every_step.isEnabled()):
                info = self._export_run(scene, path, rect, fmt)
            else:
                theme = getattr(getattr(scene, "style", None), "name", "light")
                caption: tuple | list = ()
                if self.caption.isChecked() and self.caption.isEnabled():
                    from autogradviz.app.export.captions import caption_lines, session_for
                    caption = caption_lines(session_for(self.session.trace, self.session.run_index),
                                            self.session.step)
                from autogradviz.app.export.legend_export import screen_place
                info = ex.export_scene(scene, path, fmt, rect=rect, scale=self.scale_box.value(),
                                       theme=theme, caption=caption, legend=self._legend(),
                                       legend_place=screen_place(self.graph_view) if rect is not None else None)
        except ex.ExportCancelled:
            self._fail(self.tr("Export cancelled; nothing was written."))
            return None
        except ex.ExportError as exc:
            self._fail(str(exc))
            return None
        except Exception as exc:  # never crash the GUI over an export
            self._fail(self.tr("Export failed: {0}").format(f"{type(exc).__name__}: {exc}"))
            return None
        finally:
            self._busy = False
            self.progress.hide()
            self._update_controls()
        self._save(path)
        self.last_info = info
        note = (" " + " ".join(info.notes)) if info.notes else ""
        self.message.setText(self.tr("Wrote {0}.").format(path) + note)
        self.exported.emit(path)
        return info

    def _export_run(self, scene, path: str, rect, fmt: str):
        """A whole backward run (GIF, web page, a folder of slides, a PDF
        handout), drawn on the screen's own scene - its folding, callouts,
        theme and language, so every frame is the screen at that step - with
        the view's painting paused meanwhile (it would flicker through the
        steps) and the step and recompute frame shown put back afterwards."""
        trace = self.session.trace
        run = self.session.run_index
        if not self._has_run():
            raise ex.ExportError(self.tr("There is no backward run to animate."))
        self.progress.setRange(0, max(1, min(len(trace.backward_runs[run].steps), ex.MAX_GIF_FRAMES)))  # (grows
        # with a checkpoint's recompute frames: `progress` sets the maximum)
        self.progress.setValue(0)
        self.progress.show()

        def progress(k, n):
            self.progress.setMaximum(n)
            self.progress.setValue(k)
            QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)  # (Cancel; the dialog is modal)

        stop = lambda: self._cancel  # noqa: E731
        legend = self._legend()
        overlay = getattr(scene, "checkpoint_overlay", None)
        frame = overlay.frame if overlay is not None else None
        state = scene.state
        bars = (self.graph_view.view.horizontalScrollBar(), self.graph_view.view.verticalScrollBar())
        scrolled = [b.value() for b in bars]  # (a recompute frame scrolls its panel into sight)
        self.graph_view.setUpdatesEnabled(False)
        try:
            if fmt == "gif":
                return ex.write_gif(scene, trace, run, path, rect, scale=self.scale_box.value(),
                                    progress=progress, cancelled=stop, legend=legend)
            if fmt == "html":
                from autogradviz.app.export.webpage import write_webpage
                return write_webpage(scene, trace, run, path, progress=progress, cancelled=stop, legend=legend)
            from autogradviz.app.export import steps as slides
            if overlay is not None:
                overlay.show_frame(None)  # (the slides are the steps themselves)
            if fmt == "pdf":
                return slides.write_handout(scene, trace, run, path, progress=progress, cancelled=stop,
                                            legend=legend)
            folder = os.path.splitext(path)[0]  # slides/step-001.png ... beside the name given
            return slides.write_step_folder(scene, trace, run, folder, fmt, scale=self.scale_box.value(),
                                            captions=self.caption.isChecked(), progress=progress,
                                            cancelled=stop, legend=legend)
        finally:
            scene.apply_step(state)
            if overlay is not None:
                overlay.show_frame(frame)
            for bar, value in zip(bars, scrolled):
                bar.setValue(value)
            self.graph_view.setUpdatesEnabled(True)

    def _fail(self, text: str) -> None:
        self.message.setText(text)

    def reject(self) -> None:
        if self._busy:
            self._cancel = True
            return
        super().reject()
