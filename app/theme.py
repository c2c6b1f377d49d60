"""Light and dark themes: Fusion style + a palette + a small style sheet.

The mode is "system" (default: follow the desktop's colour scheme, live),
"light" or "dark". Listeners (the graph view, editor, highlighter, output pane)
get `themeChanged(effective_name)` with "light" or "dark".
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QColor, QGuiApplication, QPalette, QPen
from PySide6.QtWidgets import QApplication, QStyleFactory

from autogradviz.app.services import settings
from autogradviz.app.resources_loader import set_icon_theme, style_sheet

MODES = ("system", "light", "dark")

# Colours shared by the shell's own widgets (editor, output pane, highlighter).
COLORS = {
    "light": {
        "window": "#f3f4f6", "base": "#ffffff", "alt_base": "#f7f8fa", "text": "#1f2328",
        "muted": "#6a737d", "button": "#eceef1", "highlight": "#2f6fdb",
        "highlight_text": "#ffffff", "current_line": "#f1f5fd", "line_numbers_bg": "#f3f4f6",
        "line_numbers": "#9aa1ab", "error_bg": "#fde2e1", "error_underline": "#d1242f",
        "stopped_bg": "#fff1c2", "stopped_marker": "#b7791f",
        "step_line_bg": "#dcf3e3", "step_arrow": "#1a7f37",
        "stdout": "#1f2328", "stderr": "#b35900", "error": "#c21f2b", "info": "#57606a",
        "ok": "#1a7f37", "link": "#2f6fdb", "border": "#d0d4da",
    },
    "dark": {
        "window": "#1f2227", "base": "#16181c", "alt_base": "#1c1f24", "text": "#e2e5ea",
        "muted": "#8b939e", "button": "#2a2e35", "highlight": "#3b78e7",
        "highlight_text": "#ffffff", "current_line": "#20242b", "line_numbers_bg": "#1b1e23",
        "line_numbers": "#5f6773", "error_bg": "#4a1f22", "error_underline": "#ff6b6b",
        "stopped_bg": "#4a3b12", "stopped_marker": "#d29922",
        "step_line_bg": "#17392a", "step_arrow": "#3fb950",
        "stdout": "#e2e5ea", "stderr": "#f0a35e", "error": "#ff7b72", "info": "#9aa4b0",
        "ok": "#56d364", "link": "#6ea8fe", "border": "#363b43",
    },
}


def colors(theme: str) -> dict:
    return COLORS.get(theme, COLORS["light"])


def _palette(theme: str) -> QPalette:
    c = colors(theme)
    p = QPalette()
    role = QPalette.ColorRole
    for r, key in [
        (role.Window, "window"), (role.WindowText, "text"), (role.Base, "base"),
        (role.AlternateBase, "alt_base"), (role.Text, "text"), (role.Button, "button"),
        (role.ButtonText, "text"), (role.Highlight, "highlight"),
        (role.HighlightedText, "highlight_text"), (role.ToolTipBase, "base"),
        (role.ToolTipText, "text"), (role.PlaceholderText, "muted"), (role.Link, "link"),
        (role.BrightText, "error"),
    ]:
        p.setColor(r, QColor(c[key]))
    muted = QColor(c["muted"])
    for r in (role.Text, role.WindowText, role.ButtonText):
        p.setColor(QPalette.ColorGroup.Disabled, r, muted)
    light = theme == "light"
    p.setColor(role.Light, QColor("#ffffff" if light else "#3a3f47"))
    p.setColor(role.Midlight, QColor("#e3e6ea" if light else "#30343b"))
    p.setColor(role.Mid, QColor("#c3c8cf" if light else "#2a2e35"))
    p.setColor(role.Dark, QColor("#9aa1ab" if light else "#15171a"))
    p.setColor(role.Shadow, QColor("#6a737d" if light else "#000000"))
    return p


def system_theme() -> str:
    hints = QGuiApplication.styleHints()
    try:
        if hints.colorScheme() == Qt.ColorScheme.Dark:
            return "dark"
    except AttributeError:  # Qt < 6.5
        pass
    return "light"


class ThemeManager(QObject):
    """Owns the current theme; emits themeChanged("light"|"dark") when it changes."""

    themeChanged = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        mode = settings.get("ui/theme", "system")
        self._mode = mode if mode in MODES else "system"
        self._effective = ""
        hints = QGuiApplication.styleHints()
        if hasattr(hints, "colorSchemeChanged"):
            hints.colorSchemeChanged.connect(self._system_changed)

    @property
    def mode(self) -> str:
        return self._mode

    @property
    def effective(self) -> str:
        return self._effective or self._resolve()

    def _resolve(self) -> str:
        return system_theme() if self._mode == "system" else self._mode

    def set_mode(self, mode: str, save: bool = True) -> None:
        if mode not in MODES:
            raise ValueError(mode)
        self._mode = mode
        if save:
            settings.put("ui/theme", mode)
        self.apply()

    def apply(self, force: bool = False) -> str:
        """Apply the palette and style sheet for the current mode to the app."""
        name = self._resolve()
        if name == self._effective and not force:
            return name
        self._effective = name
        app = QApplication.instance()
        if isinstance(app, QApplication):  # (a widgets app: never a bare QCoreApplication here)
            if app.style().objectName().lower() != "fusion":
                app.setStyle(QStyleFactory.create("Fusion"))
            app.setPalette(_palette(name))
            app.setStyleSheet(style_sheet(name))
        set_icon_theme(name)
        self.themeChanged.emit(name)
        return name

    def _system_changed(self, *_):
        if self._mode == "system":
            self.apply()


def style_plot(plot, cursor, name: str) -> dict:
    """A pyqtgraph plot's background and axes, and its cursor line, in theme
    `name` (the charts of the GradScaler and Memory panels look alike);
    returns the theme's colours for the rest of the drawing."""
    c = colors(name)
    plot.setBackground(QColor(c["base"]))
    for axis in ("left", "bottom"):
        ax = plot.getAxis(axis)
        ax.setPen(QColor(c["muted"]))
        ax.setTextPen(QColor(c["text"]))
    pen = QPen(QColor(c["highlight"]))
    pen.setWidthF(1.5)
    pen.setCosmetic(True)
    cursor.setPen(pen)
    return c
