"""A lesson leaves the app: slides (a folder, one picture per step), a PDF
handout (one page per step with its caption), and one self-contained web page
stepped in a real browser.

The browser is Debian's headless Chromium (.ci/run installs it); the test
skips, saying so, only where /usr/bin/chromium is missing. The page is
loaded from a file with a net log: it must make no network request, log no
console error, and stepping through it (the page's `#walk`: every step
shown in turn, the boxes the DOM highlights as current read back) must light
exactly the nodes the trace's steps ran, in order. A hostile trace (names
with `</script>`, `<img>`, newlines, `\\x01`, a lone surrogate, `"` and `&`)
adds no element to the page.
"""

from __future__ import annotations

import html.parser
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

LESSONS_DIR = Path(__file__).resolve().parents[2] / "resources" / "lessons"
LESSON1 = LESSONS_DIR / "01_leaf_vs_nonleaf.py"
CHROMIUM = "/usr/bin/chromium"
TIMEOUT = 240
EVIL = '</script><img src=x onerror=alert(1)></title><script>alert(2)</script>\n"&\x01\ud800'
EVIL_SCRIPT = f"""\
import torch
from torch import nn
model = nn.Sequential()
model.add_module({EVIL!r}, nn.Linear(3, 2))
model.add_module('c\\x01d', nn.Tanh())
x = torch.randn(4, 3, requires_grad=True)
h = model(x)
h.retain_grad()
loss = h.sum()
loss.backward()
"""


def _cli(*args) -> subprocess.CompletedProcess:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    return subprocess.run([sys.executable, "-m", "autogradviz", "export", *map(str, args)],
                          capture_output=True, text=True, timeout=TIMEOUT, env=env)


@pytest.fixture(scope="module")
def lesson1_trace(tmp_path_factory):
    """Lesson 1's trace from the real worker, saved (the CLI reads it back)."""
    folder = tmp_path_factory.mktemp("pages")
    out = folder / "lesson1.json"
    p = subprocess.run([sys.executable, "-m", "autogradviz", "trace", str(LESSON1), "-o", str(out)],
                       capture_output=True, text=True, timeout=TIMEOUT)
    assert p.returncode == 0, p.stderr
    from autogradviz.engine.trace.model import Trace

    return out, Trace.from_json(out.read_text(encoding="utf-8"))


def _steps(trace):
    from autogradviz.engine.trace import replay

    return replay.step_count(trace, 0)


def test_slides_folder_one_picture_per_step(lesson1_trace, tmp_path):
    saved, trace = lesson1_trace
    n = _steps(trace)
    for fmt in ("png", "svg"):
        folder = tmp_path / f"slides-{fmt}"
        p = _cli(saved, "-o", str(folder) + "/", "--steps", "all", "--format", fmt)
        assert p.returncode == 0, p.stderr
        files = sorted(os.listdir(folder))
        assert files == [f"step-{k:03d}.{fmt}" for k in range(1, n + 1)]
    # each SVG slide carries its caption under the picture
    text = (tmp_path / "slides-svg" / f"step-{n:03d}.svg").read_text(encoding="utf-8")
    assert f"Step {n} of {n}" in text and 'class="caption"' in text


@pytest.mark.skipif(shutil.which("pdftotext") is None,
                    reason="pdftotext (poppler-utils) is not installed: .ci/run installs it")
def test_handout_has_one_page_per_step_with_its_caption(lesson1_trace, tmp_path):
    saved, trace = lesson1_trace
    n = _steps(trace)
    out = tmp_path / "handout.pdf"
    p = _cli(saved, "-o", out, "--steps", "all")
    assert p.returncode == 0, p.stderr
    info = subprocess.run(["pdfinfo", str(out)], capture_output=True, text=True).stdout
    assert re.search(rf"^Pages:\s+{n}$", info, re.M), info
    from autogradviz.engine.trace import replay

    for k in range(1, n + 1):
        page = subprocess.run(["pdftotext", "-f", str(k), "-l", str(k), "-layout", str(out), "-"],
                              capture_output=True, text=True).stdout
        assert f"Step {k} of {n}:" in page
        node = next(nd for nd in trace.graph(trace.backward_runs[0].graph).nodes
                    if nd.id == replay.state_at(trace, 0, k).current)
        assert node.op in page
        if node.line is not None:  # the code, the step's line marked
            assert "\u25b6" in page and f"Made by line {node.line}" in page
    # in the UI language
    out_zh = tmp_path / "handout-zh.pdf"
    p = _cli(saved, "-o", out_zh, "--steps", "all", "--lang", "zh_CN")
    assert p.returncode == 0, p.stderr
    page = subprocess.run(["pdftotext", "-f", "1", "-l", "1", str(out_zh), "-"],
                          capture_output=True, text=True).stdout
    assert f"第 1 步" in page, page


