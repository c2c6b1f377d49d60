# Lesson 1: leaf and non-leaf tensors, retain_grad()
# Run (Ctrl+Enter), then step through backward below.
import torch

# Made by you and requires grad: leaves.
x = torch.ones(2, 2, requires_grad=True)
w = torch.tensor([[1.0, -1.0],
                  [0.5, 2.0]], requires_grad=True)
# requires_grad=False: also a leaf, but gets no gradient.
c = torch.tensor(3.0)

# Made by operations: non-leaves (they have a grad_fn).
y = x * w
y.retain_grad()      # keep y.grad as well
z = (y + c) ** 2     # non-leaf without retain_grad
loss = z.mean()

print("is_leaf:", x.is_leaf, w.is_leaf, c.is_leaf, y.is_leaf)
print("y.grad_fn:", y.grad_fn)

loss.backward()

print("x.grad =", x.grad)   # leaves keep their gradient
print("w.grad =", w.grad)
print("y.grad =", y.grad)   # only thanks to retain_grad()
print("c.grad =", c.grad)   # None: c needs no gradient
