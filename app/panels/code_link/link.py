"""Code <-> graph: which line made which node, shown both ways.

Every node of the trace carries the script line that made it (`Node.line`,
recorded in the worker; docs/trace-format.md). This object ties the editor
and the graph together with it, as a debugger ties its current line to the
program:

- stepping the backward pass puts the editor's step arrow (gutter arrow and
  tint) on the forward line whose operation the current step differentiates;
  during a checkpoint recompute frame, on the segment's line re-running (or
  the `checkpoint(...)` call: a module's ops have no line of the script's);
- selecting a node (a click, the find bar) moves the editor's cursor to its
  line, without taking the focus from the graph;
- the line under the editor's cursor rings, in the graph, every node it made
  (a line in a loop made one node per pass).

Lines are only trusted while the editor holds the text that was run: the
first edit after a run clears the marks until the next run.
"""

from __future__ import annotations

from typing import Optional

from PySide6.QtCore import QObject

from autogradviz.app.session import TraceSession


class CodeGraphLink(QObject):
    def __init__(self, session: TraceSession, editor, graph_view, parent: Optional[QObject] = None):
        super().__init__(parent)
        self.session = session
        self.editor = editor
        self.graph_view = graph_view
        self._in_sync = False
        self._lit: list = []
        self._moving_cursor = False
        session.traceChanged.connect(self._on_trace)
        session.graphChanged.connect(lambda _gid: self._refresh())
        session.runChanged.connect(lambda _i: self._show_step())
        session.stepChanged.connect(lambda _k: self._show_step())
        session.recompute.changed.connect(lambda _f: self._show_step())
        session.nodeSelected.connect(self._on_node_selected)
        editor.cursorPositionChanged.connect(self._light_cursor_line)
        editor.document().contentsChanged.connect(self._on_edited)
        graph_view.builder.done.connect(self._light_cursor_line)

    # -- what is shown --------------------------------------------------------
    def nodes_of_line(self, line: Optional[int]) -> list[str]:
        """Ids of the shown graph's nodes made by script line `line`."""
        g = self.session.graph
        if g is None or line is None or not self._in_sync:
            return []
        return [n.id for n in g.nodes if n.line == line]

    def lit_nodes(self) -> list[Optional[str]]:
        """Ids of the nodes ringed now (for tests and tools)."""
        return [getattr(it, "node_id", None) or getattr(it, "key", None) for it in self._lit]

    # -- slots ----------------------------------------------------------------
    def _on_trace(self) -> None:
        self._in_sync = self.session.trace is not None
        self._refresh()

    def _on_edited(self) -> None:
        if self._in_sync:
            self._in_sync = False
            self.editor.set_step_line(None)
            self._set_lit([])

    def _refresh(self) -> None:
        self._show_step()
        self._light_cursor_line()

    def recompute_line(self, frame) -> Optional[int]:
        """During a checkpoint recompute frame: the line of the segment's op
        re-running now where the trace has it, else the `checkpoint(...)` call."""
        trace = self.session.trace
        cps = getattr(trace, "checkpoints", None) or []
        c = cps[frame.number - 1] if 0 < frame.number <= len(cps) else None
        node = self.session.node(frame.current_node) if frame.current_node and frame.kind != "reentrant" else None
        if node is not None and node.line is not None:
            return node.line
        return c.line if c is not None else None

    def _show_step(self) -> None:
        frame = self.session.recompute.frame if self._in_sync else None
        if frame is not None:
            line = self.recompute_line(frame)
            if line is not None:
                self.editor.set_step_line(line, self.tr(
                    "Recomputing checkpoint {0}: backward runs this segment's forward again "
                    "(op {1} of {2})").format(frame.number, frame.op_index, len(frame.ops)))
                return
        state = self.session.state
        node = self.session.node(state.current) if state is not None and self._in_sync else None
        if node is None or node.line is None:
            self.editor.set_step_line(None)
            return
        tip = self.tr("Backward step {0} of {1}: {2} computes the gradient of this line's operation").format(
            state.step, state.n_steps, node.op)
        self.editor.set_step_line(node.line, tip)

    def _on_node_selected(self, node_id) -> None:
        node = self.session.node(node_id) if self._in_sync else None
        if node is None or node.line is None:
            return
        if self.editor.textCursor().blockNumber() + 1 != node.line:
            self.editor.go_to_line(node.line)

    def _light_cursor_line(self) -> None:
        line = self.editor.textCursor().blockNumber() + 1
        self._set_lit(self.nodes_of_line(line))

    def _set_lit(self, node_ids: list[str]) -> None:
        for it in self._lit:
            try:
                it.set_flags(line_hit=False)
            except RuntimeError:  # (an item of a scene rebuilt since)
                pass
        scene = self.graph_view.graph_scene()
        items: list = []
        for nid in node_ids:
            found = scene.node_items.get(nid)
            if found:
                items.extend(found)
            else:  # inside a collapsed group, or a later call of a rolled module
                box = scene.group_boxes.get(nid) or getattr(scene, "stand_in_items", {}).get(nid)
                if box is not None and box not in items:
                    items.append(box)
        for it in items:
            it.set_flags(line_hit=True)
        self._lit = items
