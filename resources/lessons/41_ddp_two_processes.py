# Lesson 41: DistributedDataParallel with two processes on the CPU (gloo)
import os
import socket

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

WORLD_SIZE = 2


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def train(rank, port):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank, world_size=WORLD_SIZE)
    torch.manual_seed(0)                       # the same initial weights in both processes
    model = DDP(nn.Linear(3, 1))               # DDP broadcasts rank 0's weights at start
    data = torch.arange(12.0).reshape(4, 3)    # the global batch of 4 examples
    shard = data[rank * 2:(rank + 1) * 2]      # each process takes 2 of them
    loss = model(shard).sum()
    # During backward DDP all-reduces the gradients (averaged over the processes),
    # while backward is still running, bucket by bucket.
    loss.backward()
    grad = model.module.weight.grad.clone()
    everyone = [torch.zeros_like(grad) for _ in range(WORLD_SIZE)]
    dist.all_gather(everyone, grad)
    if rank == 0:
        print("weight.grad on rank 0:", grad.tolist())
        print("same on every rank:", all(torch.equal(g, grad) for g in everyone))
        print("mean of the two shards' gradients:", (data.sum(0) / WORLD_SIZE).tolist())
    dist.barrier()                            # every rank is done before the group goes away
    dist.destroy_process_group()


if __name__ == "__main__":
    mp.spawn(train, args=(free_port(),), nprocs=WORLD_SIZE, join=True)
    print("both processes finished")
