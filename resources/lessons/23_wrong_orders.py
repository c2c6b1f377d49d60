# Lesson 23: calls in the wrong order, and what torch says
import torch

torch.manual_seed(0)
x = torch.randn(8, 3)
w = torch.zeros(3, 1, requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1)
scaler = torch.amp.GradScaler("cpu")

def backward():                      # a scaled backward, nothing else
    opt.zero_grad()
    loss = ((x @ w - 1.0) ** 2).mean()
    scaler.scale(loss).backward()

def attempt(what, call):             # make a call, print torch's refusal
    try:
        call()
        print(f"  {what}: ok")
    except (RuntimeError, AssertionError) as e:
        print(f"  {what}: {type(e).__name__}: {e}")

print("1. unscale_ twice")
backward()
attempt("unscale_", lambda: scaler.unscale_(opt))   # READY -> UNSCALED
attempt("unscale_", lambda: scaler.unscale_(opt))   # refused
scaler.step(opt)                                    # UNSCALED -> STEPPED
scaler.update()                                     # back to READY

print("2. unscale_ after step  3. step twice")
backward()
attempt("step", lambda: scaler.step(opt))           # READY -> STEPPED
attempt("unscale_", lambda: scaler.unscale_(opt))   # refused
attempt("step", lambda: scaler.step(opt))           # refused
scaler.update()                                     # back to READY

print("4. update with no step")
backward()
attempt("update", lambda: scaler.update())          # refused
