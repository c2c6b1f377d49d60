# 第 1 课：叶子与非叶子张量，retain_grad()
# 运行（Ctrl+Enter），然后在下方逐步执行反向传播。
import torch

# 由你创建且需要梯度：叶子。
x = torch.ones(2, 2, requires_grad=True)
w = torch.tensor([[1.0, -1.0],
                  [0.5, 2.0]], requires_grad=True)
# requires_grad=False：也是叶子，但不会得到梯度。
c = torch.tensor(3.0)

# 由运算得到：非叶子（它们有 grad_fn）。
y = x * w
y.retain_grad()      # 同时保留 y.grad
z = (y + c) ** 2     # 没有 retain_grad 的非叶子
loss = z.mean()

print("is_leaf:", x.is_leaf, w.is_leaf, c.is_leaf, y.is_leaf)
print("y.grad_fn:", y.grad_fn)

loss.backward()

print("x.grad =", x.grad)   # 叶子保留梯度
print("w.grad =", w.grad)
print("y.grad =", y.grad)   # 多亏了 retain_grad()
print("c.grad =", c.grad)   # None：c 不需要梯度
