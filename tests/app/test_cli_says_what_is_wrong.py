"""The command line says what is wrong instead of opening a window: mistyped
subcommands, missing files, no display; `autogradviz doctor` reports the Qt
platform plugin. Real subprocesses of `python -m autogradviz`."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from autogradviz.app.cli.display_check import (
    debian_package, display_problem, install_command, missing_libraries_in)


def _run(*args, env=None, cwd=None, timeout=120):
    return subprocess.run([sys.executable, "-m", "autogradviz", *map(str, args)], capture_output=True,
                          text=True, timeout=timeout, env=env, cwd=cwd)


def _one_line(stderr: str) -> str:
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, f"expected one line on stderr, got: {stderr!r}"
    return lines[0]


def _headless_env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env.update(extra)
    return env


@pytest.mark.parametrize("args, expect", [
    (["exprot", "x.py"], "unknown command 'exprot' (did you mean 'export'?"),
    (["tarce", "x.py"], "did you mean 'trace'?"),
    (["docter"], "did you mean 'doctor'?"),
    (["missing.py"], "missing.py: no such file"),
    (["gui", "missing.py"], "missing.py: no such file"),
    (["sub/missing.json"], "no such file"),
    (["folder"], "folder is a folder"),
    (["zzzz"], "unknown command 'zzzz' (the commands are trace, export, doctor, gui"),
])
def test_bad_first_argument_is_one_line_and_exit_2(tmp_path, args, expect):
    (tmp_path / "x.py").write_text("x = 1\n")
    (tmp_path / "folder").mkdir()
    # With a display (offscreen) the app *could* open: it must refuse anyway.
    r = _run(*args, cwd=tmp_path, env=dict(os.environ, QT_QPA_PLATFORM="offscreen"), timeout=30)
    assert r.returncode == 2
    line = _one_line(r.stderr)
    assert line.startswith("autogradviz: error: ")
    assert expect in line
    assert r.stdout == ""


def test_no_display_exits_2_with_one_line_quickly(tmp_path):
    script = tmp_path / "x.py"
    script.write_text("x = 1\n")
    for args in ([], [script], ["gui"]):
        t0 = time.monotonic()
        r = _run(*args, env=_headless_env(), timeout=30)
        took = time.monotonic() - t0
        assert r.returncode == 2, r.stderr[-2000:]
        line = _one_line(r.stderr)
        assert "no display" in line and "set DISPLAY" in line and "autogradviz export" in line
        assert took < 10, f"{took:.1f} s"  # (interpreter start; no Qt is loaded)


def test_display_problem_follows_the_chosen_platform():
    assert display_problem({}, "linux") is not None
    assert display_problem({"DISPLAY": ":0"}, "linux") is None
    assert display_problem({"WAYLAND_DISPLAY": "wayland-0"}, "linux") is None
    assert display_problem({"QT_QPA_PLATFORM": "offscreen"}, "linux") is None
    assert "(DISPLAY is not set)" in display_problem({"QT_QPA_PLATFORM": "xcb", "WAYLAND_DISPLAY": "w"}, "linux")
    assert "(neither DISPLAY nor WAYLAND_DISPLAY is set)" in display_problem({}, "linux")
    assert display_problem({}, "win32") is None and display_problem({}, "darwin") is None


LDD_OUTPUT = """\
\tlinux-vdso.so.1 (0x00007ffc2b5f3000)
\tlibQt6XcbQpa.so.6 => /venv/PySide6/Qt/lib/libQt6XcbQpa.so.6 (0x00007f5a1c000000)
\tlibxcb-cursor.so.0 => not found
\tlibxkbcommon-x11.so.0 => not found
\tlibxcb-icccm.so.4 => not found
\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f5a1b800000)
"""
QT_DEBUG_OUTPUT = ('qt.core.library: "/venv/PySide6/Qt/plugins/platforms/libqxcb.so" cannot load: '
                   'Cannot load library /venv/PySide6/Qt/plugins/platforms/libqxcb.so: '
                   '(libxcb-cursor.so.0: cannot open shared object file: No such file or directory)\n')


def test_missing_libraries_are_named_with_their_packages():
    assert missing_libraries_in(LDD_OUTPUT) == ["libxcb-cursor.so.0", "libxkbcommon-x11.so.0",
                                                "libxcb-icccm.so.4"]
    assert missing_libraries_in(QT_DEBUG_OUTPUT) == ["libxcb-cursor.so.0"]
    assert [debian_package(s) for s in missing_libraries_in(LDD_OUTPUT)] == [
        "libxcb-cursor0", "libxkbcommon-x11-0", "libxcb-icccm4"]
    assert debian_package("libEGL.so.1") == "libegl1"
    assert debian_package("libdbus-1.so.3") == "libdbus-1-3"
    command = install_command(["libxcb-cursor.so.0"])
    if command is not None:  # a system with apt-get
        assert command == "sudo apt-get install libxcb-cursor0"


def test_doctor_without_display_reports_torch_qt_and_graphviz():
    r = _run("doctor", env=_headless_env())
    assert r.returncode == 0, r.stdout + r.stderr
    out = r.stdout
    assert "display      none" in out
    assert "qt platform  offscreen ok" in out
    for name in ("torch", "cuda", "graphviz", "worker       ok"):
        assert name in out


def test_doctor_contains_a_platform_plugin_that_aborts():
    """An X display that is not there: Qt's xcb plugin aborts the process
    that tries it; doctor's subprocess contains that and says so."""
    r = _run("doctor", env=_headless_env(DISPLAY=":9871", QT_QPA_PLATFORM="xcb"))
    assert r.returncode == 1, r.stdout + r.stderr
    assert "qt platform  FAILED: Qt aborted (SIGABRT)" in r.stdout
    assert "qt says" in r.stdout or "missing libs" in r.stdout
    assert "torch" in r.stdout  # the rest of the report still comes


