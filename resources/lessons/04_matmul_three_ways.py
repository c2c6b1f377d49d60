# Lesson 4: A @ B vs broadcast-multiply-sum vs einsum: three graphs, same gradients
import torch

torch.manual_seed(0)
A = torch.randn(3, 4, requires_grad=True)
B = torch.randn(4, 5, requires_grad=True)

r1 = A @ B                                               # one matrix-multiply node
r2 = (A.unsqueeze(-1) * B.unsqueeze(0)).sum(dim=1)       # (3,4,1)*(1,4,5) -> (3,4,5) -> sum
r3 = torch.einsum("xy,yz->xz", A, B)                     # y is summed, x and z are free

print("same result:", torch.allclose(r1, r2, atol=1e-6), torch.allclose(r1, r3, atol=1e-6))

g = torch.ones(3, 5)          # the same upstream gradient for all three

r1.backward(g)
grads1 = (A.grad.clone(), B.grad.clone())
A.grad = None
B.grad = None

r2.backward(g)
grads2 = (A.grad.clone(), B.grad.clone())
A.grad = None
B.grad = None

r3.backward(g)
grads3 = (A.grad.clone(), B.grad.clone())

for name, (gA, gB) in [("broadcast-sum", grads2), ("einsum", grads3)]:
    print(f"{name:14s} same A.grad: {torch.allclose(gA, grads1[0], atol=1e-6)}"
          f"  same B.grad: {torch.allclose(gB, grads1[1], atol=1e-6)}")
