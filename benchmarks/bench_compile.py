"""A compiled training loop in the app against the same loop under python (issue 21).

The script (LOOP below) compiles an MLP with `torch.compile`, trains it with
SGD, and times its own steps with `time.perf_counter` after a warm-up (the
compile, and the first steps that still build caches): what a learner's loop
spends per step. It runs under plain `python` and under `autogradviz trace`
(the worker, as the app runs it), alternately, so both see the same machine
load; the best of each is compared. The process CPU time of the same
windows is printed too (less sensitive to a loaded machine; not the target).

Two windows are timed in the same run, after a warm-up of WARMUP steps (the
compile, and the first calls that fill torch's caches):
- "recorded": the next RECORDED steps, each backward recorded in full by
  the app (capture, a post-hook per node, summaries of every gradient): the
  app's first MAX_RECORDED_RUNS runs, for information;
- "steady": the STEADY steps after them, where the app records the call
  count only and the script's own work is what remains: the line-recording
  mode's handler per torch call, the probes' wrappers around backward and
  the optimizer, the module hooks.

Target (exit 1 when missed): the steady loop in the app within 1.2x its
time under python (issue 21: "a compiled training loop in the app runs
within 1.2x its time under python after warm-up"; the warm-up there being
the compile and the app's recorded runs). The script's printed losses must
be equal in both runs (the same training).

Run: .venv/bin/python benchmarks/bench_compile.py [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from targets import Targets  # noqa: E402

from autogradviz.engine.trace.model import MAX_RECORDED_RUNS  # noqa: E402

MAX_RATIO = 1.2
WARMUP, RECORDED, STEADY = 5, 45, 200  # 5 + 45 = the app's 50 recorded runs (MAX_RECORDED_RUNS)

LOOP = f'''\
import time
import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.GELU(), torch.nn.Linear(256, 256),
                            torch.nn.GELU(), torch.nn.Linear(256, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
cmodel = torch.compile(model)
data = torch.randn(64, 64)
target = torch.randint(0, 10, (64,))


def train_step():
    opt.zero_grad()
    loss = torch.nn.functional.cross_entropy(cmodel(data), target)
    loss.backward()
    opt.step()
    return loss


def timed(steps):
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in range(steps):
        loss = train_step()
    return time.perf_counter() - t0, time.process_time() - c0, loss


for _ in range({WARMUP}):
    train_step()
recorded, recorded_cpu, loss1 = timed({RECORDED})
steady, steady_cpu, loss2 = timed({STEADY})
print(f"loss {{loss1.item():.6f}} {{loss2.item():.6f}}")
print(f"timing recorded {{recorded:.6f}} steady {{steady:.6f}}")
print(f"cpu recorded {{recorded_cpu:.6f}} steady {{steady_cpu:.6f}}")
'''
_TIMING = re.compile(r"timing recorded ([\d.]+) steady ([\d.]+)")
_CPU = re.compile(r"cpu recorded ([\d.]+) steady ([\d.]+)")


def _run(cmd, env) -> str:
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
    if r.returncode != 0:
        raise SystemExit(f"{cmd[1:3]} failed (exit {r.returncode}): {r.stderr[-2000:]}")
    return r.stdout


def _timings(stdout: str) -> tuple[float, float, float, float]:
    """(recorded wall, steady wall, recorded CPU, steady CPU) seconds."""
    m, c = _TIMING.search(stdout), _CPU.search(stdout)
    if m is None or c is None:
        raise SystemExit(f"no timing lines in: {stdout[-500:]!r}")
    return float(m.group(1)), float(m.group(2)), float(c.group(1)), float(c.group(2))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    targets = Targets()
    env = dict(os.environ)
    plain, traced = [], []
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "compiled_loop.py")
        out = os.path.join(tmp, "trace.json")
        with open(script, "w", encoding="utf-8") as f:
            f.write(LOOP)
        for _ in range(args.repeat):  # alternate: the same machine load for both
            stdout = _run([sys.executable, script], env)
            plain.append((stdout, _timings(stdout)))
            _run([sys.executable, "-m", "autogradviz", "trace", script, "-o", out, "--timeout", "900"], env)
            with open(out, encoding="utf-8") as f:
                trace = json.load(f)
            traced.append((trace["stdout"], _timings(trace["stdout"])))
    losses = {s.splitlines()[0] for s, _ in plain + traced}
    targets.check("compiled loop: the same losses in the app as under python", len(losses) == 1,
                  ", ".join(sorted(losses)))
    targets.check("compiled loop: the app recorded the runs before the steady window",
                  len(trace["backward_runs"]) == MAX_RECORDED_RUNS == WARMUP + RECORDED and trace["runs_truncated"],
                  f"{len(trace['backward_runs'])} runs recorded")
    compiled = [n for g in trace["graphs"] for n in g["nodes"] if n["op"] == "CompiledFunctionBackward"]
    targets.check("compiled loop: CompiledFunctionBackward recorded", bool(compiled))
    best_plain = [min(t[k] for _, t in plain) for k in range(4)]
    best_traced = [min(t[k] for _, t in traced) for k in range(4)]
    for k, (name, steps) in enumerate((("recorded", RECORDED), ("steady", STEADY))):
        print(f"{name:9s} ({steps} steps): python {best_plain[k] / steps * 1e3:7.3f} ms/step, "
              f"app {best_traced[k] / steps * 1e3:7.3f} ms/step, {best_traced[k] / best_plain[k]:.2f}x "
              f"(process CPU time: {best_traced[k + 2] / best_plain[k + 2]:.2f}x)")
    ratio = best_traced[1] / best_plain[1]
    print(f"steady loop after warm-up ({STEADY} steps): {ratio:.2f}x (target <= {MAX_RATIO}x); "
          f"load {os.getloadavg()[0]:.1f}")
    targets.check(f"compiled loop in the app <= {MAX_RATIO}x python after warm-up", ratio <= MAX_RATIO,
                  f"{ratio:.2f}x")
    return targets.exit_code()


if __name__ == "__main__":
    sys.exit(main())
