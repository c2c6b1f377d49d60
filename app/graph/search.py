"""The find bar (Ctrl+F): nodes by variable name, operation or module.

A match inside a collapsed module group counts (its group box lights up), a
node not drawn at all does not. Going to a match centres it and selects it in
the session, so the inspector follows like for a click.
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QToolButton, QWidget

from autogradviz.app.graph.scene import GraphScene
from autogradviz.app.session import TraceSession


def find_nodes(session: TraceSession, scene: GraphScene, text: str) -> list[str]:
    """Ids of the session graph's nodes whose label, operation or module
    contains `text` (any case) and that the scene shows (or holds in a
    collapsed group), in graph order."""
    g = session.graph
    text = text.strip().lower()
    hits: list[str] = []
    if g is None or not text:
        return hits
    for n in g.nodes:
        if (n.label and text in n.label.lower()) or text in n.op.lower() or \
                (n.module and text in n.module.lower()):
            if scene.node_items.get(n.id) or n.id in scene.group_boxes:
                hits.append(n.id)
    return hits


class SearchBar(QWidget):
    """The bar itself; `scene` returns the scene shown now, `center_on` moves
    the view to a point of it."""

    closed = Signal()

    def __init__(self, session: TraceSession, scene: Callable[[], GraphScene],
                 center_on: Callable, parent=None):
        super().__init__(parent)
        self.session = session
        self._scene = scene
        self._center_on = center_on
        self._hits: list[str] = []
        self._pos = -1
        lay = QHBoxLayout(self)
        lay.setContentsMargins(4, 2, 4, 2)
        self.edit = QLineEdit(self)
        self.edit.textChanged.connect(self.search)
        self.edit.returnPressed.connect(self.next)
        self.count = QLabel(self)
        self.prev_btn = QToolButton(self)
        self.prev_btn.setArrowType(Qt.ArrowType.UpArrow)
        self.prev_btn.clicked.connect(self.previous)
        self.next_btn = QToolButton(self)
        self.next_btn.setArrowType(Qt.ArrowType.DownArrow)
        self.next_btn.clicked.connect(self.next)
        self.close_btn = QToolButton(self)
        self.close_btn.setText("×")
        self.close_btn.clicked.connect(self.close_bar)
        for w in (self.edit, self.count, self.prev_btn, self.next_btn, self.close_btn):
            lay.addWidget(w)
        self.hide()
        esc = QShortcut(QKeySequence(Qt.Key.Key_Escape), self)
        esc.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        esc.activated.connect(self.close_bar)

    def hits(self) -> list[str]:
        return list(self._hits)

    def open(self) -> None:
        self.show()
        self.edit.setFocus()
        self.edit.selectAll()

    def close_bar(self) -> None:
        self.hide()
        self._scene().set_search_hits([])
        self.closed.emit()

    def search(self, text: str) -> None:
        scene = self._scene()
        self._hits = find_nodes(self.session, scene, text)
        self._pos = -1
        scene.set_search_hits(self._hits)
        if self._hits:
            self._go(0)
        self._update_count()

    def refresh(self) -> None:
        """Search again in a new picture (the same text)."""
        if self.isVisible() and self.edit.text():
            self.search(self.edit.text())

    def _go(self, pos: int) -> None:
        if not self._hits:
            return
        self._pos = pos % len(self._hits)
        nid = self._hits[self._pos]
        c = self._scene().center_of(nid)
        if c is not None:
            self._center_on(c)
        self.session.select_node(nid)
        self._update_count()

    def next(self) -> None:
        self._go(self._pos + 1)

    def previous(self) -> None:
        self._go(self._pos - 1)

    def _update_count(self) -> None:
        if not self.edit.text().strip():
            self.count.setText("")
        elif not self._hits:
            self.count.setText(QCoreApplication.translate("GraphView", "no match"))
        else:
            self.count.setText(QCoreApplication.translate("GraphView", "{0} of {1}").format(self._pos + 1, len(self._hits)))

    def retranslate(self) -> None:
        self.edit.setPlaceholderText(QCoreApplication.translate("GraphView", "Find a node by name or operation…"))
        self.edit.setToolTip(QCoreApplication.translate("GraphView", "Type part of a variable name (e.g. 'loss') or an operation "
                                            "(e.g. 'Mul'). Enter: next match."))
        self.prev_btn.setToolTip(QCoreApplication.translate("GraphView", "Previous match (Shift+F3)"))
        self.next_btn.setToolTip(QCoreApplication.translate("GraphView", "Next match (F3 or Enter)"))
        self.close_btn.setToolTip(QCoreApplication.translate("GraphView", "Close the search bar (Esc)"))
        self._update_count()
