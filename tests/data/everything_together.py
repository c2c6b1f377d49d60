"""Checkpoint (both kinds) + Dropout + a custom Function + a module hook + a thread: prints its gradients."""
import threading

import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x * g


torch.manual_seed(0)
block = nn.Sequential(nn.Linear(5, 5), nn.ReLU(), nn.Dropout(0.4))
other = nn.Sequential(nn.Linear(5, 5), nn.Tanh(), nn.Dropout(0.2))
head = nn.Linear(5, 1)
seen = []
head.register_forward_hook(lambda m, i, o: seen.append(o.shape))
x = torch.randn(4, 5, requires_grad=True)


def step(tag):
    h = checkpoint(block, Square.apply(x), use_reentrant=True)
    h = checkpoint(other, h, use_reentrant=False)
    loss = head(h).sum()
    loss.backward()
    print(tag, "x.grad", [round(v, 7) for v in x.grad.flatten().tolist()])
    print(tag, "w.grad", [round(v, 7) for v in block[0].weight.grad.flatten().tolist()])


step("main")
t = threading.Thread(target=step, args=("thread",))
t.start()
t.join()
print("hook", len(seen), "rand", torch.rand(2).tolist())
