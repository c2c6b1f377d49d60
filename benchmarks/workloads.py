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

# The deep network: a 12-layer nn.TransformerEncoder, 911 autograd
# nodes; its layers 1-11 are identical (layer 0 is fed x, which needs no
# gradient, and records fewer nodes).
TRANSFORMER_12 = """
import torch
from torch import nn
torch.manual_seed(0)
layer = nn.TransformerEncoderLayer(d_model=16, nhead=2, dim_feedforward=32, batch_first=True)
enc = nn.TransformerEncoder(layer, num_layers=12, enable_nested_tensor=False)
x = torch.randn(2, 5, 16)
loss = enc(x).pow(2).mean()
loss.backward()
"""