def _chromium(page: Path, tmp_path: Path, hash_: str = "#walk") -> tuple[str, str, dict]:
    """(DOM after load, stderr, net log) of `page` in headless Chromium."""
    netlog = tmp_path / "net.json"
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           f"--user-data-dir={tmp_path / 'profile'}", "--enable-logging=stderr", "--v=0",
           f"--log-net-log={netlog}", "--dump-dom", page.as_uri() + hash_]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    log = json.loads(netlog.read_text(encoding="utf-8")) if netlog.exists() else {"events": []}
    return p.stdout, p.stderr, log


def _requests(log: dict) -> list[str]:
    """Every URL the page asked the network stack for (the browser's own
    service requests - clock, accounts - have no origin as initiator)."""
    urls = []
    for ev in log.get("events", []):
        params = ev.get("params") or {}
        if params.get("url") and "initiator" in params and params["initiator"] != "not an origin":
            urls.append(params["url"])
    return urls


def _console_errors(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines()
            if "CONSOLE" in line or "Uncaught" in line or "Refused to" in line]


class _Tags(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)


@pytest.mark.skipif(not os.path.exists(CHROMIUM),
                    reason="headless Chromium is not installed (/usr/bin/chromium): .ci/run installs it")
def test_web_page_in_chromium_steps_through_the_trace(lesson1_trace, tmp_path):
    from autogradviz.engine.trace import replay

    saved, trace = lesson1_trace
    page = tmp_path / "run.html"
    p = _cli(saved, "-o", page)
    assert p.returncode == 0, p.stderr
    text = page.read_text(encoding="utf-8")
    assert "<script src" not in text and "http://" not in text.replace("http://www.w3.org/2000/svg", "")
    dom, stderr, log = _chromium(page, tmp_path)
    assert _console_errors(stderr) == []
    assert [u for u in _requests(log) if not u.startswith("file:")] == []
    start = dom.index('<pre id="walk">') + len('<pre id="walk">')
    walked = json.loads(__import__("html").unescape(dom[start:dom.index("</pre>", start)]))
    n = _steps(trace)
    want = [replay.state_at(trace, 0, k).current or "" for k in range(n + 1)]
    assert walked == want
    # the page shows the callouts and gradient labels of the steps (as the scene placed them)
    assert "(retained)" in text and "y.grad" in text


@pytest.mark.skipif(not os.path.exists(CHROMIUM),
                    reason="headless Chromium is not installed (/usr/bin/chromium): .ci/run installs it")
def test_hostile_names_add_nothing_to_the_web_page(tmp_path):
    script = tmp_path / "evil.py"
    script.write_text(EVIL_SCRIPT, encoding="utf-8", errors="surrogatepass")
    page = tmp_path / "evil.html"
    p = _cli(script, "-o", page)
    assert p.returncode == 0, p.stderr
    text = page.read_text(encoding="utf-8")
    tags = _Tags()
    tags.feed(text)
    assert tags.tags.count("script") == 2 and "img" not in tags.tags
    dom, stderr, log = _chromium(page, tmp_path)
    assert _console_errors(stderr) == []
    assert [u for u in _requests(log) if not u.startswith("file:")] == []
    assert '<pre id="walk">' in dom
    assert "<img" not in dom


def _traced(tmp_path_factory, stem: str):
    folder = tmp_path_factory.mktemp(stem)
    out = folder / f"{stem}.json"
    p = subprocess.run([sys.executable, "-m", "autogradviz", "trace", str(LESSONS_DIR / f"{stem}.py"), "-o",
                        str(out)], capture_output=True, text=True, timeout=TIMEOUT)
    assert p.returncode == 0, p.stderr
    from autogradviz.engine.trace.model import Trace

    return out, Trace.from_json(out.read_text(encoding="utf-8"))


def _walked(dom: str, name: str):
    start = dom.index(f'<pre id="{name}">') + len(f'<pre id="{name}">')
    return json.loads(__import__("html").unescape(dom[start:dom.index("</pre>", start)]))


