# 第 3 课：广播，以及反向传播如何把它加回去
import torch

# 形状 (2, 3)
x = torch.tensor([[1.0, 2.0, 3.0],
                  [4.0, 5.0, 6.0]], requires_grad=True)
# 形状 (2, 1)：沿列方向扩展
s = torch.tensor([[2.0],
                  [3.0]], requires_grad=True)
# 形状 (3,)：沿行方向扩展
b = torch.tensor([10.0, 20.0, 30.0], requires_grad=True)

# 从最后一个维度开始比较形状：尺寸必须
# 相等，或为 1，或不存在。  (2,3)*(2,1)+(3,) -> (2,3)
y = x * s + b
loss = y.sum()
loss.backward()

print("y.shape =", tuple(y.shape))
print("x.grad  =", x.grad)  # s 被扩展为 (2, 3)
print("s.grad  =", s.grad)  # x 按列求和
print("b.grad  =", b.grad)  # 全 1 按行求和
print("grads have their tensors' shapes:",
      s.grad.shape == s.shape, b.grad.shape == b.shape)
