"""Summaries of large tensors in any memory layout: statistics are read in
memory order (fast for transposed weights) but must equal torch's own values
for the tensor as the user sees it, and the head stays in logical order."""

import math

import pytest
import torch

from autogradviz.engine.worker.summarize import summarize


def _views():
    base = torch.randn(300, 200, dtype=torch.float64)
    yield "transposed", base.t()
    yield "permuted 3-d", torch.randn(20, 30, 40).permute(2, 0, 1)
    yield "strided slice", base[:, ::2]
    yield "expanded", torch.randn(300, 1).expand(300, 50)
    yield "int transposed", torch.randint(-1000, 1000, (250, 120)).t()


@pytest.mark.parametrize("name,t", list(_views()), ids=[n for n, _ in _views()])
def test_statistics_and_head_of_any_layout_equal_torch(name, t):
    s = summarize(t)
    assert list(s.shape) == list(t.shape)
    assert s.min == pytest.approx(float(t.min()))
    assert s.max == pytest.approx(float(t.max()))
    flat = t.flatten()
    assert s.values == flat[: len(s.values)].tolist()
    if t.is_floating_point():
        assert math.isclose(s.mean, float(t.mean()), rel_tol=1e-5, abs_tol=1e-6)
        assert math.isclose(s.norm, float(torch.linalg.vector_norm(t)), rel_tol=1e-5)
