"""UI state kept between sessions (QSettings): geometry, docks, recent files,
theme, language, device, run timeout, the Python that runs scripts. Nothing
else lives in QSettings."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QSettings

ORGANIZATION = "autogradviz"
APPLICATION = "Autograd Visualizer"
MAX_RECENT = 8
DEFAULT_TIMEOUT_S = 60


def settings() -> QSettings:
    """The app's QSettings (tests point it at a temporary folder via QSettings.setPath)."""
    return QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, ORGANIZATION, APPLICATION)


def get(key: str, default=None, type_=None):
    s = settings()
    if type_ is None:
        return s.value(key, default)
    value = s.value(key, default)
    try:
        if type_ is bool and isinstance(value, str):
            return value.lower() in ("1", "true", "yes")
        return type_(value)
    except (TypeError, ValueError):
        return default


def put(key: str, value) -> None:
    s = settings()
    s.setValue(key, value)
    s.sync()


def recent_files() -> list[str]:
    value: Any = settings().value("files/recent", [])
    if isinstance(value, str):
        value = [value]
    return [str(v) for v in (value or []) if v]


def add_recent_file(path: str) -> list[str]:
    files = [path] + [f for f in recent_files() if f != path]
    files = files[:MAX_RECENT]
    put("files/recent", files)
    return files


def clear_recent_files() -> None:
    put("files/recent", [])


def run_timeout_s() -> int:
    return max(1, get("run/timeout_s", DEFAULT_TIMEOUT_S, int) or DEFAULT_TIMEOUT_S)


def worker_python() -> str:
    """The interpreter chosen in Preferences to run scripts; "" for the app's own."""
    return str(get("run/python", "") or "")


def set_worker_python(path: str) -> None:
    put("run/python", path or "")
