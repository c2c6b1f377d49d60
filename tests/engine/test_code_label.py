"""Labels from code: only where the line plainly makes one operation."""

from __future__ import annotations

import pytest

from autogradviz.engine.layout.code_label import code_label


@pytest.mark.parametrize("code, label", [
    ("z = y + c", "y + c"),
    ("return t * t", "t * t"),
    ("u = a @ self.w", "a @ self.w"),
    ("h = torch.tanh(h)", "torch.tanh(h)"),
    ("loss = F.mse_loss(out, target)", "F.mse_loss(out, target)"),
    ("s = y.sum(dim=0)", "y.sum(dim=0)"),
    ("n = -x", "-x"),
    # several ops, or calls of the script's own functions/modules: no label
    ("h = torch.tanh(x @ W + b)", None),
    ("y = square(y) + 1", None),
    ("h = self.fc(x)", None),
    ("x = w[0] * 2", None),
    ("y = x.T * 2", None),
    ("y += c", None),
    ("z = (y", None),
    ("for i in range(3):", None),
    ("", None),
])
def test_code_label(code, label):
    assert code_label(code) == label
