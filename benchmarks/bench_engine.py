"""Engine core benchmark: recording overhead and capture cost on a 10,000-node graph.

    .venv/bin/python benchmarks/bench_engine.py [--nodes 10000] [--repeat 5]

Prints, for a graph of ~N autograd nodes (two shapes, see build_chain and
build_rnn):
- plain backward: the real Tensor.backward, no app;
- recorded backward: the same call made while the probes are installed
  (capture + one hook per node + the real call + what the script could
  change later: leaves, their .grad), and its ratio to plain (target <= 2x);
  "of which capture": the graph capture inside that call, per node
  (target <= 3 us);
- after the script: what the recorder leaves for Recorder.finalize() (the
  runner calls it once the script has finished): the trace objects of the
  graph, the steps, and the summaries of saved activations and gradients;
  and the two together against plain.
CPU time of this process by default (--wall for wall time).
Median of --repeat runs, each on a freshly built graph, same process.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch  # noqa: E402

from autogradviz.engine.probes.probe_set import ProbeSet  # noqa: E402
from autogradviz.engine.worker.probe_context import context_for  # noqa: E402
from autogradviz.engine.worker.capture import CaptureState  # noqa: E402
from autogradviz.engine.worker import recorder as recorder_mod  # noqa: E402
from autogradviz.engine.worker.recorder import Recorder  # noqa: E402
from autogradviz.engine.worker.summarize import Summarizer  # noqa: E402
from autogradviz.engine.trace.model import Trace  # noqa: E402
from targets import Targets  # noqa: E402


def build_chain(n_nodes: int, width: int = 4):
    """h = sin(h) * w, tiny tensors: torch's own cost per node is minimal, so
    this is the worst case for the recorder's relative overhead."""
    x = torch.randn(width, requires_grad=True)
    w = torch.randn(width, requires_grad=True)
    h = x
    for _ in range((n_nodes - 3) // 2):
        h = torch.sin(h) * w
    loss = h.sum()
    return loss, {"x": x, "w": w, "loss": loss}


def build_rnn(n_nodes: int, batch: int = 16, hidden: int = 64):
    """An unrolled tanh RNN (h = tanh(h @ W + b)): 3 nodes per step, real matmuls."""
    W = (torch.randn(hidden, hidden) / hidden ** 0.5).requires_grad_()
    b = torch.zeros(hidden, requires_grad=True)
    h0 = torch.randn(batch, hidden, requires_grad=True)
    h = h0
    for _ in range((n_nodes - 6) // 3):
        h = torch.tanh(h @ W + b)
    loss = h.pow(2).mean()
    return loss, {"W": W, "b": b, "h0": h0, "loss": loss}


GRAPHS = {"chain": build_chain, "rnn": build_rnn}

# CPU time of this process (torch is held to one thread): on a shared,
# loaded machine wall time mostly measures the neighbours. --wall for wall time.
clock = time.process_time
build = build_chain


def timed_backward(loss) -> float:
    """loss.backward(), timed. A function of its own: the recorder reads the
    locals of the innermost frame in the calling file (for labels), and on
    Python 3.11 that refreshes the frame's cached locals dict - which in
    bench() would still hold the previous round's trace and graphs and free
    them right then, inside the timed call."""
    t0 = clock()
    loss.backward()
    return clock() - t0


def count_nodes(root) -> int:
    seen, stack = set(), [root.grad_fn]
    while stack:
        n = stack.pop()
        if n is None or n in seen:
            continue
        seen.add(n)
        stack.extend(m for m, _ in n.next_functions)
    return len(seen)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--graph", choices=["chain", "rnn", "all"], default="all")
    ap.add_argument("--wall", action="store_true", help="measure wall time instead of CPU time")
    args = ap.parse_args(argv)
    global clock
    if args.wall:
        clock = time.perf_counter
    torch.set_num_threads(1)
    for name in (["chain", "rnn"] if args.graph == "all" else [args.graph]):
        bench(name, GRAPHS[name], args)
    return targets.exit_code()


def bench(name, build, args) -> None:

    loss, _ = build(args.nodes)
    n = count_nodes(loss)
    print(f"\n[{name}] {build.__doc__.split(':')[0].strip()}")
    print(f"graph: {n} autograd nodes (torch {torch.__version__}, {args.repeat} repeats, median, "
          f"{'wall' if args.wall else 'CPU'} time; load {os.getloadavg()[0]:.1f})")

    plain, recorded, rec_cap, final = [], [], [], []
    for i in range(args.repeat + 1):  # the first round warms up allocators/caches
        loss, ns = build(args.nodes)
        plain.append(timed_backward(loss))

        loss, ns = build(args.nodes)
        trace = Trace()
        state = CaptureState(Summarizer())
        rec = Recorder(trace, state, ns, user_filename=__file__)
        probes = ProbeSet(context_for(rec))  # every registered probe, as the runner installs them
        probes.install()
        in_capture = []
        real_capture = recorder_mod.capture_pending

        def timed_capture(*a, **k):  # the capture the recorder makes, timed
            c0 = clock()
            try:
                return real_capture(*a, **k)
            finally:
                in_capture.append(clock() - c0)

        recorder_mod.capture_pending = timed_capture
        try:
            recorded.append(timed_backward(loss))
        finally:
            probes.remove()
            recorder_mod.capture_pending = real_capture
        rec_cap.append(in_capture[0])
        # What waited for the end of the script (the runner calls this).
        t0 = clock()
        rec.finalize()
        final.append(clock() - t0)
        state.release_probes()  # (as the runner's Recording.finish ends: the run can be freed)
        probes.ctx.probes = None
        assert len(trace.backward_runs) == 1 and len(trace.backward_runs[0].steps) == n
        assert not rec.errors and not probes.ctx.errors, (rec.errors, probes.ctx.errors)
        assert len(state.graphs[0].nodes) == n
        del trace, state, rec, probes
        if i == 0:
            plain.clear(), recorded.clear(), rec_cap.clear(), final.clear()

    p, r = statistics.median(plain), statistics.median(recorded)
    rc, f = statistics.median(rec_cap), statistics.median(final)
    print(f"plain backward:       {p * 1e3:8.1f} ms")
    print(f"recorded backward:    {r * 1e3:8.1f} ms   ratio {r / p:.2f}x (target <= 2x)")
    print(f"  of which capture:   {rc * 1e3:8.1f} ms   {rc / n * 1e6:.2f} us/node (target <= 3 us)")
    print(f"after the script:     {f * 1e3:8.1f} ms   trace objects and summaries of the graph and steps "
          f"(Recorder.finalize)")
    print(f"recorded, all of it:  {(r + f) * 1e3:8.1f} ms   ratio {(r + f) / p:.2f}x")
    targets.check(f"{name}: recorded backward <= 2x plain", r / p <= 2.0, f"{r / p:.2f}x")
    targets.check(f"{name}: capture <= 3 us/node", rc / n * 1e6 <= 3.0, f"{rc / n * 1e6:.2f} us/node")


targets = Targets()

if __name__ == "__main__":
    sys.exit(main())
