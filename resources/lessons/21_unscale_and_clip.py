# Lesson 21: unscale_() before clipping gradients
# Clipping compares gradient sizes, so it needs the real sizes.
import torch

torch.manual_seed(0)
x = torch.randn(8, 3)
target = x @ torch.tensor([[1.0], [-2.0], [0.5]])
w = torch.zeros(3, 1, requires_grad=True)      # the model: x @ w + b
b = torch.zeros(1, requires_grad=True)
opt = torch.optim.SGD([w, b], lr=0.5)
scaler = torch.amp.GradScaler("cpu")

for it in range(3):
    opt.zero_grad()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = ((x @ w + b - target) ** 2).mean()
    scaler.scale(loss).backward()   # gradients are 65536 times too big
    scaler.unscale_(opt)            # READY -> UNSCALED: divide them, in place
    # Now clip to a total norm of at most 1.0. The returned norm is
    # the one before clipping: the real size, thanks to unscale_.
    norm = torch.nn.utils.clip_grad_norm_([w, b], max_norm=1.0)
    after = torch.cat([w.grad.flatten(), b.grad]).norm()
    scaler.step(opt)    # UNSCALED -> STEPPED: no second unscale
    scaler.update()
    print(f"iter {it}: loss {loss.item():.4f}  grad norm {norm.item():.4f}"
          f" -> clipped to {after.item():.4f}")

print("w =", w.detach().flatten())
