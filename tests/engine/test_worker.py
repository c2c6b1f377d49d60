"""The worker process and WorkerClient, with real processes (no mocks).

One warm worker (module fixture) serves the tests that leave it alive; tests
that kill their worker (timeout, crashes) use a client of their own.
"""

from __future__ import annotations

import json
import math
import sys
import time

import pytest
import torch

from autogradviz.engine.protocol.client import FetchError, WorkerClient
from autogradviz.engine.trace.model import Trace
from autogradviz.engine.worker.service import OUTPUT_CAP


def _nodes(trace: Trace):
    for g in trace.graphs:
        yield from g.nodes


def _node_labelled(trace: Trace, label: str):
    for n in _nodes(trace):
        if n.label == label:
            return n
    raise AssertionError(f"no node labelled {label!r} in {[n.label for n in _nodes(trace)]}")


# -- protocol -----------------------------------------------------------------------------
def test_ready_reports_torch_and_cuda(worker):
    info = worker.ready_info
    assert info["type"] == "ready"
    assert info["torch_version"] == torch.__version__
    assert info["cuda_available"] == torch.cuda.is_available()
    assert isinstance(info["cuda_devices"], list)
    assert info["pid"] == worker.pid


def test_garbage_request_gets_protocol_error_and_worker_keeps_working(worker):
    for bad in ("this is not json", "[1, 2, 3]", '{"type": "launch-missiles", "id": 7}',
                '{"type": "run", "id": 8, "source": 42}',
                '{"type": "run", "id": 9, "source": "x = 1", "device": "tpu"}',
                '{"type": "run", "id": 11, "source": "x = 1", "steps": "no"}',
                '{"type": "fetch", "id": 10}'):
        worker.send_raw(bad)
        msg = worker.next_message(timeout=10)
        assert msg is not None and msg["type"] == "protocol_error", (bad, msg)
        assert msg["message"]
    assert worker.ping()
    out = worker.run("print('still here')", timeout=30)
    assert out.status == "ok" and out.trace.stdout == "still here\n"


def test_messages_are_strict_ascii_json_lines(worker):
    # A lone surrogate and non-ASCII text must not break the line-based protocol.
    out = worker.run("print('h\\u00e9llo \\u4e16\\u754c'); import sys; sys.stdout.write('\\ud800\\n')",
                     timeout=30)
    assert out.status == "ok", out.message
    assert out.trace.stdout.startswith("h\u00e9llo \u4e16\u754c\n")


def test_native_writes_to_fd1_do_not_corrupt_the_protocol(worker):
    out = worker.run("import os\nos.write(1, b'{not json at all\\n')\nprint('after')\n", timeout=30)
    assert out.status == "ok", out.message
    assert "after" in out.trace.stdout
    assert worker.ping()


def test_input_gets_eof_instead_of_reading_requests(worker):
    out = worker.run("x = input()\n", timeout=30)
    assert out.status == "error"
    assert out.trace.error.type == "EOFError"
    assert worker.ping()


# -- runs -----------------------------------------------------------------------------------
def test_warm_worker_answers_a_second_run(worker):
    pid = worker.pid
    seen = []
    first = worker.run("import torch\nx = torch.ones(2, requires_grad=True)\n(x * 3).sum().backward()\n"
                       "print('grad', x.grad.tolist())\n", filename="first.py", timeout=30,
                       on_output=lambda s, t: seen.append((s, t)))
    # (how fast a warm worker's next run is: benchmarks/bench_unit_timings.py)
    second = worker.run("print('second')\n", filename="second.py", timeout=30)
    assert worker.pid == pid
    assert first.status == "ok" and second.status == "ok"
    assert first.trace.stdout == "grad [3.0, 3.0]\n"
    assert ("stdout", "grad [3.0, 3.0]\n") in seen or "".join(t for _, t in seen) == "grad [3.0, 3.0]\n"
    assert second.trace.stdout == "second\n"
    assert second.trace.script == "second.py"
    assert first.trace.backward_runs, "the backward call should be recorded"


def test_device_variable_is_predefined(worker):
    out = worker.run("print(device)\n", timeout=30)
    assert out.trace.stdout == "cpu\n"


def test_syntax_error_has_message_and_line(worker):
    out = worker.run("x = 1\ny = (2 +\nz = 3\n", filename="syn.py", timeout=30)
    assert out.status == "error"
    err = out.trace.error
    assert err.type == "SyntaxError"
    assert err.message
    assert err.line in (2, 3)
    assert "syn.py, line" in out.message


