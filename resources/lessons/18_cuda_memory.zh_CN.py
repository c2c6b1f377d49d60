# 第 18 课：CUDA 显存：torch.version.cuda、max_memory_allocated 及其重置
import torch

print("torch.version.cuda:", torch.version.cuda)     # 仅 CPU 版本的 torch 为 None
print("CUDA available:", torch.cuda.is_available())

if torch.cuda.is_available():
    torch.cuda.reset_peak_memory_stats()             # 峰值从现在开始统计
    big = torch.randn(1024, 1024, device="cuda")     # 4 MiB 的 float32
    print("peak after one 1024x1024 tensor:", torch.cuda.max_memory_allocated(), "bytes")
    del big
    torch.cuda.reset_peak_memory_stats()             # 回到当前已分配的量
    print("peak after the reset:", torch.cuda.max_memory_allocated(), "bytes")
else:
    print("No CUDA device: on a GPU this lesson would print the peak memory in bytes,")
    print("about 4 MiB for one 1024x1024 float32 tensor, and a smaller peak after the reset.")

# autograd 为反向传播保存的东西同样占内存，在任何设备上都是如此：
torch.manual_seed(0)
x = torch.randn(64, 64, requires_grad=True)
h = torch.tanh(x @ x)          # tanh 为反向传播保存它的输出
loss = h.sum()
print("bytes in one 64x64 float32 tensor:", h.element_size() * h.nelement())
loss.backward()
