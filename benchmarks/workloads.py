"""Script texts shared by several benchmarks (plain strings: importing this
imports no torch, so the GUI benchmark can use them too)."""

# ~10,000 autograd nodes from a real script: an unrolled chain with shared
# leaves and no modules (nothing to collapse).
DEEP_CHAIN = """
import torch
w = torch.randn(8, requires_grad=True)
b = torch.randn(8, requires_grad=True)
x = torch.randn(8)
for i in range(3300):
    x = torch.tanh(x * w + b)
loss = x.sum()
loss.backward()
"""
