# 第 6 课：nn.Module、nn.Parameter、模块与函数式
import torch
from torch import nn
import torch.nn.functional as F

torch.manual_seed(0)


class TinyNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 4)                     # 一个模块：持有 weight 和 bias
        self.scale = nn.Parameter(torch.tensor(2.0))  # 一个单独的可学习张量

    def forward(self, x):
        return self.scale * F.relu(self.fc1(x))


net = TinyNet()
x = torch.randn(2, 3)

# 参数会被自动注册：名字、形状、requires_grad。
for name, p in net.named_parameters():
    print(f"{name:12s} {tuple(p.shape)} requires_grad={p.requires_grad}")

out = net(x)
# 函数式写法：同样的计算，权重手动传入。
out_f = net.scale * F.relu(F.linear(x, net.fc1.weight, net.fc1.bias))
print("module == functional:", torch.equal(out, out_f))

loss = out.sum()
loss.backward()
# backward 之后，每个参数都有一个与自身形状相同的 .grad。
for name, p in net.named_parameters():
    print(f"{name:12s} grad sum = {p.grad.sum().item():.4f}")
