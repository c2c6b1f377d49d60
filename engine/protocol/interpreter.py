"""Run the worker with another Python interpreter (a venv or conda env that
has the learner's torch, CUDA build, torchvision and friends), and check one
before using it.

How the engine gets there: the other interpreter does not have autogradviz
installed, and putting this app's site-packages on its path would shadow its
own torch. So the worker is started as `PY -m autogradviz.engine.worker` with
PYTHONPATH led by a folder that holds *only* the `autogradviz` package root
(its import-free `__init__`) and `autogradviz/engine` (a link to this
installation's engine folder, a copy where links are not allowed). engine/
never imports Qt nor app/ (import-linter), so nothing else is needed there;
its third-party needs are WORKER_REQUIREMENTS, which the check looks for.
Because the engine is this app's own, the protocol version always matches.

`check_interpreter` starts PY once (torch's import takes a few seconds) and
reports data (versions, CUDA, what is missing); `InterpreterReport.problem`
is a code with the English sentence from `describe`, which the CLI prints and
the app replaces by its translation. Neither torch nor Qt is imported here.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from typing import Mapping, Optional

# import name -> pip distribution: what the worker imports besides the stdlib
WORKER_REQUIREMENTS = {"torch": "torch", "msgspec": "msgspec"}
MIN_PYTHON = (3, 10)
MIN_TORCH = (2, 2)
CHECK_TIMEOUT_S = 120.0
# The quick check (no torch import, ~0.1 s) gives up much sooner: a Python that
# takes this long only to list its packages is not one to run scripts with.
QUICK_CHECK_TIMEOUT_S = 20.0
_MARK = "AUTOGRADVIZ-CHECK "

# Problem codes (InterpreterReport.problem)
NOT_FOUND = "not_found"            # no such file
NOT_RUNNABLE = "not_runnable"      # a file, but starting it failed or it is not Python 3
PYTHON_TOO_OLD = "python_too_old"  # params: version
MISSING_PACKAGES = "missing_packages"  # missing: distributions
TORCH_TOO_OLD = "torch_too_old"
TORCH_BROKEN = "torch_broken"      # importing torch raised (detail)
ENGINE_FAILED = "engine_failed"    # the worker's modules do not import there (detail)
TIMED_OUT = "timed_out"


@dataclass
class InterpreterReport:
    """What `check_interpreter` found. `problem` is None when scripts can run there."""

    python: str
    problem: Optional[str] = None
    detail: str = ""
    python_version: Optional[str] = None
    torch_version: Optional[str] = None
    cuda_available: bool = False
    cuda_devices: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)   # pip distributions
    has_pip: bool = False
    timeout_s: Optional[float] = None  # how long the check waited, when it timed out

    @property
    def ok(self) -> bool:
        return self.problem is None

    @property
    def install_command(self) -> Optional[str]:
        """The command installing what is missing, when that is the problem."""
        if self.problem != MISSING_PACKAGES or not self.missing:
            return None
        return pip_install_command(self.python, self.missing)


def pip_install_command(python: str, distributions: list[str]) -> str:
    """The shell command that installs `distributions` into `python`, quoted
    for this platform's shell (the learner copies it into a terminal)."""
    if os.name == "nt":
        words = [f'"{w}"' if " " in w else w for w in [python, *distributions]]
        return f"{words[0]} -m pip install {' '.join(words[1:])}"
    return " ".join([shlex.quote(python), "-m", "pip", "install", *map(shlex.quote, distributions)])


def pip_install_arguments(distributions: list[str]) -> list[str]:
    """pip's arguments after `PY -m` (what the app's installer runs)."""
    return ["pip", "install", "--disable-pip-version-check", "--no-input", *distributions]


def same_interpreter(python: Optional[str]) -> bool:
    """True when `python` is the interpreter running this process (no engine
    path needed: autogradviz is installed here)."""
    if not python:
        return True
    # By path, not by file: a venv's python is a link to its base interpreter,
    # yet it is another environment (its own pyvenv.cfg and site-packages).
    def norm(p):
        return os.path.normcase(os.path.abspath(p))
    return norm(python) == norm(sys.executable)


