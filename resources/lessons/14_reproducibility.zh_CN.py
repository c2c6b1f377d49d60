# 第 14 课：manual_seed 与确定性算法
import torch
from torch import nn

# 遇到每次运行结果可能不同的操作时报错，
# 而不是悄悄地使用它。
torch.use_deterministic_algorithms(True)


def one_run(seed):
    torch.manual_seed(seed)          # 下面所有随机数都由它决定
    layer = nn.Linear(4, 1)          # 随机初始化的权重
    data = torch.randn(8, 4)         # 随机数据
    loss = layer(data).pow(2).mean()
    loss.backward()
    return layer.weight.grad.clone()


first = one_run(0)
second = one_run(0)
other = one_run(1)
print("seed 0 twice, same gradients:", torch.equal(first, second))
print("seed 0 vs seed 1, same gradients:", torch.equal(first, other))
print("deterministic algorithms on:", torch.are_deterministic_algorithms_enabled())
torch.use_deterministic_algorithms(False)   # 恢复默认
