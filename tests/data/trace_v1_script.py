# The script behind trace_v1.json: a trace file of format version 1 as
# written before the msgspec codec (commit 216bc32), kept so that a test
# can check old files still load with identical content.
import torch

x = torch.tensor([1.0, float("inf"), -2.0], requires_grad=True)
w = torch.tensor([0.5, 2.0, float("nan")], requires_grad=True)
y = x * w
y.retain_grad()


def double(g):
    return g * 2


y.register_hook(double)
z = y.exp().clamp(max=3.0)
loss = z.sum()
loss.backward(retain_graph=True)
print(y.grad)
print(loss.grad)  # non-leaf .grad: a note
h = torch.nn.Linear(3, 2)
out = h(x.detach()).pow(2).mean()
g = torch.autograd.grad(out, [h.weight])
print(g[0].shape)
