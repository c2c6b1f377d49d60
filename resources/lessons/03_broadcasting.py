# Lesson 3: broadcasting, and how backward sums the gradient back
import torch

x = torch.tensor([[1.0, 2.0, 3.0],
                  [4.0, 5.0, 6.0]], requires_grad=True)   # shape (2, 3)
s = torch.tensor([[2.0],
                  [3.0]], requires_grad=True)             # shape (2, 1): stretched along columns
b = torch.tensor([10.0, 20.0, 30.0], requires_grad=True)  # shape (3,):   stretched along rows

# Shapes are compared from the last dimension: equal, 1, or missing -> they broadcast.
y = x * s + b        # (2, 3) * (2, 1) + (3,) -> (2, 3)
loss = y.sum()
loss.backward()

print("y.shape  =", tuple(y.shape))
print("x.grad   =", x.grad)             # s stretched to (2, 3)
print("s.grad   =", s.grad)             # x summed over the columns -> shape (2, 1)
print("b.grad   =", b.grad)             # ones summed over the rows -> shape (3,)
print("every .grad has its tensor's shape:",
      x.grad.shape == x.shape, s.grad.shape == s.shape, b.grad.shape == b.shape)
