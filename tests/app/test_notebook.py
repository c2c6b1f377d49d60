"""The Python API in notebooks: `run.show()` (app/notebook/page.py), the
`%%autogradviz` cell magic in a real Jupyter kernel (nbclient + ipykernel,
the `notebook` extra), PNG/PDF of `make_dot`, and `import autogradviz`
staying free of Qt.

The notebook's cell output must hold the exports issue's page, embedded in
an iframe's srcdoc (escaped, so its script runs in the notebook), and the
page's stepping data must be the trace's: one entry per step, and at step k
the box marked "current" is the node the engine ran at step k.
"""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys

import pytest
import torch

import autogradviz
from autogradviz.engine.layout.svg_export import _id
from autogradviz.engine.trace import codec, replay

_SRCDOC = re.compile(r'<iframe srcdoc="([^"]*)" sandbox="allow-scripts"')
_STEPS = re.compile(r'<script type="application/json" id="steps">(.*?)</script>', re.S)


def page_of(output_html: str) -> str:
    m = _SRCDOC.search(output_html)
    assert m is not None, output_html[:300]
    return html.unescape(m.group(1))


def check_steps_match(page: str, trace, run: int = 0) -> int:
    """The page's step data against the trace; returns the number of steps."""
    data = json.loads(_STEPS.search(page).group(1))
    steps = trace.backward_runs[run].steps
    assert len(data["steps"]) == replay.step_count(trace, run) + 1 == len(steps) + 1
    classes: dict = {}
    for k, entry in enumerate(data["steps"]):
        classes.update(entry["c"])
        current = {i for i, c in classes.items() if "current" in c.split()}
        if k == 0:
            continue
        box = _id("node-", steps[k - 1].node)
        assert any(i == box or i.startswith(box + "_") for i in current), (k, steps[k - 1].node, current)
    return len(steps)


def test_show_embeds_the_stepper_page_escaped_in_an_iframe(qapp):
    w = torch.tensor([0.5, -1.0], requires_grad=True)
    with autogradviz.record() as run:
        evil = w * 2  # a name with markup in the page: escaped, never markup
        evil.retain_grad()
        (evil.tanh() * 3).sum().backward()
    shown = run.show()
    out = shown._repr_html_()
    assert out.startswith("<iframe srcdoc=\"") and out.count("<script") == 0  # (all of the page is escaped)
    page = page_of(out)
    assert page == shown.html and page.startswith("<!DOCTYPE html>")
    assert "<script>" in page and "<svg" in page
    assert check_steps_match(page, run.trace) >= 3


def test_make_dot_paints_png_and_pdf_with_the_app(qapp, tmp_path):
    x = torch.randn(2, 3)
    lin = torch.nn.Linear(3, 1)
    d = autogradviz.make_dot(lin(x).sum(), params=dict(lin.named_parameters()))
    out = d.render(str(tmp_path / "pic"), format="png", cleanup=True)
    assert open(out, "rb").read(8) == b"\x89PNG\r\n\x1a\n" and not (tmp_path / "pic").exists()
    out = d.render(str(tmp_path / "pic"), format="pdf")
    assert open(out, "rb").read(5) == b"%PDF-"


def _no_display_env() -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    return env


def test_import_autogradviz_imports_no_qt():
    code = ("import sys, autogradviz\n"
            "ok = callable(autogradviz.record), callable(autogradviz.make_dot), "
            "callable(autogradviz.load_ipython_extension)\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'shiboken6', 'torch')))\n"
            "print(*ok)")
    out = subprocess.run([sys.executable, "-c", code], env=_no_display_env(), capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:2] == ["[]", "True True True"]


NOTEBOOK_CELLS = [
    "%load_ext autogradviz",
    "%%autogradviz\n"
    "import torch\n"
    "torch.manual_seed(0)\n"
    "layer = torch.nn.Linear(3, 2)\n"
    "x = torch.randn(4, 3)\n"
    "loss = layer(x).relu().pow(2).mean()\n"
    "loss.backward()\n"
    "print('grad', layer.bias.grad.tolist())",
    "import sys\n"
    "_autogradviz_run.save(TRACE_PATH)\n"
    "print('qt', 'PySide6' in sys.modules, 'probes off', __import__('torch').Tensor.backward.__module__)",
]


def test_the_cell_magic_records_a_cell_and_shows_the_stepper_in_a_real_kernel(tmp_path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    trace_path = tmp_path / "cell.json"
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c.replace("TRACE_PATH", repr(str(trace_path))))
                for c in NOTEBOOK_CELLS]
    env = _no_display_env()  # (a kernel without a display; Qt goes offscreen by itself)
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {
        "path": str(tmp_path)}})
    client.execute(env=env)
    outputs = nb.cells[1].outputs
    texts = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert "grad [" in texts
    shown = [o for o in outputs if o.output_type == "display_data"]
    assert len(shown) == 1 and "text/html" in shown[0].data, outputs
    page = page_of(shown[0].data["text/html"])
    trace = codec.decode_trace(trace_path.read_bytes())
    assert trace.error is None and len(trace.backward_runs) == 1
    # the lines are the cell's: the node of `loss = ...` says line 5 and its code
    by_op = {n.op: n for n in trace.graphs[0].nodes}
    assert by_op["MeanBackward0"].line == 5 and by_op["MeanBackward0"].code.startswith("loss = layer(x)")
    assert check_steps_match(page, trace) >= 5
    last = "".join(o.get("text", "") for o in nb.cells[2].outputs if o.output_type == "stream")
    assert "qt True" in last and "probes off torch._tensor" in last


NO_QT = """
import sys, importlib.abc
class NoQt(importlib.abc.MetaPathFinder):  # (as if PySide6 were not installed)
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("PySide6", "shiboken6"):
            raise ModuleNotFoundError("No module named " + repr(name), name=name)
sys.meta_path.insert(0, NoQt())
from IPython.core.interactiveshell import InteractiveShell
ip = InteractiveShell.instance()
ip.run_line_magic("load_ext", "autogradviz")
ip.run_cell_magic("autogradviz", "", "import torch\\nw = torch.ones(2, requires_grad=True)\\n(w * 3).sum().backward()\\n")
run = ip.user_ns["_autogradviz_run"]
print("steps", len(run.trace.backward_runs[0].steps), "qt", "PySide6" in sys.modules)
"""


def test_a_notebook_without_qt_records_and_says_why_there_is_no_page():
    pytest.importorskip("IPython")
    out = subprocess.run([sys.executable, "-c", NO_QT], env=_no_display_env(),
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "steps 3 qt False" in out.stdout, out.stdout + out.stderr[-2000:]
    assert "drawn with Qt, which is missing here" in out.stderr
