"""`autogradviz trace -o FILE`: the worker writes the trace file itself
(engine/worker/trace_file_out.py), at a temporary name beside FILE that the
CLI renames over FILE after the run (engine/trace/atomic_file.py `commit`).
Real worker processes and the real CLI; where the worker cannot write the
file (a limit the script set, a name taken), the trace comes through the
pipe as before and the file is the same."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import textwrap

import pytest
import torch

from autogradviz.engine.protocol.client import trace_file
from autogradviz.engine.protocol.message_types import Run, TraceMessage, decode_request, decode_worker_message, \
    encode_message
from autogradviz.engine.trace import atomic_file, codec
from autogradviz.engine.trace.model import Trace

SCRIPT = textwrap.dedent("""
    import torch
    torch.manual_seed(0)
    w = torch.randn(5, requires_grad=True)
    x = torch.randn(5)
    for i in range(20):
        x = torch.tanh(x * w)
    x.sum().backward()
    torch.save(w.grad, "grad.pt")
    print("done")
""")


def _script(tmp_path, text: str = SCRIPT, name: str = "s.py") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def _torch_grad(tmp_path) -> list:
    """The gradient the script's own torch computed (saved by the script)."""
    return torch.load(tmp_path / "grad.pt").tolist()


def _leaf_grad(trace: Trace) -> list:
    return [s for r in trace.backward_runs for s in r.leaf_grads.values()][0].values


def test_the_worker_writes_the_whole_file_and_sends_its_outline(tmp_path):
    script = _script(tmp_path)
    target = str(tmp_path / "out.json")
    tmp = atomic_file.temp_path(target)
    assert os.path.dirname(tmp) == str(tmp_path) and not os.path.exists(tmp)
    outcome = trace_file(script, keep_json=True, outline=True, write_to=tmp)
    assert outcome.exit_code == 0, outcome.message
    assert outcome.written_to == tmp
    assert outcome.trace.stdout == "done\n" and outcome.trace.graphs == []  # (the outline)
    data = open(tmp, "rb").read()
    assert data.endswith(b"}\n") and len(outcome.trace_json) < len(data) / 4
    assert stat.S_IMODE(os.stat(tmp).st_mode) == 0o600  # (private until the CLI renames it)
    full = codec.decode_trace(data)
    assert full.stdout == "done\n" and sum(len(g.nodes) for g in full.graphs) > 40
    assert _leaf_grad(full) == _torch_grad(tmp_path)


