# 第 21 课：裁剪梯度之前先 unscale_()
# 裁剪要比较梯度的大小，所以需要真实的大小。
import torch

torch.manual_seed(0)
x = torch.randn(8, 3)
target = x @ torch.tensor([[1.0], [-2.0], [0.5]])
w = torch.zeros(3, 1, requires_grad=True)      # 模型：x @ w + b
b = torch.zeros(1, requires_grad=True)
opt = torch.optim.SGD([w, b], lr=0.5)
scaler = torch.amp.GradScaler("cpu")

for it in range(3):
    opt.zero_grad()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = ((x @ w + b - target) ** 2).mean()
    scaler.scale(loss).backward()   # 梯度被放大了 65536 倍
    scaler.unscale_(opt)            # READY -> UNSCALED：原地除回去
    # 现在把总范数裁到最多 1.0。返回的范数是
    # 裁剪之前的范数：多亏了 unscale_，它是真实大小。
    norm = torch.nn.utils.clip_grad_norm_([w, b], max_norm=1.0)
    after = torch.cat([w.grad.flatten(), b.grad]).norm()
    scaler.step(opt)    # UNSCALED -> STEPPED：不会再 unscale 一次
    scaler.update()
    print(f"iter {it}: loss {loss.item():.4f}  grad norm {norm.item():.4f}"
          f" -> clipped to {after.item():.4f}")

print("w =", w.detach().flatten())
