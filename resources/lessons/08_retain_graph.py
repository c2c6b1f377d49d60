# Lesson 8: retain_graph, and backward twice
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)

y = (x ** 2).sum()            # PowBackward0 saves x for backward
y.backward(retain_graph=True)  # keep the saved tensors
print("after the 1st backward:", x.grad.tolist())
y.backward()                   # allowed: the graph was kept
print("after the 2nd backward:", x.grad.tolist())   # gradients add up

z = (x ** 3).sum()
z.backward()                   # frees what the graph saved
try:
    z.backward()               # nothing left to compute with
except RuntimeError as err:
    print("RuntimeError:", str(err).split(".")[0] + ".")
