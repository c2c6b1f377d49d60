"""Export of every format (offscreen Qt), atomic writes, and `autogradviz export`.

GIF frame count: one frame per backward step (frame k: the state after step
k), so frames == steps.
"""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from autogradviz.engine.layout import LayoutOptions, layout_graph
import synthetic_graphs as S  # (tests/synthetic_graphs.py)

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def scene_and_trace(qapp):
    from autogradviz.app.graph.scene import GraphScene
    from autogradviz.app.graph.style import style_for

    g = S.transformer(1)
    trace = S.trace_for(g)
    layout = layout_graph(g, LayoutOptions(group="modules"))
    scene = GraphScene(None, style_for("light"))
    scene.set_graph(g, layout)
    yield scene, trace
    scene.clear()
    scene.deleteLater()


def _no_temp_left(folder):
    return [f for f in os.listdir(folder) if ".tmp" in f] == []


def test_png(scene_and_trace, tmp_path):
    from autogradviz.app.export import render as ex

    scene, _ = scene_and_trace
    out = tmp_path / "g.png"
    info = ex.export_scene(scene, str(out), scale=1.5)
    data = out.read_bytes()
    assert data[:8] == PNG_MAGIC
    from PIL import Image
    im = Image.open(out)
    assert im.size == (info.width, info.height)
    r = ex.content_rect(scene)
    assert abs(im.size[0] - r.width() * 1.5) <= 2
    assert _no_temp_left(tmp_path)


def test_svg_parses(scene_and_trace, tmp_path):
    from autogradviz.app.export import render as ex

    scene, _ = scene_and_trace
    out = tmp_path / "g.svg"
    ex.export_scene(scene, str(out))
    root = ET.parse(out).getroot()
    assert root.tag.endswith("svg")
    text = out.read_text(encoding="utf-8")
    # the boxes' text is in the SVG (readable, searchable)
    assert "AddmmBackward0" in text and "loss" in text
    assert _no_temp_left(tmp_path)


def test_svg_hover_titles_are_in_the_ui_language(scene_and_trace, tmp_path):
    from autogradviz.app import i18n
    from autogradviz.app.export import render as ex

    scene, _ = scene_and_trace
    out = tmp_path / "g.svg"

    def titles():
        ex.export_scene(scene, str(out))
        root = ET.parse(out).getroot()
        return [t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}title")]

    english = titles()
    assert any(t.startswith("op: AddmmBackward0") for t in english)
    assert any("backward starts here" in t for t in english)
    try:
        i18n.set_language("zh_CN", save=False)
        chinese = titles()
    finally:
        i18n.set_language("en", save=False)
    assert any(t.startswith("运算：AddmmBackward0") for t in chinese)
    assert any("反向传播从这里开始" in t for t in chinese)
    assert not any(t.startswith("op: ") for t in chinese)


def test_pdf(scene_and_trace, tmp_path):
    from autogradviz.app.export import render as ex

    scene, _ = scene_and_trace
    out = tmp_path / "g.pdf"
    ex.export_scene(scene, str(out))
    data = out.read_bytes()
    assert data.startswith(b"%PDF-") and b"%%EOF" in data[-64:]


def test_dot(scene_and_trace, tmp_path):
    from autogradviz.app.export import render as ex

    scene, _ = scene_and_trace
    out = tmp_path / "g.dot"
    ex.export_scene(scene, str(out))
    text = out.read_text()
    assert text.count("->") == len(scene.layout.edges)
    # valid DOT: Graphviz (wasm) reads it back
    from autogradviz.engine.layout.graphviz_backend import run_dot
    assert run_dot(text, "json0", 30)


def test_gif_one_frame_per_state(scene_and_trace, tmp_path):
    from PIL import Image

    from autogradviz.app.export import render as ex
    from autogradviz.engine.trace import replay

    scene, trace = scene_and_trace
    out = tmp_path / "run.gif"
    seen = []
    info = ex.export_scene(scene, str(out), trace=trace, run_index=0,
                           progress=lambda k, n: seen.append((k, n)))
    assert out.read_bytes()[:6] == b"GIF89a"
    n = replay.step_count(trace, 0)
    im = Image.open(out)
    assert n > 5 and im.n_frames == n == info.frames
    assert seen[-1] == (n, n)
    # each frame differs from the next: step k's highlight moves on
    frames = []
    for k in range(im.n_frames):
        im.seek(k)
        frames.append(im.convert("RGB").tobytes())
    assert all(a != b for a, b in zip(frames, frames[1:]))
    # the scene is back in its previous (plain) state
    assert scene.state is None