def engine_path() -> str:
    """A folder holding only the `autogradviz` root and its `engine`
    package, made once per installation (see the module docstring)."""
    import autogradviz
    import autogradviz.engine

    engine_dir = os.path.realpath(os.path.dirname(autogradviz.engine.__file__))
    root_init = os.path.realpath(autogradviz.__file__)
    version = getattr(autogradviz, "__version__", "0")
    key = hashlib.sha256(f"{engine_dir}\0{root_init}\0{version}".encode()).hexdigest()[:16]
    uid = os.getuid() if hasattr(os, "getuid") else os.environ.get("USERNAME", "user")
    base = os.path.join(tempfile.gettempdir(), f"autogradviz-engine-{uid}")
    os.makedirs(base, mode=0o700, exist_ok=True)
    if not _private(base):  # someone else made it (a shared temp folder): never run code from there
        base = tempfile.mkdtemp(prefix="autogradviz-engine-")
    final = os.path.join(base, key)
    if os.path.isfile(os.path.join(final, "autogradviz", "engine", "__init__.py")):
        return final
    staging = tempfile.mkdtemp(prefix="new-", dir=base)
    package = os.path.join(staging, "autogradviz")
    os.makedirs(package)
    shutil.copyfile(root_init, os.path.join(package, "__init__.py"))
    try:
        os.symlink(engine_dir, os.path.join(package, "engine"), target_is_directory=True)
    except (OSError, NotImplementedError):  # Windows without the privilege: a copy
        shutil.copytree(engine_dir, os.path.join(package, "engine"),
                        ignore=shutil.ignore_patterns("__pycache__"))
    try:
        os.rename(staging, final)
    except OSError:  # another process made it first
        shutil.rmtree(staging, ignore_errors=True)
    return final


def _private(folder: str) -> bool:
    """The folder is ours and nobody else can write in it (POSIX; elsewhere the
    per-user temporary folder is private already)."""
    if not hasattr(os, "getuid"):
        return True
    st = os.lstat(folder)
    return st.st_uid == os.getuid() and not st.st_mode & 0o022 and not os.path.islink(folder)


def worker_environment(python: Optional[str], base: Optional[Mapping[str, str]] = None) -> dict:
    """The environment for a worker run by `python`: `base` (default: this
    process's) with the engine path leading PYTHONPATH when `python` is not
    this interpreter."""
    env = dict(os.environ if base is None else base)
    if same_interpreter(python):
        return env
    rest = env.get("PYTHONPATH", "")
    env["PYTHONPATH"] = engine_path() + (os.pathsep + rest if rest else "")
    return env


_CHECK_CODE = r"""
import json, sys
r = {"python_version": "%d.%d.%d" % tuple(sys.version_info[:3])}
def done():
    sys.stdout.write("\n" + MARK + json.dumps(r) + "\n")
    sys.stdout.flush()
    raise SystemExit(0)
if sys.version_info < (3, 10):
    done()
import importlib.util
r["pip"] = importlib.util.find_spec("pip") is not None
r["missing"] = [m for m in REQUIRED if importlib.util.find_spec(m) is None]
if r["missing"]:
    done()
if not FULL:  # what is installed, without importing torch (fast); the worker's start imports it
    try:
        import importlib.metadata
        r["torch_version"] = importlib.metadata.version("torch")
    except Exception:
        r["torch_version"] = None
    done()
try:
    import torch
    r["torch_version"] = str(torch.__version__)
    r["cuda_available"] = bool(torch.cuda.is_available())
    if r["cuda_available"]:
        r["cuda_devices"] = [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]
except Exception as exc:
    r["torch_error"] = "%s: %s" % (type(exc).__name__, exc)
    done()
try:
    import autogradviz.engine.worker.service
except Exception as exc:
    r["engine_error"] = "%s: %s" % (type(exc).__name__, exc)
done()
"""


