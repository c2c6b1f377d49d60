"""Small Python environments for the tests of "run with another interpreter"
and "install a missing package" (tests/engine/test_interpreter.py,
tests/app/test_packages.py).

Everything is made in the test's tmp_path, never in the project's .venv, and
nothing is downloaded: a venv is made `--without-pip` (fast), and one that
should have torch gets a .pth line pointing at this interpreter's
site-packages (torch, msgspec and pip come from there; what pip installs
goes to the new venv's own site-packages, which come first on its path).
A package to install is a wheel written here by hand (a wheel is a zip with
a .dist-info folder), installed with `--no-index --find-links`.
"""

from __future__ import annotations

import base64
import hashlib
import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path


def venv_python(root: Path) -> str:
    return str(root / ("Scripts/python.exe" if os.name == "nt" else "bin/python"))


def make_venv(root: Path, with_this_sites: bool) -> str:
    """A venv at `root`; with `with_this_sites` it sees this interpreter's
    packages (torch) after its own. Returns its python's path."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True,
                   capture_output=True, timeout=120)
    python = venv_python(root)
    if with_this_sites:
        own = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
        paths = sysconfig.get_paths()
        lines = sorted({paths["purelib"], paths["platlib"]})
        Path(own, "zz_this_project_packages.pth").write_text("\n".join(lines) + "\n")
    return python


def make_wheel(folder: Path, distribution: str, module: str, source: str, version: str = "1.0") -> Path:
    """A pure-Python wheel of `distribution` providing `module` (one file)."""
    folder.mkdir(parents=True, exist_ok=True)
    name = distribution.replace("-", "_")
    info = f"{name}-{version}.dist-info"
    files = {
        f"{module}/__init__.py": source,
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {distribution}\nVersion: {version}\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = []
    for path, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(text.encode())}")
    record.append(f"{info}/RECORD,,")
    files[f"{info}/RECORD"] = "\n".join(record) + "\n"
    wheel = folder / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as z:
        for path, text in files.items():
            z.writestr(path, text)
    return wheel


def offline_pip_env(wheels: Path) -> dict:
    """pip settings (as environment variables, which pip reads like its
    config) that find packages only in `wheels`: there may be no network."""
    return {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheels), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