def test_visible_rect_only(scene_and_trace, tmp_path):
    from PySide6.QtCore import QRectF

    from autogradviz.app.export import render as ex

    scene, _ = scene_and_trace
    out = tmp_path / "part.png"
    info = ex.export_scene(scene, str(out), rect=QRectF(0, 0, 200, 100), scale=1.0)
    assert (info.width, info.height) == (200, 100)


def test_current_step_state_is_exported(scene_and_trace, tmp_path):
    from autogradviz.app.export import render as ex
    from autogradviz.engine.trace import replay

    scene, trace = scene_and_trace
    plain = tmp_path / "plain.svg"
    ex.export_scene(scene, str(plain))
    scene.apply_step(replay.state_at(trace, 0, 3))
    stepped = tmp_path / "step.svg"
    ex.export_scene(scene, str(stepped))
    assert plain.read_bytes() != stepped.read_bytes()


def test_unwritable_path_is_a_clear_error(scene_and_trace, tmp_path):
    from autogradviz.app.export import render as ex

    scene, _ = scene_and_trace
    with pytest.raises(ex.ExportError, match="does not exist"):
        ex.export_scene(scene, str(tmp_path / "missing" / "g.svg"))
    with pytest.raises(ex.ExportError, match="directory"):
        ex.export_scene(scene, str(tmp_path), "svg")
    with pytest.raises(ex.ExportError, match="cannot write"):
        ex.export_scene(scene, "/proc/autogradviz-test.png")
    if os.geteuid() != 0:
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(0o500)
        try:
            with pytest.raises(ex.ExportError, match="permission"):
                ex.export_scene(scene, str(ro / "g.png"))
        finally:
            ro.chmod(0o700)
    with pytest.raises(ex.ExportError, match="unsupported"):
        ex.export_scene(scene, str(tmp_path / "g.bmp"))


@pytest.mark.parametrize("exc", [RuntimeError("renderer broke"), KeyboardInterrupt()])
def test_atomic_write_on_failure(scene_and_trace, tmp_path, monkeypatch, exc):
    """An error or Ctrl+C while rendering: the old file is intact, no temp left."""
    from autogradviz.app.export import render as ex

    scene, _ = scene_and_trace
    out = tmp_path / "g.svg"
    out.write_text("old")

    def boom(*a, **k):
        raise exc

    monkeypatch.setattr(scene, "render", boom)
    # (SVG is written from the scene's items, not rendered: fail its writer the same way)
    from autogradviz.app.export import scene_svg
    monkeypatch.setattr(scene_svg, "scene_svg", boom)
    with pytest.raises(type(exc)):
        ex.export_scene(scene, str(out))
    assert out.read_text() == "old"
    assert _no_temp_left(tmp_path)


def test_dark_theme(qapp, tmp_path):
    from autogradviz.app.export import render as ex
    from autogradviz.app.graph.scene import GraphScene
    from autogradviz.app.graph.style import style_for

    g = S.mlp(2)
    scene = GraphScene(None, style_for("dark"))
    scene.set_graph(g, layout_graph(g))
    out = tmp_path / "d.png"
    ex.export_scene(scene, str(out), scale=1.0)
    from PIL import Image
    px = Image.open(out).convert("RGB").getpixel((2, 2))
    assert sum(px) < 200  # dark background


# -- the command line -----------------------------------------------------------------------
def _env(extra_env=None, unset=()):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    env.pop("DISPLAY", None)
    for k in unset:
        env.pop(k, None)
    env.update(extra_env or {})
    return env


def _cli(args, extra_env=None, unset=(), command="export", **kw):
    return subprocess.run([sys.executable, "-m", "autogradviz", command, *args],
                          capture_output=True, text=True, env=_env(extra_env, unset), timeout=240, **kw)


