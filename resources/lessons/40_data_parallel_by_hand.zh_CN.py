# 第 40 课：在一个进程里手工实现数据并行
import torch

torch.manual_seed(0)
X = torch.randn(8, 3)
y = torch.randn(8, 1)
w = torch.randn(3, 1, requires_grad=True)
lr = 0.01

# 整个批次在一个设备上：我们要复现的梯度。
full_loss = ((X @ w - y) ** 2).sum()
full_loss.backward()                                     # 第 1 次运行
full_grad = w.grad.clone()

# 两个"设备"：每个都拿到一份参数副本……
replicas = [w.detach().clone().requires_grad_() for _ in range(2)]
# ……以及半个批次（nn.parallel.scatter 在多个 GPU 间做这件事）。
X_shards, y_shards = X.chunk(2), y.chunk(2)
for replica, X_shard, y_shard in zip(replicas, X_shards, y_shards):
    ((X_shard @ replica - y_shard) ** 2).sum().backward()  # 第 2、3 次运行：各分片的梯度


def allreduce(data):
    """笔记中的 all-reduce：把所有副本加到第一个上，再把和复制回去。"""
    for i in range(1, len(data)):
        data[0][:] += data[i].to(data[0].device)
    for i in range(1, len(data)):
        data[i][:] = data[0].to(data[i].device)


print("shard gradients differ:", not torch.allclose(replicas[0].grad, replicas[1].grad))
allreduce([r.grad for r in replicas])
print("after all-reduce, equal to the full batch:", torch.allclose(replicas[0].grad, full_grad))

with torch.no_grad():                                    # 每处都做同样的 SGD 更新
    w -= lr * full_grad
    for replica in replicas:
        replica -= lr * replica.grad
print("same update on every copy:", all(torch.allclose(r, w) for r in replicas))
print("GPUs here for nn.DataParallel:", torch.cuda.device_count())
