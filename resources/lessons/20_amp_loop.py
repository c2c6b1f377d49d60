# Lesson 20: an AMP training loop with GradScaler
# Run, then open the GradScaler panel and scrub the calls.
import torch

torch.manual_seed(0)
x = torch.randn(8, 3)                          # 8 samples, 3 features
target = x @ torch.tensor([[1.0], [-2.0], [0.5]])
w = torch.zeros(3, 1, requires_grad=True)      # the model: x @ w + b
b = torch.zeros(1, requires_grad=True)
opt = torch.optim.SGD([w, b], lr=0.1)
scaler = torch.amp.GradScaler("cpu")           # starts at scale 2**16

for it in range(3):
    opt.zero_grad()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        pred = x @ w + b                       # the matmul runs in bfloat16
        loss = ((pred - target) ** 2).mean()
    scaler.scale(loss).backward()   # = (loss * scale).backward()
    scaled = w.grad[0].item()       # every gradient is scale times too big
    scaler.step(opt)    # READY -> STEPPED: unscale_ (grad / scale), opt.step()
    scaler.update()     # back to READY; picks the scale for the next iteration
    print(f"iter {it}: loss {loss.item():.4f}  scale {scaler.get_scale():.0f}"
          f"  w.grad[0] {scaled:.1f} -> {w.grad[0].item():.6f}")

# One more backward, stopped before step(): the gradients stay scaled.
opt.zero_grad()
with torch.autocast("cpu", dtype=torch.bfloat16):
    loss = ((x @ w + b - target) ** 2).mean()
scaler.scale(loss).backward()
print(f"left scaled: b.grad {b.grad.item():.2f}"
      f"  b.grad / scale {b.grad.item() / scaler.get_scale():.6f}")