MISTAKES = {
    "shape mismatch": "import torch\na = torch.ones(2, 3)\nb = torch.ones(4, 5)\nc = a @ b\n",
    "dtype mismatch": "import torch\na = torch.ones(2, 2)\nb = torch.ones(2, 2, dtype=torch.float64)\nc = a @ b\n",
    "in-place on leaf": "import torch\nw = torch.ones(3, requires_grad=True)\nw.add_(1)\n",
    "backward twice": ("import torch\nw = torch.ones(3, requires_grad=True)\ny = (w * w).sum()\n"
                       "y.backward()\ny.backward()\n"),
    "non-scalar backward": "import torch\nw = torch.ones(3, requires_grad=True)\ny = w * 2\ny.backward()\n",
    "no grad_fn": "import torch\nw = torch.ones(3)\ny = (w * 2).sum()\ny.backward()\n",
}


@pytest.mark.parametrize("name", sorted(MISTAKES))
def test_common_mistakes_are_explained(worker, name):
    source = MISTAKES[name]
    out = worker.run(source, filename="mistake.py", timeout=30)
    assert out.status == "error", name
    err = out.trace.error
    # Independently: what torch raises, and on which line.
    expected_line = len(source.rstrip("\n").splitlines())
    with pytest.raises(Exception) as info:
        exec(compile(source, "mistake.py", "exec"), {"__name__": "__main__"})
    assert err.type == type(info.value).__name__
    assert err.message.strip().splitlines()[0] in str(info.value)
    assert err.line == expected_line
    assert err.explanation and len(err.explanation) > 20, f"{name}: no plain-language explanation"


def test_reading_grad_of_a_non_leaf_is_explained(worker):
    # Not an exception in torch (a UserWarning): the trace explains it in notes.
    src = ("import torch\nw = torch.ones(3, requires_grad=True)\ny = w * 2\n"
           "y.sum().backward()\nprint(y.grad)\n")
    out = worker.run(src, filename="nonleaf.py", timeout=30)
    assert out.status == "ok", out.message
    assert out.trace.stdout == "None\n"
    notes = " ".join(getattr(out.trace, "notes", []))
    assert "non-leaf" in notes and ".grad" in notes


def test_exception_in_user_function_points_at_the_users_line(worker):
    src = "def f(x):\n    return x / 0 + undefined_name\n\nf(1)\n"
    out = worker.run(src, filename="fn.py", timeout=30)
    assert out.trace.error.type == "ZeroDivisionError"
    assert out.trace.error.line == 2


def test_megabytes_of_prints_are_capped_without_hanging(worker):
    chunks = []
    # (never a hang: "ok" within the run's timeout; how fast: bench_unit_timings.py)
    out = worker.run("for i in range(200_000):\n    print('x' * 49)\nprint('done')\n",
                     timeout=120, on_output=lambda s, t: chunks.append(t))
    assert out.status == "ok", out.message
    total = 200_000 * 50 + 5
    forwarded = "".join(chunks)
    assert len(forwarded) < OUTPUT_CAP + 500
    assert "[output truncated" in forwarded
    assert f"{total:,} characters printed in all" in forwarded
    assert len(chunks) < 1000, "output must be batched"
    assert len(out.trace.stdout) < OUTPUT_CAP + 500
    assert out.trace.stdout.startswith("x" * 49 + "\n")
    assert "[output truncated" in out.trace.stdout
    # The next run starts with a clean slate.
    again = worker.run("print('short')\n", timeout=30)
    assert again.trace.stdout == "short\n"


def test_empty_script_runs_to_an_empty_trace(worker):
    out = worker.run("", filename="empty.py", timeout=30)
    assert out.status == "ok"
    assert out.trace.error is None
    assert out.trace.graphs == [] and out.trace.backward_runs == []


# -- values ------------------------------------------------------------------------------------
FETCH_SCRIPT = """\
import torch
g = torch.Generator().manual_seed(1234)
a = torch.randn(30, 40, generator=g, requires_grad=True)
b = torch.randn(40, 20, generator=g, requires_grad=True)
loss = (a @ b).tanh().sum()
loss.backward()
"""


