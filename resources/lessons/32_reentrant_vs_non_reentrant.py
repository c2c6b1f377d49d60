# Lesson 32: reentrant vs non-reentrant checkpoint
# Run, then compare the two regions in the graph (click the reentrant one's title).
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
block = nn.Sequential(nn.Linear(3, 3), nn.Tanh())
x = torch.randn(2, 3, requires_grad=True)

a = checkpoint(block, x, use_reentrant=True)    # one opaque node
b = checkpoint(block, x, use_reentrant=False)   # the block's own nodes
print("reentrant:", a.grad_fn.name())
print("non-reentrant:", b.grad_fn.name())
loss = (a * b).sum()
loss.backward()

try:   # reentrant checkpoint takes positional arguments only
    checkpoint(lambda t, scale: block(t) * scale, x, scale=2.0, use_reentrant=True)
except ValueError as e:
    print("ValueError:", e)
