# Lesson 40: data parallel by hand, in one process
import torch

torch.manual_seed(0)
X = torch.randn(8, 3)
y = torch.randn(8, 1)
w = torch.randn(3, 1, requires_grad=True)
lr = 0.01

# The full batch on one device: the gradient we want to reproduce.
full_loss = ((X @ w - y) ** 2).sum()
full_loss.backward()                                     # run 1
full_grad = w.grad.clone()

# Two "devices": each gets a copy of the parameters ...
replicas = [w.detach().clone().requires_grad_() for _ in range(2)]
# ... and half the batch (nn.parallel.scatter does this across GPUs).
X_shards, y_shards = X.chunk(2), y.chunk(2)
for replica, X_shard, y_shard in zip(replicas, X_shards, y_shards):
    ((X_shard @ replica - y_shard) ** 2).sum().backward()  # runs 2 and 3: per-shard gradients


def allreduce(data):
    """The notes' all-reduce: add every copy into the first, then copy the sum back."""
    for i in range(1, len(data)):
        data[0][:] += data[i].to(data[0].device)
    for i in range(1, len(data)):
        data[i][:] = data[0].to(data[i].device)


print("shard gradients differ:", not torch.allclose(replicas[0].grad, replicas[1].grad))
allreduce([r.grad for r in replicas])
print("after all-reduce, equal to the full batch:", torch.allclose(replicas[0].grad, full_grad))

with torch.no_grad():                                    # the same SGD step everywhere
    w -= lr * full_grad
    for replica in replicas:
        replica -= lr * replica.grad
print("same update on every copy:", all(torch.allclose(r, w) for r in replicas))
print("GPUs here for nn.DataParallel:", torch.cuda.device_count())
