"""The one module that finds and loads resources (icons, lessons, styles, translations).

Everything under resources/ is plain files so that it can be read, diffed and
translated without tools; this module is the only place that knows where they
live, so the rest of the app asks for `icon("run")` or `lessons()` and never
builds a path itself.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from PySide6.QtCore import QByteArray, Qt
from PySide6.QtGui import QIcon, QImage, QPainter, QPixmap
from PySide6.QtSvg import QSvgRenderer

import autogradviz.resources as _res
from autogradviz.app.lesson_text.comments import translate
from autogradviz.app.lesson_text.numbers import course_numbers, renumber

RESOURCES = Path(_res.__file__).resolve().parent
ICONS = RESOURCES / "icons"
LESSONS = RESOURCES / "lessons"
STYLES = RESOURCES / "styles"
TRANSLATIONS = RESOURCES / "translations"

# The colour the SVG files are drawn in; swapped for the theme's text colour.
_ICON_INK = "#4a4f57"
_THEME_INK = {"light": "#3c4048", "dark": "#d5d9e0"}
_current_theme = "light"


def set_icon_theme(theme: str) -> None:
    """Icons drawn after this call use `theme`'s ink ("light" or "dark")."""
    global _current_theme
    _current_theme = theme if theme in _THEME_INK else "light"


def icon_path(name: str) -> Path:
    return ICONS / f"{name}.svg"


@lru_cache(maxsize=256)
def _icon(name: str, theme: str) -> QIcon:
    path = icon_path(name)
    if not path.exists():
        return QIcon()
    svg = path.read_text(encoding="utf-8").replace(_ICON_INK, _THEME_INK[theme])
    renderer = QSvgRenderer(QByteArray(svg.encode("utf-8")))
    result = QIcon()
    for size in (16, 20, 24, 32, 48, 64):
        image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        renderer.render(painter)
        painter.end()
        pixmap = QPixmap.fromImage(image)
        result.addPixmap(pixmap, QIcon.Mode.Normal)
        # A faded copy for disabled actions (Qt's own greying is weak on SVG).
        dim = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
        dim.fill(Qt.GlobalColor.transparent)
        p = QPainter(dim)
        p.setOpacity(0.35)
        p.drawImage(0, 0, image)
        p.end()
        result.addPixmap(QPixmap.fromImage(dim), QIcon.Mode.Disabled)
    return result


def icon(name: str, theme: str | None = None) -> QIcon:
    """QIcon for resources/icons/NAME.svg in the current (or given) theme's ink."""
    return _icon(name, theme or _current_theme)


def icon_or_standard(name: str, fallback, theme: str | None = None) -> QIcon:
    """Our icon `name`, or Qt's standard pixmap `fallback` when the file is
    missing or cannot be drawn: a button never ends up blank."""
    try:
        ic = icon(name, theme) if theme else icon(name)
        if not ic.isNull():
            return ic
    except Exception:
        pass
    from PySide6.QtWidgets import QApplication

    return QApplication.style().standardIcon(fallback)


# -- lessons -------------------------------------------------------------------

@dataclass(frozen=True)
class Lesson:
    """A starter lesson: NAME.py, NAME.<lang>.md explanations and NAME.json
    (chapter, what to look at, what to try, translated comments)."""

    name: str  # file stem, e.g. "01_leaf_vs_nonleaf"
    path: Path

    @property
    def source(self) -> str:
        """The script as the learner sees it: lesson numbers in course order."""
        return self._numbered(self.path.read_text(encoding="utf-8"))

    def _numbered(self, text: str) -> str:
        return renumber(text, course_numbers(self.path.parent))

    def source_for(self, language: str = "en") -> str:
        """The script with its comments in `language` (their translations are
        in NAME.json, see app/lesson_text/comments.py), else the English one."""
        if language == "en":
            return self.source
        table = self.metadata().get("comments", {})
        table = table.get(language) if isinstance(table, dict) else None
        # The translations are keyed by the file's own comments: swap first, then number.
        raw = self.path.read_text(encoding="utf-8")
        return self._numbered(translate(raw, table if isinstance(table, dict) else {}))

    def metadata(self) -> dict:
        """NAME.json (chapter, "look" and "try" items), {} when absent or unreadable."""
        try:
            data = json.loads(self.path.with_suffix(".json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def explanation(self, language: str = "en") -> str:
        """Markdown explanation in `language` ("en" or "zh_CN"), English as fallback."""
        for lang in (language, "en"):
            md = self.path.with_name(f"{self.name}.{lang}.md")
            if md.exists():
                return self._numbered(md.read_text(encoding="utf-8"))
        return ""

    def title(self, language: str = "en") -> str:
        """The first Markdown heading of the explanation, else the file name."""
        for line in self.explanation(language).splitlines():
            m = re.match(r"#+\s*(.+)", line)
            if m:
                return m.group(1).replace("`", "").strip()
        return self.name


def lessons() -> list[Lesson]:
    """Starter lessons in file-name order (the first one is the default)."""
    return [Lesson(p.stem, p) for p in sorted(LESSONS.glob("*.py"))
            if not p.name.startswith("_") and "." not in p.stem]


def default_lesson() -> Lesson | None:
    found = lessons()
    return found[0] if found else None


# -- styles and translations ---------------------------------------------------

def style_sheet(theme: str) -> str:
    """Contents of resources/styles/<theme>.qss ("" when missing).

    `@STYLES@` in the file becomes this folder's path, so a style sheet can use
    images shipped next to it (url(@STYLES@/check.svg)) wherever we are installed."""
    path = STYLES / f"{theme}.qss"
    if not path.exists():
        return ""
    return path.read_text(encoding="utf-8").replace("@STYLES@", STYLES.as_posix())


def translation_file(language: str) -> Path:
    """Compiled translation (.qm) for `language`, e.g. "zh_CN"."""
    return TRANSLATIONS / f"autogradviz_{language}.qm"