def test_fetch_returns_full_values_equal_to_torch(worker):
    out = worker.run(FETCH_SCRIPT, filename="fetch.py", timeout=60)
    assert out.status == "ok", out.message
    # Independently computed.
    g = torch.Generator().manual_seed(1234)
    a = torch.randn(30, 40, generator=g, requires_grad=True)
    b = torch.randn(40, 20, generator=g, requires_grad=True)
    (a @ b).tanh().sum().backward()

    node = _node_labelled(out.trace, "a")
    assert node.tensor.truncated and node.tensor.id
    full = worker.fetch(node.tensor.id)
    assert full.shape == [30, 40]
    assert not full.truncated
    assert len(full.values) == 1200
    assert torch.equal(torch.tensor(full.values, dtype=torch.float32).reshape(30, 40), a.detach())
    # Too many elements for one answer: a clear error, and the worker carries on.
    with pytest.raises(FetchError, match="1,200 elements"):
        worker.fetch(node.tensor.id, max_values=1000)

    # The leaf's gradient, kept by the backward run.
    run = out.trace.backward_runs[0]
    grad = run.leaf_grads[node.id]
    if grad.truncated:
        grad = worker.fetch(grad.id)
    assert torch.allclose(torch.tensor(grad.values).reshape(30, 40), a.grad, atol=1e-6)

    # What the recorder summarised after the script (an unnamed activation
    # saved by tanh, a gradient that flowed) is fetched the same way.
    with torch.no_grad():
        t = (a @ b).tanh()
    tanh = next(n for n in out.trace.graphs[0].nodes if n.op == "TanhBackward0")
    saved = next(sv for sv in tanh.saved if sv.name == "result")
    assert saved.skipped is None and saved.tensor.truncated and saved.tensor.id
    full = worker.fetch(saved.tensor.id)
    assert torch.allclose(torch.tensor(full.values).reshape(30, 20), t, atol=1e-6)
    step = next(s for s in run.steps if s.node == tanh.id)
    sent = worker.fetch(step.grad_inputs[0].id)
    assert torch.allclose(torch.tensor(sent.values).reshape(30, 20), 1 - t * t, atol=1e-6)


def test_fetch_of_unknown_tensor_is_a_clear_error(worker):
    worker.run("x = 1\n", timeout=30)
    with pytest.raises(FetchError) as info:
        worker.fetch("no-such-tensor")
    assert "no-such-tensor" in str(info.value)
    assert worker.ping()


def test_nan_and_inf_survive_strict_json(worker):
    src = ("import torch\nx = torch.tensor([float('nan'), float('inf'), -float('inf'), 1.0],"
           " requires_grad=True)\ny = (x * 2).sum()\ny.backward()\n")
    out = worker.run(src, timeout=30)
    assert out.status == "ok", out.message
    leaf = _node_labelled(out.trace, "x").tensor
    assert math.isnan(leaf.values[0]) and leaf.values[1] == math.inf and leaf.values[2] == -math.inf
    assert leaf.values[3] == 1.0
    # The file form is strict JSON and loads back to the same floats.
    text = out.trace.to_json()
    json.loads(text, parse_constant=lambda c: pytest.fail(f"non-strict JSON constant {c}"))
    again = Trace.from_json(text)
    v = _node_labelled(again, "x").tensor.values
    assert math.isnan(v[0]) and v[1:] == [math.inf, -math.inf, 1.0]


# -- devices -------------------------------------------------------------------------------------
@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA")
def test_cuda_without_cuda_is_a_clear_error(worker):
    out = worker.run("print('ran')\n", device="cuda", timeout=30)
    assert out.status == "error"
    assert out.trace.error.type == "CUDAUnavailable"
    assert "CUDA" in out.trace.error.message
    assert out.trace.stdout == "", "the script must not run"
    assert worker.ping()


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_cuda_run_on_a_real_gpu(worker):
    src = ("import torch\nw = torch.randn(8, 8, device=device, requires_grad=True)\n"
           "loss = (w @ w).relu().sum()\nloss.backward()\nprint(w.grad.device)\n")
    out = worker.run(src, device="cuda", timeout=120)
    assert out.status == "ok", out.message
    assert out.trace.device == "cuda"
    assert out.trace.stdout.startswith("cuda")
    assert _node_labelled(out.trace, "w").tensor.device.startswith("cuda")


