"""The error explanation crosses as a code with parameters and the app says it
in the UI language: in English word for word the worker's own sentence (kept in
the trace for other readers), in zh_CN with no English sentence left."""

from __future__ import annotations

import pytest

from autogradviz.app import i18n
from autogradviz.app.window.error_texts import ErrorTexts
from autogradviz.engine.worker.runner import run_script

from ui_text_walk import english_runs

# one script per explained mistake (tests/engine/test_runner_errors.py checks the English itself)
CASES = {
    "shape mismatch (matmul)": "import torch\na = torch.randn(2, 3)\nb = torch.randn(4, 5)\nc = a @ b\n",
    "shape mismatch (bmm)": "import torch\ntorch.bmm(torch.randn(2, 3, 4), torch.randn(3, 5, 6))\n",
    "shape mismatch (broadcast)": "import torch\na = torch.randn(2, 3)\nb = torch.randn(2, 5)\nc = a + b\n",
    "shape mismatch (view)": "import torch\ntorch.randn(2, 3).view(4, 2)\n",
    "device mismatch": "import torch\na = torch.randn(2)\nb = torch.randn(2, device='meta')\nc = a + b\n",
    "dtype mismatch": "import torch\na = torch.randn(2, 3)\nb = torch.randn(3, 2, dtype=torch.float64)\nc = a @ b\n",
    "in-place on leaf": "import torch\nw = torch.randn(3, requires_grad=True)\nw += 1\n",
    "backward twice": "import torch\nx = torch.randn(3, requires_grad=True)\ny = (x.exp()).sum()\n"
                      "y.backward()\ny.backward()\n",
    "backward on non-scalar": "import torch\nx = torch.randn(3, requires_grad=True)\ny = x * 2\ny.backward()\n",
    "backward without grad_fn": "import torch\nx = torch.randn(3)\ny = (x * 2).sum()\ny.backward()\n",
    "int requires grad": "import torch\nx = torch.tensor([1, 2], requires_grad=True)\n",
    "modified in place": "import torch\nx = torch.randn(3, requires_grad=True)\ny = x.exp()\ny.add_(1)\n"
                         "y.sum().backward()\n",
    "grad of non-leaf is None": "import torch\nx = torch.randn(3, requires_grad=True)\ny = x * 2\n"
                                "y.sum().backward()\nprint(y.grad.shape)\n",
    "unused input": "import torch\nx = torch.randn(3, requires_grad=True)\nz = torch.randn(3, requires_grad=True)\n"
                    "torch.autograd.grad((x * 2).sum(), [x, z])\n",
    "a Linear inside a Sequential": "import torch\nmodel = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU())\n"
                                    "model(torch.ones(2, 3))\n",
    "inside a module of the script's own": "import torch\nclass Net(torch.nn.Module):\n"
                                           "    def forward(self, x):\n        return x + torch.ones(5)\n"
                                           "net = Net()\nnet(torch.ones(3))\n",
    "syntax": "x = (1,\n",
    "import name": "from os import no_such_name_here\n",
    "input at end of input": "raise EOFError('EOF when reading a line')\n",
    "checkpoint kwargs": "import torch\nfrom torch.utils.checkpoint import checkpoint\n"
                         "def f(x, scale=1.0):\n    return x * scale\n"
                         "checkpoint(f, torch.ones(2, requires_grad=True), scale=2.0, use_reentrant=True)\n",
    "checkpoint_sequential kwargs": "import torch\nfrom torch.utils.checkpoint import checkpoint_sequential\n"
                                    "m = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.ReLU())\n"
                                    "checkpoint_sequential(m, 2, torch.ones(1, 2), use_reentrant=False, bogus=1)\n",
}


@pytest.fixture(scope="module")
def errors():
    out = {}
    for name, src in CASES.items():
        out[name] = run_script(src, filename="/virtual/mistake.py").trace.error
    return out


def test_every_explained_error_carries_a_code_the_app_says_as_the_worker_did(qapp, errors):
    texts = ErrorTexts()
    i18n.set_language("en", save=False)
    for name, err in errors.items():
        assert err is not None and err.explanation, name
        assert err.code, f"{name}: explanation without a code"
        assert texts.explanation(err) == err.explanation, name


def test_in_chinese_no_english_sentence_is_left(qapp, errors):
    texts = ErrorTexts()
    i18n.set_language("zh_CN", save=False)
    try:
        for name, err in errors.items():
            text = texts.explanation(err)
            assert text and text != err.explanation, name
            assert not english_runs(text), (name, english_runs(text))
    finally:
        i18n.set_language("en", save=False)


def test_the_matmul_sizes_are_the_messages(qapp, errors):
    err = errors["shape mismatch (matmul)"]
    assert err.code == "shape_matmul"
    assert err.params == {"rows_a": 2, "cols_a": 3, "rows_b": 4, "cols_b": 5}


def test_an_error_inside_a_module_names_the_module_with_its_sizes(qapp, errors):
    """torch says "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x8)"; the
    explanation adds which layer: model.0, a Linear(in_features=4, ...) that got 3."""
    err = errors["a Linear inside a Sequential"]
    assert err.params["module"] == "model.0"
    assert err.params["module_class"] == "Linear"
    assert err.params["module_args"].startswith("in_features=4, out_features=8")
    assert err.explanation.endswith("It happened inside model.0, a Linear(in_features=4, out_features=8, "
                                    "bias=True): it takes 4 input features and got 3.")
    texts = ErrorTexts()
    i18n.set_language("zh_CN", save=False)
    try:
        zh = texts.explanation(err)
    finally:
        i18n.set_language("en", save=False)
    assert "model.0" in zh and "Linear(in_features=4, out_features=8, bias=True)" in zh
    assert "接收 4 个输入特征，却得到了 3 个" in zh
    own = errors["inside a module of the script's own"]
    assert (own.params["module"], own.params["module_class"]) == ("net", "Net")
