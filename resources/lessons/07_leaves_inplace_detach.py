# Lesson 7: only leaves keep .grad; no in-place on such leaves; detach()
import torch

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)  # a leaf
b = a * 2                                               # not a leaf
c = b.sum()
c.backward()

print("a.is_leaf:", a.is_leaf, " b.is_leaf:", b.is_leaf)
print("a.grad:", a.grad.tolist())
# b's gradient was computed on the way, then thrown away.
print("b.grad is None:", b.grad is None)

# In-place on a leaf that requires grad: autograd refuses.
try:
    a.add_(1)
except RuntimeError as err:
    print("RuntimeError:", err)

# The fix when you really mean to change it (an optimizer step does this):
with torch.no_grad():
    a.add_(1)
print("a after no_grad add_:", a.tolist())

# detach(): the same numbers, cut out of the graph, treated as a constant.
d = b.detach()
print("d.requires_grad:", d.requires_grad, " d.is_leaf:", d.is_leaf)
e = (a * d).sum()   # d is a constant here: no gradient flows into b
e.backward()
print("a.grad after the second backward:", a.grad.tolist())