# -- a worker that dies --------------------------------------------------------------------------
def test_infinite_loop_is_stopped_at_the_timeout_and_next_run_gets_a_fresh_worker(gone):
    client = WorkerClient()
    try:
        client.start()
        old = client.pid
        t0 = time.monotonic()
        out = client.run("print('looping')\nwhile True:\n    pass\n", filename="loop.py", timeout=2.0)
        elapsed = time.monotonic() - t0
        assert out.status == "timeout"
        assert 2.0 <= elapsed < 60  # (waited the timeout, then stopped; how fast: bench_unit_timings.py)
        assert "did not finish within 2 s" in out.message
        assert out.trace.error.type == "Timeout"
        assert out.trace.error.line in (2, 3)
        assert out.trace.stdout == "looping\n"
        gone(old)
        again = client.run("print('fresh')\n", timeout=60)
        assert again.status == "ok" and again.trace.stdout == "fresh\n"
        assert client.pid != old
    finally:
        pid = client.pid
        client.close()
        if pid:
            gone(pid)


@pytest.mark.parametrize("how,expect", [
    ("import os\nprint('bye')\nos._exit(7)\n", "exit code 7"),
    ("import ctypes\nctypes.string_at(0)\n", "SIGSEGV"),
])
def test_a_worker_that_dies_is_reported_never_a_hang(how, expect, gone):
    client = WorkerClient()
    try:
        client.start()
        pid = client.pid
        out = client.run(how, filename="die.py", timeout=60)
        assert out.status == "crashed"  # (not "timeout": reported, never a hang)
        assert expect in out.message
        assert out.trace.error.type == "WorkerCrashed"
        if "ctypes" in how:
            assert out.trace.error.line == 2  # from the faulthandler dump
        else:
            assert out.trace.stdout == "bye\n"
        gone(pid)
        with pytest.raises(FetchError):
            client.fetch("anything")
    finally:
        client.close()


def test_close_reaps_a_worker_stuck_in_a_thread(gone):
    # (a daemon thread: a non-daemon one is waited for at the end of the run,
    # as python does - test_fresh_runs.py)
    client = WorkerClient()
    client.start()
    out = client.run("import threading, time\n"
                     "threading.Thread(target=lambda: time.sleep(1000), daemon=True).start()\n", timeout=30)
    assert out.status == "ok"
    pid = client.pid
    client.close()  # (returns: how fast, bench_unit_timings.py)
    gone(pid)


# -- protocol module: progress, version ------------------------------------------------------------
def test_progress_is_sent_for_a_big_graph(worker):
    from autogradviz.engine.worker.service import PROGRESS_MIN_NODES

    seen = []
    src = ("import torch\nx = torch.ones(2, requires_grad=True)\ny = x\n"
           f"for i in range({PROGRESS_MIN_NODES}):\n    y = y * 1.001\ny.sum().backward()\n")
    out = worker.run(src, timeout=60, on_progress=lambda code, params: seen.append((code, params)))
    assert out.status == "ok", out.message
    nodes = sum(len(g.nodes) for g in out.trace.graphs)
    assert ("encoding", {"nodes": nodes}) in seen, seen
    small = []
    worker.run("x = 1\n", timeout=30, on_progress=lambda code, params: small.append(code))
    assert "encoding" not in small, "a small trace is not announced"


def test_trace_bytes_are_the_file_form(worker):
    out = worker.run("import torch\nx = torch.tensor([float('nan'), 1.0], requires_grad=True)\n"
                     "(x * 2).sum().backward()\n", timeout=30, keep_json=True)
    assert out.status == "ok", out.message
    assert out.trace_json.startswith(b'{"format":"autogradviz-trace","version":')
    assert Trace.from_json(out.trace_json).to_json() == out.trace.to_json()
    assert out.trace.to_json().encode() == out.trace_json


def test_a_worker_of_another_protocol_version_is_refused(tmp_path):
    from autogradviz.engine.protocol.client import WorkerError
    from autogradviz.engine.protocol.messages import PROTOCOL_VERSION

    fake = tmp_path / "python"
    fake.write_text(
        "#!/bin/sh\n"
        f"exec {sys.executable} -c 'import autogradviz.engine.protocol.messages as m; "
        "m.PROTOCOL_VERSION = 99; import runpy; runpy.run_module(\"autogradviz.engine.worker\", "
        "run_name=\"__main__\")'\n")
    fake.chmod(0o755)
    client = WorkerClient(python=str(fake))
    with pytest.raises(WorkerError) as info:
        client.start()
    assert f"protocol version 99, this client version {PROTOCOL_VERSION}" in str(info.value)
    assert not client.alive
