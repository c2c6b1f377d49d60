"""Each common mistake: the script's exception, its line, and a plain explanation.

The expected exception type and message come from torch itself, run in the
test without the app.
"""

from __future__ import annotations

import pytest

from autogradviz.engine.worker.runner import run_script

CASES = {
    "shape mismatch (matmul)": ("import torch\na = torch.randn(2, 3)\nb = torch.randn(4, 5)\nc = a @ b\n",
                                4, ["columns", "rows"]),
    "shape mismatch (broadcast)": ("import torch\na = torch.randn(2, 3)\nb = torch.randn(2, 5)\nc = a + b\n",
                                   4, ["broadcast"]),
    "device mismatch": ("import torch\na = torch.randn(2)\nb = torch.randn(2, device='meta')\nc = a + b\n",
                        4, ["device"]),
    "dtype mismatch": ("import torch\na = torch.randn(2, 3)\nb = torch.randn(3, 2, dtype=torch.float64)\n"
                       "c = a @ b\n", 4, ["dtype"]),
    "in-place on leaf": ("import torch\nw = torch.randn(3, requires_grad=True)\nw += 1\n", 3, ["no_grad"]),
    "backward twice": ("import torch\nx = torch.randn(3, requires_grad=True)\ny = (x.exp()).sum()\n"
                       "y.backward()\ny.backward()\n", 5, ["retain_graph=True"]),
    "backward on non-scalar": ("import torch\nx = torch.randn(3, requires_grad=True)\ny = x * 2\n"
                               "y.backward()\n", 4, ["scalar"]),
    "backward without grad_fn": ("import torch\nx = torch.randn(3)\ny = (x * 2).sum()\ny.backward()\n",
                                 4, ["requires_grad=True"]),
    "int requires grad": ("import torch\nx = torch.tensor([1, 2], requires_grad=True)\n", 2, ["floating"]),
    "modified in place": ("import torch\nx = torch.randn(3, requires_grad=True)\ny = x.exp()\ny.add_(1)\n"
                          "y.sum().backward()\n", 5, ["in place"]),
    "grad of non-leaf is None": ("import torch\nx = torch.randn(3, requires_grad=True)\ny = x * 2\n"
                                 "y.sum().backward()\nprint(y.grad.shape)\n", 5, ["retain_grad"]),
}


def _plain_torch_error(src):
    try:
        exec(compile(src, "<plain>", "exec"), {"__name__": "__main__"})
    except Exception as exc:  # noqa: BLE001 - we want whatever torch raises
        return exc
    return None


@pytest.mark.parametrize("name", list(CASES))
def test_common_mistake_is_explained(name):
    src, line, words = CASES[name]
    ref = _plain_torch_error(src)
    assert ref is not None
    err = run_script(src, filename="/virtual/mistake.py").trace.error
    assert err is not None
    assert err.type == type(ref).__name__
    assert err.message == str(ref)  # the same exception as without the app
    assert err.line == line
    assert err.explanation, f"no explanation for {name}: {err.message}"
    for w in words:
        assert w in err.explanation


def test_unknown_error_has_no_made_up_explanation():
    err = run_script("raise ValueError('my own')\n", filename="/virtual/x.py").trace.error
    assert err.type == "ValueError" and err.message == "my own" and err.explanation is None


def test_traceback_shows_no_frames_of_ours_inside_probes():
    """An error raised inside a checkpointed function and inside a tensor hook
    (both run through probe wrappers) shows only the script's and torch's frames."""
    import torch.utils.checkpoint  # noqa: F401

    from autogradviz.engine.worker.runner import run_script

    src = (
        "import torch\n"
        "from torch.utils.checkpoint import checkpoint\n"
        "def f(x):\n"
        "    raise ValueError('inside the segment')\n"
        "x = torch.ones(2, requires_grad=True)\n"
        "checkpoint(f, x, use_reentrant=False)\n"
    )
    r = run_script(src, filename="/virtual/ckpt_error.py")
    assert r.trace.error.type == "ValueError" and r.trace.error.line == 4
    import os

    import autogradviz.engine as engine_pkg

    ours = os.path.dirname(os.path.abspath(engine_pkg.__file__))
    assert ours not in r.trace.error.traceback, r.trace.error.traceback
    assert 'File "/virtual/ckpt_error.py", line 4' in r.trace.error.traceback
