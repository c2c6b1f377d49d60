# 第 23 课：调用顺序错了，torch 会怎么说
import torch

torch.manual_seed(0)
x = torch.randn(8, 3)
w = torch.zeros(3, 1, requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1)
scaler = torch.amp.GradScaler("cpu")

def backward():                      # 一次放大后的反向传播，别的什么都不做
    opt.zero_grad()
    loss = ((x @ w - 1.0) ** 2).mean()
    scaler.scale(loss).backward()

def attempt(what, call):             # 调用一次，打印 torch 的拒绝信息
    try:
        call()
        print(f"  {what}: ok")
    except (RuntimeError, AssertionError) as e:
        print(f"  {what}: {type(e).__name__}: {e}")

print("1. unscale_ twice")
backward()
attempt("unscale_", lambda: scaler.unscale_(opt))   # READY -> UNSCALED
attempt("unscale_", lambda: scaler.unscale_(opt))   # 被拒绝
scaler.step(opt)                                    # UNSCALED -> STEPPED
scaler.update()                                     # 回到 READY

print("2. unscale_ after step  3. step twice")
backward()
attempt("step", lambda: scaler.step(opt))           # READY -> STEPPED
attempt("unscale_", lambda: scaler.unscale_(opt))   # 被拒绝
attempt("step", lambda: scaler.step(opt))           # 被拒绝
scaler.update()                                     # 回到 READY

print("4. update with no step")
backward()
attempt("update", lambda: scaler.update())          # 被拒绝
