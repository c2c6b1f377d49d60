# 第 8 课：retain_graph，以及两次反向传播
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)

y = (x ** 2).sum()            # PowBackward0 为反向传播保存了 x
y.backward(retain_graph=True)  # 保留这些保存的张量
print("after the 1st backward:", x.grad.tolist())
y.backward()                   # 可以：计算图被保留了
print("after the 2nd backward:", x.grad.tolist())   # 梯度累加

z = (x ** 3).sum()
z.backward()                   # 释放计算图保存的内容
try:
    z.backward()               # 已经没有可以用来计算的东西了
except RuntimeError as err:
    print("RuntimeError:", str(err).split(".")[0] + ".")
