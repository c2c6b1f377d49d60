"""Refresh the Simplified Chinese translation after UI strings changed.

    .venv/bin/python resources/translations/update_translations.py

1. pyside6-lupdate app/*.py -> autogradviz_zh_CN.ts (existing translations kept);
2. strings from module-level helpers `def tr(text): return
   QCoreApplication.translate("Ctx", text)` are filed by lupdate under an empty
   context; they are copied to the context used at runtime ("Ctx");
3. pyside6-lrelease -> autogradviz_zh_CN.qm.
New strings stay untranslated (shown in English) until someone translates them
in the .ts (Qt Linguist: `pyside6-linguist resources/translations/autogradviz_zh_CN.ts`).
"""

from __future__ import annotations

import copy
import glob
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TS = os.path.join(HERE, "autogradviz_zh_CN.ts")
QM = os.path.join(HERE, "autogradviz_zh_CN.qm")
BIN = os.path.dirname(sys.executable)


def _tool(name: str) -> str:
    path = os.path.join(BIN, name)
    return path if os.path.exists(path) else name


def fix_contexts(path: str = TS) -> dict:
    context_of = {}
    for py in glob.glob(os.path.join(ROOT, "app", "*.py")):
        with open(py, encoding="utf-8") as f:
            src = f.read()
        m = re.search(r'def tr\(text[^)]*\)[^:]*:\s*\n\s*return QCoreApplication\.translate\("(\w+)", text\)', src)
        if m:
            context_of[os.path.basename(py)] = m.group(1)
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
            for loc in msg.findall("location"):
                name = context_of.get(os.path.basename(loc.get("filename", "")))
                if name:
                    by_ctx.setdefault(name, []).append(msg)
                    break
        for name, msgs in sorted(by_ctx.items()):
            new = ET.SubElement(root, "context")
            ET.SubElement(new, "name").text = name
            for msg in msgs:
                new.append(copy.deepcopy(msg))
    tree.write(path, encoding="utf-8", xml_declaration=True)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    text = text.replace("<?xml version='1.0' encoding='utf-8'?>",
                        '<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE TS>', 1)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return context_of


def main() -> int:
    sources = sorted(glob.glob(os.path.join(ROOT, "app", "*.py")))
    subprocess.run([_tool("pyside6-lupdate"), *sources, "-ts", TS, "-no-obsolete"], check=True)
    print("contexts fixed:", fix_contexts())
    subprocess.run([_tool("pyside6-lrelease"), TS, "-qm", QM], check=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
