"""The course: lessons grouped into chapters, their "what to look at" and
"try this" items, and search over both languages.

A lesson's chapter comes from its metadata file (NAME.json, "chapter"); a
lesson without one gets its chapter from its file number (app/lesson_text/numbers.py),
so lessons added without metadata still find a place. Titles and texts come
numbered in course order (1, 2, 3 … as the chapters teach them).
Plain data and tr() texts; no widgets here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import QCoreApplication, QT_TRANSLATE_NOOP

from autogradviz.app.lesson_text.numbers import CHAPTER_IDS, chapter_of, file_number
from autogradviz.app.resources_loader import Lesson, lessons

CONTEXT = "LessonChapters"
# (id, English title): the order in which the browser shows them.
CHAPTERS: list[tuple[str, str]] = [
    ("basics", str(QT_TRANSLATE_NOOP("LessonChapters", "Autograd basics"))),
    ("shapes", str(QT_TRANSLATE_NOOP("LessonChapters", "Tensors and shapes"))),
    ("training", str(QT_TRANSLATE_NOOP("LessonChapters", "Training"))),
    ("memory", str(QT_TRANSLATE_NOOP("LessonChapters", "Memory and speed"))),
    ("precision", str(QT_TRANSLATE_NOOP("LessonChapters", "Mixed precision"))),
    ("parallel", str(QT_TRANSLATE_NOOP("LessonChapters", "Parallel"))),
]
assert tuple(c for c, _ in CHAPTERS) == CHAPTER_IDS  # one order for titles and numbers


def chapter_title(chapter: str) -> str:
    return QCoreApplication.translate(CONTEXT, dict(CHAPTERS).get(chapter, chapter))


def lesson_number(lesson: Lesson) -> int | None:
    """The number in the lesson's file name (not the one the learner sees)."""
    return file_number(lesson.name)


@dataclass(frozen=True)
class Item:
    """A "what to look at" item (with its target) or a "try this" suggestion."""

    texts: dict  # language -> text
    target: dict = field(default_factory=dict)

    def text(self, language: str) -> str:
        return str(self.texts.get(language) or self.texts.get("en") or "")


@dataclass(frozen=True)
class LessonInfo:
    lesson: Lesson
    chapter: str
    look: tuple[Item, ...]
    tries: tuple[Item, ...]

    @property
    def name(self) -> str:
        return self.lesson.name

    def title(self, language: str) -> str:
        return self.lesson.title(language)

    def body(self, language: str) -> str:
        """The explanation without its title line (the browser shows the title apart)."""
        lines = self.lesson.explanation(language).splitlines()
        if lines and lines[0].startswith("#"):
            lines = lines[1:]
        return "\n".join(lines).strip()

    def matches(self, query: str) -> bool:
        """`query` (case-insensitive) in the title, text or items, in any language."""
        q = query.strip().casefold()
        if not q:
            return True
        texts = [self.name]
        for lang in ("en", "zh_CN"):
            texts += [self.lesson.explanation(lang)]
            texts += [i.text(lang) for i in self.look + self.tries]
        return any(q in t.casefold() for t in texts)


def _items(raw, with_target: bool) -> tuple[Item, ...]:
    out = []
    for entry in raw if isinstance(raw, list) else []:
        if not isinstance(entry, dict):
            continue
        texts = {k: v for k, v in entry.items() if k != "target" and isinstance(v, str)}
        target = entry.get("target")
        if not isinstance(target, dict):
            target = {}
        if texts and (target or not with_target):
            out.append(Item(texts=texts, target=target))
    return tuple(out)


def info(lesson: Lesson) -> LessonInfo:
    meta = lesson.metadata()
    chapter = chapter_of(lesson.name, meta)
    return LessonInfo(lesson=lesson, chapter=chapter, look=_items(meta.get("look"), True),
                      tries=_items(meta.get("try"), False))


def course() -> list[tuple[str, list[LessonInfo]]]:
    """[(chapter id, its lessons in file-number order)] for the chapters that have
    lessons: the course order that app/lesson_text/numbers.py numbers 1, 2, 3 …"""
    infos = [info(lesson) for lesson in lessons()]
    return [(cid, [i for i in infos if i.chapter == cid]) for cid, _ in CHAPTERS
            if any(i.chapter == cid for i in infos)]
