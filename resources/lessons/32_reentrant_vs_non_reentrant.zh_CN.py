# 第 32 课：重入式与非重入式 checkpoint
# 运行，然后比较图中的两个区域（点击重入式区域的标题）。
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
block = nn.Sequential(nn.Linear(3, 3), nn.Tanh())
x = torch.randn(2, 3, requires_grad=True)

a = checkpoint(block, x, use_reentrant=True)    # 一个看不到内部的节点
b = checkpoint(block, x, use_reentrant=False)   # 块自己的节点
print("reentrant:", a.grad_fn.name())
print("non-reentrant:", b.grad_fn.name())
loss = (a * b).sum()
loss.backward()

try:   # 重入式 checkpoint 只接受位置参数
    checkpoint(lambda t, scale: block(t) * scale, x, scale=2.0, use_reentrant=True)
except ValueError as e:
    print("ValueError:", e)
