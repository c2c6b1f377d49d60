# Lesson 30: checkpoint an MLP block
# Run, then look at the graph's "checkpoint 1" region and step into backward.
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
mlp = nn.Sequential(nn.Linear(4, 16), nn.GELU(), nn.Linear(16, 4))
head = nn.Linear(4, 1)
x = torch.randn(8, 4, requires_grad=True)

# checkpoint keeps the block's input x, not the tensors inside the block
h = checkpoint(mlp, x, use_reentrant=False)
loss = head(h).pow(2).mean()
loss.backward()           # needs the block's tensors: torch runs mlp(x) again
grad_with = mlp[0].weight.grad.clone()

# the same model without checkpoint, for comparison
mlp.zero_grad()
head.zero_grad()
loss_plain = head(mlp(x)).pow(2).mean()
loss_plain.backward()
print("same loss:", torch.equal(loss, loss_plain))
print("same gradient:", torch.equal(grad_with, mlp[0].weight.grad))
