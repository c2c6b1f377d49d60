"""The row of tools above the graph: zoom, fit, find, "show saved tensors",
legend.

The buttons only ask for things (the GraphView connects them). The "Show
saved tensors" box holds no state of its own: it sets the session's option
and follows the session's `showSavedChanged`, so it can never disagree with
the View menu or the picture.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QStyle, QToolButton, QWidget

from autogradviz.app.resources_loader import icon_or_standard
from autogradviz.app.session import TraceSession

# (attribute, icon name, standard icon when the SVG is missing)
_BUTTONS = (("zoom_in_btn", "zoom-in", QStyle.StandardPixmap.SP_ArrowUp),
            ("zoom_out_btn", "zoom-out", QStyle.StandardPixmap.SP_ArrowDown),
            ("fit_btn", "zoom-fit", QStyle.StandardPixmap.SP_TitleBarMaxButton),
            ("search_btn", "search", QStyle.StandardPixmap.SP_FileDialogContentsView))


class GraphToolbar(QWidget):
    # made by name from _BUTTONS (setattr)
    zoom_in_btn: QToolButton
    zoom_out_btn: QToolButton
    fit_btn: QToolButton
    search_btn: QToolButton

    def __init__(self, session: TraceSession, parent=None):
        super().__init__(parent)
        self.session = session
        lay = QHBoxLayout(self)
        lay.setContentsMargins(4, 2, 4, 2)
        for attr, _name, _fallback in _BUTTONS:
            btn = QToolButton(self)
            setattr(self, attr, btn)
            lay.addWidget(btn)
        self.load_icons(None)
        self.saved_box = QCheckBox(self)
        self.saved_box.setChecked(session.show_saved)
        self.saved_box.toggled.connect(session.set_show_saved)
        session.showSavedChanged.connect(self._on_show_saved)
        self.legend_box = QCheckBox(self)
        self.legend_box.setChecked(True)
        # fold repeated layers / left to right: the session's options, as "show saved"
        self.fold_box = QCheckBox(self)
        self.fold_box.setChecked(session.fold_repeated)
        self.fold_box.toggled.connect(session.set_fold_repeated)
        self.lr_box = QCheckBox(self)
        self.lr_box.setChecked(session.direction == "LR")
        self.lr_box.toggled.connect(lambda on: session.set_direction("LR" if on else "TB"))
        session.layoutOptionsChanged.connect(self._on_layout_options)
        lay.addWidget(self.saved_box)
        lay.addWidget(self.fold_box)
        lay.addWidget(self.lr_box)
        lay.addWidget(self.legend_box)
        lay.addStretch(1)

    def _on_show_saved(self, on: bool) -> None:
        if self.saved_box.isChecked() != on:
            self.saved_box.setChecked(on)  # (toggled re-sets the same value: no effect)

    def _on_layout_options(self) -> None:
        for box, on in ((self.fold_box, self.session.fold_repeated),
                        (self.lr_box, self.session.direction == "LR")):
            if box.isChecked() != on:
                box.setChecked(on)  # (toggled re-sets the same value: no effect)

    def load_icons(self, theme) -> None:
        """(Re)load the tool icons: their ink follows the light/dark theme
        (None: the icon loader's current theme)."""
        for attr, name, fallback in _BUTTONS:
            getattr(self, attr).setIcon(icon_or_standard(name, fallback, theme))

    def set_legend_checked(self, on: bool) -> None:
        """Tick or untick the legend box without acting on it (a fit hid or
        showed the legend itself)."""
        self.legend_box.blockSignals(True)
        self.legend_box.setChecked(on)
        self.legend_box.blockSignals(False)

    def set_legend_tip(self, auto_hidden: bool) -> None:
        if auto_hidden:
            self.legend_box.setToolTip(QCoreApplication.translate(
                "GraphView", "The legend was hidden to leave the small view to the "
                             "graph; tick to show it over the graph."))
        else:
            self.legend_box.setToolTip(QCoreApplication.translate(
                "GraphView", "Show or hide the legend explaining colours and badges."))

    def retranslate(self) -> None:
        self.zoom_in_btn.setToolTip(QCoreApplication.translate("GraphView", "Zoom in (+, Ctrl++ or the mouse wheel)"))
        self.zoom_out_btn.setToolTip(QCoreApplication.translate("GraphView", "Zoom out (-, Ctrl+- or the mouse wheel)"))
        self.fit_btn.setToolTip(QCoreApplication.translate("GraphView", "Fit the graph in the view (Ctrl+0). A long graph is fitted "
                                               "across at a readable size, showing where backward starts; "
                                               "press again to see all of it."))
        self.search_btn.setToolTip(QCoreApplication.translate("GraphView", "Find a node (Ctrl+F)"))
        self.saved_box.setText(QCoreApplication.translate("GraphView", "Show saved tensors"))
        self.saved_box.setToolTip(QCoreApplication.translate("GraphView", "Also draw the tensors each operation saved for its backward "
                                                 "computation (like torchviz's show_saved)."))
        self.legend_box.setText(QCoreApplication.translate("GraphView", "Legend"))
        self.fold_box.setText(QCoreApplication.translate("GraphView", "Fold repeats"))
        self.fold_box.setToolTip(QCoreApplication.translate(
            "GraphView", "In a big graph, draw identical layers (a TransformerEncoder's, ResNet blocks) "
                         "once, marked ×N; stepping names the copy that runs."))
        self.lr_box.setText(QCoreApplication.translate("GraphView", "Left to right"))
        self.lr_box.setToolTip(QCoreApplication.translate(
            "GraphView", "Lay the graph out from left to right: long chains read better on a wide screen."))
        self.set_legend_tip(False)
