"""Every visible string has its Simplified Chinese translation: the update
script's steps (lupdate on every module of the app, all subfolders), run into
a copy of the shipped .ts, leave nothing unfinished, and the shipped .qm loads
and translates."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TS = ROOT / "resources" / "translations" / "autogradviz_zh_CN.ts"
QM = TS.with_suffix(".qm")


def _lupdate() -> str | None:
    here = os.path.join(os.path.dirname(sys.executable), "pyside6-lupdate")
    return here if os.path.exists(here) else shutil.which("pyside6-lupdate")


def app_modules() -> list[str]:
    """Every .py file under app/, found by walking the tree (not by a glob that
    could miss a subfolder)."""
    found = []
    for folder, _dirs, files in os.walk(ROOT / "app"):
        found += [os.path.join(folder, f) for f in files if f.endswith(".py")]
    return sorted(found)


def update_script():
    spec = importlib.util.spec_from_file_location(
        "update_translations", ROOT / "resources" / "translations" / "update_translations.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def unfinished(sources: list[str], tmp_path: Path) -> list[str]:
    """Source texts that update_translations.py, run on `sources` into a copy
    of the shipped .ts, leaves untranslated (lupdate, then its own steps:
    helper strings moved to their run-time contexts, earlier translations
    of the same text reused)."""
    tool = _lupdate()
    assert tool, "pyside6-lupdate comes with PySide6"
    update = update_script()
    copy = tmp_path / TS.name
    shutil.copy(TS, copy)
    memory = update.translation_memory(str(copy))
    subprocess.run([tool, *sources, "-ts", str(copy), "-no-obsolete"], check=True,
                   capture_output=True, timeout=120)
    update.fix_contexts(str(copy))
    update.fill_from_memory(memory, str(copy))
    return [m.findtext("source") for m in ET.parse(copy).getroot().iter("message")
            if m.find("translation").get("type") == "unfinished"]


def test_the_update_script_reads_every_module():
    module = update_script()
    modules = app_modules()
    assert any(os.sep + "window" + os.sep in m for m in modules)
    assert sorted(module.sources()) == modules


def test_every_tr_string_is_translated(tmp_path):
    missing = unfinished(app_modules(), tmp_path)
    assert not missing, ("untranslated (run resources/translations/update_translations.py "
                         f"and translate): {missing}")


def test_an_untranslated_string_in_a_subfolder_is_found(tmp_path):
    """The check above can fail: a new string in a module of a subfolder is reported."""
    extra = tmp_path / "app" / "panels" / "new_panel.py"
    extra.parent.mkdir(parents=True)
    extra.write_text("from PySide6.QtWidgets import QWidget\n\n\nclass NewPanel(QWidget):\n"
                     "    def retranslate(self):\n"
                     "        self.setToolTip(self.tr(\"A sentence nobody has translated yet\"))\n",
                     encoding="utf-8")
    missing = unfinished(app_modules() + [str(extra)], tmp_path)
    assert missing == ["A sentence nobody has translated yet"]


def test_compiled_translation_loads_and_translates():
    from PySide6.QtCore import QTranslator

    tr = QTranslator()
    assert tr.load(str(QM)), QM
    assert tr.translate("WindowChrome", "&File") == "文件(&F)"
    assert tr.translate("Panels", "Backward steps") not in ("", "Backward steps")


def test_module_level_tr_helpers_find_their_strings_at_run_time():
    """A module whose `tr(text)` is `QCoreApplication.translate("Ctx", text)`
    looks its strings up in context "Ctx" at run time: every literal `tr("...")`
    of such a module has a finished translation in that context of the shipped
    .ts (a word used by two modules' helpers, such as "forward", must be in
    both contexts; lupdate files such strings under an empty context and
    update_translations.py moves them; the .ts keeps no second copy there)."""
    import re

    contexts = update_script().helper_contexts(app_modules())
    assert contexts.get(os.path.join("app", "export", "files.py")) == "Export"  # (an import guard first)
    assert contexts.get(os.path.join("app", "graph", "tensor_labels.py")) == "GraphItems"  # (imported)
    literal = re.compile(r'\btr\(\s*"((?:[^"\\]|\\.)*)"\s*\)')
    finished = set()
    for ctx in ET.parse(TS).getroot().iter("context"):
        name = ctx.findtext("name") or ""
        for msg in ctx.iter("message"):
            t = msg.find("translation")
            if t is not None and t.get("type") is None and t.text:
                finished.add((name, msg.findtext("source")))
    missing, checked = [], 0
    for path in app_modules():
        context = contexts.get(os.path.relpath(path, ROOT))
        if context is None:
            continue
        text = Path(path).read_text(encoding="utf-8")
        for source in literal.findall(text):
            if "\\" in source:
                continue  # (escapes: lupdate's own check above covers them)
            checked += 1
            if (context, source) not in finished:
                missing.append((os.path.relpath(path, ROOT), context, source))
    assert checked > 50
    assert not missing, missing
    empty = [m.findtext("source") for c in ET.parse(TS).getroot().iter("context")
             if not (c.findtext("name") or "") for m in c.iter("message")]
    assert not empty, f"left in the empty context (nothing looks them up there): {empty[:5]}"
