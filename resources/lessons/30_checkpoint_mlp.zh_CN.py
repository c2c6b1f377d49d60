# 第 30 课：对一个 MLP 块做 checkpoint
# 运行，然后看图中的“检查点 1”区域，并逐步执行反向传播。
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
mlp = nn.Sequential(nn.Linear(4, 16), nn.GELU(), nn.Linear(16, 4))
head = nn.Linear(4, 1)
x = torch.randn(8, 4, requires_grad=True)

# checkpoint 只保留块的输入 x，不保留块内部的张量
h = checkpoint(mlp, x, use_reentrant=False)
loss = head(h).pow(2).mean()
loss.backward()           # 需要块内部的张量：torch 再运行一次 mlp(x)
grad_with = mlp[0].weight.grad.clone()

# 不用 checkpoint 的同一个模型，用来对照
mlp.zero_grad()
head.zero_grad()
loss_plain = head(mlp(x)).pow(2).mean()
loss_plain.backward()
print("same loss:", torch.equal(loss, loss_plain))
print("same gradient:", torch.equal(grad_with, mlp[0].weight.grad))
