# 第 7 课：只有叶子保留 .grad；不能对这样的叶子做原地操作；detach()
import torch

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)  # 叶子
b = a * 2                                               # 不是叶子
c = b.sum()
c.backward()

print("a.is_leaf:", a.is_leaf, " b.is_leaf:", b.is_leaf)
print("a.grad:", a.grad.tolist())
# b 的梯度在途中算过，随后就被丢弃了。
print("b.grad is None:", b.grad is None)

# 对需要梯度的叶子做原地操作：autograd 会拒绝。
try:
    a.add_(1)
except RuntimeError as err:
    print("RuntimeError:", err)

# 真的要修改它时的做法（优化器的 step 就是这样做的）：
with torch.no_grad():
    a.add_(1)
print("a after no_grad add_:", a.tolist())

# detach()：数值相同，但被切出计算图，当作常数。
d = b.detach()
print("d.requires_grad:", d.requires_grad, " d.is_leaf:", d.is_leaf)
e = (a * d).sum()   # 这里 d 是常数：没有梯度流进 b
e.backward()
print("a.grad after the second backward:", a.grad.tolist())
