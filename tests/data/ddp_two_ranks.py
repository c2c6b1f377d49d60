"""Two processes train one small model with DistributedDataParallel (CPU, gloo).

Each rank sees its own half of the batch, so its local gradients differ;
during backward DDP all-reduces (averages) them bucket by bucket, and both
ranks end with the same gradients. Run it as `python ddp_two_ranks.py`.

In Autograd Visualizer: the stepper's "Process" box switches between rank 0
and rank 1 (the same backward call of each rank); green diamonds on the
timeline mark the steps at which DDP all-reduced a gradient bucket, and the
events list shows each bucket before (this rank's) and after (averaged).
"""

import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel as DDP


def train(rank, world_size, port):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    torch.manual_seed(0)                      # the same starting weights on every rank
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))
    ddp_model = DDP(model, bucket_cap_mb=0.00001)   # tiny buckets (see below)
    optimizer = torch.optim.SGD(ddp_model.parameters(), lr=0.1)
    x = torch.arange(6.0).reshape(2, 3) / 10 + rank  # this rank's half of the batch
    # Step 1: DDP puts every gradient in one first bucket, all-reduced at the end.
    # Step 2: buckets are rebuilt with bucket_cap_mb: one all-reduce per parameter,
    # each fired as soon as that gradient is ready, while backward still runs.
    for step in (1, 2):
        optimizer.zero_grad()
        loss = ddp_model(x).pow(2).mean()
        loss.backward()                       # gradients are averaged across ranks here
        for name, p in model.named_parameters():
            print(f"rank {rank} step {step} {name}.grad {p.grad.flatten().tolist()}", flush=True)
        optimizer.step()
    dist.barrier()                            # every rank is done before the group goes away
    dist.destroy_process_group()


def free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


if __name__ == "__main__":
    world_size = 2
    mp.spawn(train, args=(world_size, free_port()), nprocs=world_size)
    print("both ranks finished")
