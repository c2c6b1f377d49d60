# 第 34 课：选择性 checkpoint——保留代价高的结果，重算便宜的
# 运行，然后看打印出的表格；检查点面板显示重算过程。
import functools

import torch
import torch.nn as nn
from torch.utils.checkpoint import CheckpointPolicy, checkpoint, create_selective_checkpoint_contexts

torch.manual_seed(0)
mlp = nn.Sequential(nn.Linear(4, 16), nn.GELU(), nn.Linear(16, 4))
x = torch.randn(8, 4, requires_grad=True)
asked = []
COSTLY = (torch.ops.aten.addmm.default, torch.ops.aten.mm.default)


def policy(ctx, op, *args, **kwargs):
    keep = op in COSTLY    # 矩阵乘法：保留；其余：重算
    asked.append(("re-run" if ctx.is_recompute else "forward", str(op), "kept" if keep else "recomputed"))
    return CheckpointPolicy.MUST_SAVE if keep else CheckpointPolicy.PREFER_RECOMPUTE


context_fn = functools.partial(create_selective_checkpoint_contexts, policy)
y = checkpoint(mlp, x, use_reentrant=False, context_fn=context_fn)
y.pow(2).mean().backward()
for when, op, what in asked:
    print(f"{when:8} {op:24} {what}")
grad_selective = mlp[0].weight.grad.clone()

mlp.zero_grad()
mlp(x).pow(2).mean().backward()   # 不用 checkpoint
print("same gradient:", torch.equal(grad_selective, mlp[0].weight.grad))
