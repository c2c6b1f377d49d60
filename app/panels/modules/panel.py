"""The Modules panel: a layer table like torchsummary's, from the trace.

One row per nn.Module the script called, nested by module path: its class,
the shape of its output, its parameter count (everything below it, as
`sum(p.numel() for p in module.parameters())` counts) and how many times it
ran. Numbers come from `Trace.modules` (recorded by the worker's module
table); nothing is computed here but the nesting and the totals. Clicking a
row selects, in the graph, a node that module's forward made.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QHeaderView, QLabel, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from autogradviz.app.services.text_safety import plain_tip

_PATH_ROLE = Qt.ItemDataRole.UserRole + 1


def _parent_path(path: str, known: set[str]) -> str | None:
    """The nearest enclosing module path that has a record."""
    while "." in path:
        path = path.rsplit(".", 1)[0]
        if path in known:
            return path
    return None


class ModulesPanel(QWidget):
    COLUMNS = 4

    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.setObjectName("modulesPanel")
        self._session = session
        self.tree = QTreeWidget(self)
        self.tree.setObjectName("moduleTable")
        self.tree.setColumnCount(self.COLUMNS)
        self.tree.setAlternatingRowColors(True)
        self.tree.setUniformRowHeights(True)
        header = self.tree.header()
        header.setSectionResizeMode(0, QHeaderView.ResizeToContents)
        for col in (1, 2, 3):
            header.setSectionResizeMode(col, QHeaderView.ResizeToContents)
        header.setStretchLastSection(False)
        self.tree.itemClicked.connect(self._select_node)
        self.totals = QLabel(self)
        self.totals.setObjectName("moduleTotals")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.tree, 1)
        layout.addWidget(self.totals)
        # why a count includes checkpoint re-runs, or stops short of them
        self.recompute_note = QLabel(self)
        self.recompute_note.setObjectName("moduleRecomputeNote")
        self.recompute_note.setWordWrap(True)
        self.recompute_note.hide()
        layout.addWidget(self.recompute_note)
        session.traceChanged.connect(self._refill)
        self.retranslate()

    # -- what is shown -------------------------------------------------------------
    def rows(self) -> list[tuple[str, str, str, str]]:
        """Every row's texts (path and class, output shape, params, calls), depth first."""
        out = []

        def walk(item):
            out.append(tuple(item.text(c) for c in range(self.COLUMNS)))
            for i in range(item.childCount()):
                walk(item.child(i))

        for i in range(self.tree.topLevelItemCount()):
            walk(self.tree.topLevelItem(i))
        return out

    def item_for(self, path: str) -> QTreeWidgetItem | None:
        found = self.tree.findItems("*", Qt.MatchFlag.MatchWildcard | Qt.MatchFlag.MatchRecursive)
        return next((it for it in found if it.data(0, _PATH_ROLE) == path), None)

    def _refill(self) -> None:
        self.tree.clear()
        trace = self._session.trace
        records = list(getattr(trace, "modules", None) or [])
        known = {r.path for r in records}
        items: dict[str, QTreeWidgetItem] = {}

        def item_of(path: str) -> QTreeWidgetItem:
            if path in items:
                return items[path]
            parent = _parent_path(path, known)
            # A parent's record comes after its children's (its call returns last):
            # make its row now, at the place of its first child, fill it later.
            item = QTreeWidgetItem(item_of(parent) if parent else self.tree)
            item.setData(0, _PATH_ROLE, path)
            items[path] = item
            return item

        for r in records:
            item = item_of(r.path)
            item.setText(0, f"{r.path}  ({r.class_name})")
            shape = "[" + ", ".join(str(d) for d in r.output_shape) + "]" if r.output_shape is not None else "—"
            item.setText(1, shape + (" …" if r.output_multiple else ""))
            item.setText(2, f"{r.params:,}")
            item.setText(3, str(r.calls))
            for col in (1, 2, 3):
                item.setTextAlignment(col, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            tip = self.tr("{cls} at {path}: output {shape} {dtype}; {params} parameters "
                          "({own} of its own, {trainable} trainable); called {calls} times").format(
                cls=r.class_name, path=r.path, shape=shape, dtype=r.output_dtype or "",
                params=f"{r.params:,}", own=f"{r.own_params:,}", trainable=f"{r.trainable:,}", calls=r.calls)
            for col in range(self.COLUMNS):
                item.setToolTip(col, plain_tip(tip))
            if r.own_params == 0 and r.params:
                font = QFont(item.font(0))
                font.setItalic(True)
                item.setFont(2, font)  # a container: its count is its children's
        self.tree.expandAll()
        roots = [r for r in records if _parent_path(r.path, known) is None]
        total = sum(r.params for r in roots)
        trainable = sum(r.trainable for r in roots)
        self.totals.setText(self.tr("Total params: {total} · trainable: {trainable} · modules: {count}").format(
            total=f"{total:,}", trainable=f"{trainable:,}", count=len(records)) if records else
            self.tr("No module was called in this run."))
        self._note_recomputes(trace, records)

    def _note_recomputes(self, trace, records) -> None:
        """Say when the Calls column counts checkpoint re-runs (torch calls a
        checkpointed module's forward again during backward), and when a re-run
        stopped early, so that the modules last in the segment count fewer calls."""
        lines = []
        paths = [r.path for r in records]
        for c in getattr(trace, "checkpoints", None) or []:
            reruns = len(c.recomputations)
            fn = c.function or "?"
            inside = [p for p in paths if p == fn or p.startswith(fn + ".")]
            if not reruns or not inside:
                continue
            text = self.tr("Calls of {module} and the modules inside it include {n} checkpoint re-run(s) "
                           "during backward.").format(module=fn, n=reruns)
            if any(r.early_stopped for r in c.recomputations):
                text += " " + self.tr("torch stopped a re-run early, as soon as it had recomputed every tensor "
                                      "backward needs: a call cut short by that stop (and the calls around it) is "
                                      "not counted, so counts inside {module} differ.").format(module=fn)
            lines.append(text)
        self.recompute_note.setText("\n".join(lines))
        self.recompute_note.setVisible(bool(lines))

    def _select_node(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        path = item.data(0, _PATH_ROLE)
        graph = self._session.graph
        if graph is None or not path:
            return
        inside = [n for n in graph.nodes if n.module == path or (n.module or "").startswith(path + ".")]
        if inside:
            self._session.select_node(inside[0].id)

    # -- language ---------------------------------------------------------------------------
    def retranslate(self) -> None:
        self.tree.setHeaderLabels([self.tr("Layer (type)"), self.tr("Output shape"), self.tr("Param #"),
                                   self.tr("Calls")])
        self.tree.setToolTip(self.tr("Every module the script called: its output shape and parameter count "
                                     "(as torchsummary shows them). Click a row to select its node."))
        self._refill()

    def changeEvent(self, event):  # noqa: N802
        if event.type() == QEvent.LanguageChange:
            self.retranslate()
        super().changeEvent(event)
