# 第 5 课：y = 4x + 3 的前向与反向传播
import torch

# 一次给出三个 x 值；它们都是需要梯度的叶子节点。
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)

# 前向：两个运算，所以图中有两个节点（先 Mul，后 Add）。
y = 4 * x + 3
print("y =", y.tolist())

# backward() 需要一个标量：把三个 y 加起来。
# 对每个 i，d(sum y)/dx_i = dy_i/dx_i = 4。
y.sum().backward()
print("dy/dx =", x.grad.tolist())
