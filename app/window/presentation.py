"""Presentation mode (View ▸ Presentation, F11): the window for a projector.

Only the graph, the code and the step caption stay; the menus, toolbar,
status bar and the other panels go; the code, the caption and the graph are
drawn larger (the code's and the caption's fonts ×`SCALE`, a fit may zoom the
graph ×`SCALE` further, so its text and strokes grow with it). The stepping
keys (→ ← Space Home End) work wherever the focus is, since the editor takes
no keys while presenting. Esc, F11 or the menu entry leave, and everything comes
back as it was: dock places (saveState), the window's full-screen state, fonts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QKeySequence, QShortcut

if TYPE_CHECKING:  # (main_window imports this module)
    from autogradviz.app.window.main_window import MainWindow

SCALE = 1.6
KEPT = ("editor", "stepper")
CODE_SHARE = 0.36  # of the screen's width; the graph takes the rest  # the panels a presentation shows (with the graph)


class Presentation(QObject):
    def __init__(self, window: MainWindow, on_changed=None):
        super().__init__(window)
        self._window = window
        self._on = False
        self._on_changed = on_changed  # called with the new state (the menu's check)
        self._saved: Any = None  # what set_on(True) saved, for set_on(False)
        stepper = window.stepper
        self._keys = []
        for key, slot in ((Qt.Key.Key_Right, stepper.go_forward), (Qt.Key.Key_Left, stepper.go_back),
                          (Qt.Key.Key_Space, stepper.toggle_play), (Qt.Key.Key_Home, stepper.go_first),
                          (Qt.Key.Key_End, stepper.go_last), (Qt.Key.Key_Escape, lambda: self.set_on(False))):
            sc = QShortcut(QKeySequence(key), window)
            sc.setContext(Qt.ShortcutContext.WindowShortcut)
            sc.setEnabled(False)
            sc.activated.connect(slot)
            self._keys.append(sc)

    def is_on(self) -> bool:
        return self._on

    def set_on(self, on: bool) -> None:
        if on == self._on:
            return
        w = self._window
        editor = w.editor
        if on:
            self._saved = {
                "state": w.saveState(), "full": w.isFullScreen(), "maximized": w.isMaximized(),
                "font": editor.font(), "focus": editor.focusPolicy(), "flags": editor.textInteractionFlags(),
                "hidden": {pid: w.panels.dock(pid).isHidden() for pid in w.panels.ids()},
                "menu": w.menuBar().isHidden(), "status": w.statusBar().isHidden(),
                "toolbar": w.chrome.toolbar.isHidden(), "tools": w.graph_view.tools.isHidden(),
            }
            self._on = True
            for pid in w.panels.ids():
                w.panels.dock(pid).setVisible(pid in KEPT)
            w.menuBar().hide()
            w.statusBar().hide()
            w.chrome.toolbar.hide()
            w.graph_view.tools.hide()
            font = editor.font()
            font.setPointSizeF(font.pointSizeF() * SCALE)
            editor.setFont(font)
            editor.setTextInteractionFlags(Qt.TextInteractionFlag.NoTextInteraction)  # presenting, not editing: the keys step
            editor.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            w.stepper.set_presentation(True, SCALE)
            w.stepper.set_shortcuts_enabled(False)
            for sc in self._keys:
                sc.setEnabled(True)
            w.showFullScreen()
            screen = w.screen().geometry() if w.screen() else w.geometry()
            w.resizeDocks([w.panels.dock("editor")], [int(screen.width() * CODE_SHARE)], Qt.Orientation.Horizontal)
            # the caption's three lines (what ran, the line that made it, the rule), the
            # first often wrapped in two at this size: four lines, none cut off
            caption = w.stepper.step_label.fontMetrics().lineSpacing() * 4 + 20
            w.resizeDocks([w.panels.dock("stepper")], [caption], Qt.Orientation.Vertical)
            w.graph_view.set_presentation(True, SCALE)
            w.graph_view.view.setFocus()
        else:
            saved, self._saved = self._saved, None
            self._on = False
            for sc in self._keys:
                sc.setEnabled(False)
            w.stepper.set_presentation(False)
            w.stepper.set_shortcuts_enabled(True)
            editor.setFont(saved["font"])
            editor.setTextInteractionFlags(saved["flags"])
            editor.setFocusPolicy(saved["focus"])
            w.menuBar().setHidden(saved["menu"])
            w.statusBar().setHidden(saved["status"])
            w.chrome.toolbar.setHidden(saved["toolbar"])
            w.graph_view.tools.setHidden(saved["tools"])
            if not saved["full"]:
                w.showMaximized() if saved["maximized"] else w.showNormal()
            w.restoreState(saved["state"])
            for pid, hidden in saved["hidden"].items():
                w.panels.dock(pid).setHidden(hidden)
            w.graph_view.set_presentation(False)
        if self._on_changed is not None:
            self._on_changed(self._on)
