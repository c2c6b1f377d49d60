"""The lesson browser: chapters, progress, search, look-at links, try-this, reset."""

from autogradviz.app.panels.lessons.panel import LessonsPanel

__all__ = ["LessonsPanel"]
