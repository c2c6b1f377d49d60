"""Autosave: the editor's text is copied to the user data folder while you type,
so a crash or kill of the app loses nothing.

Files (QStandardPaths.StandardLocation.AppDataLocation/autosave/): `editor.py` (the text) and
`editor.json` ({"path": file the text belongs to or null, "time": ...}). A clean
exit removes them (`discard`); their presence at start-up means the last
session ended abnormally, so the text is offered back (`pending`).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from PySide6.QtCore import QObject, QStandardPaths, QTimer, Signal

from autogradviz.engine.trace.atomic_file import write_atomic

INTERVAL_MS = 2000


def autosave_dir() -> Path:
    base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
    return Path(base or Path.home() / ".autogradviz") / "autosave"


class Autosave(QObject):
    saved = Signal(str)  # path written

    def __init__(self, editor, current_path=lambda: None, parent=None, interval_ms: int = INTERVAL_MS):
        super().__init__(parent)
        self._editor = editor
        self._current_path = current_path
        self._dirty = False
        self._enabled = True
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.save_now)
        editor.document().contentsChanged.connect(self._changed)

    @property
    def text_path(self) -> Path:
        return autosave_dir() / "editor.py"

    @property
    def meta_path(self) -> Path:
        return autosave_dir() / "editor.json"

    def set_enabled(self, enabled: bool) -> None:
        self._enabled = enabled
        if not enabled:
            self._timer.stop()

    def _changed(self) -> None:
        if not self._enabled:
            return
        self._dirty = True
        if not self._timer.isActive():
            self._timer.start()

    def save_now(self) -> None:
        """Write the editor's text now, atomically (engine/trace/atomic_file.py):
        a full disk leaves the previous autosave whole, and the text is
        tried again on the next change."""
        if not self._dirty:
            return
        try:
            autosave_dir().mkdir(parents=True, exist_ok=True)
            write_atomic(self.text_path, self._editor.toPlainText())
            write_atomic(self.meta_path, json.dumps({"path": self._current_path(), "time": time.time()}))
        except OSError:
            return  # (the editor still has the text; nothing to show for a background copy)
        self._dirty = False
        self.saved.emit(str(self.text_path))

    def mark_clean(self) -> None:
        """The text matches a file on disk or a lesson: nothing to restore."""
        self._dirty = False
        self._timer.stop()
        self.discard()

    def discard(self) -> None:
        for p in (self.text_path, self.meta_path):
            try:
                p.unlink()
            except FileNotFoundError:
                pass

    def pending(self) -> tuple[str, str | None] | None:
        """(text, original path or None) left by a session that did not exit cleanly."""
        try:
            text = self.text_path.read_text(encoding="utf-8")
        except (FileNotFoundError, OSError):
            return None
        path = None
        try:
            path = json.loads(self.meta_path.read_text(encoding="utf-8")).get("path")
        except (FileNotFoundError, OSError, ValueError):
            pass
        return text, path