def test_the_cli_renames_the_workers_file_and_leaves_nothing_beside_it(tmp_path):
    script = _script(tmp_path)
    target = tmp_path / "out.json"
    target.write_text("old", encoding="utf-8")
    os.chmod(target, 0o640)
    r = subprocess.run([sys.executable, "-m", "autogradviz", "trace", script, "-o", str(target)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert sorted(os.listdir(tmp_path)) == ["grad.pt", "out.json", "s.py"]  # (no temporary left)
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640  # (the file's own permissions kept)
    back = codec.decode_trace(target.read_bytes())
    assert _leaf_grad(back) == _torch_grad(tmp_path)
    # the same file as the CLI writes when it gets the bytes (--indent 0 takes that path)
    r2 = subprocess.run([sys.executable, "-m", "autogradviz", "trace", script, "-o", str(tmp_path / "b.json"),
                         "--indent", "0"], capture_output=True, text=True, timeout=300)
    assert r2.returncode == 0, r2.stderr
    other = codec.decode_trace((tmp_path / "b.json").read_bytes())
    def same(t):  # (what does not differ between two runs of the script: not pids, threads, times)
        return json.dumps(codec.to_builtins([t.graphs, [r.steps for r in t.backward_runs], t.stdout]))
    assert same(back) == same(other)


def test_a_file_size_limit_the_script_sets_sends_the_trace_through_the_pipe(tmp_path):
    """The run child is the script's process: a script that limits file sizes
    (RLIMIT_FSIZE) limits the worker's write; the trace comes through the pipe."""
    pytest.importorskip("resource")
    script = _script(tmp_path, "import resource\nresource.setrlimit(resource.RLIMIT_FSIZE, (2000, 2000))\n"
                     + SCRIPT)
    tmp = atomic_file.temp_path(str(tmp_path / "out.json"))
    outcome = trace_file(script, keep_json=True, outline=True, write_to=tmp)
    assert outcome.exit_code == 0, outcome.message
    assert outcome.written_to is None and not os.path.exists(tmp)
    full = codec.decode_trace(outcome.trace_json)
    assert _leaf_grad(full) == _torch_grad(tmp_path)
    # and through the CLI: the whole file, nothing left beside it
    target = tmp_path / "cli.json"
    r = subprocess.run([sys.executable, "-m", "autogradviz", "trace", script, "-o", str(target)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert _leaf_grad(codec.decode_trace(target.read_bytes())) == _torch_grad(tmp_path)
    assert not [n for n in os.listdir(tmp_path) if n.endswith(".tmp.json")]


def test_the_workers_file_is_readable_back_whatever_umask_the_script_set(tmp_path):
    """The run child is the script's process: a script that sets umask 0o777
    must not leave the CLI a file it cannot open to sync and rename."""
    script = _script(tmp_path, "import os\nos.umask(0o777)\n" + SCRIPT)
    tmp = atomic_file.temp_path(str(tmp_path / "out.json"))
    outcome = trace_file(script, keep_json=True, outline=True, write_to=tmp)
    assert outcome.exit_code == 0 and outcome.written_to == tmp, outcome.message
    assert stat.S_IMODE(os.stat(tmp).st_mode) == 0o600


def test_a_script_that_replaced_open_and_os_write_does_not_touch_the_file(tmp_path):
    """What the script leaves patched (a mock of `open`, `os.write`,
    `os.open`) is not what the worker writes the trace with."""
    script = _script(tmp_path, "import builtins, os\n" + SCRIPT +
                     "builtins.open = lambda *a, **k: (_ for _ in ()).throw(OSError('mocked'))\n"
                     "os.write = lambda fd, data: len(data)\n"
                     "os.open = lambda *a, **k: 99\n")
    tmp = atomic_file.temp_path(str(tmp_path / "out.json"))
    outcome = trace_file(script, keep_json=True, outline=True, write_to=tmp)
    assert outcome.exit_code == 0 and outcome.written_to == tmp, outcome.message
    full = codec.decode_trace(open(tmp, "rb").read())
    assert _leaf_grad(full) == _torch_grad(tmp_path)


@pytest.mark.parametrize("taken", ["file", "symlink"])
def test_a_name_already_taken_is_never_written_through(tmp_path, taken):
    script = _script(tmp_path)
    tmp = atomic_file.temp_path(str(tmp_path / "out.json"))
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me", encoding="utf-8")
    if taken == "file":
        with open(tmp, "w") as f:
            f.write("keep me too")
    else:
        os.symlink(victim, tmp)
    outcome = trace_file(script, keep_json=True, outline=True, write_to=tmp)
    assert outcome.exit_code == 0 and outcome.written_to is None
    assert victim.read_text(encoding="utf-8") == "keep me"
    if taken == "file":
        assert open(tmp).read() == "keep me too"
    assert _leaf_grad(codec.decode_trace(outcome.trace_json)) == _torch_grad(tmp_path)


def test_a_worker_that_dies_leaves_no_temporary_file(tmp_path):
    script = _script(tmp_path, "import os, signal\nprint('before', flush=True)\nos.kill(os.getpid(), signal.SIGKILL)\n")
    target = tmp_path / "out.json"
    r = subprocess.run([sys.executable, "-m", "autogradviz", "trace", script, "-o", str(target)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 1, r.stderr
    assert sorted(os.listdir(tmp_path)) == ["out.json", "s.py"]
    back = codec.decode_trace(target.read_bytes())
    assert back.error is not None and "before" in back.stdout


def test_a_failed_write_removes_what_it_wrote(tmp_path):
    """A write that fails part-way (a real EFBIG from a file-size limit, the
    limit check turned off to get there) leaves no partial file."""
    pytest.importorskip("resource")
    code = textwrap.dedent(f"""
        import resource, os, sys
        from autogradviz.engine.worker import trace_file_out
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
        trace_file_out._size_allowed = lambda size: True
        path = {str(tmp_path / "t.json")!r}
        ok = trace_file_out.write_trace_file(path, b"x" * 100000)
        print(ok, os.path.exists(path))
        print(trace_file_out.write_trace_file("relative.json", b"{{}}"), os.path.exists("relative.json"))
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["False", "False", "False", "False"]


def test_the_protocol_carries_the_file_and_what_was_written():
    req = Run(id=3, source="x = 1", trace_file="/tmp/.out.json.ab12.tmp.json")
    assert decode_request(encode_message(req).strip()) == req
    assert "trace_file" not in encode_message(Run(id=4, source="")).decode()  # (absent by default)
    outline = codec.encode_outline(Trace(stdout="hi\n"))
    msg = decode_worker_message(encode_message(TraceMessage(id=3, trace=Trace(), trace_json=outline, written=1234)),
                                keep_trace_json=True, trace_outline=True)
    assert isinstance(msg, TraceMessage) and msg.written == 1234 and msg.trace.stdout == "hi\n"
    plain = decode_worker_message(encode_message(TraceMessage(id=5, trace=Trace(stdout="x"))))
    assert plain.written is None and plain.trace.stdout == "x"
