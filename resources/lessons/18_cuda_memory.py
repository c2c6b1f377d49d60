# Lesson 18: CUDA memory: torch.version.cuda, max_memory_allocated and its reset
import torch

print("torch.version.cuda:", torch.version.cuda)     # None for a CPU-only build
print("CUDA available:", torch.cuda.is_available())

if torch.cuda.is_available():
    torch.cuda.reset_peak_memory_stats()             # the peak starts from now
    big = torch.randn(1024, 1024, device="cuda")     # 4 MiB of float32
    print("peak after one 1024x1024 tensor:", torch.cuda.max_memory_allocated(), "bytes")
    del big
    torch.cuda.reset_peak_memory_stats()             # back to what is allocated now
    print("peak after the reset:", torch.cuda.max_memory_allocated(), "bytes")
else:
    print("No CUDA device: on a GPU this lesson would print the peak memory in bytes,")
    print("about 4 MiB for one 1024x1024 float32 tensor, and a smaller peak after the reset.")

# What autograd keeps for backward costs memory too, on any device:
torch.manual_seed(0)
x = torch.randn(64, 64, requires_grad=True)
h = torch.tanh(x @ x)          # tanh saves its output for backward
loss = h.sum()
print("bytes in one 64x64 float32 tensor:", h.element_size() * h.nelement())
loss.backward()
