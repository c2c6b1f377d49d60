# 第 12 课：带数据迭代器的小批量随机梯度下降
import random
import torch

random.seed(0)
torch.manual_seed(0)

# 一个小数据集：y = 2*x1 - 3*x2 + 1，再加一点噪声。
features = torch.randn(12, 2)
labels = features @ torch.tensor([[2.0], [-3.0]]) + 1 + 0.01 * torch.randn(12, 1)


def data_iter(batch_size, features, labels):
    """笔记中的迭代器：先打乱一次，然后每次产出 batch_size 个样本。"""
    num_examples = len(features)
    indices = list(range(num_examples))
    random.shuffle(indices)
    for i in range(0, num_examples, batch_size):
        batch_indices = torch.tensor(indices[i: min(i + batch_size, num_examples)])
        yield features[batch_indices], labels[batch_indices]


w = torch.zeros(2, 1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
lr, batch_size = 0.1, 4

# 一个 epoch = 每个样本用一次 = 3 次迭代，每次 4 个样本。
for X, y in data_iter(batch_size, features, labels):
    loss = ((X @ w + b - y) ** 2).mean()   # 小批量上的平均损失
    loss.backward()                        # 每次迭代一次反向传播
    with torch.no_grad():                  # 手写的 SGD 更新
        w -= lr * w.grad
        b -= lr * b.grad
        w.grad.zero_()
        b.grad.zero_()
    print(f"loss {loss.item():.4f}")
print("w:", [round(v, 4) for v in w.flatten().tolist()], " b:", round(b.item(), 4))
