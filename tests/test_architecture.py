"""The import rules of docs/architecture.md, enforced: import-linter's contracts
(pyproject.toml, [tool.importlinter]) run here, so breaking a rule fails `make test`.

The first test runs exactly what a developer runs, `.venv/bin/lint-imports` in
the repository root. import-linter (through grimp) walks the `autogradviz`
package on disk; the repository spreads it over app/launcher, app/, engine/ and
resources/ (setuptools' package-dir mapping), so `make setup` installs it in
setuptools' "strict" editable mode, which lays it out as installed (a tree of
symlinks under build/). A second run, on a copy of that layout with one module
added that breaks each rule, shows the contracts really bite (a linter that
passes everything would otherwise go unnoticed).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LINT = Path(sys.executable).with_name("lint-imports")


def _layout(tmp: Path, extra: dict[str, str] | None = None) -> Path:
    """tmp/autogradviz laid out as installed; `extra` adds modules (path relative
    to the package -> source) by copying the folder it goes into as symlinks."""
    pkg = tmp / "autogradviz"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text((ROOT / "app" / "launcher" / "__init__.py").read_text())
    folders = {"app": ROOT / "app", "engine": ROOT / "engine", "resources": ROOT / "resources"}
    extra = extra or {}
    extra_dirs = {str(Path(rel).parent) for rel in extra}
    for name, src in folders.items():
        _mirror(src, pkg / name, name, extra_dirs)
    for rel, source in extra.items():
        (pkg / rel).write_text(source)
    return tmp


def _mirror(src: Path, dst: Path, rel: str, real_dirs: set[str]) -> None:
    """Symlink `src` at `dst`, except folders that receive extra modules: those
    are made real with their entries symlinked, so nothing in the repo changes."""
    if not any(d == rel or d.startswith(rel + "/") for d in real_dirs):
        dst.symlink_to(src, target_is_directory=True)
        return
    dst.mkdir()
    for child in src.iterdir():
        if child.name == "__pycache__":
            continue
        if child.is_dir():
            _mirror(child, dst / child.name, f"{rel}/{child.name}", real_dirs)
        else:
            (dst / child.name).symlink_to(child)


def _lint(path: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(path))
    return subprocess.run([str(LINT), "--no-cache", "--config", str(ROOT / "pyproject.toml")],
                          cwd=path, env=env, capture_output=True, text=True, timeout=120)


def test_lint_imports_passes_in_the_repository():
    out = subprocess.run([str(LINT)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert "5 kept, 0 broken" in out.stdout
    assert "Analyzed" in out.stdout and "does not exist" not in out.stdout + out.stderr


def test_import_contracts_catch_a_broken_rule(tmp_path):
    bad = {
        "app/graph/_uses_torch.py": "import torch\n",
        "engine/worker/_uses_qt.py": "from PySide6 import QtCore\n",
        "engine/trace/_uses_worker.py": "from autogradviz.engine.worker import runner\n",
        # a lower GUI layer reaching up (services -> panels), and a probe
        # importing a worker module the contract does not list as an exception
        "app/services/_uses_panels.py": "from autogradviz.app.panels import stepper\n",
        "engine/probes/_uses_worker.py": "from autogradviz.engine.worker import runner\n",
    }
    out = _lint(_layout(tmp_path, bad))
    assert out.returncode != 0
    assert "0 kept, 5 broken" in out.stdout, out.stdout[-4000:]
    for line in ("autogradviz.app.graph._uses_torch -> torch",
                 "autogradviz.engine.worker._uses_qt -> PySide6",
                 "autogradviz.engine.trace._uses_worker -> autogradviz.engine.worker",
                 "autogradviz.app.services._uses_panels -> autogradviz.app.panels.stepper",
                 "autogradviz.engine.probes._uses_worker -> autogradviz.engine.worker.runner"):
        assert line in out.stdout


def test_small_modules_and_a_small_app_top_level():
    """Modules have one job each (none over 800 lines in app/ or engine/), and
    app/ keeps at most 8 modules at its top: everything else lives in a
    feature folder whose name says what it holds."""
    too_long = {}
    for folder in ("app", "engine"):
        for path in (ROOT / folder).rglob("*.py"):
            n = len(path.read_text(encoding="utf-8").splitlines())
            if n > 800:
                too_long[str(path.relative_to(ROOT))] = n
    assert too_long == {}
    top = sorted(p.name for p in (ROOT / "app").glob("*.py"))
    assert len(top) <= 8, top


def test_every_package_folder_is_installed():
    """pyproject.toml lists the packages by hand (the package-dir mapping rules
    out automatic discovery): every folder with an __init__.py must be there,
    or an installed copy (a wheel, `make setup`) lacks it."""
    import re

    # (the [tool.setuptools] packages list; tomllib is not in Python 3.10)
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    block = re.search(r"^packages = \[(.*?)^\]", text, re.S | re.M).group(1)
    listed = set(re.findall(r'"([\w.]+)"', block))
    found = {"autogradviz"}
    for folder in ("app", "engine", "resources"):
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT)
            if rel.parts[:2] == ("app", "launcher"):
                continue  # the root package itself (`autogradviz`)
            found.add("autogradviz." + ".".join(rel.parts))
    assert found - listed == set()
    assert listed - found == set()
