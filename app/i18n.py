"""Languages: English (source strings) and Simplified Chinese (.qm translation).

Switching happens live: `set_language` swaps the installed QTranslator and Qt
sends every widget a LanguageChange event; each panel and dock re-applies its own
texts on it, and the main window its menus and status bar. The choice is
remembered in QSettings for the next start.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

from autogradviz.app.services import settings
from autogradviz.app.resources_loader import translation_file

LANGUAGES = [("en", "English"), ("zh_CN", "简体中文")]

_translators: list[QTranslator] = []
_current = "en"


def tr(text: str, context: str = "autogradviz") -> str:
    """Translate `text` in non-QObject code (lupdate sees QCoreApplication.translate)."""
    return QCoreApplication.translate(context, text)


def system_language() -> str:
    name = QLocale.system().name()
    return "zh_CN" if name.startswith("zh") else "en"


def saved_language() -> str:
    value = settings.get("ui/language", "")
    return value if value in dict(LANGUAGES) else system_language()


def current_language() -> str:
    return _current


def set_language(language: str, save: bool = True) -> bool:
    """Install `language`'s translators (removing the previous ones).

    Returns False when the .qm file is missing (the UI then stays English)."""
    global _current
    app = QCoreApplication.instance()
    for t in _translators:
        app.removeTranslator(t)
    _translators.clear()
    ok = True
    if language != "en":
        own = QTranslator()
        if own.load(str(translation_file(language))):
            app.installTranslator(own)
            _translators.append(own)
        else:
            ok = False
        qt = QTranslator()
        if qt.load(f"qtbase_{language}", QLibraryInfo.path(QLibraryInfo.TranslationsPath)):
            app.installTranslator(qt)
            _translators.append(qt)
    _current = language if ok else "en"
    if save:
        settings.put("ui/language", language)
    return ok
