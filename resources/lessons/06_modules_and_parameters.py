# Lesson 6: nn.Module, nn.Parameter, module vs functional
import torch
from torch import nn
import torch.nn.functional as F

torch.manual_seed(0)


class TinyNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 4)                     # a module: holds weight and bias
        self.scale = nn.Parameter(torch.tensor(2.0))  # a bare learnable tensor

    def forward(self, x):
        return self.scale * F.relu(self.fc1(x))


net = TinyNet()
x = torch.randn(2, 3)

# Parameters are registered automatically: name, shape, requires_grad.
for name, p in net.named_parameters():
    print(f"{name:12s} {tuple(p.shape)} requires_grad={p.requires_grad}")

out = net(x)
# The functional form: the same computation, weights passed by hand.
out_f = net.scale * F.relu(F.linear(x, net.fc1.weight, net.fc1.bias))
print("module == functional:", torch.equal(out, out_f))

loss = out.sum()
loss.backward()
# After backward every parameter has a .grad of its own shape.
for name, p in net.named_parameters():
    print(f"{name:12s} grad sum = {p.grad.sum().item():.4f}")
