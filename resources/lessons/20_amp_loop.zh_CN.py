# 第 20 课：带 GradScaler 的 AMP 训练循环
# 运行，然后打开 GradScaler 面板，逐个查看各次调用。
import torch

torch.manual_seed(0)
x = torch.randn(8, 3)                          # 8 个样本，3 个特征
target = x @ torch.tensor([[1.0], [-2.0], [0.5]])
w = torch.zeros(3, 1, requires_grad=True)      # 模型：x @ w + b
b = torch.zeros(1, requires_grad=True)
opt = torch.optim.SGD([w, b], lr=0.1)
scaler = torch.amp.GradScaler("cpu")           # 缩放系数从 2**16 开始

for it in range(3):
    opt.zero_grad()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        pred = x @ w + b                       # 矩阵乘法用 bfloat16 计算
        loss = ((pred - target) ** 2).mean()
    scaler.scale(loss).backward()   # = (loss * scale).backward()
    scaled = w.grad[0].item()       # 每个梯度都被放大了 scale 倍
    scaler.step(opt)    # READY -> STEPPED：unscale_（grad / scale），再 opt.step()
    scaler.update()     # 回到 READY；决定下一轮的缩放系数
    print(f"iter {it}: loss {loss.item():.4f}  scale {scaler.get_scale():.0f}"
          f"  w.grad[0] {scaled:.1f} -> {w.grad[0].item():.6f}")

# 再做一次反向传播，停在 step() 之前：梯度保持放大状态。
opt.zero_grad()
with torch.autocast("cpu", dtype=torch.bfloat16):
    loss = ((x @ w + b - target) ** 2).mean()
scaler.scale(loss).backward()
print(f"left scaled: b.grad {b.grad.item():.2f}"
      f"  b.grad / scale {b.grad.item() / scaler.get_scale():.6f}")
