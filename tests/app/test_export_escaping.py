"""Names from a script are text in every export format, never markup or statements.

A script (run by the real worker) registers modules and binds variables whose
names hold `</title><script>`, a newline with DOT statements (URL=javascript:,
image=/etc/passwd), `\\x01`, a lone surrogate, `"` and `&`. Exported to DOT,
SVG, PNG and PDF with both layouts (Graphviz and layered): nothing fails, the
SVG is well-formed XML with no <script> and no link or file attribute, the DOT
reads back in Graphviz and holds the names only inside quoted strings. Before,
the DOT gained the attacker's node, `\\x01` broke the Graphviz layout and the
SVG, and the surrogate failed every export (engine/layout/escape.py).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from autogradviz.engine.layout.escape import clean, dot_string, xml_text

NAME = '</title><script>alert(1)</script>\n"&\x01\ud800'
INJECT = 'a\n  x [label="INJ", URL="javascript:alert(1)", image="/etc/passwd"];\n  //'
SCRIPT = f"""\
import torch
from torch import nn
NAME = {NAME!r}
model = nn.Sequential()
model.add_module({INJECT!r}, nn.Linear(3, 2))
model.add_module(NAME, nn.Tanh())
model.add_module('c\\x01d', nn.Linear(2, 2))
model.add_module('s\\ud800t', nn.Linear(2, 2))
model.add_module('q"u&o', nn.Linear(2, 2))
x = torch.randn(4, 3, requires_grad=True)
h = model(x)
globals()['v' + NAME] = h
loss = h.sum()
loss.backward()
"""
# What must never appear outside a quoted DOT string / as XML markup.
FRAGMENTS = ("INJ", "javascript", "passwd", "script", "alert", "&", "\x01")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
TIMEOUT = 180


def _cli(*args) -> subprocess.CompletedProcess:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    return subprocess.run([sys.executable, "-m", "autogradviz", *map(str, args)], capture_output=True,
                          text=True, timeout=TIMEOUT, env=env)


@pytest.fixture(scope="module")
def evil_trace(tmp_path_factory):
    """The trace of SCRIPT, recorded by the real worker."""
    folder = tmp_path_factory.mktemp("escaping")
    script = folder / "evil.py"
    script.write_text(SCRIPT, encoding="utf-8", errors="surrogatepass")
    out = folder / "evil.json"
    p = _cli("trace", script, "-o", out)
    assert p.returncode == 0, p.stderr
    return script, out


def _check_svg(data: bytes) -> None:
    root = ET.fromstring(data)  # well-formed XML 1.0 (a raw \x01 or surrogate would not parse)
    tags = {el.tag.rsplit("}", 1)[-1].lower() for el in root.iter()}
    assert "script" not in tags and "a" not in tags and "image" not in tags and "foreignobject" not in tags
    for el in root.iter():
        for attr in el.attrib:
            assert attr.rsplit("}", 1)[-1].lower() not in ("href", "url", "image", "src"), (el.tag, attr)
        for name, value in el.attrib.items():
            assert not name.lower().startswith("on"), (el.tag, name)
    text = " ".join(t for el in root.iter() for t in (el.text, el.tail) if t)
    # The names are there, as text: the markup is visible, the control character as ␁.
    assert "</title><script>alert(1)</script>" in text and "\u2401" in text and '"&' in text
    assert 'URL="javascript:alert(1)"' in text


def _check_dot(text: str) -> None:
    from autogradviz.engine.layout.graphviz_backend import run_dot

    text.encode("utf-8")  # no lone surrogate
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f]", text)
    outside = re.sub(r'"(?:[^"\\]|\\.)*"', '""', text)
    for fragment in FRAGMENTS:
        assert fragment not in outside, (fragment, outside)
    assert "[label=\\\"INJ\\\"" in text  # the name itself is kept, quoted
    laid_out = json.loads(run_dot(text, "json0", 60).decode("utf-8"))  # Graphviz reads it
    # Graphviz sees exactly the boxes we declared: no node "x" made by a name.
    names = {o.get("name") for o in laid_out.get("objects", []) if "nodes" not in o}
    assert names == set(re.findall(r'^  "([^"\\]*)" \[', text, re.M)) and "x" not in names
    for obj in laid_out.get("objects", []) + laid_out.get("edges", []):
        assert not {k.lower() for k in obj} & {"url", "href", "image"}, obj
    assert not any(o.get("name") == "x" and "INJ" in o.get("label", "") for o in laid_out.get("objects", []))


@pytest.mark.parametrize("layout", ["graphviz", "layered"])
@pytest.mark.parametrize("fmt", ["dot", "svg", "png", "pdf"])
def test_names_are_escaped_in_every_format_and_layout(evil_trace, tmp_path, layout, fmt):
    _, trace = evil_trace
    out = tmp_path / f"evil.{fmt}"
    p = _cli("export", trace, "-o", out, "--layout", layout, "--group", "modules", "--step", "3")
    assert p.returncode == 0, p.stderr[-3000:]
    data = out.read_bytes()
    if fmt == "svg":
        _check_svg(data)
    elif fmt == "dot":
        _check_dot(data.decode("utf-8"))
    elif fmt == "png":
        assert data.startswith(PNG_MAGIC)
    else:
        assert data.startswith(b"%PDF-") and b"%%EOF" in data[-64:]


def test_the_script_exported_directly_through_the_worker(evil_trace, tmp_path):
    script, _ = evil_trace
    out = tmp_path / "direct.svg"
    p = _cli("export", script, "-o", out, "--group", "modules")
    assert p.returncode == 0, p.stderr[-3000:]
    _check_svg(out.read_bytes())


def test_one_escaping_module():
    assert clean("a\x01b\ud800c\x7fd\x85e\ufffef\tg\nh\ri") == "a\u2401b\ufffdc\u2421d\ufffde\ufffdf\tg\nh\u240di"
    assert dot_string('say "hi"\\n\nnext') == '"say \\"hi\\"\\\\n\\nnext"'
    assert dot_string("x\x01\ud800") == '"x\u2401\ufffd"'
    assert xml_text("<a href='x'>&\"\x01") == "&lt;a href=&#39;x&#39;&gt;&amp;&quot;\u2401"
    assert clean(12) == "12" and clean("plain") == "plain"