def check_interpreter(python: str, timeout: Optional[float] = None, full: bool = True) -> InterpreterReport:
    """Start `python` once and find out whether the worker can run there.
    `full` imports torch there (seconds) for CUDA and a working torch; without
    it only what is installed is looked at (~0.1 s: the CLI, whose worker
    start imports torch anyway and reports a failure itself)."""
    early = precheck(python)
    if early is not None:
        return early
    argv, env = check_command(python, full)
    if timeout is None:
        timeout = CHECK_TIMEOUT_S if full else QUICK_CHECK_TIMEOUT_S
    report = InterpreterReport(python=python)  # what the failures below fill in
    try:
        proc = subprocess.run(argv, capture_output=True, timeout=timeout, env=env, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        report.problem, report.timeout_s = TIMED_OUT, timeout
        return report
    except OSError as exc:
        report.problem, report.detail = NOT_RUNNABLE, exc.strerror or str(exc)
        return report
    return parse_check_output(python, proc.returncode, proc.stdout.decode("utf-8", "replace"),
                              proc.stderr.decode("utf-8", "replace"))


def precheck(python: str) -> Optional[InterpreterReport]:
    """The report when `python` is plainly not a program (no need to start it), else None."""
    report = InterpreterReport(python=python)
    if not python or not os.path.exists(python):
        report.problem = NOT_FOUND
        return report
    if os.path.isdir(python) or not os.access(python, os.X_OK):
        report.problem, report.detail = NOT_RUNNABLE, "not an executable file"
        return report
    return None


def check_command(python: str, full: bool = True) -> tuple[list[str], dict]:
    """(argv, environment) of the check, for a caller that runs it itself
    (the GUI, with a QProcess) and hands the output to `parse_check_output`."""
    code = (_CHECK_CODE.replace("MARK", repr(_MARK)).replace("REQUIRED", repr(list(WORKER_REQUIREMENTS)))
            .replace("FULL", repr(bool(full))))
    return [python, "-c", code], worker_environment(python)


def parse_check_output(python: str, returncode: Optional[int], stdout: str, stderr: str) -> InterpreterReport:
    """The report from what the check printed (see `check_interpreter`)."""
    report = InterpreterReport(python=python)
    line = next((ln[len(_MARK):] for ln in stdout.splitlines() if ln.startswith(_MARK)), None)
    try:
        data = json.loads(line) if line is not None else None
    except ValueError:
        data = None
    if not isinstance(data, dict):
        last = [ln for ln in stderr.strip().splitlines() if ln.strip()]
        report.problem = NOT_RUNNABLE
        detail = last[-1].strip() if last else f"exit code {returncode}"
        report.detail = detail if len(detail) <= 200 else detail[:200] + "…"
        return report
    report.python_version = data.get("python_version")
    report.has_pip = bool(data.get("pip"))
    report.missing = [WORKER_REQUIREMENTS.get(m, m) for m in data.get("missing") or []]
    report.torch_version = data.get("torch_version")
    report.cuda_available = bool(data.get("cuda_available"))
    report.cuda_devices = [str(d) for d in data.get("cuda_devices") or []]
    if _version_tuple(report.python_version) < MIN_PYTHON:
        report.problem = PYTHON_TOO_OLD
    elif report.missing:
        report.problem = MISSING_PACKAGES
    elif data.get("torch_error"):
        report.problem, report.detail = TORCH_BROKEN, str(data["torch_error"])
    elif report.torch_version is not None and _version_tuple(report.torch_version) < MIN_TORCH:
        report.problem = TORCH_TOO_OLD
    elif data.get("engine_error"):
        report.problem, report.detail = ENGINE_FAILED, str(data["engine_error"])
    return report


def _version_tuple(text: Optional[str]) -> tuple[int, ...]:
    parts = []
    for piece in (text or "").split("+")[0].split(".")[:2]:
        digits = "".join(c for c in piece if c.isdigit())
        if not digits:
            break
        parts.append(int(digits))
    return tuple(parts) or (0,)


def describe(report: InterpreterReport) -> str:
    """One English line: what the interpreter has, or what is wrong with it."""
    py = report.python
    if report.problem is None:
        cuda = (f"CUDA: {', '.join(report.cuda_devices) or 'yes'}" if report.cuda_available
                else "no CUDA device visible")
        return f"{py}: Python {report.python_version}, torch {report.torch_version}, {cuda}"
    if report.problem == NOT_FOUND:
        return f"{py}: no such file"
    if report.problem == NOT_RUNNABLE:
        return f"{py}: cannot be run as Python 3 ({report.detail})"
    if report.problem == PYTHON_TOO_OLD:
        need = ".".join(map(str, MIN_PYTHON))
        return f"{py}: Python {report.python_version} is too old; the worker needs Python {need} or newer"
    if report.problem == MISSING_PACKAGES:
        what = ", ".join(report.missing)
        return f"{py}: this Python lacks {what}, which scripts need to run there; install with: " \
               f"{report.install_command}"
    if report.problem == TORCH_TOO_OLD:
        need = ".".join(map(str, MIN_TORCH))
        return f"{py}: torch {report.torch_version} is too old; the worker needs torch {need} or newer"
    if report.problem == TORCH_BROKEN:
        return f"{py}: importing torch fails there ({report.detail})"
    if report.problem == ENGINE_FAILED:
        return f"{py}: the worker cannot start there ({report.detail})"
    if report.problem == TIMED_OUT:
        return f"{py}: did not answer within {report.timeout_s or CHECK_TIMEOUT_S:g} s"
    return f"{py}: {report.problem} {report.detail}".strip()
