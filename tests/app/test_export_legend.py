"""The legend in exports: when the screen shows it, every export shows it.

The legend (app/graph/legend.py) is an overlay widget of the view, not a
scene item; app/export/legend_export.py puts the widget's own drawing into
the scene while an export is written. Checked on a real GraphView and its
real legend: the SVG holds one `g.legend-entry` per entry with the entry's
words (and none when the legend is hidden); the PNG's bounds hold it and its
pixels are drawn; every GIF frame and the web page carry it; in Simplified
Chinese the words are the translations; the CLI draws it only with
`--legend`; the Export dialog's box starts as the screen shows it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

import synthetic_graphs as S  # (tests/synthetic_graphs.py)
from test_graph_support import shown_view, stop_view
from autogradviz.app.export import render as ex
from autogradviz.app.export.dialog import ExportDialog

NS = "{http://www.w3.org/2000/svg}"


@pytest.fixture
def view(qtbot):
    v = shown_view(qtbot, S.trace_for(S.mlp(3)), 900, 650)
    v.session.set_step(2)
    yield v
    stop_view(qtbot, v)


def legend_entries(path) -> list[str]:
    """The words of every legend entry in an exported SVG, in order."""
    root = ET.parse(path).getroot()
    out = []
    for g in root.iter(NS + "g"):
        if g.get("class", "").split()[:1] == ["legend-entry"]:
            out.append("".join(t.text or "" for t in g.iter(NS + "text")))
    return out


def _screen_words(view) -> list[str]:
    """The words the screen's legend draws now (its rows as painted)."""
    return [row[2] for row in view.legend.placed_entries()]


def test_svg_has_the_legend_entries_when_shown_and_none_when_hidden(qtbot, view, tmp_path):
    view.set_legend_shown(True)
    qtbot.waitUntil(view.legend.isVisible)
    d = ExportDialog(view, view.session)
    qtbot.addWidget(d)
    assert d.legend_box.isChecked()  # defaults to what the screen shows
    d.set_format("svg")
    assert d.export_to(str(tmp_path / "shown.svg")) is not None, d.message.text()
    words = _screen_words(view)
    assert len(words) == 12 and legend_entries(tmp_path / "shown.svg") == words
    # the legend's group lies inside the picture (viewBox)
    root = ET.parse(tmp_path / "shown.svg").getroot()
    vx, vy, vw, vh = map(float, root.get("viewBox").split())
    legend = next(g for g in root.iter(NS + "g") if g.get("class") == "legend")
    tx, ty = map(float, legend.get("transform")[len("translate("):-1].split(","))
    assert vx <= tx and vy <= ty and tx + view.legend.width() <= vx + vw and ty + view.legend.height() <= vy + vh

    view.set_legend_shown(False)
    qtbot.waitUntil(lambda: not view.legend.isVisible())
    d2 = ExportDialog(view, view.session)
    qtbot.addWidget(d2)
    assert not d2.legend_box.isChecked()
    d2.set_format("svg")
    assert d2.export_to(str(tmp_path / "hidden.svg")) is not None
    assert legend_entries(tmp_path / "hidden.svg") == []
    assert 'class="legend"' not in (tmp_path / "hidden.svg").read_text(encoding="utf-8")
    # the scene is as before: no legend item left behind
    assert getattr(view.graph_scene(), "export_legend", None) is None
    assert not any(type(i).__name__ == "LegendItem" for i in view.graph_scene().items())


def test_visible_area_export_has_the_legend_where_the_screen_shows_it(qtbot, view, tmp_path):
    """Zoomed in, "Visible area only": the legend sits where the view shows it, at the screen's size."""
    view.set_legend_shown(True)
    qtbot.waitUntil(view.legend.isVisible)
    for _ in range(3):
        view.zoom_in()
    zoom = view.view.transform().m11()
    assert zoom > 1.2
    d = ExportDialog(view, view.session)
    qtbot.addWidget(d)
    d.set_format("svg")
    d.visible.setChecked(True)
    assert d.export_to(str(tmp_path / "part.svg")) is not None, d.message.text()
    root = ET.parse(tmp_path / "part.svg").getroot()
    legend = next(g for g in root.iter(NS + "g") if g.get("class") == "legend")
    move, size = legend.get("transform").split(" scale(")
    x, y = map(float, move[len("translate("):-1].split(","))
    v = view.view
    want = v.mapToScene(v.viewport().mapFrom(v, view.legend.pos()))
    assert abs(x - want.x()) < 0.5 and abs(y - want.y()) < 0.5
    assert abs(float(size.rstrip(")")) - 1 / zoom) < 1e-3
    assert len(legend_entries(tmp_path / "part.svg")) == 12


