"""The graph view inside the main window, with the real worker: the banner
that says why there is no graph (in the theme's colours), and a minimap that
never keeps the picture of an earlier graph.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRectF

from test_graph_support import SHARED, wait_layout

@pytest.fixture
def window(qtbot, shared_worker, wait_until, no_leftovers):
    from autogradviz.app.window.main_window import MainWindow
    from autogradviz.app.theme import ThemeManager
    from autogradviz.app.services.worker_process import READY

    wait_until(lambda: shared_worker.state == READY, 60_000, "worker ready")
    theme = ThemeManager()
    w = MainWindow(theme_manager=theme, worker=shared_worker, start_worker=False, restore_autosave=False)
    w.ask_unsaved = lambda: "discard"
    qtbot.addWidget(w)
    w.resize(1300, 900)
    w.show()
    qtbot.waitExposed(w)
    yield w
    w.close()
    theme.deleteLater()


def run_in(qtbot, w, source, layout=True):
    w.editor.setPlainText(source)
    signals = [w.runFinished] + ([w.graph_view.layoutFinished] if layout else [])
    with qtbot.waitSignals(signals, timeout=60_000):
        w.run_script()
    wait_layout(qtbot, w.graph_view) if layout else None
    return w.session.trace


def _luminance(c) -> float:
    def ch(v):
        v = v / 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4
    return 0.2126 * ch(c.red()) + 0.7152 * ch(c.green()) + 0.0722 * ch(c.blue())


def _banner_colours(label):
    """Background (a pixel of the padding) and the colour of highest contrast
    with it (the text), read from the banner as drawn."""
    from PySide6.QtGui import QColor

    img = label.grab().toImage()
    bg = QColor(img.pixel(img.width() - 3, 2))
    lb = _luminance(bg)
    best, ratio = None, 0.0
    for y in range(0, img.height(), 1):
        for x in range(8, min(img.width(), 400), 1):
            c = QColor(img.pixel(x, y))
            lc = _luminance(c)
            r = (max(lb, lc) + 0.05) / (min(lb, lc) + 0.05)
            if r > ratio:
                best, ratio = c, r
    return bg, best, ratio


FAILS_EARLY = "import torch\nx = torch.ones(3)\nraise ValueError('no graph yet')\n"
FAILS_LATE = """\
import torch
x = torch.ones(2, requires_grad=True)
y = (x * 2).sum()
y.backward()
raise RuntimeError('after the graph')
"""


def test_banner_says_why_there_is_no_graph_in_theme_colours(qtbot, window, wait_until):
    from autogradviz.app.services.worker_process import READY

    w, gv = window, window.graph_view
    run_in(qtbot, w, SHARED)
    assert gv.graph_scene().node_items and not gv.banner_text()
    # the script fails before it builds a graph: not the "requires_grad" advice
    run_in(qtbot, w, FAILS_EARLY, layout=False)
    qtbot.waitUntil(lambda: not gv.graph_scene().node_items, timeout=5000)
    text = gv.banner_text()
    assert "ValueError" in text and "line 3" in text and "requires_grad" not in text
    # it fails after building one: the graph shows, and the banner says it stopped
    run_in(qtbot, w, FAILS_LATE)
    assert gv.graph_scene().node_items
    assert "RuntimeError" in gv.banner_text() and "line 5" in gv.banner_text()
    # a script without any tensor requiring grad: the advice
    run_in(qtbot, w, "import torch\nx = torch.ones(3) * 2\n", layout=False)
    qtbot.waitUntil(lambda: "requires_grad" in gv.banner_text(), timeout=5000)
    # a run that never finishes and is stopped: the graph is cleared, and the banner says so
    run_in(qtbot, w, SHARED)
    w.editor.setPlainText("while True:\n    pass\n")
    with qtbot.waitSignal(w.worker.runStarted, timeout=30_000):
        w.run_script()
    with qtbot.waitSignal(w.worker.runStopped, timeout=5_000):
        w.stop_script()
    qtbot.waitUntil(lambda: not gv.graph_scene().node_items, timeout=5000)
    text = gv.banner_text()
    assert "did not finish" in text and "requires_grad" not in text and "line" not in text
    # readable in both themes, and dark in the dark one (it was pink)
    for mode in ("light", "dark"):
        w.set_theme_mode(mode)
        qtbot.wait(50)
        bg, fg, ratio = _banner_colours(gv.message)
        assert ratio >= 4.5, (mode, bg.name(), fg.name())
        assert (_luminance(bg) < 0.1) == (mode == "dark"), (mode, bg.name())
    wait_until(lambda: w.worker.state == READY, 60_000, "fresh worker")


TALL = """\
import torch
x = torch.ones(3, requires_grad=True)
h = x
for i in range(60):
    h = torch.tanh(h * 1.01)
loss = h.sum()
loss.backward()
"""

WIDE = """\
import torch
xs = [torch.ones(2, requires_grad=True) for _ in range(40)]
total = sum((x * 2).sum() for x in xs)
total.backward()
"""


def test_minimap_never_keeps_an_old_picture(qtbot, window, wait_until):
    from autogradviz.app.services.worker_process import READY

    w, gv = window, window.graph_view
    mm = gv.minimap
    run_in(qtbot, w, TALL)
    gv.zoom_in()
    gv.zoom_in()
    qtbot.waitUntil(mm.isVisible, timeout=3000)
    tall_size = mm.size()
    assert tall_size.height() > tall_size.width()  # the map takes the graph's shape
    # replaced by another graph: the map is that graph's
    run_in(qtbot, w, WIDE)
    lay = gv.graph_scene().layout
    assert lay.width > lay.height
    gv.zoom_in()
    gv.zoom_in()
    gv.zoom_in()
    qtbot.waitUntil(mm.isVisible, timeout=3000)
    assert mm.width() > mm.height()
    assert mm._src.contains(QRectF(0, 0, lay.width, lay.height))
    # cleared (the worker crashed): no map, no old picture kept for later
    w.editor.setPlainText("import os\nos._exit(3)\n")
    with qtbot.waitSignal(w.worker.crashed, timeout=30_000):
        w.run_script()
    qtbot.waitUntil(lambda: not gv.graph_scene().node_items, timeout=5000)
    gv.zoom_in()
    assert not mm.isVisible() and mm._pix is None
    wait_until(lambda: w.worker.state == READY, 60_000, "fresh worker")
