# 第 11 课：最常见的三种错误：形状、设备、数据类型
import torch
from torch import nn

torch.manual_seed(0)
image = torch.randn(1, 28, 28)   # 一张 28x28 的图片

# 1) 形状：第一层要求每行有 10 个特征。
layer = nn.Linear(10, 2)
try:
    layer(image)
except RuntimeError as err:
    print("shape error:", err)
# 修正：把图片展平，并让这一层有 28*28 个输入。
layer = nn.Linear(28 * 28, 2)
out = layer(image.reshape(1, -1))
print("fixed shape:", tuple(out.shape))

# 2) 设备：两个张量在不同设备上。这里用 "meta" 设备代替 GPU，
#    这样在任何机器上都能看到这个错误。
elsewhere = torch.ones(2, device="meta")
try:
    elsewhere + torch.ones(2)
except RuntimeError as err:
    print("device error:", err)
# 修正：用 .to(device) 移动其中一个（这里：都放在 CPU 上）。
print("fixed device:", (torch.ones(2).to("cpu") + torch.ones(2)).device)

# 3) 数据类型：整数数据送进浮点层。
counts = torch.tensor([[1, 2, 3]])          # int64
small = nn.Linear(3, 1)
try:
    small(counts)
except RuntimeError as err:
    print("dtype error:", err)
# 修正：把数据（或层）转换成同一种数据类型。
loss = small(counts.to(torch.float32)).sum() + out.sum()
loss.backward()
print("small.weight.grad:", small.weight.grad.tolist())
