"""Autosave: the editor's text is copied to the user data folder while you type,
so a crash or kill of the app loses nothing.

Files (QStandardPaths.AppDataLocation/autosave/): `editor.py` (the text) and
`editor.json` ({"path": file the text belongs to or null, "time": ...}). A clean
exit removes them (`discard`); their presence at start-up means the last
session ended abnormally, so the text is offered back (`pending`).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from PySide6.QtCore import QObject, QStandardPaths, QTimer, Signal

INTERVAL_MS = 2000


def autosave_dir() -> Path:
    base = QStandardPaths.writableLocation(QStandardPaths.AppDataLocation)
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
        """Write the editor's text now (atomically: write a temp file, then rename)."""
        if not self._dirty:
            return
        folder = autosave_dir()
        folder.mkdir(parents=True, exist_ok=True)
        text = self._editor.toPlainText()
        tmp = self.text_path.with_suffix(".tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, self.text_path)
        meta = {"path": self._current_path(), "time": time.time()}
        tmp = self.meta_path.with_suffix(".jsontmp")
        tmp.write_text(json.dumps(meta), encoding="utf-8")
        os.replace(tmp, self.meta_path)
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
