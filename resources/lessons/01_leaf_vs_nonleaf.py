# Lesson 1: leaf tensors, non-leaf tensors and retain_grad()
# Press Run (Ctrl+Enter), then step through the backward pass below the graph.
import torch

x = torch.ones(2, 2, requires_grad=True)       # made by you, requires grad: a leaf
w = torch.tensor([[1.0, -1.0],
                  [0.5, 2.0]], requires_grad=True)
c = torch.tensor(3.0)                          # requires_grad=False: a leaf too, but no gradient

y = x * w            # made by an operation: a non-leaf, it has a grad_fn
y.retain_grad()      # ask autograd to keep y.grad as well
z = (y + c) ** 2     # another non-leaf, without retain_grad
loss = z.mean()

print("is_leaf   x:", x.is_leaf, " w:", w.is_leaf, " c:", c.is_leaf, " y:", y.is_leaf)
print("grad_fn   y:", y.grad_fn, "  loss:", loss.grad_fn)

loss.backward()

print("x.grad =", x.grad)   # leaves that require grad keep their gradient
print("w.grad =", w.grad)
print("y.grad =", y.grad)   # kept only because of y.retain_grad()
print("c.grad =", c.grad)   # None: c does not require grad
