# Lesson 22: an overflow skips the step and halves the scale;
# clean iterations grow it back.
import torch

torch.manual_seed(0)
x = torch.randn(8, 3)
target = x @ torch.tensor([[1.0], [-2.0], [0.5]])
w = torch.zeros(3, 1, requires_grad=True)      # the model: x @ w + b
b = torch.zeros(1, requires_grad=True)
opt = torch.optim.SGD([w, b], lr=0.1)
# Grow after 3 clean iterations in a row (the default is 2000).
scaler = torch.amp.GradScaler("cpu", growth_interval=3)

for it in range(8):
    opt.zero_grad()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = ((x @ w + b - target) ** 2).mean()
    if it == 1:
        loss = loss * 1e35    # a bad batch: huge, but still finite...
    scale = scaler.get_scale()
    scaler.scale(loss).backward()  # ...times 65536 it overflows: inf grads
    before = w.detach().clone()
    scaler.step(opt)      # found inf/NaN: opt.step() is skipped
    skipped = torch.equal(before, w)
    scaler.update()       # inf: scale * 0.5; 3 clean in a row: scale * 2
    print(f"iter {it}: loss {loss.item():.4g}  scale {scale:.0f} -> "
          f"{scaler.get_scale():.0f}" + ("  step SKIPPED, w unchanged" if skipped else ""))

print("w =", w.detach().flatten())
