# 第 33 课：Dropout 与 preserve_rng_state
# 运行，然后打开 检查点面板：掩码并排显示。
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
block = nn.Sequential(nn.Linear(6, 6), nn.Dropout(0.5))
x = torch.randn(2, 6, requires_grad=True)
masks = []


def watched(t):
    out = block(t)
    masks.append(out != 0)          # 这一次 Dropout 保留了哪些元素
    return torch.tanh(out)


for preserve in (True, False):
    masks.clear()
    y = checkpoint(watched, x, use_reentrant=False, preserve_rng_state=preserve)
    y.sum().backward()              # 重新运行 `watched`：第二个掩码
    print(f"preserve_rng_state={preserve}: re-run mask equals the forward's:",
          torch.equal(masks[0], masks[1]))
