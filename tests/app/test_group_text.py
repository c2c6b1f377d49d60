"""A collapsed module box's engine-written phrases ("RNNCell call 25/50",
"10 nodes") are drawn in the learner's language; names stay as they are."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from autogradviz.app import i18n
from autogradviz.app.graph.group_text import display_lines
from autogradviz.engine.layout.text_metrics import group_lines


def test_group_box_lines_in_chinese(qapp):
    engine_lines = group_lines("cell", "RNNCell", 10, call=24, calls=50)
    rolled = group_lines("cell", "RNNCell", 10, repeat=50)
    assert display_lines("group", engine_lines) == engine_lines  # English: as the engine wrote them
    i18n.set_language("zh_CN", save=False)
    try:
        assert QCoreApplication.translate("GroupBox", "{0} nodes") == "{0} 个节点"
        assert display_lines("group", engine_lines) == ["cell", "RNNCell 第 25/50 次调用", "10 个节点"]
        assert display_lines("group", rolled) == ["cell", "RNNCell \u00d750", "10 个节点"]
        assert display_lines("op", ["10 nodes"]) == ["10 nodes"]  # only group boxes carry these phrases
    finally:
        i18n.set_language("en", save=False)
