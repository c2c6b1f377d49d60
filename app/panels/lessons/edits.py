"""The learner's edits to a lesson, kept until "Reset lesson".

When the learner changes a lesson's script and opens something else (or
quits), the edited text is kept in a `lesson-edits` folder beside the app's
settings file (`lesson-edits/<name>.py`) instead of being thrown away or
prompted about; opening the lesson again brings the edited text back. Reset
removes the file, and the lesson's original text (in the UI language) is
loaded again. A lesson's own files are never written. (Beside the settings
rather than in the data folder: the edits belong to the same person's setup,
and a test's isolated settings isolate them too.)
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from autogradviz.app.services import settings
from autogradviz.engine.trace.atomic_file import write_atomic


def edits_dir() -> Path:
    return Path(settings.settings().fileName()).parent / "lesson-edits"


def _path(name: str) -> Path:
    return edits_dir() / f"{name}.py"


def kept(name: str) -> Optional[str]:
    """The edited text of lesson `name`, or None when it has none."""
    try:
        return _path(name).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def keep(name: str, text: str) -> bool:
    """Store the edited text (atomically); False when it could not be written."""
    try:
        edits_dir().mkdir(parents=True, exist_ok=True)
        write_atomic(_path(name), text)  # (a full disk keeps the earlier edits whole)
        return True
    except OSError:
        return False


def forget(name: str) -> None:
    try:
        _path(name).unlink()
    except FileNotFoundError:
        pass
    except OSError:
        pass


def has_edits(name: str) -> bool:
    return _path(name).exists()
