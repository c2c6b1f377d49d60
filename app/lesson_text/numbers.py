"""Course numbers: the learner sees lessons numbered 1, 2, 3 … in the order the
chapters teach them, whatever the files are called.

The lesson files keep their historical names (`30_checkpoint_mlp`: tests, saved
edits and progress are keyed by them), and their texts number themselves by file
("# 30 · Checkpoint an MLP block", "Lesson 40 did …", "第 40 课"). Chapters
regroup lessons out of file order, so the raw numbers would run 1, 2, 5, 6 … with
gaps. Every text the app shows of a lesson (title, explanation, script comments)
goes through `renumber`, which swaps a file number for its course number, so
the title, the browser and every cross-reference agree.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path

# The chapters, in the order the course teaches them (ids; titles live in
# app/panels/lessons/catalog.py).
CHAPTER_IDS = ("basics", "shapes", "training", "memory", "precision", "parallel")
# A lesson without a chapter in its NAME.json gets one from its file number.
_CHAPTER_BY_NUMBER = ((range(20, 30), "precision"), (range(30, 40), "memory"), (range(40, 50), "parallel"))

_TITLE = re.compile(r"^(#+[ \t]*)(\d+)(?=[ \t]*·)", re.MULTILINE)
_LESSON_EN = re.compile(r"(?<![\w.])([Ll]esson[ \u00a0])(\d+)\b")
_LESSON_ZH = re.compile(r"(第[ \u00a0]?)(\d+)([ \u00a0]?课)")


def file_number(name: str) -> int | None:
    """The number a lesson's file name starts with (`30_checkpoint_mlp` → 30)."""
    m = re.match(r"(\d+)", name)
    return int(m.group(1)) if m else None


def chapter_of(name: str, metadata: dict) -> str:
    """The lesson's chapter: NAME.json's "chapter", else the one its number implies."""
    chapter = metadata.get("chapter")
    if chapter in CHAPTER_IDS:
        return chapter
    number = file_number(name)
    return next((c for r, c in _CHAPTER_BY_NUMBER if number is not None and number in r), "basics")


def course_order(names_and_metadata: list[tuple[str, dict]]) -> list[str]:
    """Lesson names in course order: chapter by chapter, by file number inside one."""
    def key(item):
        name, meta = item
        number = file_number(name)
        return (CHAPTER_IDS.index(chapter_of(name, meta)), number if number is not None else 10**9, name)
    return [name for name, _ in sorted(names_and_metadata, key=key)]


@lru_cache(maxsize=4)
def _numbers_in(folder: str) -> dict[int, int]:
    """{file number: course number} for the lessons in `folder`."""
    items = []
    for path in sorted(Path(folder).glob("*.py")):
        if path.name.startswith("_") or "." in path.stem:
            continue
        try:
            meta = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            meta = {}
        items.append((path.stem, meta if isinstance(meta, dict) else {}))
    out: dict[int, int] = {}
    for k, name in enumerate(course_order(items), start=1):
        number = file_number(name)
        if number is not None:
            out.setdefault(number, k)
    return out


def course_numbers(folder: Path) -> dict[int, int]:
    return _numbers_in(str(folder))


def renumber(text: str, numbers: dict[int, int]) -> str:
    """`text` with every lesson number (a title's "30 ·", "Lesson 30", "第 30 课")
    given as its course number; numbers that name no lesson stay as written."""
    def swap(m: re.Match, group: int = 2) -> str:
        n = numbers.get(int(m.group(group)))
        if n is None:
            return m.group(0)
        return m.group(0)[: m.start(group) - m.start(0)] + str(n) + m.group(0)[m.end(group) - m.start(0):]
    text = _TITLE.sub(swap, text)
    text = _LESSON_EN.sub(swap, text)
    return _LESSON_ZH.sub(swap, text)
