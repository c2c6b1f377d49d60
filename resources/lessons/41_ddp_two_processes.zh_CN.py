# 第 41 课：在 CPU 上用两个进程运行 DistributedDataParallel（gloo）
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
    torch.manual_seed(0)                       # 两个进程里初始权重相同
    model = DDP(nn.Linear(3, 1))               # DDP 在开始时广播 rank 0 的权重
    data = torch.arange(12.0).reshape(4, 3)    # 全局批次，4 个样本
    shard = data[rank * 2:(rank + 1) * 2]      # 每个进程取其中 2 个
    loss = model(shard).sum()
    # 反向传播期间 DDP 对梯度做 all-reduce（在各进程间取平均），
    # 在反向传播还在进行时就按桶逐个完成。
    loss.backward()
    grad = model.module.weight.grad.clone()
    everyone = [torch.zeros_like(grad) for _ in range(WORLD_SIZE)]
    dist.all_gather(everyone, grad)
    if rank == 0:
        print("weight.grad on rank 0:", grad.tolist())
        print("same on every rank:", all(torch.equal(g, grad) for g in everyone))
        print("mean of the two shards' gradients:", (data.sum(0) / WORLD_SIZE).tolist())
    dist.barrier()                            # 所有进程都完成后才销毁进程组
    dist.destroy_process_group()


if __name__ == "__main__":
    mp.spawn(train, args=(free_port(),), nprocs=WORLD_SIZE, join=True)
    print("both processes finished")
