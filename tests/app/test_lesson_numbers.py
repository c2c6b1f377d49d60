"""The learner sees lessons numbered 1, 2, 3 … in the order the chapters teach
them (the files keep their names), every cross-reference ("Lesson 40", "第 40 课",
a script's "# Lesson 32:" comment) names the same lesson as before under its new
number, and a chapter's progress counts lessons opened and run, not only those
stepped through."""

from __future__ import annotations

import re

from autogradviz.app.lesson_text.numbers import course_numbers, file_number, renumber
from autogradviz.app.panels.lessons import LessonsPanel, progress
from autogradviz.app.panels.lessons.panel import chapter_share
from autogradviz.app.resources_loader import LESSONS as LESSON_FOLDER, lessons

_LESSON_ROLE = 0x0100 + 1


def _shown_titles(panel) -> list[str]:
    titles = []
    for i in range(panel.tree.topLevelItemCount()):
        chapter = panel.tree.topLevelItem(i)
        titles += [chapter.child(j).data(0, 0x0100) for j in range(chapter.childCount())]
    return titles


def test_titles_run_one_two_three_in_course_order(qapp):
    panel = LessonsPanel()
    for lang in ("en", "zh_CN"):
        titles = [l.title(lang) for l in lessons()]
        assert all(re.match(r"\d+ · ", t) for t in titles), titles
    shown = _shown_titles(panel)
    numbers = [int(t.split(" ·")[0]) for t in shown]
    assert numbers == list(range(1, len(lessons()) + 1)), shown
    panel.deleteLater()


def test_every_reference_names_the_same_lesson_as_the_file_number_did():
    mapping = course_numbers(LESSON_FOLDER)
    by_file = {file_number(l.name): l for l in lessons()}
    by_course = {mapping[n]: l for n, l in by_file.items()}
    seen = 0
    for lesson in lessons():
        raw_texts = [lesson.path.read_text(encoding="utf-8")]
        shown_texts = [lesson.source]
        for lang in ("en", "zh_CN"):
            raw_texts.append(lesson.path.with_name(f"{lesson.name}.{lang}.md").read_text(encoding="utf-8"))
            shown_texts.append(lesson.explanation(lang))
        for raw, shown in zip(raw_texts, shown_texts):
            pattern = r"[Ll]esson (\d+)|第 ?(\d+) ?课"
            before = [int(a or b) for a, b in re.findall(pattern, raw)]
            after = [int(a or b) for a, b in re.findall(pattern, shown)]
            assert len(before) == len(after)
            for old, new in zip(before, after):
                assert by_course[new] is by_file[old], (lesson.name, old, new)
                seen += 1
    assert seen > 20  # the course does refer to other lessons (and this test checks them)


def test_renumber_leaves_what_names_no_lesson():
    text = "# 30 · Title\nLesson 99 and lesson 30; 第 30 课; a.Lesson 30; 2030 · x"
    assert renumber(text, {30: 3}) == "# 3 · Title\nLesson 99 and lesson 3; 第 3 课; a.Lesson 30; 2030 · x"


def test_a_chapter_counts_lessons_opened_and_run(qapp):
    panel = LessonsPanel()
    first_chapter = panel.tree.topLevelItem(0)
    names = [first_chapter.child(j).data(0, _LESSON_ROLE) for j in range(first_chapter.childCount())]
    for name in names[:2]:  # (other tests of the session may have marked lessons: start these from nothing)
        panel.progress.reset(name)
    others = [progress.level(n) for n in names[2:]]

    def shown() -> str:
        return first_chapter.text(0).rsplit("  ", 1)[1]

    assert shown() == f"{chapter_share([0, 0] + others)} %"
    panel.progress.mark(names[0], "opened")
    panel.progress.mark(names[1], "opened")
    panel.progress.mark(names[1], "run")
    assert chapter_share([1, 2] + others) > chapter_share([0, 0] + others)
    assert shown() == f"{chapter_share([1, 2] + others)} %"
    levels = [1, 2] + others
    assert f"{levels.count(2)} run" in first_chapter.toolTip(0)
    assert f"{levels.count(1)} opened" in first_chapter.toolTip(0)
    panel.progress.mark(names[1], "stepped")
    assert shown() == f"{chapter_share([1, 3] + others)} %"
    for name in names[:2]:
        panel.progress.reset(name)
    panel.deleteLater()
