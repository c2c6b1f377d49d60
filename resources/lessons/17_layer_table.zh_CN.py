# 第 17 课：类似 torchsummary 的层表（以及模块面板）
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(
    nn.Conv2d(1, 4, kernel_size=3),   # (2, 1, 8, 8) -> (2, 4, 6, 6)
    nn.ReLU(),
    nn.MaxPool2d(2),                  # -> (2, 4, 3, 3)
    nn.Flatten(),                     # -> (2, 36)
    nn.Linear(36, 10),                # -> (2, 10)
)
images = torch.randn(2, 1, 8, 8)

# 像 torchsummary 那样，用前向钩子手工构建这张表。
rows = []
hooks = [layer.register_forward_hook(
    lambda module, inputs, output: rows.append(
        (type(module).__name__, tuple(output.shape), sum(p.numel() for p in module.parameters()))))
    for layer in model]
out = model(images)
for h in hooks:
    h.remove()

print(f"{'Layer (type)':>16} {'Output Shape':>18} {'Param #':>9}")
for i, (name, shape, count) in enumerate(rows, 1):
    print(f"{name + '-' + str(i):>16} {str(list(shape)):>18} {count:>9,}")
print("Total params:", f"{sum(p.numel() for p in model.parameters()):,}")

loss = out.pow(2).mean()
loss.backward()