@pytest.mark.skipif(not os.path.exists(CHROMIUM),
                    reason="headless Chromium is not installed (/usr/bin/chromium): .ci/run installs it")
def test_checkpoint_page_lights_the_recompute_in_the_traced_order(tmp_path_factory, tmp_path):
    """Lesson 30 (non-reentrant checkpoint, stopped early): between the
    steps, the page's sub-steps light the region, then each re-run op's node
    in the order the trace recorded (`Recomputation.op_nodes`), then the node
    where torch stopped; the steps themselves still light the trace's nodes."""
    from autogradviz.engine.trace import replay

    saved, trace = _traced(tmp_path_factory, "30_checkpoint_mlp")
    (c,) = trace.checkpoints
    (r,) = [r for r in c.recomputations if r.run == 0]
    want = [n for n in r.op_nodes if n is not None]
    if r.early_stopped:  # the forward op after the last re-run one (docs/trace-format.md)
        want.append(c.forward_op_nodes[len(r.ops)])
    page = tmp_path / "ckpt.html"
    p = _cli(saved, "-o", page)
    assert p.returncode == 0, p.stderr
    dom, stderr, log = _chromium(page, tmp_path)
    assert _console_errors(stderr) == []
    assert [u for u in _requests(log) if not u.startswith("file:")] == []
    rerun = _walked(dom, "walk-rerun")
    assert [lit for lit, _ in rerun] == [""] + want  # the trigger frame first: nothing re-run yet
    assert {region for _, region in rerun} == {"overlay-0"}  # the region lit through the phase
    n = replay.step_count(trace, 0)
    assert _walked(dom, "walk") == [replay.state_at(trace, 0, k).current or "" for k in range(n + 1)]
    # the sub-steps come right after step r.step (the trigger has not run yet)
    text = page.read_text(encoding="utf-8")
    assert text.count('"f":1') == len(rerun)


@pytest.mark.skipif(not os.path.exists(CHROMIUM),
                    reason="headless Chromium is not installed (/usr/bin/chromium): .ci/run installs it")
def test_grad_scaler_page_shows_each_stage_at_its_step(tmp_path_factory, tmp_path):
    """Lesson 22, its second backward (the iteration whose gradients overflow):
    step 0 shows scale() with the recorded scale, every step of the run says
    backward of the scaled loss, then one position per later call of that
    iteration - step() skipped, update() backing the scale off - with the
    numbers the trace recorded."""
    from autogradviz.engine.trace import replay

    saved, trace = _traced(tmp_path_factory, "22_overflow_and_growth")
    run = next(i for i, r in enumerate(trace.backward_runs)
               if r.scaled_by is not None and any(e.skipped for e in trace.scaler_events
                                                  if e.iteration == trace.scaler_events[r.scaled_by].iteration))
    events = trace.scaler_events
    first = events[trace.backward_runs[run].scaled_by]
    later = [e for e in events[trace.backward_runs[run].scaled_by + 1:]
             if e.scaler == first.scaler and e.iteration == first.iteration]
    assert [e.call for e in later] == ["step", "update"] and later[0].skipped
    page = tmp_path / "scaler.html"
    p = _cli(saved, "-o", page, "--run", run)
    assert p.returncode == 0, p.stderr
    dom, stderr, log = _chromium(page, tmp_path)
    assert _console_errors(stderr) == []
    assert [u for u in _requests(log) if not u.startswith("file:")] == []
    said = _walked(dom, "walk-scaler")
    n = replay.step_count(trace, run)
    assert len(said) == n + 1 + len(later)
    assert f"{first.scaler}.scale(loss)" in said[0] and f"{first.scale_before:.6g}" in said[0]
    assert all("backward of the scaled loss" in s and f"{first.scale_before:.6g}" in s for s in said[1:n + 1])
    step_text, update_text = said[n + 1:]
    assert f"{first.scaler}.step(" in step_text and "skipped" in step_text
    assert f"{first.scaler}.update(" in update_text and "backs off" in update_text
    assert f"{later[1].scale_before:.6g} → {later[1].scale_after:.6g}" in update_text
    assert later[1].scale_after < later[1].scale_before
    # the backward steps in between light the trace's nodes, as for any run
    assert _walked(dom, "walk") == [replay.state_at(trace, run, k).current or "" for k in range(n + 1)]
