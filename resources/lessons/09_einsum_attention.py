# Lesson 9: einsum, free and summed indices; attention scores vs bmm
import torch

torch.manual_seed(0)
a = torch.tensor([1.0, 2.0, 3.0])
b = torch.tensor([4.0, 5.0, 6.0])
print("i,i->   (dot product):", torch.einsum("i,i->", a, b).item())   # nothing after ->: summed
M = torch.arange(6.0).reshape(2, 3)
print("ij->ji  (transpose):  ", tuple(torch.einsum("ij->ji", M).shape))

# Attention scores. n: batch, q: queries, k: keys, h: heads, d: size per head.
n, q, k, h, d = 1, 3, 4, 2, 5
queries = torch.randn(n, q, h, d, requires_grad=True)
keys = torch.randn(n, k, h, d, requires_grad=True)

# n, h, q, k are free (they stay); d is summed (it disappears).
scores = torch.einsum("nqhd,nkhd->nhqk", queries, keys)
print("scores shape:", tuple(scores.shape))

# The same with bmm: heads next to the batch, then (batch, q, d) @ (batch, d, k).
qb = queries.permute(0, 2, 1, 3).reshape(n * h, q, d)
kb = keys.permute(0, 2, 1, 3).reshape(n * h, k, d)
scores_bmm = torch.bmm(qb, kb.transpose(1, 2)).reshape(n, h, q, k)
print("same scores:", torch.allclose(scores, scores_bmm, atol=1e-6))

scores.sum().backward()             # run 1: through the einsum graph
grad_einsum = queries.grad.clone()
queries.grad = None
keys.grad = None
scores_bmm.sum().backward()         # run 2: through the bmm graph
print("same queries.grad:", torch.allclose(grad_einsum, queries.grad, atol=1e-6))
