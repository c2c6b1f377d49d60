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
    assert app is not None  # (the GUI, or export after _ensure_qapp, made it)
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
        if qt.load(f"qtbase_{language}", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)):
            app.installTranslator(qt)
            _translators.append(qt)
    _current = language if ok else "en"
    _prefer_cjk_font(_current)
    if save:
        settings.put("ui/language", language)
    return ok


# Simplified Chinese faces, best first. Without a preference Qt's fallback may draw
# Han characters from a Japanese or Traditional face (different glyph shapes).
CJK_FAMILIES = ["Noto Sans CJK SC", "Source Han Sans SC", "WenQuanYi Micro Hei", "WenQuanYi Zen Hei",
                "Noto Sans SC", "Microsoft YaHei", "PingFang SC", "Noto Serif CJK SC"]
_base_families: list[str] | None = None


def cjk_families() -> list[str]:
    """The installed faces of CJK_FAMILIES, in that order."""
    from PySide6.QtGui import QFontDatabase

    installed = set(QFontDatabase.families())
    return [f for f in CJK_FAMILIES if f in installed]


def _prefer_cjk_font(language: str) -> None:
    """zh_CN: the UI font's family, then an installed Simplified Chinese face as
    its fallback; other languages: the font as it was."""
    global _base_families
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if not isinstance(app, QApplication):
        return
    font = app.font()
    if _base_families is None:
        _base_families = list(font.families()) or [font.family()]
    families = list(_base_families)
    if language == "zh_CN":
        families += [f for f in cjk_families() if f not in families]
    if families != list(font.families()):
        font.setFamilies(families)
        app.setFont(font)