def _two_run_trace():
    """A trace with two backward runs over two different graphs (an MLP of
    two layers, then one of three)."""
    first = S.trace_for(S.mlp(2))
    g2 = S.mlp(3)
    g2.id = "g1"
    second = S.trace_for(g2)
    run = second.backward_runs[0]
    run.index = 1
    first.graphs.append(g2)
    first.backward_runs.append(run)
    first.backward_calls = 2
    return first


def test_cli_run_step_theme_group_options(tmp_path):
    from PIL import Image

    tr = tmp_path / "two.json"
    tr.write_text(_two_run_trace().to_json())

    def svg(*args):
        out = tmp_path / "o.svg"
        p = _cli([str(tr), "-o", str(out), *args])
        assert p.returncode == 0, p.stderr
        return out.read_text(encoding="utf-8")

    first, second = svg("--run", "0"), svg("--run", "1")
    assert "fc2" not in first and "fc2" in second  # --run picks the run's graph
    assert svg() == first  # default: the first run
    assert svg("--run", "1", "--step", "3") != second  # the state after 3 steps
    assert "(Linear)" in svg("--group", "modules")  # module frames, titled
    assert "(Linear)" not in svg("--group", "none")
    for theme, dark in (("dark", True), ("light", False)):
        out = tmp_path / f"{theme}.png"
        p = _cli([str(tr), "-o", str(out), "--theme", theme, "--scale", "1"])
        assert p.returncode == 0, p.stderr
        px = Image.open(out).convert("RGB").getpixel((2, 2))
        assert (sum(px) < 200) == dark
    p = _cli([str(tr), "-o", str(tmp_path / "x.svg"), "--run", "2"])
    assert p.returncode == 2 and "--run 2" in p.stderr and "(0..1)" in p.stderr
    p = _cli([str(tr), "-o", str(tmp_path / "x.svg"), "--theme", "blue"])
    assert p.returncode == 2 and "invalid choice" in p.stderr
    assert not (tmp_path / "x.svg").exists()


def _message(stderr: str, command: str) -> list[str]:
    """The error lines, without the `autogradviz COMMAND: ` prefix."""
    prefix = f"autogradviz {command}: "
    return [line[len(prefix):] for line in stderr.splitlines()
            if line.startswith(prefix) and " note: " not in line and "timing:" not in line]


@pytest.mark.parametrize("case", ["raises", "missing", "directory", "not utf-8", "bad timeout"])
def test_cli_exit_codes_and_messages_match_trace(tmp_path, case):
    """`autogradviz export` answers like `autogradviz trace`: 0 ok, 1 the
    script raised (the graph built before is still written), 2 usage or an
    unreadable file - with the same one-line message."""
    script = tmp_path / "s.py"
    extra = []
    if case == "raises":
        script.write_text("import torch\nx = torch.ones(2, requires_grad=True)\n"
                          "(x * 2).sum().backward()\nraise ValueError('boom')\n")
        code = 1
    elif case == "missing":
        code = 2
    elif case == "directory":
        script.mkdir()
        code = 2
    elif case == "not utf-8":
        script.write_bytes(b"x = '\xff\xfe'\n")
        code = 2
    else:
        script.write_text("x = 1\n")
        extra = ["--timeout", "-3"]
        code = 2
    t = _cli([str(script), "-o", str(tmp_path / "t.json"), *extra], command="trace")
    e = _cli([str(script), "-o", str(tmp_path / "e.svg"), *extra])
    assert t.returncode == e.returncode == code, (t.stderr, e.stderr)
    if case == "bad timeout":  # argparse's line names the option in both
        assert "--timeout" in t.stderr and "--timeout" in e.stderr
        return
    assert _message(t.stderr, "trace") == _message(e.stderr, "export")
    assert len(_message(e.stderr, "export")) == 1
    assert (tmp_path / "e.svg").exists() == (case == "raises")