def test_a_display_nobody_answers_at_exits_2_instead_of_a_qt_abort():
    t0 = time.monotonic()
    r = _run(env=_headless_env(DISPLAY=":9871"), timeout=30)
    assert r.returncode == 2, r.stderr[-2000:]
    line = _one_line(r.stderr)
    assert "no X server answers at DISPLAY=:9871" in line and "autogradviz export" in line
    assert time.monotonic() - t0 < 10


def test_a_display_that_answers_is_not_refused():
    """A listening X socket (abstract, as Xorg and Xvfb open one) counts as a display."""
    import socket

    from autogradviz.app.cli.display_check import gui_start_problem, x_display_unreachable

    number = 9000 + os.getpid() % 500
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind("\0/tmp/.X11-unix/X%d" % number)
        server.listen(16)
        assert x_display_unreachable(f":{number}") is None
        assert x_display_unreachable(f":{number}.0") is None
        problem = gui_start_problem({"DISPLAY": f":{number}"})
        assert problem is None or "missing system libraries" in problem
    assert x_display_unreachable(f":{number}") is not None


def test_a_trace_file_the_app_would_refuse_is_refused_in_one_line(tmp_path):
    (tmp_path / "newer.json").write_text('{"format": "autogradviz-trace", "version": 999, "graphs": []}')
    (tmp_path / "garbage.json").write_bytes(b"\x00\x01garbage")
    (tmp_path / "other.json").write_text('{"format": "something-else"}')
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    for name, expect in (("newer.json", "format version 999, newer than"), ("garbage.json", "not JSON"),
                         ("other.json", "not an autogradviz trace")):
        r = _run(name, cwd=tmp_path, env=env, timeout=30)
        assert r.returncode == 2
        line = _one_line(r.stderr)
        assert line.startswith(f"autogradviz: error: {name}: ") and expect in line
