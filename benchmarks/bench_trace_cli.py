"""Whole `autogradviz trace` on a GPT-2-small-shaped model.

12 transformer blocks, width 768, 12 heads, MLP 3072, vocabulary 50257 (tied
LM head), random init, batch 1 x 16 tokens, one cross-entropy backward: about
700 autograd nodes. Built from plain nn modules in the script itself, so the
benchmark needs nothing but torch.

Prints: the CLI's wall time (worker start + run + capture/record + JSON), the
same script run by plain `python` for comparison, and the trace's size.
Run: .venv/bin/python benchmarks/bench_trace_cli.py [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

SCRIPT = '''\
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, WIDTH, HEADS, LAYERS, SEQ = 50257, 768, 12, 12, 16


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(WIDTH, 3 * WIDTH)
        self.proj = nn.Linear(WIDTH, WIDTH)
        self.register_buffer("mask", torch.tril(torch.ones(SEQ, SEQ, dtype=torch.bool)))

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(x).split(WIDTH, dim=2)
        q = q.view(b, t, HEADS, c // HEADS).transpose(1, 2)
        k = k.view(b, t, HEADS, c // HEADS).transpose(1, 2)
        v = v.view(b, t, HEADS, c // HEADS).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(c // HEADS)
        att = att.masked_fill(~self.mask[:t, :t], float("-inf")).softmax(dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(b, t, c)
        return self.proj(y)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(WIDTH, 4 * WIDTH)
        self.act = nn.GELU()
        self.proj = nn.Linear(4 * WIDTH, WIDTH)

    def forward(self, x):
        return self.proj(self.act(self.fc(x)))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1 = nn.LayerNorm(WIDTH)
        self.attn = Attention()
        self.ln_2 = nn.LayerNorm(WIDTH)
        self.mlp = MLP()

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte = nn.Embedding(VOCAB, WIDTH)
        self.wpe = nn.Embedding(SEQ, WIDTH)
        self.h = nn.ModuleList(Block() for _ in range(LAYERS))
        self.ln_f = nn.LayerNorm(WIDTH)
        self.lm_head = nn.Linear(WIDTH, VOCAB, bias=False)
        self.lm_head.weight = self.wte.weight  # tied, as in GPT-2

    def forward(self, idx):
        pos = torch.arange(idx.shape[1], device=idx.device)
        x = self.wte(idx) + self.wpe(pos)
        for block in self.h:
            x = block(x)
        return self.lm_head(self.ln_f(x))


model = GPT().to(device)
idx = torch.randint(0, VOCAB, (1, SEQ), device=device)
targets = torch.randint(0, VOCAB, (1, SEQ), device=device)
logits = model(idx)
loss = F.cross_entropy(logits.view(-1, VOCAB), targets.view(-1))
loss.backward()
print("loss", round(loss.item(), 4))
'''


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--device", default="cpu")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "gpt2_small.py")
        out = os.path.join(tmp, "trace.json")
        with open(script, "w") as f:
            f.write(SCRIPT)

        t0 = time.perf_counter()
        plain = subprocess.run([sys.executable, "-c", f"device = {args.device!r}\n" + SCRIPT],
                               capture_output=True, text=True)
        plain_s = time.perf_counter() - t0
        if plain.returncode != 0:
            print(plain.stderr, file=sys.stderr)
            return 1

        times = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            r = subprocess.run([sys.executable, "-m", "autogradviz", "trace", script, "-o", out,
                                "--device", args.device, "--timeout", "600"],
                               capture_output=True, text=True)
            times.append(time.perf_counter() - t0)
            if r.returncode != 0:
                print(f"autogradviz trace failed (exit {r.returncode}): {r.stderr.strip()}",
                      file=sys.stderr)
                return 1
        size = os.path.getsize(out)
        with open(out) as f:
            data = json.load(f)

    # Where the time goes: the same run through the client, phase by phase.
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from autogradviz.engine.protocol.client import WorkerClient

    with WorkerClient() as client:
        t0 = time.perf_counter()
        client.start()
        start_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        outcome = client.run(SCRIPT, filename="gpt2_small.py", device=args.device, timeout=600)
        run_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    outcome.trace.to_json()
    json_s = time.perf_counter() - t0

    nodes = sum(len(g["nodes"]) for g in data["graphs"])
    edges = sum(len(g["edges"]) for g in data["graphs"])
    steps = sum(len(r["steps"]) for r in data["backward_runs"])
    print("bench_trace_cli: `autogradviz trace` on a GPT-2-small-shaped model "
          f"(12 blocks, width 768, 1x16 tokens, device {args.device})")
    print(f"  graphs {len(data['graphs'])}, nodes {nodes}, edges {edges}, "
          f"backward runs {len(data['backward_runs'])}, steps {steps}")
    print(f"  autogradviz trace: {min(times):.2f} s wall (best of {len(times)}), "
          f"in-worker run {data.get('duration_s') or 0:.2f} s")
    print(f"  plain python run:  {plain_s:.2f} s wall (same script, no recording)")
    print(f"  phases via WorkerClient: worker start {start_s:.2f} s, run request {run_s:.2f} s "
          f"(in worker {outcome.trace.duration_s or 0:.2f} s), trace -> JSON {json_s:.2f} s")
    print(f"  trace size: {size / 1e6:.2f} MB ({size:,} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
