# Lesson 19: what torch.compile does to backward
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
x = torch.randn(16, 4)

# Eager: every op of the forward leaves its own node in the graph.
loss = model(x).pow(2).mean()
loss.backward()
eager_grad = model[0].weight.grad.clone()
model.zero_grad()

# Compiled: the same module, traced once by Dynamo and compiled by Inductor.
compiled = torch.compile(model)
loss_c = compiled(x).pow(2).mean()
# The compiled forward is one autograd Function: its backward is one node.
loss_c.backward()

print("same loss:", torch.allclose(loss, loss_c))
print("same gradients:", torch.allclose(eager_grad, model[0].weight.grad, atol=1e-6))
