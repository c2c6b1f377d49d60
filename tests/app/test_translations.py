"""Every visible string has its Simplified Chinese translation: lupdate, run on
the app's sources into a copy of the shipped .ts, finds nothing unfinished, and
the shipped .qm loads and translates."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TS = ROOT / "resources" / "translations" / "autogradviz_zh_CN.ts"
QM = TS.with_suffix(".qm")


def _lupdate() -> str | None:
    here = os.path.join(os.path.dirname(sys.executable), "pyside6-lupdate")
    return here if os.path.exists(here) else shutil.which("pyside6-lupdate")


def test_every_tr_string_is_translated(tmp_path):
    tool = _lupdate()
    assert tool, "pyside6-lupdate comes with PySide6"
    copy = tmp_path / TS.name
    shutil.copy(TS, copy)
    sources = sorted(glob.glob(str(ROOT / "app" / "*.py")))
    subprocess.run([tool, *sources, "-ts", str(copy), "-no-obsolete"], check=True,
                   capture_output=True, timeout=120)
    missing = [m.findtext("source") for m in ET.parse(copy).getroot().iter("message")
               if m.find("translation").get("type") == "unfinished"]
    assert not missing, ("untranslated (run resources/translations/update_translations.py "
                         f"and translate): {missing}")


def test_compiled_translation_loads_and_translates():
    from PySide6.QtCore import QTranslator

    tr = QTranslator()
    assert tr.load(str(QM)), QM
    assert tr.translate("MainWindow", "&File") not in ("", "&File")
