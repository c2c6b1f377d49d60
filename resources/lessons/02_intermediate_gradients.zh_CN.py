# 第 2 课：获取中间变量梯度的三种方法
import torch

x = torch.ones(2, 2, requires_grad=True)
y = x * 2      # 我们关心的中间张量
z = y ** 2
t = z.mean()

# 方法 1：retain_grad() 在 backward 后保留 y.grad。
y.retain_grad()

# 方法 3：register_hook() 在反向传播时用 y 的梯度
# 调用一个函数。这个钩子来自学习笔记；
# 它"从不更新" global_grad：
global_grad = 0.0

def extract_grad(grad):
    print("hook fired, grad =", grad)
    global global_feat  # <- 名字写错了（应为 global_grad）
    global_grad = grad  # 所以这里只设置了局部变量
    return grad         # 返回的张量会替换 grad

handle = y.register_hook(extract_grad)
# retain_graph：方法 2 要再走一遍同一张图。
t.backward(retain_graph=True)
handle.remove()        # 用完的钩子要移除

print("way 1  y.grad         =", y.grad)
print("way 3  global_grad    =", global_grad,
      "<- still 0.0, yet the hook fired")

# 方法 2：autograd.grad 直接返回梯度，
# 而不是存进 .grad。
(dy,) = torch.autograd.grad(t, y)
print("way 2  autograd.grad  =", dy)
print("x.grad =", x.grad)
