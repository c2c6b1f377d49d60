# 第 4 课：A @ B、广播相乘求和与 einsum
# 三张不同的图，相同的梯度。
import torch

torch.manual_seed(0)
A = torch.randn(3, 4, requires_grad=True)
B = torch.randn(4, 5, requires_grad=True)

# 1) 一个矩阵乘法节点
r1 = A @ B
# 2) (3,4,1) * (1,4,5) -> (3,4,5)，然后对 y 求和
r2 = (A.unsqueeze(-1) * B.unsqueeze(0)).sum(dim=1)
# 3) x 和 z 是自由下标，y 被求和
r3 = torch.einsum("xy,yz->xz", A, B)

print("same result:", torch.allclose(r1, r2, atol=1e-6),
      torch.allclose(r1, r3, atol=1e-6))

g = torch.ones(3, 5)   # 三者使用相同的上游梯度

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

for name, (gA, gB) in [("sum", grads2), ("einsum", grads3)]:
    same_A = torch.allclose(gA, grads1[0], atol=1e-6)
    same_B = torch.allclose(gB, grads1[1], atol=1e-6)
    print(f"{name:7s} same A.grad: {same_A}  B.grad: {same_B}")

# 在这台机器上各有多快？torch.utils.benchmark 把每条语句运行
# 很多次（只有前向，不建图），报告中位数。
from torch.utils import benchmark

with torch.no_grad():
    for label, stmt in [("A @ B", "A @ B"),
                        ("multiply-sum", "(A.unsqueeze(-1) * B.unsqueeze(0)).sum(dim=1)"),
                        ("einsum", "torch.einsum('xy,yz->xz', A, B)")]:
        timer = benchmark.Timer(stmt=stmt, globals={"A": A, "B": B, "torch": torch})
        median_us = timer.timeit(300).median * 1e6
        print(f"{label:13s} {median_us:6.1f} us")
