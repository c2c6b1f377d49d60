# Lesson 3: broadcasting, and how backward sums it back
import torch

# shape (2, 3)
x = torch.tensor([[1.0, 2.0, 3.0],
                  [4.0, 5.0, 6.0]], requires_grad=True)
# shape (2, 1): stretched along the columns
s = torch.tensor([[2.0],
                  [3.0]], requires_grad=True)
# shape (3,): stretched along the rows
b = torch.tensor([10.0, 20.0, 30.0], requires_grad=True)

# Compare shapes from the last dimension: sizes must
# be equal, or 1, or missing.  (2,3)*(2,1)+(3,) -> (2,3)
y = x * s + b
loss = y.sum()
loss.backward()

print("y.shape =", tuple(y.shape))
print("x.grad  =", x.grad)  # s stretched to (2, 3)
print("s.grad  =", s.grad)  # x summed over columns
print("b.grad  =", b.grad)  # ones summed over rows
print("grads have their tensors' shapes:",
      s.grad.shape == s.shape, b.grad.shape == b.shape)
