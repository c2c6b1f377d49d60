"""A script's or a trace's strings are plain text on screen, never markup.

A saved trace whose every display string carries HTML (an `<img>` whose
source is a FIFO, bold, a link) is opened in the real main window, and a real
worker runs a script whose exception class is named like that. Then the
whole widget tree is walked - every QLabel, every tooltip and status tip of
widgets, actions, item models and graphics items, the window title - and
each one that holds such a string must show it literally: a label in plain
text (or escaped HTML), a tooltip escaped. Qt never opens the FIFO (before
the fix it did: a FIFO without a writer hangs the GUI, `/dev/zero` eats all
memory; here a thread answers the FIFO so the test cannot hang, and counts).

The walk is generic: a panel added later is checked too.
"""

from __future__ import annotations

import html
import json
import os
import subprocess
import sys

import pytest
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QAction, QTextDocument
from PySide6.QtWidgets import QAbstractItemView, QComboBox, QGraphicsView, QLabel, QMessageBox, QWidget

from autogradviz.engine.trace import codec

from autogradviz.app.services.text_safety import looks_rich
from autogradviz.app.services.worker_process import READY

RUN_TIMEOUT_MS = 90_000
BOLD, LINK = "<b>INJB</b>", '<a href="http://evil.example/">INJA</a>'

SCRIPT = """\
import torch
from torch.utils.checkpoint import checkpoint
torch.manual_seed(0)
model = torch.nn.Sequential()
model.add_module('lin', torch.nn.Linear(3, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu", init_scale=8.0)
x = torch.randn(4, 3, requires_grad=True)
def my_hook(g):
    return g
x.register_hook(my_hook)
h = checkpoint(lambda t: torch.tanh(model(t)), x, use_reentrant=False)
h.retain_grad()
loss = (h ** 2).mean()
scaler.scale(loss).backward()
scaler.step(opt)
scaler.update()
print("loss", loss.item())
raise ValueError("boom")
"""

# Trace fields that point at other records (ids) or are codes the app
# switches on: a hostile value there only breaks the picture, it is not shown.
NOT_SHOWN = {"format", "id", "src", "dst", "node", "graph", "roots", "nodes", "kind", "phase", "checkpoint",
             "stage_before", "stage_after", "call", "code", "skipped_code", "dtype", "device", "thread"}


WATCHER = """\
import os, sys
path, count = sys.argv[1], sys.argv[2]
n = 0
while True:
    fd = os.open(path, os.O_WRONLY)  # blocks until a reader opens it
    if os.path.exists(path + ".stop"):
        os.close(fd)
        break
    n += 1
    with open(count, "w") as f:
        f.write(str(n))
    os.close(fd)  # the reader sees end of file
"""


