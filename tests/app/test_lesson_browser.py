"""The lesson browser in a real window with the real worker: chapters, search
in both languages, progress kept between launches, "what to look at" links that
select and flash what they name, Reset lesson, and the Chinese script."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtWidgets import QApplication

from autogradviz.app import i18n
from autogradviz.app.panels.lessons import LessonsPanel, catalog, edits, progress
from autogradviz.app.resources_loader import Lesson, lessons
from autogradviz.app.services.worker_process import READY
from autogradviz.app.window.panel_registry import panels

RUN_MS = 60_000
LESSONS = {l.name: l for l in lessons()}


@pytest.fixture(scope="module")
def window(lesson_window):
    return lesson_window


def open_and_run(qtbot, w, wait_until, name: str):
    wait_until(lambda: w.worker.state == READY, RUN_MS, "worker ready")
    with qtbot.waitSignals([w.runFinished, w.graph_view.layoutFinished], timeout=RUN_MS):
        w.files.open_lesson(LESSONS[name], run=True)
    assert w.session.trace.error is None


def test_chapters_in_order_and_lessons_without_metadata_by_number(qapp, tmp_path):
    panel = LessonsPanel()
    chapters = [panel.tree.topLevelItem(i).data(0, 0x0100) for i in range(panel.tree.topLevelItemCount())]
    order = [c for c, _ in catalog.CHAPTERS]
    assert chapters == [c for c in order if c in chapters]
    assert {"basics", "shapes", "training", "memory", "precision", "parallel"} <= set(chapters)
    assert {catalog.info(LESSONS[n]).chapter for n in LESSONS if n.startswith("2")} == {"precision"}
    # A checkpoint lesson without a metadata file (30-39) goes to "memory and speed".
    script = tmp_path / "31_checkpoint_anything.py"
    script.write_text("import torch\n", encoding="utf-8")
    bare = catalog.info(Lesson(script.stem, script))
    assert bare.chapter == "memory" and bare.look == () and bare.tries == ()
    panel.deleteLater()


def test_every_panel_a_lesson_points_at_exists():
    ids = {p.id for p in panels()}
    for lesson in LESSONS.values():
        for item in catalog.info(lesson).look:
            if "panel" in item.target:
                assert item.target["panel"] in ids, (lesson.name, item.target)


def test_search_finds_titles_and_texts_in_both_languages(qapp):
    panel = LessonsPanel()
    panel.search.setText("einsum")
    assert set(panel.visible_lessons()) == {n for n in LESSONS if catalog.info(LESSONS[n]).matches("einsum")}
    assert "09_einsum_attention" in panel.visible_lessons()
    panel.search.setText("广播")  # "broadcasting", only in the Chinese texts
    assert "03_broadcasting" in panel.visible_lessons()
    assert all("广播" in LESSONS[n].explanation("zh_CN") or catalog.info(LESSONS[n]).matches("广播")
               for n in panel.visible_lessons())
    panel.search.setText("no lesson talks about this zzqx")
    assert panel.visible_lessons() == []
    panel.search.clear()
    assert len(panel.visible_lessons()) == len(LESSONS)
    panel.deleteLater()


def test_look_items_select_and_flash_the_node_the_step_and_the_panel(qtbot, window, wait_until):
    w = window
    open_and_run(qtbot, w, wait_until, "05_linear_function")
    w.lessons_panel.select("05_linear_function")
    info = w.lessons_panel.info("05_linear_function")
    assert "look:0" in w.lessons_panel.text.toHtml()

    w.lessons_panel.look(0)  # {"op": "MulBackward0"}
    node = w.session.node(w.session.selected_node)
    assert node is not None and node.op == info.look[0].target["op"]
    assert w.lesson_guide.flashing, "the node flashes"

    w.lessons_panel.text.anchorClicked.emit(QUrl("look:1"))  # a click on the link: {"op": "AddBackward0"}
    assert w.session.node(w.session.selected_node).op == info.look[1].target["op"]

    w.lessons_panel.look(2)  # the last AccumulateGrad step of run 0
    run = w.session.run
    assert w.session.step == len(run.steps)
    assert w.session.node(run.steps[w.session.step - 1].node).op == "AccumulateGrad"

    w.panels.dock("stepper").hide()
    w.lessons_panel.look(3)  # {"panel": "stepper"}
    assert w.panels.dock("stepper").isVisible()


def test_checkpoint_look_items_flash_the_region_and_open_the_recompute_phase(qtbot, window, wait_until):
    """Lesson 32: "checkpoint 1" flashes that region (the reentrant one, its single
    CheckpointFunctionBackward node selected); "checkpoint 1, recompute" puts the
    stepper just before that node's step, in the first frame of its re-run."""
    w = window
    name = "32_reentrant_vs_non_reentrant"
    open_and_run(qtbot, w, wait_until, name)
    w.lessons_panel.select(name)
    info = w.lessons_panel.info(name)
    arrived = []
    w.lesson_guide.arrived.connect(arrived.append)
    trace = w.session.trace
    region_at = next(i for i, item in enumerate(info.look) if item.target == {"checkpoint": 1})
    gv = w.graph_view
    w.resize(1600, 1000)
    w.reset_layout()  # (earlier tests may have left the panels where the graph has little room)
    qtbot.waitUntil(lambda: gv.view.viewport().width() > 400 and gv.view.viewport().height() > 300, timeout=5000)
    gv.view.resetTransform()
    gv.view.scale(3.0, 3.0)  # the learner zoomed far in, somewhere else
    gv.view.centerOn(gv.graph_scene().itemsBoundingRect().bottomRight())
    w.lessons_panel.look(region_at)
    first = trace.checkpoints[0]
    assert arrived[-1] == "checkpoint" and w.session.selected_node == first.nodes[0]
    assert w.session.node(first.nodes[0]).op == "CheckpointFunctionBackward"
    region = w.graph_view.graph_scene().checkpoint_overlay.regions[first.id]
    flashed = [f for f in w.lesson_guide.flashing if hasattr(f, "rect")]
    assert flashed and flashed[-1].rect().contains(region.sceneBoundingRect()), "the region flashes"
    # ...in sight, whole, and not under the legend
    shown = gv.visible_scene_rect()
    assert shown.contains(region.sceneBoundingRect())
    if gv.legend.isVisible():
        legend = gv.view.mapToScene(gv.legend.geometry()).boundingRect()
        assert not legend.intersects(region.sceneBoundingRect())

    phase_at = next(i for i, item in enumerate(info.look) if item.target == {"checkpoint": 1, "recompute": True})
    w.lessons_panel.look(phase_at)
    rec = first.recomputations[0]
    assert arrived[-1] == "recompute"
    assert w.session.run_index == rec.run and w.session.step == rec.step
    frame = w.session.recompute.frame
    assert frame is not None and frame.step == rec.step and frame.checkpoint == first.id and frame.sub == 0
    assert w.panels.dock("stepper").isVisible()


