# Lesson 14: manual_seed and deterministic algorithms
import torch
from torch import nn

# Raise an error instead of silently using an operation that can give
# different results from run to run.
torch.use_deterministic_algorithms(True)


def one_run(seed):
    torch.manual_seed(seed)          # every random number below follows from it
    layer = nn.Linear(4, 1)          # random initial weights
    data = torch.randn(8, 4)         # random data
    loss = layer(data).pow(2).mean()
    loss.backward()
    return layer.weight.grad.clone()


first = one_run(0)
second = one_run(0)
other = one_run(1)
print("seed 0 twice, same gradients:", torch.equal(first, second))
print("seed 0 vs seed 1, same gradients:", torch.equal(first, other))
print("deterministic algorithms on:", torch.are_deterministic_algorithms_enabled())
torch.use_deterministic_algorithms(False)   # back to the default
