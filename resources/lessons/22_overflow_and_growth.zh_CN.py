# 第 22 课：溢出会跳过 step 并把缩放系数减半；
# 没有溢出的迭代会让它重新增长。
import torch

torch.manual_seed(0)
x = torch.randn(8, 3)
target = x @ torch.tensor([[1.0], [-2.0], [0.5]])
w = torch.zeros(3, 1, requires_grad=True)      # 模型：x @ w + b
b = torch.zeros(1, requires_grad=True)
opt = torch.optim.SGD([w, b], lr=0.1)
# 连续 3 轮没有溢出就增长（默认是 2000 轮）。
scaler = torch.amp.GradScaler("cpu", growth_interval=3)

for it in range(8):
    opt.zero_grad()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = ((x @ w + b - target) ** 2).mean()
    if it == 1:
        loss = loss * 1e35    # 一个坏批次：很大，但仍是有限值……
    scale = scaler.get_scale()
    scaler.scale(loss).backward()  # ……再乘 65536 就溢出了：梯度为 inf
    before = w.detach().clone()
    scaler.step(opt)      # 发现 inf/NaN：跳过 opt.step()
    skipped = torch.equal(before, w)
    scaler.update()       # 有 inf：scale * 0.5；连续 3 轮正常：scale * 2
    print(f"iter {it}: loss {loss.item():.4g}  scale {scale:.0f} -> "
          f"{scaler.get_scale():.0f}" + ("  step SKIPPED, w unchanged" if skipped else ""))

print("w =", w.detach().flatten())
