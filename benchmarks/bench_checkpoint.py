"""Checkpoint recording cost: a checkpointed 12-block model, and scripts without checkpoint.

    .venv/bin/python benchmarks/bench_checkpoint.py [--repeat 5]

Prints, median of --repeat runs in this process (CPU time):
- a 12-block MLP whose blocks are each checkpointed (non-reentrant), trained for
  5 iterations: the plain script (exec, no app) against the recorded run
  (`run_script`: every probe, the checkpoint probe's op logs included), and the
  same recorded run without the checkpoint probe, so the probe's own share shows;
- the same model with reentrant checkpoint (the probe also records each
  re-run's inner graph and nested backward);
- a script that uses no checkpoint, recorded with and without the checkpoint
  probe registered: the probe must cost nothing measurable there
  (target: within 5 % or 5 ms).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch  # noqa: E402

from autogradviz.engine.probes import registry  # noqa: E402
from autogradviz.engine.worker.runner import run_script  # noqa: E402
from targets import Targets  # noqa: E402

CHECKPOINTED = """
import torch
from torch.utils.checkpoint import checkpoint
torch.manual_seed(0)
blocks = torch.nn.ModuleList(
    torch.nn.Sequential(torch.nn.Linear(256, 256), torch.nn.GELU(), torch.nn.Linear(256, 256))
    for _ in range(12))
opt = torch.optim.SGD(blocks.parameters(), lr=0.01)
x = torch.randn(64, 256)
for it in range(5):
    opt.zero_grad()
    h = x
    for b in blocks:
        h = h + checkpoint(b, h, use_reentrant=False)
    loss = h.pow(2).mean()
    loss.backward()
    opt.step()
"""

PLAIN = CHECKPOINTED.replace("checkpoint(b, h, use_reentrant=False)", "b(h)")
# reentrant: every re-run's inner graph and nested backward are recorded too
# (x requires grad: reentrant checkpoint gives no gradient path from inputs that need none)
REENTRANT = CHECKPOINTED.replace("use_reentrant=False", "use_reentrant=True").replace(
    "x = torch.randn(64, 256)", "x = torch.randn(64, 256, requires_grad=True)")


def clock() -> float:
    return time.process_time()


def timed(fn) -> float:
    t0 = clock()
    fn()
    return clock() - t0


def plain_exec(src: str) -> None:
    exec(compile(src, "<bench>", "exec"), {"__name__": "__main__"})


def median_of(repeat: int, fn) -> float:
    fn()  # warm-up (imports, allocator)
    return statistics.median(timed(fn) for _ in range(repeat))


def without_probe(name: str, fn):
    """`fn` wrapped to run with the probe `name` unregistered (put back after);
    bench_memory uses it too."""
    def run():
        entry = [(n, f) for n, f in registry._REGISTRY if n == name]
        registry.unregister(name)
        try:
            fn()
        finally:
            for n, f in entry:
                registry.register(n, f)
    return run


def without_checkpoint_probe(fn):
    return without_probe("checkpoint", fn)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    targets = Targets()
    assert "checkpoint" in registry.registered()

    record = lambda src: (lambda: run_script(src, filename="<bench>"))  # noqa: E731
    plain = median_of(args.repeat, lambda: plain_exec(CHECKPOINTED))
    rec = median_of(args.repeat, record(CHECKPOINTED))
    rec_no_probe = median_of(args.repeat, without_checkpoint_probe(record(CHECKPOINTED)))
    trace = run_script(CHECKPOINTED, filename="<bench>").trace
    n_rec = sum(len(c.recomputations) for c in trace.checkpoints)
    print(f"checkpointed 12-block model, 5 iterations ({len(trace.checkpoints)} checkpoint calls, "
          f"{n_rec} recomputations recorded):")
    print(f"  plain script:                 {plain * 1e3:8.1f} ms")
    print(f"  recorded (all probes):        {rec * 1e3:8.1f} ms   {rec / plain:.2f}x plain")
    print(f"  recorded, no checkpoint probe:{rec_no_probe * 1e3:8.1f} ms   "
          f"(the checkpoint probe's share: {(rec - rec_no_probe) * 1e3:.1f} ms)")

    plain_re = median_of(args.repeat, lambda: plain_exec(REENTRANT))
    rec_re = median_of(args.repeat, record(REENTRANT))
    rec_re_no = median_of(args.repeat, without_checkpoint_probe(record(REENTRANT)))
    tr_re = run_script(REENTRANT, filename="<bench>").trace
    inner = sum(len(r.steps) for c in tr_re.checkpoints for r in c.recomputations)
    print(f"the same, reentrant ({inner} nested backward steps recorded in the re-runs' inner graphs):")
    print(f"  plain script:                 {plain_re * 1e3:8.1f} ms")
    print(f"  recorded (all probes):        {rec_re * 1e3:8.1f} ms   {rec_re / plain_re:.2f}x plain")
    print(f"  recorded, no checkpoint probe:{rec_re_no * 1e3:8.1f} ms   "
          f"(the checkpoint probe's share, inner graphs included: {(rec_re - rec_re_no) * 1e3:.1f} ms)")

    with_probe = median_of(args.repeat, record(PLAIN))
    no_probe = median_of(args.repeat, without_checkpoint_probe(record(PLAIN)))
    extra = with_probe - no_probe
    print("the same model without checkpoint:")
    print(f"  recorded without the checkpoint probe: {no_probe * 1e3:8.1f} ms")
    print(f"  recorded with it registered:           {with_probe * 1e3:8.1f} ms   "
          f"(+{extra * 1e3:.1f} ms)")
    targets.check("checkpoint probe costs nothing measurable without checkpoint",
                  extra <= max(0.05 * no_probe, 0.005), f"+{extra * 1e3:.1f} ms")
    return targets.exit_code()


if __name__ == "__main__":
    sys.exit(main())
