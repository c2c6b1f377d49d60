"""A spawned child that checkpoints a block with Dropout (reentrant) and prints its gradients."""
import torch
import torch.multiprocessing as mp
import torch.nn as nn
from torch.utils.checkpoint import checkpoint


def work(rank):
    torch.manual_seed(rank)
    net = nn.Sequential(nn.Linear(4, 4), nn.Tanh(), nn.Dropout(0.3))
    head = nn.Linear(4, 1)
    x = torch.randn(3, 4, requires_grad=True)
    h = checkpoint(net, x, use_reentrant=True)
    loss = head(h).sum()
    loss.backward()
    print("x.grad", x.grad.flatten().tolist())
    print("w.grad", net[0].weight.grad.flatten().tolist())


if __name__ == "__main__":
    mp.spawn(work, nprocs=1)