def test_progress_is_kept_between_launches(qtbot, window, wait_until):
    w = window
    name = "03_broadcasting"
    progress.LessonProgress().reset(name)
    open_and_run(qtbot, w, wait_until, name)
    assert progress.marks(name) == {"opened", "run"}
    w.session.set_step(w.session.step_count)
    assert progress.level(name) == 3
    fresh = LessonsPanel()  # as at the next launch: read back from the settings
    assert fresh.item_for(name).text(0).endswith("✓")
    fresh.deleteLater()


def test_edits_to_a_lesson_are_kept_until_reset(qtbot, window):
    w = window
    first, other = LESSONS["01_leaf_vs_nonleaf"], LESSONS["03_broadcasting"]
    edits.forget(first.name)
    w.ask_unsaved = lambda: pytest.fail("a lesson's edits need no question")
    try:
        w.files.open_lesson(first, run=False)
        w.editor.setPlainText(first.source + "print('mine')\n")
        w.editor.document().setModified(True)
        assert w.files.open_lesson(other, run=False)
        assert w.files.open_lesson(first, run=False)
        assert w.editor.toPlainText().endswith("print('mine')\n")
        w.lessons_panel.select(first.name)
        w.lessons_panel.reset_button.click()
        assert w.editor.toPlainText() == first.source
        assert not edits.has_edits(first.name)
    finally:
        w.ask_unsaved = lambda: "discard"
        edits.forget(first.name)


def test_chinese_ui_shows_the_chinese_script_and_texts(qtbot, window):
    w = window
    lesson = LESSONS["05_linear_function"]
    w.files.open_lesson(lesson, run=False)
    try:
        w.set_language("zh_CN")
        QApplication.processEvents()
        assert w.editor.toPlainText() == lesson.source_for("zh_CN") != lesson.source
        w.lessons_panel.select(lesson.name)
        html = w.lessons_panel.text.toPlainText()
        assert "要看什么" in html and "试一试" in html
        meta = json.loads(lesson.path.with_suffix(".json").read_text(encoding="utf-8"))
        assert meta["look"][0]["zh_CN"] in html
    finally:
        w.set_language("en")
        QApplication.processEvents()
    assert w.editor.toPlainText() == lesson.source


def test_qt_own_strings_are_translated_too(qapp):
    from PySide6.QtCore import QCoreApplication

    try:
        assert i18n.set_language("zh_CN", save=False)
        # qtbase's own context for the standard dialog buttons
        assert QCoreApplication.translate("QPlatformTheme", "Cancel") == "取消"
    finally:
        i18n.set_language("en", save=False)
    assert QCoreApplication.translate("QPlatformTheme", "Cancel") == "Cancel"


def test_no_lesson_file_left_behind():
    assert not any(Path(edits.edits_dir()).glob("01_*.py"))


def test_chinese_prefers_an_installed_simplified_chinese_face(qapp):
    before = QApplication.font().families()
    try:
        i18n.set_language("zh_CN", save=False)
        families = QApplication.font().families()
        assert families[:len(before)] == before  # the UI face stays first (Latin text)
        assert [f for f in families if f in i18n.CJK_FAMILIES] == i18n.cjk_families()
    finally:
        i18n.set_language("en", save=False)
    assert QApplication.font().families() == before
