"""The live language switch reaches the panels the first live-switch tests do
not open (issue 20): the checkpoint panel and the graph's own texts during a
checkpoint lesson, the Inspector with a node's rule and a finished numeric
check, the lesson browser with its text, and the Export and Preferences
dialogs. Same rule as tests/app/test_live_switch.py (ui_text_walk): in zh_CN no
English sentence is left, back in English no Chinese character; here the
graph scene's text items and the read-only text panes (lesson text, Inspector)
are walked too, the editor and the Output pane (the script's text) are not."""

from __future__ import annotations

from PySide6.QtWidgets import QGraphicsSimpleTextItem, QGraphicsTextItem, QTextBrowser, QTextEdit

from autogradviz.app import i18n
from autogradviz.app.resources_loader import lessons

from test_live_switch import LESSONS, RUN_TIMEOUT_MS, SWITCH_TIMEOUT_MS, _run, _show, window  # noqa: F401
from ui_text_walk import cjk, english_runs

LESSON = {l.name: l for l in lessons()}


def _extra_texts(w, dialogs=()) -> list[tuple[str, str]]:
    """The graph scene's text items and the read-only rich-text panes."""
    out = []
    scene = w.graph_view.view.scene()
    for item in scene.items() if scene is not None else []:
        if not item.isVisible():
            continue
        if isinstance(item, QGraphicsTextItem):
            out.append(("scene text", item.toPlainText()))
        elif isinstance(item, QGraphicsSimpleTextItem):
            out.append(("scene text", item.text()))
    editor, output = w.editor, w.panels.widget("output")
    for pane in w.findChildren(QTextEdit):
        if pane.isVisible() and pane.isReadOnly() and not (editor.isAncestorOf(pane) or output.isAncestorOf(pane)):
            out.append((f"{type(pane).__name__}#{pane.objectName()}", pane.toPlainText()))
    return out


def _walk(qtbot, w, what: str, dialogs=()):
    from ui_text_walk import chinese_left, english_left

    def english():
        found = [(where, text, runs) for where, text, runs in english_left(w)]
        for d in dialogs:
            found += english_left(d)
        found += [(where, text, english_runs(text)) for where, text in _extra_texts(w) if english_runs(text)]
        return found

    def chinese():
        found = list(chinese_left(w))
        for d in dialogs:
            found += chinese_left(d)
        return found + [(where, text) for where, text in _extra_texts(w) if cjk(text)]

    assert not chinese(), chinese()
    w.set_language("zh_CN")
    try:
        qtbot.waitUntil(lambda: not english(), timeout=SWITCH_TIMEOUT_MS)
    except Exception:
        raise AssertionError(f"{what}: English left after the switch to zh_CN:\n" + "\n".join(
            f"  {where}: {runs} in {text[:200]!r}" for where, text, runs in english()))
    finally:
        w.set_language("en")
    try:
        qtbot.waitUntil(lambda: not chinese(), timeout=SWITCH_TIMEOUT_MS)
    except Exception:
        raise AssertionError(f"{what}: Chinese left after the switch back to English:\n" + "\n".join(
            f"  {where}: {text[:200]!r}" for where, text in chinese()))


def test_checkpoint_lesson_inspector_and_graph_switch_live(qtbot, window):
    w = window
    trace = _run(qtbot, w, (LESSONS / "32_reentrant_vs_non_reentrant.py").read_text(encoding="utf-8"))
    assert trace.error is None and trace.checkpoints
    _show(qtbot, w, "checkpoint")
    w.session.set_step(max(1, w.session.step_count // 2))
    op = next(n for n in w.session.graph.nodes if n.kind == "op" and n.op.startswith("Mul"))
    w.session.select_node(op.id)
    _show(qtbot, w, "inspector")
    _walk(qtbot, w, "checkpoint lesson: checkpoint panel, graph, Inspector with a rule")


def test_numeric_check_result_switches_live(qtbot, window):
    w = window
    trace = _run(qtbot, w, (LESSONS / "01_leaf_vs_nonleaf.py").read_text(encoding="utf-8"))
    assert trace.error is None
    leaf = next(n for n in w.session.graph.nodes if n.kind == "leaf" and n.label == "x")
    w.session.select_node(leaf.id)
    _show(qtbot, w, "inspector")
    box = w.panels.widget("inspector").fd_box
    box.check()
    qtbot.waitUntil(lambda: box._waiting is None and "float64" in box.result.text(), timeout=RUN_TIMEOUT_MS)
    _walk(qtbot, w, "Inspector with a finished numeric check")


def test_lesson_browser_switches_live_and_dialogs_open_in_the_new_language(qtbot, window):
    """The dialogs are modal (no switch while one is open): opened after a live
    switch, each speaks the new language."""
    from ui_text_walk import chinese_left, english_left

    from autogradviz.app.environments.preferences import PreferencesDialog
    from autogradviz.app.export.dialog import ExportDialog

    w = window
    w.files.open_lesson(LESSON["02_intermediate_gradients"], run=False)
    _show(qtbot, w, "lessons")
    panel = w.panels.widget("lessons")
    if not panel.catalog_shown():
        panel.catalog_button.click()
    _walk(qtbot, w, "lesson browser")

    def dialogs():
        made = [ExportDialog(w.graph_view, w.session, w), PreferencesDialog(parent=w)]
        for d in made:
            qtbot.addWidget(d)
            d.show()
            qtbot.waitExposed(d)
        return made

    w.set_language("zh_CN")
    try:
        qtbot.waitUntil(lambda: len(cjk(panel.text.toPlainText())) > 50, timeout=SWITCH_TIMEOUT_MS)
        for d in dialogs():
            assert not english_left(d), english_left(d)
            d.close()
    finally:
        w.set_language("en")
    for d in dialogs():
        assert not chinese_left(d), chinese_left(d)
        d.close()
    assert i18n.current_language() == "en"
