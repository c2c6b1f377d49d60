"""The Export dialog on a real GraphView: every format, visible area, the
current step, GIF progress and cancel, errors shown in the dialog."""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET

import pytest

from autogradviz.app.export.dialog import ExportDialog
import synthetic_graphs as S  # (tests/synthetic_graphs.py)
from test_graph_support import shown_view, stop_view


@pytest.fixture
def view(qtbot):
    v = shown_view(qtbot, S.trace_for(S.mlp(3)), 800, 600)
    yield v
    stop_view(qtbot, v)


@pytest.fixture
def dialog(qtbot, view):
    d = ExportDialog(view, view.session)
    qtbot.addWidget(d)
    return d


@pytest.mark.parametrize("fmt", ["png", "svg", "pdf", "dot"])
def test_each_format(dialog, tmp_path, fmt):
    dialog.set_format(fmt)
    path = str(tmp_path / f"g.{fmt}")
    info = dialog.export_to(path)
    assert info is not None, dialog.message.text()
    assert os.path.getsize(path) > 0
    assert path in dialog.message.text()
    if fmt == "svg":
        ET.parse(path)


def test_visible_area_is_smaller(dialog, view, tmp_path):
    dialog.set_format("png")
    dialog.scale_box.setValue(1.0)
    whole = dialog.export_to(str(tmp_path / "whole.png"))
    view.zoom_in()
    view.zoom_in()
    view.zoom_in()
    dialog.visible.setChecked(True)
    part = dialog.export_to(str(tmp_path / "part.png"))
    r = view.visible_scene_rect()
    assert (part.width, part.height) == (round(r.width()), round(r.height()))
    assert part.width * part.height < whole.width * whole.height * 4


def test_gif_of_current_run(qtbot, dialog, view, tmp_path):
    from PIL import Image

    view.session.set_step(2)
    dialog.set_format("gif")
    assert "frames" in dialog.state_label.text()
    path = str(tmp_path / "run.gif")
    info = dialog.export_to(path)
    assert info is not None, dialog.message.text()
    n = len(view.session.trace.backward_runs[0].steps)
    assert Image.open(path).n_frames == n  # one frame per step
    # the view still shows the step the user was on
    assert view.graph_scene().state is not None and view.graph_scene().state.step == 2


def test_gif_cancel_leaves_nothing(qtbot, dialog, tmp_path, monkeypatch):
    from autogradviz.app.export import render as ex

    dialog.set_format("gif")
    orig = ex.render_image
    calls = {"n": 0}

    def slow(*a, **k):
        calls["n"] += 1
        if calls["n"] == 2:
            dialog._on_cancel()  # as if the user pressed Cancel mid-way
        return orig(*a, **k)

    monkeypatch.setattr(ex, "render_image", slow)
    path = tmp_path / "run.gif"
    assert dialog.export_to(str(path)) is None
    assert "cancel" in dialog.message.text().lower()
    assert not path.exists()
    assert os.listdir(tmp_path) == []


def test_errors_in_the_dialog(dialog, tmp_path):
    dialog.set_format("svg")
    assert dialog.export_to(str(tmp_path / "missing" / "g.svg")) is None
    assert "does not exist" in dialog.message.text()
    assert dialog.export_to("") is None


def test_format_switch_updates_extension(dialog, tmp_path):
    dialog.path_edit.setText(str(tmp_path / "x.png"))
    dialog.set_format("pdf")
    assert dialog.path_edit.text().endswith("x.pdf")
    assert not dialog.scale_box.isEnabled()


def test_web_page_handout_and_slides_from_the_dialog(qtbot, dialog, view, tmp_path):
    """File > Export: the web page, the PDF handout (one page per step) and a
    folder of slides with captions, all of the current backward run."""
    n = len(view.session.trace.backward_runs[view.session.run_index].steps)
    dialog.set_format("html")
    info = dialog.export_to(str(tmp_path / "run.html"))
    assert info is not None, dialog.message.text()
    text = (tmp_path / "run.html").read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and '<script type="application/json" id="steps">' in text
    dialog.set_format("pdf")
    dialog.every_step.setChecked(True)
    info = dialog.export_to(str(tmp_path / "handout.pdf"))
    assert info is not None and info.frames == n, dialog.message.text()
    assert (tmp_path / "handout.pdf").read_bytes().startswith(b"%PDF")
    dialog.set_format("svg")
    dialog.caption.setChecked(True)
    info = dialog.export_to(str(tmp_path / "slides.svg"))
    assert info is not None, dialog.message.text()
    files = sorted(os.listdir(tmp_path / "slides"))
    assert len(files) == n and files[0] == "step-001.svg"
    assert 'class="caption"' in (tmp_path / "slides" / files[-1]).read_text(encoding="utf-8")