def test_cli_ctrl_c_leaves_no_file(tmp_path):
    """Ctrl+C while the script runs: exit 130, no output, no temporary file."""
    import signal
    import time

    marker = tmp_path / "running"
    script = tmp_path / "slow.py"
    script.write_text(f"import time\nopen({str(marker)!r}, 'w').close()\ntime.sleep(60)\n")
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    out = out_dir / "o.png"
    proc = subprocess.Popen([sys.executable, "-m", "autogradviz", "export", str(script), "-o", str(out)],
                            stderr=subprocess.PIPE, text=True, env=_env(),
                            # Ctrl+C's default, as from a terminal (not what this process may have)
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 120
        while not marker.exists() and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        assert marker.exists(), "the script never started"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert "interrupted" in err
    assert os.listdir(out_dir) == []


def test_cli_unwritable_path_is_one_clear_line(tmp_path):
    tr = tmp_path / "t.json"
    tr.write_text(S.trace_for(S.mlp(2)).to_json())
    afile = tmp_path / "afile"
    afile.write_text("x")
    (tmp_path / "dir.svg").mkdir()
    for target, words in ((str(afile / "o.svg"), "does not exist"),
                          (str(tmp_path / "dir.svg"), "directory"),
                          ("/proc/autogradviz-test.svg", "cannot write")):
        p = _cli([str(tr), "-o", target])
        assert p.returncode == 2, p.stderr
        lines = _message(p.stderr, "export")
        assert len(lines) == 1 and words in lines[0] and "cannot write" in lines[0], p.stderr


def test_cli_exports_saved_trace_every_format(tmp_path):
    """A saved trace.json instead of a script; each format is a valid file of
    its kind: the SVG parses (with the boxes' text), PNG/PDF/GIF headers,
    Graphviz reads the DOT back, the GIF has one frame per step."""
    from PIL import Image

    from autogradviz.engine.layout.graphviz_backend import run_dot

    trace = S.trace_for(S.mlp(2))
    steps = len(trace.backward_runs[0].steps)
    tr = tmp_path / "t.json"
    tr.write_text(trace.to_json())
    for fmt in ("svg", "png", "pdf", "dot", "gif"):
        out = tmp_path / f"o.{fmt}"
        p = _cli([str(tr), "-o", str(out), "--theme", "dark"])
        assert p.returncode == 0, p.stderr
        assert f"wrote {out}" in p.stderr
        assert _no_temp_left(tmp_path)
    root = ET.parse(tmp_path / "o.svg").getroot()
    assert root.tag.endswith("svg")
    assert "AddmmBackward0" in (tmp_path / "o.svg").read_text(encoding="utf-8")
    assert (tmp_path / "o.png").read_bytes()[:8] == PNG_MAGIC
    assert Image.open(tmp_path / "o.png").size[0] > 50
    pdf = (tmp_path / "o.pdf").read_bytes()
    assert pdf.startswith(b"%PDF-") and b"%%EOF" in pdf[-64:]
    dot = (tmp_path / "o.dot").read_text(encoding="utf-8")
    assert dot.count("->") > 0 and run_dot(dot, "json0", 30)
    gif = tmp_path / "o.gif"
    assert gif.read_bytes()[:6] == b"GIF89a"
    assert Image.open(gif).n_frames == steps


def test_gif_frames_equal_steps_when_steps_look_alike(qapp, tmp_path):
    """Inside a collapsed group consecutive steps light up the same box; the
    GIF writer would merge such frames, the step caption keeps them apart."""
    from PIL import Image

    from autogradviz.app.export import render as ex
    from autogradviz.app.graph.scene import GraphScene
    from autogradviz.app.graph.style import style_for
    from autogradviz.engine.trace import replay

    g = S.transformer(2)
    trace = S.trace_for(g)
    layout = layout_graph(g, LayoutOptions(group="modules", collapsed={"encoder.layers.0",
                                                                       "encoder.layers.1"}))
    assert len(layout.boxes) < len(g.nodes) / 2
    scene = GraphScene(None, style_for("light"))
    scene.set_graph(g, layout)
    out = tmp_path / "c.gif"
    info = ex.export_scene(scene, str(out), trace=trace, run_index=0)
    n = replay.step_count(trace, 0)
    assert Image.open(out).n_frames == n == info.frames
    scene.clear()
    scene.deleteLater()


def test_cli_export_without_system_dot(tmp_path):
    """No Graphviz program anywhere on PATH: the wasm Graphviz lays it out."""
    tr = tmp_path / "t.json"
    tr.write_text(S.trace_for(S.transformer(1)).to_json())
    out = tmp_path / "o.svg"
    env = {"PATH": str(tmp_path / "empty-bin")}
    p = _cli([str(tr), "-o", str(out), "--layout", "graphviz"], extra_env=env,
             unset=["AUTOGRADVIZ_GRAPHVIZ"])
    assert p.returncode == 0, p.stderr
    assert "layered" not in p.stderr  # no fallback: Graphviz itself ran
    ET.parse(out)


def test_cli_errors(tmp_path):
    tr = tmp_path / "t.json"
    tr.write_text(S.trace_for(S.mlp(2)).to_json())
    p = _cli([str(tr), "-o", str(tmp_path / "nope" / "o.svg")])
    assert p.returncode == 2 and "does not exist" in p.stderr
    p = _cli([str(tr), "-o", str(tmp_path / "o.xyz")])
    assert p.returncode == 2 and "format" in p.stderr
    p = _cli([str(tmp_path / "missing.json"), "-o", str(tmp_path / "o.svg")])
    assert p.returncode == 2 and "no such file" in p.stderr
    p = _cli([str(tr), "-o", str(tmp_path / "o.svg"), "--run", "5"])
    assert p.returncode == 2 and "--run" in p.stderr
    assert not (tmp_path / "o.svg").exists()
    assert p.stderr.count("\n") == 1  # one clear line


SCRIPT = """
import torch
import torch.nn as nn
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
x = torch.randn(3, 4)
loss = model(x).pow(2).mean()
loss.backward()
"""


def test_cli_script_end_to_end_through_worker(tmp_path):
    script = tmp_path / "mlp.py"
    script.write_text(SCRIPT)
    out = tmp_path / "mlp.svg"
    p = _cli([str(script), "-o", str(out), "--step", "2", "--timeout", "120"])
    assert p.returncode == 0, p.stderr
    root = ET.parse(out).getroot()
    assert root.tag.endswith("svg")
    text = out.read_text()
    assert "Backward" in text


def test_cli_script_error_exit_code_like_trace(tmp_path):
    script = tmp_path / "bad.py"
    script.write_text("import torch\nx = torch.ones(2, requires_grad=True)\n(x * 2).sum().backward()\n"
                      "raise ValueError('boom')\n")
    out = tmp_path / "bad.svg"
    p = _cli([str(script), "-o", str(out), "--timeout", "120"])
    assert p.returncode == 1
    assert "ValueError" in p.stderr and "boom" in p.stderr
    # the graph built before the error is still exported
    assert out.exists()
    p = _cli([str(tmp_path / "missing.py"), "-o", str(out)])
    assert p.returncode == 2 and "no such file" in p.stderr


def test_long_runs_are_sampled(scene_and_trace, tmp_path):
    from PIL import Image

    from autogradviz.app.export import render as ex
    from autogradviz.engine.trace import replay

    scene, trace = scene_and_trace
    n = replay.step_count(trace, 0)
    out = tmp_path / "s.gif"
    info = ex.write_gif(scene, trace, 0, str(out), max_frames=5)
    assert Image.open(out).n_frames == 5 == info.frames
    assert str(n) in info.notes[0]


def test_only_gif_and_step_exports_ask_the_worker_for_steps():
    import argparse

    from autogradviz.app.cli.export_command import _needs_steps, add_export_arguments

    parser = argparse.ArgumentParser()
    add_export_arguments(parser)
    need = lambda *argv: _needs_steps(parser.parse_args(list(argv)))  # noqa: E731
    assert not need("s.py", "-o", "g.svg")
    assert not need("s.py", "-o", "g.png", "--run", "1")
    assert need("s.py", "-o", "g.svg", "--step", "3")
    assert need("s.py", "-o", "steps.gif")
    assert need("s.py", "-o", "anim.out", "--format", "gif")
