# 第 24 课：两个优化器共用一个 GradScaler
import torch

torch.manual_seed(0)
x = torch.randn(8, 3)
wa = torch.zeros(3, 1, requires_grad=True)     # 模型 A，由 opt_a 训练
wb = torch.zeros(3, 1, requires_grad=True)     # 模型 B，由 opt_b 训练
opt_a = torch.optim.SGD([wa], lr=0.1)
opt_b = torch.optim.SGD([wb], lr=0.1)
scaler = torch.amp.GradScaler("cpu")           # 一个 scaler，一个缩放系数

for it in range(3):
    opt_a.zero_grad()
    opt_b.zero_grad()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss_a = ((x @ wa - 1.0) ** 2).mean()
        loss_b = ((x @ wb - 2.0) ** 2).mean()
    if it == 1:
        loss_a = loss_a * float("inf")         # 只有 A 的梯度溢出
    scaler.scale(loss_a + loss_b).backward()
    a, b = wa.detach().clone(), wb.detach().clone()
    scaler.unscale_(opt_a)     # opt_a：READY -> UNSCALED，opt_b 仍是 READY
    scaler.step(opt_a)         # opt_a：UNSCALED -> STEPPED
    scaler.step(opt_b)         # opt_b：READY -> STEPPED（自己完成 unscale）
    scaler.update()            # 两者都回到 READY；两者共用一个缩放系数
    moved_a = "moved" if not torch.equal(a, wa) else "SKIPPED"
    moved_b = "moved" if not torch.equal(b, wb) else "SKIPPED"
    print(f"iter {it}: opt_a {moved_a:7}  opt_b {moved_b:7}"
          f"  scale -> {scaler.get_scale():.0f}")
