"""`autogradviz trace` (and friends) as a user runs them: real subprocesses.

Every bad input of the engine issue goes through the real CLI here (or through
the client in test_worker.py): exit codes 0/1/2 and one clear stderr line.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
import time

import pytest
import torch

from autogradviz.engine.trace.model import Trace

GOOD = """\
import os
import torch
print("worker pid", os.getpid())
w = torch.ones(3, requires_grad=True)
loss = (w * 2).sum()
loss.backward()
print("grad", w.grad.tolist())
"""


def _write(tmp_path, name, text, mode="w"):
    p = tmp_path / name
    if mode == "wb":
        p.write_bytes(text)
    else:
        p.write_text(text, encoding="utf-8")
    return p


def _one_line(stderr: str) -> str:
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, f"expected one line on stderr, got: {stderr!r}"
    return lines[0]


def _worker_pid(trace: Trace) -> int:
    m = re.search(r"worker pid (\d+)", trace.stdout)
    assert m, trace.stdout
    return int(m.group(1))


def test_trace_to_stdout(tmp_path, cli, gone):
    script = _write(tmp_path, "good.py", GOOD)
    r = cli("trace", script)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    trace = Trace.from_json(r.stdout)
    assert "grad [2.0, 2.0, 2.0]" in trace.stdout
    assert trace.script == str(script)
    assert trace.device == "cpu"
    assert trace.torch_version == torch.__version__
    gone(_worker_pid(trace))  # the CLI's worker is gone once the CLI exits


def test_trace_to_file_is_atomic_and_strict_json(tmp_path, cli):
    script = _write(tmp_path, "good.py", GOOD)
    out = tmp_path / "out" / "trace.json"
    out.parent.mkdir()
    out.write_text("old contents")
    r = cli("trace", script, "-o", out, "--indent", "1")
    assert r.returncode == 0, r.stderr
    assert r.stdout == ""
    assert os.listdir(out.parent) == ["trace.json"], "no temporary file may be left behind"
    data = json.loads(out.read_text(), parse_constant=lambda c: pytest.fail(f"non-strict {c}"))
    assert data["format"] == "autogradviz-trace"
    assert list(data)[:2] == ["format", "version"]


def test_script_that_raises_exits_1_with_trace_written(tmp_path, cli):
    script = _write(tmp_path, "bad.py", "import torch\na = torch.ones(2, 3)\nb = a @ a\n")
    out = tmp_path / "t.json"
    r = cli("trace", script, "-o", out)
    assert r.returncode == 1
    line = _one_line(r.stderr)
    assert "line 3" in line and "RuntimeError" in line and "bad.py" in line
    trace = Trace.from_json(out.read_text())
    assert trace.error.type == "RuntimeError"
    assert trace.error.line == 3
    assert "shapes cannot be multiplied" in trace.error.message
    assert trace.error.explanation


def test_syntax_error_exits_1_with_line(tmp_path, cli):
    script = _write(tmp_path, "syn.py", "x = 1\nif x\n    pass\n")
    r = cli("trace", script)
    assert r.returncode == 1
    line = _one_line(r.stderr)
    assert "SyntaxError" in line and "line 2" in line
    trace = Trace.from_json(r.stdout)
    assert trace.error.type == "SyntaxError" and trace.error.line == 2


def test_infinite_loop_is_killed_at_timeout(tmp_path, cli, gone):
    script = _write(tmp_path, "loop.py", "import os\nprint('worker pid', os.getpid(), flush=True)\n"
                    "n = 0\nwhile True:\n    n += 1\n")
    t0 = time.monotonic()
    r = cli("trace", script, "--timeout", "3")
    elapsed = time.monotonic() - t0
    assert r.returncode == 1
    assert elapsed < 30
    line = _one_line(r.stderr)
    assert "did not finish within 3 s" in line and "stopped" in line
    trace = Trace.from_json(r.stdout)
    assert trace.error.type == "Timeout"
    assert trace.error.line in (4, 5)
    gone(_worker_pid(trace))


@pytest.mark.parametrize("body,expect", [
    ("import os\nos._exit(3)\n", "exit code 3"),
    ("import ctypes\nctypes.string_at(0)\n", "signal 11 (SIGSEGV)"),
])
def test_worker_that_dies_is_reported(tmp_path, cli, gone, body, expect):
    script = _write(tmp_path, "die.py", "import os\nprint('worker pid', os.getpid())\n" + body)
    t0 = time.monotonic()
    r = cli("trace", script)
    assert time.monotonic() - t0 < 30
    assert r.returncode == 1
    line = _one_line(r.stderr)
    assert expect in line and "die.py" in line
    trace = Trace.from_json(r.stdout)
    assert trace.error.type == "WorkerCrashed"
    gone(_worker_pid(trace))


def test_megabytes_of_prints_do_not_hang(tmp_path, cli):
    script = _write(tmp_path, "loud.py", "import sys\nfor i in range(100_000):\n"
                    "    print('y' * 99)\nsys.stderr.write('e' * 3_000_000)\n")
    t0 = time.monotonic()
    r = cli("trace", script, "-o", tmp_path / "t.json")
    assert r.returncode == 0, r.stderr
    assert time.monotonic() - t0 < 60
    trace = Trace.from_json((tmp_path / "t.json").read_text())
    assert len(trace.stdout) + len(trace.stderr) < 2_100_000
    assert "[output truncated" in trace.stdout
    assert (tmp_path / "t.json").stat().st_size < 3_000_000


def test_empty_file_is_fine(tmp_path, cli):
    script = _write(tmp_path, "empty.py", "")
    r = cli("trace", script)
    assert r.returncode == 0, r.stderr
    trace = Trace.from_json(r.stdout)
    assert trace.error is None and trace.graphs == [] and trace.backward_runs == []


@pytest.mark.parametrize("case", ["non-utf8", "directory", "missing", "nul"])
def test_unreadable_input_exits_2_with_one_line(tmp_path, cli, case):
    if case == "non-utf8":
        target = _write(tmp_path, "latin.py", b"s = '\xe9t\xe9'\n", mode="wb")
        expect = "not a UTF-8 text file"
    elif case == "directory":
        target = tmp_path / "adir"
        target.mkdir()
        expect = "is a directory"
    elif case == "missing":
        target = tmp_path / "nothere.py"
        expect = "no such file"
    else:
        target = _write(tmp_path, "nul.py", b"x = 1\x00\n", mode="wb")
        expect = "NUL"
    out = tmp_path / "t.json"
    r = cli("trace", target, "-o", out)
    assert r.returncode == 2
    line = _one_line(r.stderr)
    assert expect in line and str(target) in line
    assert not out.exists()


def test_coding_declaration_is_honoured(tmp_path, cli):
    script = _write(tmp_path, "latin1.py", "# -*- coding: latin-1 -*-\nprint('\u00e9t\u00e9')\n"
                    .encode("latin-1"), mode="wb")
    r = cli("trace", script)
    assert r.returncode == 0, r.stderr
    assert Trace.from_json(r.stdout).stdout == "\u00e9t\u00e9\n"


@pytest.mark.parametrize("args,expect", [
    (["trace"], "required"),
    (["trace", "x.py", "--timeout", "0"], "positive"),
    (["trace", "x.py", "--timeout", "soon"], "not a number"),
    (["trace", "x.py", "--device", "tpu"], "invalid choice"),
    (["trace", "x.py", "--bogus"], "unrecognized"),
    (["trace", "x.py", "-o", "/no/such/folder/t.json"], "does not exist"),
])
def test_usage_errors_exit_2(tmp_path, cli, args, expect):
    _write(tmp_path, "x.py", "x = 1\n")
    r = cli(*args, cwd=tmp_path)
    assert r.returncode == 2
    assert expect in _one_line(r.stderr)


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA")
def test_cuda_without_cuda_is_a_clear_error(tmp_path, cli):
    script = _write(tmp_path, "gpu.py", "print('ran')\n")
    r = cli("trace", script, "--device", "cuda", "-o", tmp_path / "t.json")
    assert r.returncode == 2
    assert "CUDA" in _one_line(r.stderr)
    trace = Trace.from_json((tmp_path / "t.json").read_text())
    assert trace.error.type == "CUDAUnavailable" and trace.stdout == ""


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_trace_on_cuda(tmp_path, cli):
    script = _write(tmp_path, "gpu.py", "import torch\nw = torch.ones(4, device=device, requires_grad=True)\n"
                    "(w * w).sum().backward()\n")
    r = cli("trace", script, "--device", "cuda")
    assert r.returncode == 0, r.stderr
    trace = Trace.from_json(r.stdout)
    assert trace.device == "cuda"


def test_trace_does_not_import_qt(tmp_path):
    script = _write(tmp_path, "good.py", "x = 1\n")
    out = tmp_path / "t.json"
    code = textwrap.dedent(f"""
        import sys
        from autogradviz.app.cli.main import main
        rc = main(["trace", {str(script)!r}, "-o", {str(out)!r}])
        qt = sorted(m for m in sys.modules if m.startswith(("PySide6", "shiboken")))
        print(rc, qt)
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "0 []"
    assert out.exists()


