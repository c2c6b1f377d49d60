# Lesson 12: mini-batch SGD with a data iterator
import random
import torch

random.seed(0)
torch.manual_seed(0)

# A small data set: y = 2*x1 - 3*x2 + 1, plus a little noise.
features = torch.randn(12, 2)
labels = features @ torch.tensor([[2.0], [-3.0]]) + 1 + 0.01 * torch.randn(12, 1)


def data_iter(batch_size, features, labels):
    """The notes' iterator: shuffle once, then yield batch_size examples at a time."""
    num_examples = len(features)
    indices = list(range(num_examples))
    random.shuffle(indices)
    for i in range(0, num_examples, batch_size):
        batch_indices = torch.tensor(indices[i: min(i + batch_size, num_examples)])
        yield features[batch_indices], labels[batch_indices]


w = torch.zeros(2, 1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
lr, batch_size = 0.1, 4

# One epoch = every example once = 3 iterations of 4 examples.
for X, y in data_iter(batch_size, features, labels):
    loss = ((X @ w + b - y) ** 2).mean()   # the average over the mini-batch
    loss.backward()                        # one backward run per iteration
    with torch.no_grad():                  # the SGD update, by hand
        w -= lr * w.grad
        b -= lr * b.grad
        w.grad.zero_()
        b.grad.zero_()
    print(f"loss {loss.item():.4f}")
print("w:", [round(v, 4) for v in w.flatten().tolist()], " b:", round(b.item(), 4))
