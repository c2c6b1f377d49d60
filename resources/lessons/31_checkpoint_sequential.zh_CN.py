# 第 31 课：checkpoint_sequential 分成 1、2、4、8 段
# 运行，然后比较打印出的字节数；检查点面板列出每一段。
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint_sequential

torch.manual_seed(0)
model = nn.Sequential(*[nn.Sequential(nn.Linear(16, 16), nn.Tanh()) for _ in range(8)])
x = torch.randn(4, 16, requires_grad=True)
weights = {p.untyped_storage().data_ptr() for p in model.parameters()}
weight_bytes = sum(p.numel() * p.element_size() for p in model.parameters())


def stored_bytes(segments):
    """前向为反向传播保存的字节数（每块内存只算一次，不算权重）。"""
    stored = {}

    def pack(t):
        s = t.untyped_storage()
        if s.data_ptr() not in weights:
            stored[s.data_ptr()] = s.nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = checkpoint_sequential(model, segments, x, use_reentrant=False)
    model.zero_grad()
    out.sum().backward()
    return sum(stored.values())


print(f"weights: {weight_bytes} bytes (their gradients: as many again)")
for segments in (1, 2, 4, 8):
    print(f"{segments} segment(s): {stored_bytes(segments)} bytes of activations stored")