def test_version_and_help(cli):
    r = cli("--version")
    assert r.returncode == 0 and r.stdout.startswith("autogradviz ")
    r = cli("trace", "--help")
    assert r.returncode == 0 and "--timeout" in r.stdout


def test_doctor_reports_torch_and_cuda(cli):
    r = cli("doctor")
    assert torch.__version__ in r.stdout
    assert re.search(r"^cuda\s+", r.stdout, re.M)
    assert re.search(r"^graphviz\s+", r.stdout, re.M)


def test_script_sees_its_argv_and_imports_its_neighbours(tmp_path, cli):
    _write(tmp_path, "helper.py", "VALUE = 42\n")
    script = _write(tmp_path, "main.py", "import sys\nimport helper\nprint(sys.argv, helper.VALUE)\n")
    r = cli("trace", script)  # run from another folder
    assert r.returncode == 0, r.stderr
    # as `cd folder && python main.py`: the script runs in its folder (issue 21)
    assert Trace.from_json(r.stdout).stdout == "['main.py'] 42\n"


def test_worker_dies_with_a_killed_cli(tmp_path, gone):
    script = _write(tmp_path, "loop.py", "import os\nprint('worker pid', os.getpid(), flush=True)\n"
                    "while True:\n    pass\n")
    proc = subprocess.Popen([sys.executable, "-m", "autogradviz", "trace", script, "--echo"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()  # --echo: the script's print, live
        m = re.search(r"worker pid (\d+)", line)
        assert m, line
        proc.kill()  # no chance to clean up
        proc.wait(timeout=10)
        gone(int(m.group(1)), wait=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stderr.close()
