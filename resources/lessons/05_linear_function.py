# Lesson 5: y = 4x + 3, forward and backward
import torch

# Three values of x at once; each one is a leaf that wants a gradient.
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)

# Forward: two operations, so two nodes in the graph (Mul, then Add).
y = 4 * x + 3
print("y =", y.tolist())

# backward() needs a scalar: sum the three y values.
# d(sum y)/dx_i = dy_i/dx_i = 4 for every i.
y.sum().backward()
print("dy/dx =", x.grad.tolist())
