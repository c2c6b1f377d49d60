# Lesson 11: the three most common errors: shape, device, dtype
import torch
from torch import nn

torch.manual_seed(0)
image = torch.randn(1, 28, 28)   # one 28x28 picture

# 1) Shape: the first layer expects 10 features per row.
layer = nn.Linear(10, 2)
try:
    layer(image)
except RuntimeError as err:
    print("shape error:", err)
# Fix: flatten the picture and give the layer 28*28 inputs.
layer = nn.Linear(28 * 28, 2)
out = layer(image.reshape(1, -1))
print("fixed shape:", tuple(out.shape))

# 2) Device: two tensors on different devices. The "meta" device stands in
#    for a GPU here, so the error appears on any machine.
elsewhere = torch.ones(2, device="meta")
try:
    elsewhere + torch.ones(2)
except RuntimeError as err:
    print("device error:", err)
# Fix: move one of them with .to(device) (here: both on the CPU).
print("fixed device:", (torch.ones(2).to("cpu") + torch.ones(2)).device)

# 3) Dtype: integer data into a float layer.
counts = torch.tensor([[1, 2, 3]])          # int64
small = nn.Linear(3, 1)
try:
    small(counts)
except RuntimeError as err:
    print("dtype error:", err)
# Fix: convert the data (or the layer) to one dtype.
loss = small(counts.to(torch.float32)).sum() + out.sum()
loss.backward()
print("small.weight.grad:", small.weight.grad.tolist())