def test_raster_bounds_hold_the_legend_and_its_pixels(qtbot, view, tmp_path):
    from PIL import Image

    from autogradviz.app.export.legend_export import legend_shown

    scene = view.graph_scene()
    plain = ex.content_rect(scene)
    with legend_shown(scene, view.legend) as item:
        rect = ex.content_rect(scene)
        box = item.sceneBoundingRect()
        assert rect.contains(box) and box.height() == view.legend.height()
    assert rect.height() >= plain.height() + view.legend.height()
    a = ex.export_scene(scene, str(tmp_path / "a.png"), scale=2.0, legend=view.legend)
    b = ex.export_scene(scene, str(tmp_path / "b.png"), scale=2.0)
    assert a.height >= b.height + 2 * view.legend.height() - 2
    # the legend's rows are drawn (not background) at the top-left of the PNG
    img = Image.open(tmp_path / "a.png").convert("RGB")
    top = img.crop((0, 0, int(2 * (box.right() - rect.left())), int(2 * (box.bottom() - rect.top()))))
    assert len(set(top.get_flattened_data())) > 20
    # every GIF frame carries it: frames are taller by the legend, and its area is drawn in each
    trace = view.session.trace
    g1 = ex.export_scene(scene, str(tmp_path / "a.gif"), scale=1.0, trace=trace, legend=view.legend)
    g0 = ex.export_scene(scene, str(tmp_path / "b.gif"), scale=1.0, trace=trace)
    assert g1.height >= g0.height + view.legend.height() - 1
    gif = Image.open(tmp_path / "a.gif")
    for k in range(gif.n_frames):
        gif.seek(k)
        corner = gif.convert("RGB").crop((0, 0, int(box.right() - rect.left()), int(box.bottom() - rect.top())))
        assert len(set(corner.get_flattened_data())) > 10, f"frame {k} has no legend"


def test_web_page_and_pdf_carry_the_legend(qtbot, view, tmp_path):
    scene = view.graph_scene()
    trace = view.session.trace
    ex.export_scene(scene, str(tmp_path / "p.html"), trace=trace, legend=view.legend)
    page = (tmp_path / "p.html").read_text(encoding="utf-8")
    assert page.count('class="legend-entry') == 12
    assert all(w.replace("&", "&amp;").replace("<", "&lt;") in page for w in _screen_words(view))
    ex.export_scene(scene, str(tmp_path / "q.html"), trace=trace)
    assert "legend-entry" not in (tmp_path / "q.html").read_text(encoding="utf-8")
    a = ex.export_scene(scene, str(tmp_path / "a.pdf"), legend=view.legend)
    b = ex.export_scene(scene, str(tmp_path / "b.pdf"))
    assert a.height >= b.height + view.legend.height() - 1


def test_legend_words_in_simplified_chinese(qtbot, view, tmp_path):
    from autogradviz.app import i18n

    english = _screen_words(view)
    assert i18n.set_language("zh_CN", save=False)
    try:
        qtbot.waitUntil(lambda: _screen_words(view) != english, timeout=5_000)
        ex.export_scene(view.graph_scene(), str(tmp_path / "zh.svg"), legend=view.legend)
        got = legend_entries(tmp_path / "zh.svg")
        assert got == _screen_words(view)
        assert sum(any("\u4e00" <= ch <= "\u9fff" for ch in w) for w in got) >= 10
    finally:
        i18n.set_language("en", save=False)


def test_cli_draws_the_legend_only_with_the_flag(tmp_path):
    trace = S.trace_for(S.mlp(2))
    saved = tmp_path / "t.json"
    saved.write_text(trace.to_json(), encoding="utf-8")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    for flag, want in (([], 0), (["--legend"], 12)):
        out = tmp_path / f"g{len(flag)}.svg"
        p = subprocess.run([sys.executable, "-m", "autogradviz", "export", str(saved), "-o", str(out),
                            "--step", "1", *flag], capture_output=True, text=True, timeout=120, env=env)
        assert p.returncode == 0, p.stderr
        assert len(legend_entries(out)) == want

