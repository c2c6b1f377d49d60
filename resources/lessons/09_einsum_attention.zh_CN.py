# 第 9 课：einsum 的自由下标与求和下标；注意力分数与 bmm
import torch

torch.manual_seed(0)
a = torch.tensor([1.0, 2.0, 3.0])
b = torch.tensor([4.0, 5.0, 6.0])
print("i,i->   (dot product):", torch.einsum("i,i->", a, b).item())   # -> 后面为空：求和
M = torch.arange(6.0).reshape(2, 3)
print("ij->ji  (transpose):  ", tuple(torch.einsum("ij->ji", M).shape))

# 注意力分数。n：批次，q：查询，k：键，h：头数，d：每个头的维度。
n, q, k, h, d = 1, 3, 4, 2, 5
queries = torch.randn(n, q, h, d, requires_grad=True)
keys = torch.randn(n, k, h, d, requires_grad=True)

# n、h、q、k 是自由下标（保留）；d 是求和下标（消失）。
scores = torch.einsum("nqhd,nkhd->nhqk", queries, keys)
print("scores shape:", tuple(scores.shape))

# 用 bmm 做同样的事：把头数挪到批次旁边，然后 (batch, q, d) @ (batch, d, k)。
qb = queries.permute(0, 2, 1, 3).reshape(n * h, q, d)
kb = keys.permute(0, 2, 1, 3).reshape(n * h, k, d)
scores_bmm = torch.bmm(qb, kb.transpose(1, 2)).reshape(n, h, q, k)
print("same scores:", torch.allclose(scores, scores_bmm, atol=1e-6))

scores.sum().backward()             # 第 1 次运行：经过 einsum 的图
grad_einsum = queries.grad.clone()
queries.grad = None
keys.grad = None
scores_bmm.sum().backward()         # 第 2 次运行：经过 bmm 的图
print("same queries.grad:", torch.allclose(grad_einsum, queries.grad, atol=1e-6))
