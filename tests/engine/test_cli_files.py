"""`autogradviz trace -o` / `export -o` onto what is not a plain file, and
Ctrl+C on `autogradviz trace`, through the real command line.

- A symbolic link is written through: its target gets the trace (and keeps
  its permission bits), the link stays a link.
- A FIFO, a device or a socket is refused in one line with exit 2, before
  the script runs, and is never replaced by a regular file.
- Ctrl+C (SIGINT to the CLI) prints one line, exits 130 and leaves no worker
  process, nor anything the script started, behind.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import subprocess
import sys
import time

import pytest

posix_only = pytest.mark.skipif(os.name != "posix", reason="FIFOs, sockets, signals, /proc")

SCRIPT = "import torch\nx = torch.ones(3, requires_grad=True)\n(x * 2).sum().backward()\nprint('ran')\n"


def _script(tmp_path):
    path = tmp_path / "script.py"
    path.write_text(SCRIPT, encoding="utf-8")
    return path


def _one_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    return lines[0]


@posix_only
def test_trace_writes_through_a_symlink_and_keeps_the_targets_mode(tmp_path, cli):
    target = tmp_path / "keep" / "trace.json"
    target.parent.mkdir()
    target.write_text("{}", encoding="utf-8")
    os.chmod(target, 0o640)
    link = tmp_path / "trace.json"
    link.symlink_to(target)
    r = cli("trace", _script(tmp_path), "-o", link)
    assert r.returncode == 0, r.stderr
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert json.loads(target.read_text(encoding="utf-8"))["stdout"] == "ran\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert sorted(os.listdir(target.parent)) == ["trace.json"]  # (no temporary left)


def _fifo(tmp_path):
    path = tmp_path / "pipe.json"
    os.mkfifo(path)
    return path, "FIFO"


def _socket(tmp_path):
    path = tmp_path / "sock.json"
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(path))
    _socket.keep = s  # (open for the test's length)
    return path, "socket"


def _device_behind_a_link(tmp_path):
    # /dev/null itself, reached through a link in our folder: what used to
    # happen to it (the link replaced by a regular file) is visible here, and
    # /dev is never at risk
    path = tmp_path / "null.json"
    path.symlink_to(os.devnull)
    return path, "device"


@posix_only
@pytest.mark.parametrize("make", [_fifo, _socket, _device_behind_a_link], ids=["fifo", "socket", "device"])
@pytest.mark.parametrize("command", ["trace", "export"])
def test_special_files_are_refused_in_one_line_and_left_alone(tmp_path, cli, make, command):
    path, kind = make(tmp_path)
    before = os.lstat(path)
    script = _script(tmp_path)
    if command == "trace":
        r = cli("trace", script, "-o", path, timeout=120)
    else:
        r = cli("export", script, "--format", "svg", "-o", path, timeout=120)
    assert r.returncode == 2, (r.returncode, r.stderr)
    line = _one_line(r.stderr)
    assert str(path) in line and kind in line and "not a regular file" in line
    after = os.lstat(path)
    assert stat.S_IFMT(after.st_mode) == stat.S_IFMT(before.st_mode)
    assert (after.st_ino, after.st_dev) == (before.st_ino, before.st_dev)
    if os.path.islink(path):
        assert os.readlink(path) == os.devnull
    assert sorted(os.listdir(tmp_path)) == sorted([path.name, "script.py"])


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X")
    except OSError:
        return False


def _children_of(pid: int) -> list[int]:
    """Live child processes of `pid` (from /proc)."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat", "rb") as f:
                    fields = f.read().rsplit(b")", 1)[1].split()
            except OSError:
                continue
            if fields[0] not in (b"Z", b"X") and int(fields[1]) == pid:
                found.append(int(name))
    return found


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="/proc")
def test_ctrl_c_on_trace_is_one_line_exit_130_and_no_worker_left(tmp_path):
    script = tmp_path / "sleepy.py"
    # the script also starts a process of its own: it must go with the worker
    script.write_text("import subprocess, time\nsubprocess.Popen(['sleep', '120'])\n"
                      "print('started', flush=True)\ntime.sleep(120)\n", encoding="utf-8")
    out = tmp_path / "trace.json"
    cli = subprocess.Popen([sys.executable, "-m", "autogradviz", "trace", str(script), "--echo", "-o", str(out)],
                           stderr=subprocess.PIPE, text=True,
                           # Ctrl+C's default, as from a terminal (not what this process may have)
                           preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert cli.stderr.readline() == "started\n"  # (the script runs: --echo shows its print)
        workers = _children_of(cli.pid)
        assert len(workers) == 1
        tree, todo = [], list(workers)  # the worker and every process under it
        while todo:
            pid = todo.pop()
            tree.append(pid)
            todo.extend(_children_of(pid))
        assert len(tree) >= 2  # (the worker and the script's `sleep`)
        cli.send_signal(signal.SIGINT)
        rest = cli.stderr.read()
        rc = cli.wait(timeout=60)
    finally:
        if cli.poll() is None:
            cli.kill()
            cli.wait()
    assert rc == 130, rest
    line = _one_line(rest)
    assert line.startswith("autogradviz trace:") and "interrupted" in line
    assert "Traceback" not in rest
    deadline = time.monotonic() + 10
    while any(map(_alive, tree)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert [pid for pid in tree if _alive(pid)] == []
    assert not out.exists()
    assert sorted(os.listdir(tmp_path)) == ["sleepy.py"]  # (nor the worker's temporary trace file)
