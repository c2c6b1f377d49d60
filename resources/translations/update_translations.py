"""Refresh the Simplified Chinese translation after UI strings changed.

    .venv/bin/python resources/translations/update_translations.py

1. pyside6-lupdate on every module under app/ (all subfolders: `sources()`)
   -> autogradviz_zh_CN.ts (existing translations kept);
2. strings from module-level helpers `def tr(text): return
   QCoreApplication.translate("Ctx", text)` are filed by lupdate under an empty
   context; they are moved to the context used at runtime ("Ctx"), one copy
   per context that uses them (nothing looks them up in the empty context);
3. a string that moved to another context (a class renamed or split) keeps its
   translation: an unfinished message takes the translation the same English
   text had before the update, in any context;
4. pyside6-lrelease -> autogradviz_zh_CN.qm.
Strings that are new in every sense stay untranslated (shown in English) until
someone translates them in the .ts (Qt Linguist:
`pyside6-linguist resources/translations/autogradviz_zh_CN.ts`);
tests/app/test_translations.py fails until then.
"""

from __future__ import annotations

import copy
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TS = os.path.join(HERE, "autogradviz_zh_CN.ts")
QM = os.path.join(HERE, "autogradviz_zh_CN.qm")
BIN = os.path.dirname(sys.executable)
# A module-level helper `def tr(text): ... QCoreApplication.translate("Ctx", text)`
# (its body may hold a docstring or an import guard first), and a module that
# takes another module's helper: `from autogradviz.app.x.y import tr`.
_HELPER_DEF = re.compile(r'^def tr\(text\b[^)]*\)[^:]*:[ \t]*\n((?:[ \t]+.*\n|[ \t]*\n)*)', re.M)
_TRANSLATE = re.compile(r'QCoreApplication\.translate\("(\w+)", text\)')
_IMPORTED = re.compile(r'^from autogradviz\.(app(?:\.\w+)+) import (?:.*,\s*)?tr\s*(?:,|$)', re.M)


def _tool(name: str) -> str:
    path = os.path.join(BIN, name)
    return path if os.path.exists(path) else name


def sources() -> list[str]:
    """Every Python module of the app, in every subfolder."""
    return sorted(str(p) for p in Path(ROOT, "app").rglob("*.py"))


def _key(filename: str) -> str:
    """A module's path relative to the repository (lupdate writes ../../app/x/y.py)."""
    return os.path.relpath(os.path.normpath(os.path.join(HERE, filename)), ROOT)


def translation_memory(path: str = TS) -> dict[str, str]:
    """English source text -> finished translation, over every context."""
    memory: dict[str, str] = {}
    for msg in ET.parse(path).getroot().iter("message"):
        tr = msg.find("translation")
        if tr is not None and tr.get("type") is None and tr.text:
            memory.setdefault(msg.findtext("source"), tr.text)
    return memory


def fill_from_memory(memory: dict[str, str], path: str = TS) -> int:
    tree = ET.parse(path)
    filled = 0
    for msg in tree.getroot().iter("message"):
        tr = msg.find("translation")
        text = memory.get(msg.findtext("source"))
        if tr is not None and tr.get("type") == "unfinished" and text:
            tr.text = text
            del tr.attrib["type"]
            filled += 1
    _write(tree, path)
    return filled


def helper_contexts(paths: list[str]) -> dict[str, str]:
    """{module path relative to the repository: the context its bare `tr(...)`
    calls are looked up in at run time}, for modules with a helper of their
    own or one imported from another app module."""
    texts = {}
    for py in paths:
        with open(py, encoding="utf-8") as f:
            texts[os.path.relpath(py, ROOT)] = f.read()
    context_of = {}
    for rel, text in texts.items():
        body = _HELPER_DEF.search(text)
        found = _TRANSLATE.search(body.group(1)) if body else None
        if found:
            context_of[rel] = found.group(1)
    for rel, text in texts.items():
        imported = _IMPORTED.search(text)
        if rel not in context_of and imported:
            home = os.path.join(*imported.group(1).split(".")) + ".py"
            if home in context_of:
                context_of[rel] = context_of[home]
    return context_of


def fix_contexts(path: str = TS) -> dict:
    context_of = helper_contexts(sources())
    tree = ET.parse(path)
    root = tree.getroot()
    for ctx in list(root.findall("context")):
        if (ctx.find("name").text or "") in context_of.values():
            root.remove(ctx)
    for ctx in list(root.findall("context")):
        if (ctx.find("name").text or "") != "":
            continue
        by_ctx: dict[str, list] = {}
        for msg in ctx.findall("message"):
            # one copy in the context of every module that uses the text
            # (the same English word in two modules' helpers: both need it)
            homes = [context_of.get(_key(loc.get("filename", ""))) for loc in msg.findall("location")]
            for name in homes:
                if name and msg not in by_ctx.setdefault(name, []):
                    by_ctx[name].append(msg)
            if homes and all(homes):  # moved: kept here only what no helper explains
                ctx.remove(msg)
        if not ctx.findall("message"):
            root.remove(ctx)
        for name, msgs in sorted(by_ctx.items()):
            new = ET.SubElement(root, "context")
            ET.SubElement(new, "name").text = name
            for msg in msgs:
                new.append(copy.deepcopy(msg))
    _write(tree, path)
    return context_of


def _write(tree: ET.ElementTree, path: str) -> None:
    tree.write(path, encoding="utf-8", xml_declaration=True)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    text = text.replace("<?xml version='1.0' encoding='utf-8'?>",
                        '<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE TS>', 1)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def main() -> int:
    memory = translation_memory()
    subprocess.run([_tool("pyside6-lupdate"), *sources(), "-ts", TS, "-no-obsolete"], check=True)
    print("contexts fixed:", fix_contexts())
    print("filled from earlier translations of the same text:", fill_from_memory(memory))
    subprocess.run([_tool("pyside6-lrelease"), TS, "-qm", QM], check=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