class FifoWatch:
    """A FIFO that an `<img src>` may point at. Another process answers every
    open at once (so nothing hangs, whatever thread holds the GIL) and counts."""

    def __init__(self, folder):
        self.path = str(folder / "img.fifo")
        self._count = str(folder / "img.count")
        os.mkfifo(self.path)
        self._proc = subprocess.Popen([sys.executable, "-c", WATCHER, self.path, self._count])

    @property
    def opened(self) -> int:
        try:
            with open(self._count) as f:
                return int(f.read() or 0)
        except OSError:
            return 0

    def close(self) -> None:
        open(self.path + ".stop", "w").close()
        fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)
        try:
            self._proc.wait(10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        os.close(fd)


@pytest.fixture
def fifo(tmp_path):
    watch = FifoWatch(tmp_path)
    yield watch
    watch.close()


def payload(fifo) -> str:
    return f'<img src="{fifo.path}">{BOLD}{LINK}'


def _hostile(obj, extra: str, key=None):
    """Every display string of a trace's builtins with `extra` appended."""
    if isinstance(obj, dict):
        return {k: (v if k in NOT_SHOWN and not isinstance(v, (dict, list)) else _hostile(v, extra, k))
                for k, v in obj.items()}
    if isinstance(obj, list):
        if key in NOT_SHOWN and all(isinstance(v, str) for v in obj):  # ids (not the graph's nodes)
            return obj
        return [_hostile(v, extra, key) for v in obj]
    if isinstance(obj, str):
        return obj + extra
    return obj


# -- the walk ---------------------------------------------------------------------------------------------
def _model_tips(model, parent=QModelIndex(), limit=2000):
    out = []
    if model is None:
        return out
    try:
        columns = model.columnCount(parent)
    except TypeError:  # a list model: one column (its columnCount is private in PySide)
        columns = 1
    for r in range(min(model.rowCount(parent), limit)):
        for c in range(max(1, columns)):
            idx = model.index(r, c, parent)
            for role in (Qt.ToolTipRole, Qt.StatusTipRole, Qt.WhatsThisRole):
                value = model.data(idx, role)
                if isinstance(value, str) and value:
                    out.append((f"{type(model).__name__}[{r},{c}]", value))
            if c == 0 and columns > 1 and model.rowCount(idx) > 0:
                out.extend(_model_tips(model, idx, limit))
    return out


def shown_strings(window: QWidget):
    """(where, text, is_rich) for every label, tooltip and status tip of the
    window, its dialogs, actions, item views and graphics scenes."""
    found = []
    widgets = [window] + window.findChildren(QWidget)
    for wd in widgets:
        name = f"{type(wd).__name__}({wd.objectName()})"
        if isinstance(wd, QLabel):
            fmt, text = wd.textFormat(), wd.text()
            rich = fmt == Qt.RichText or (fmt in (Qt.AutoText, Qt.MarkdownText) and looks_rich(text))
            found.append((name + ".text", text, rich or fmt == Qt.MarkdownText))
        if isinstance(wd, QMessageBox):
            fmt, text = wd.textFormat(), wd.text()
            found.append((name + ".text", text, fmt == Qt.RichText or (fmt == Qt.AutoText and looks_rich(text))))
        for what in ("toolTip", "statusTip", "whatsThis"):
            text = getattr(wd, what)()
            if text:
                found.append((f"{name}.{what}", text, looks_rich(text)))
        if isinstance(wd, (QAbstractItemView, QComboBox)):
            for where, text in _model_tips(wd.model()):
                found.append((f"{name} {where}", text, looks_rich(text)))
        if isinstance(wd, QGraphicsView) and wd.scene() is not None:
            for item in wd.scene().items():
                text = item.toolTip()
                if text:
                    found.append((f"{name} {type(item).__name__}.toolTip", text, looks_rich(text)))
    for action in window.findChildren(QAction):
        for what in ("toolTip", "statusTip", "whatsThis"):
            text = getattr(action, what)()
            if text:
                found.append((f"QAction({action.objectName()}).{what}", text, looks_rich(text)))
    found.append(("windowTitle", window.windowTitle(), False))
    return found


def assert_all_plain(window: QWidget, fifo, expect_some: bool = True) -> int:
    """Every shown string holding the payload shows it literally; returns how many do."""
    raw_img = f'<img src="{fifo.path}"'
    bad, literal = [], 0
    for where, text, rich in shown_strings(window):
        if "INJB" not in text and fifo.path not in text:
            continue
        if rich:
            if raw_img in text or BOLD in text or "<a href=\"http://evil" in text:
                bad.append(f"{where}: markup from the data is parsed: {text[:300]!r}")
                continue
            doc = QTextDocument()
            doc.setHtml(text)
            shown = doc.toPlainText()
            if "INJB" in shown and BOLD not in shown:
                bad.append(f"{where}: the data is not shown literally: {shown[:300]!r}")
                continue
        literal += 1
    assert not bad, "\n".join(bad)
    assert fifo.opened == 0, f"Qt opened the <img> source {fifo.opened} time(s)"
    if expect_some:
        assert literal, "no widget shows the hostile strings at all (the walk sees nothing)"
    return literal


def _hover_nodes(qtbot, w) -> None:
    """Every box of the graph gets the tooltip a first hover makes (offscreen,
    a synthetic mouse move sends no hover event, so do what the hover does)."""
    for items in w.graph_view.graph_scene().node_items.values():
        for it in items:
            if callable(getattr(it, "_tip", None)):
                it.setToolTip(it._tip())
                it._tip = None


def visit_everything(qtbot, w, fifo) -> int:
    """Show every dock, hover every box, select every node at the first, a
    middle and the last step, and check the whole window after each."""
    w.panels.show_all()
    s = w.session
    qtbot.wait(50)
    _hover_nodes(qtbot, w)
    shown = 0
    ids = [n.id for n in s.graph.nodes] if s.graph is not None else []
    for k in sorted({0, s.step_count // 2, s.step_count}):
        s.set_step(k)
        for node_id in ids or [None]:
            s.select_node(node_id)
            qtbot.wait(1)
            shown = max(shown, assert_all_plain(w, fifo, expect_some=False))
    qtbot.wait(100)
    return max(shown, assert_all_plain(w, fifo))


@pytest.fixture
def window(qtbot, main_window, wait_until, shared_worker):
    w = main_window
    wait_until(lambda: shared_worker.state == READY, 60_000, "worker ready")
    w.trace_files.quiet = True
    w.ask_unsaved = lambda: "discard"
    w.files.new_file()
    return w


def test_a_hostile_saved_trace_shows_every_string_literally(qtbot, window, tmp_path, fifo):
    from test_graph_support import wait_layout

    w = window
    w.editor.setPlainText(SCRIPT)
    with qtbot.waitSignal(w.runFinished, timeout=RUN_TIMEOUT_MS) as blocker:
        w.actions["run"].trigger()
    trace = blocker.args[0]
    assert trace.error is not None and trace.graphs and trace.scaler_events and trace.checkpoints

    evil = payload(fifo)
    data = _hostile(codec.to_builtins(trace), evil)
    # the file name too: a folder named `<img src="` holding FIFO-path folders
    folder = tmp_path / '<img src="'
    target = folder / (fifo.path.lstrip("/") + f'">{BOLD}.trace.json')
    target.parent.mkdir(parents=True)
    target.write_text(json.dumps(data), encoding="utf-8")
    w.editor.setPlainText("print('other')\n")

    with qtbot.waitSignal(w.trace_files.traceOpened, timeout=30_000):
        w.trace_files.open(str(target))
    wait_layout(qtbot, w.graph_view)
    assert w.session.trace.error.type == "ValueError" + evil
    assert visit_everything(qtbot, w, fifo) > 20
    # the places a learner reads them: literal
    assert ("ValueError" + evil) in w.graph_view.banner_text()
    assert ("loss" in w.output.plain_text and evil in w.output.plain_text
            and str(target) in w.output.plain_text)
    # hovering a node shows its tooltip: escaped, the FIFO untouched
    scene = w.graph_view.graph_scene()
    assert any(evil in QTextDocument_plain(i.toolTip()) for i in scene.items()
               if type(i).__name__ == "NodeItem" and i.toolTip())


def QTextDocument_plain(text: str) -> str:  # noqa: N802
    """What a tooltip shows (rich text rendered to its characters)."""
    if not looks_rich(text):
        return text
    doc = QTextDocument()
    doc.setHtml(text)
    return doc.toPlainText().replace("\u2029", "\n")


def test_a_live_run_with_a_markup_exception_name_shows_it_literally(qtbot, window, fifo, tmp_path):
    w = window
    name = f'<img src="{fifo.path}">{BOLD}Error'
    # the script's own file name is markup too (its folders spell the <img> tag)
    script = tmp_path / '<img src="' / (fifo.path.lstrip("/") + f'">{BOLD}.py')
    script.parent.mkdir(parents=True)
    script.write_text(
        "import torch\n"
        "x = torch.ones(2, requires_grad=True)\n"
        "y = (x * 2).sum()\n"
        f"print({BOLD!r})\n"
        f"raise type({name!r}, (Exception,), {{}})({LINK!r})\n", encoding="utf-8")
    assert w.files.open_file(str(script))
    with qtbot.waitSignal(w.runFinished, timeout=RUN_TIMEOUT_MS) as blocker:
        w.actions["run"].trigger()
    trace = blocker.args[0]
    assert trace.error is not None and trace.error.type.endswith(name), trace.error
    qtbot.waitUntil(lambda: name in w.graph_view.banner_text(), timeout=30_000)
    visit_everything(qtbot, w, fifo)
    assert f"{name}: {LINK}" in w.output.plain_text
    assert html.escape(name) not in w.output.plain_text
