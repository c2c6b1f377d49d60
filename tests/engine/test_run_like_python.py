"""The end of a run and its output as under `python script.py` (issue 24):
non-daemon threads waited for, atexit, "Exception ignored in", real
sys.stdout/sys.stderr files, output written below python (fds 1 and 2), and
a detached child that can neither hang a trace nor outlast --timeout.

Runs go through a real worker (WorkerClient); each test makes two runs in
ONE worker, the second being the one checked (a run after another is the
app's everyday case). Where it helps, a plain `python` subprocess of the same
script says what to expect.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest


def plain_python(source: str, cwd) -> subprocess.CompletedProcess:
    path = os.path.join(str(cwd), "reference.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(source)
    return subprocess.run([sys.executable, path], capture_output=True, text=True, cwd=str(cwd), timeout=120)


def second_run(worker, source: str, **kw):
    first = worker.run("import torch\nx = torch.ones(2, requires_grad=True)\n(x * 2).sum().backward()\n",
                       timeout=60)
    assert first.status == "ok", first.message
    printed = []
    out = worker.run(source, timeout=kw.pop("timeout", 60),
                     on_output=lambda stream, text: printed.append((stream, text)), **kw)
    return out, printed


def streamed(printed, stream="stdout") -> str:
    return "".join(text for s, text in printed if s == stream)


THREAD = ("import threading, time\n"
          "def late():\n"
          "    time.sleep(0.5)\n"
          "    print('from the thread')\n"
          "threading.Thread(target=late).start()\n"
          "print('main ends')\n")


def test_a_non_daemon_thread_is_waited_for_and_its_prints_are_the_runs(worker, tmp_path):
    expected = plain_python(THREAD, tmp_path).stdout
    assert expected == "main ends\nfrom the thread\n"
    out, printed = second_run(worker, THREAD)
    assert out.status == "ok", out.message
    assert out.trace.stdout == expected
    assert streamed(printed) == expected


def test_atexit_functions_run_at_the_end_of_the_run(worker, tmp_path):
    src = "import atexit\natexit.register(print, 'goodbye')\nprint('main')\n"
    expected = plain_python(src, tmp_path).stdout
    out, _ = second_run(worker, src)
    assert out.status == "ok", out.message
    assert out.trace.stdout == expected == "main\ngoodbye\n"


def test_an_exception_in_del_prints_exception_ignored(worker, tmp_path):
    src = ("class Noisy:\n"
           "    def __del__(self):\n"
           "        raise ValueError('in del')\n"
           "n = Noisy()\n"  # (alive to the end: python clears __main__ at exit)
           "print('after')\n")
    assert "Exception ignored in" in plain_python(src, tmp_path).stderr
    out, printed = second_run(worker, src)
    assert out.status == "ok", out.message
    assert out.trace.stdout == "after\n"
    assert "Exception ignored in" in out.trace.stderr
    assert "ValueError: in del" in out.trace.stderr
    assert "Exception ignored in" in streamed(printed, "stderr")


def test_sys_stdout_is_a_real_file(worker, tmp_path):
    src = ("import sys, faulthandler\n"
           "sys.stdout.buffer.write(b'bytes\\n')\n"
           "sys.stdout.flush()\n"
           "print(sys.stdout.fileno(), sys.stderr.fileno())\n"
           "sys.stdout.reconfigure(line_buffering=True)\n"
           "faulthandler.enable()\n"
           "print(faulthandler.is_enabled())\n"
           "faulthandler.dump_traceback(all_threads=False)\n")
    reference = plain_python(src, tmp_path)
    assert reference.returncode == 0, reference.stderr
    out, _ = second_run(worker, src)
    assert out.status == "ok", out.message
    assert out.trace.stdout == reference.stdout == "bytes\n1 2\nTrue\n"
    assert "line 8 in <module>" in out.trace.stderr  # faulthandler's dump, on the run's stderr


def test_output_written_below_python_reaches_the_output_and_the_trace(worker):
    src = ("import os, subprocess, sys\n"
           "print('one', flush=True)\n"
           "os.write(1, b'two\\n')\n"
           "os.system('echo three')\n"
           "subprocess.run(['echo', 'four'])\n"
           "subprocess.run([sys.executable, '-c', 'import sys; sys.stderr.write(\"five\\\\n\")'])\n"
           "print('six')\n")
    out, printed = second_run(worker, src)
    assert out.status == "ok", out.message
    assert out.trace.stdout == "one\ntwo\nthree\nfour\nsix\n"
    assert streamed(printed) == out.trace.stdout
    assert out.trace.stderr == "five\n"
    assert worker.ping()  # and the protocol is intact


def test_input_prompt_and_prints_around_it_keep_their_order(worker):
    src = "print('before')\nname = input('name? ')\nprint('hello', name)\n"
    out, printed = second_run(worker, src, on_input=lambda prompt: "ada" if prompt == "name? " else None)
    assert out.status == "ok", out.message
    assert out.trace.stdout == "before\nname? hello ada\n"


DETACHED = ("import subprocess\n"
            "subprocess.Popen(['sleep', '40'], start_new_session=True)\n"
            "print('started')\n")


def test_a_detached_child_does_not_hang_the_run(worker):
    t0 = time.monotonic()
    out, _ = second_run(worker, DETACHED)
    assert out.status == "ok", out.message
    assert out.trace.stdout == "started\n"
    assert time.monotonic() - t0 < 20


def test_trace_with_a_detached_child_ends_when_the_script_does(cli, tmp_path):
    script = tmp_path / "detached.py"
    script.write_text(DETACHED)
    t0 = time.monotonic()
    r = cli("trace", str(script), "-o", str(tmp_path / "t.json"), "--timeout", "30", timeout=60)
    assert r.returncode == 0, r.stderr
    assert time.monotonic() - t0 < 25


@pytest.mark.parametrize("tail", ["while True:\n    pass\n", "import time\ntime.sleep(60)\n"])
def test_trace_timeout_holds_with_a_detached_child(cli, tmp_path, tail):
    script = tmp_path / "stuck.py"
    script.write_text(DETACHED + tail)
    t0 = time.monotonic()
    r = cli("trace", str(script), "-o", str(tmp_path / "t.json"), "--timeout", "3", timeout=60)
    assert r.returncode == 1
    assert "did not finish within 3 s" in r.stderr
    assert time.monotonic() - t0 < 25
