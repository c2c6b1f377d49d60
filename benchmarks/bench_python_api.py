"""The Python API: `make_dot` against torchviz's, and `record()`'s overhead.

make_dot, on the GPT-2-small-shaped script (bench_trace_cli.SCRIPT: 12 blocks,
width 768, tied embeddings), in ONE process, side by side: the same loss and
params, calls alternating (torchviz, ours, ours, torchviz, ...), median of
--repeat each. Target: `autogradviz.make_dot(...)` no slower than
`torchviz.make_dot(...)` (the call: both walk the graph and return an object
a notebook displays; neither lays it out yet). Printed besides: the picture
itself - our `.source` (layout + DOT) and `_repr_svg_()` (layout + SVG) - and
torchviz's render of its DOT to SVG by the same WebAssembly Graphviz the app
uses (torchviz's `render()` needs a system `dot`, often missing).

record(): the worker's targets (bench_engine.py) for the same graphs built
the same way (10,000-node chain and RNN): the backward call inside a
`with autogradviz.record()` block at most 2x the plain call; the block's
exit (probes removed, the trace built) printed beside it.
CPU time of this process (torch held to one thread), median of --repeat.
Run: .venv/bin/python benchmarks/bench_python_api.py [--repeat N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import torch  # noqa: E402

import autogradviz  # noqa: E402
from bench_engine import build_chain, build_rnn  # noqa: E402
from bench_trace_cli import SCRIPT as GPT2  # noqa: E402
from targets import Targets  # noqa: E402

clock = time.process_time


def gpt2():
    ns = {"device": "cpu", "__name__": "gpt2"}
    exec(compile(GPT2.replace("loss.backward()\n", ""), "<gpt2>", "exec"), ns)
    return ns["loss"], dict(ns["model"].named_parameters())


def timed(fn):
    t0 = clock()
    out = fn()
    return clock() - t0, out


def bench_make_dot(repeat: int, targets: Targets) -> None:
    import torchviz

    loss, params = gpt2()
    ours, theirs = [], []
    for i in range(repeat + 1):  # (the first pair warms up)
        pair = [("torchviz", lambda: torchviz.make_dot(loss, params=params)),
                ("ours", lambda: autogradviz.make_dot(loss, params=params))]
        for name, fn in (pair if i % 2 == 0 else pair[::-1]):
            t, _ = timed(fn)
            if i:
                (ours if name == "ours" else theirs).append(t)
    o, t = statistics.median(ours), statistics.median(theirs)
    d = autogradviz.make_dot(loss, params=params)
    print(f"\n[make_dot, GPT-2 small: {len(d.graph.nodes)} autograd nodes, median of {repeat}]")
    print(f"torchviz.make_dot:    {t * 1e3:8.1f} ms")
    print(f"autogradviz.make_dot: {o * 1e3:8.1f} ms   ratio {o / t:.2f}x (target <= 1x)")
    src_t, src = timed(lambda: d.source)
    d2 = autogradviz.make_dot(loss, params=params)
    svg_t, svg = timed(lambda: d2._repr_svg_())
    print(f"ours .source:         {src_t * 1e3:8.1f} ms   (layout + DOT, {len(src):,} chars)")
    print(f"ours _repr_svg_():    {svg_t * 1e3:8.1f} ms   (layout + SVG, {len(svg):,} chars)")
    try:
        from autogradviz.engine.layout.graphviz_backend import run_dot

        tv = torchviz.make_dot(loss, params=params)
        w0 = time.perf_counter()
        out = run_dot(tv.source, "svg", time_limit_s=300)
        print(f"torchviz DOT -> SVG:  {(time.perf_counter() - w0) * 1e3:8.1f} ms wall  "
              f"(the app's Graphviz, {len(out):,} bytes)")
    except Exception as exc:
        print(f"torchviz DOT -> SVG:  not measured ({type(exc).__name__}: {exc})")
    targets.check("make_dot on GPT-2 no slower than torchviz's", o <= t, f"{o / t:.2f}x")


def _backward(loss) -> float:
    t0 = clock()
    loss.backward()
    return clock() - t0


def bench_record(repeat: int, targets: Targets) -> None:
    for name, build in (("chain", build_chain), ("rnn", build_rnn)):
        plain, inside, exits = [], [], []
        for i in range(repeat + 1):
            loss, _ = build(10_000)
            p = _backward(loss)
            loss, _ = build(10_000)
            with autogradviz.record() as run:
                r = _backward(loss)
                e0 = clock()
            e = clock() - e0
            assert run.trace.error is None and len(run.trace.backward_runs) == 1
            if i:
                plain.append(p), inside.append(r), exits.append(e)
            del run
        p, r, e = statistics.median(plain), statistics.median(inside), statistics.median(exits)
        print(f"\n[record(), 10,000-node {name}, median of {repeat}]")
        print(f"plain backward:          {p * 1e3:8.1f} ms")
        print(f"backward in record():    {r * 1e3:8.1f} ms   ratio {r / p:.2f}x (target <= 2x, as the worker)")
        print(f"the block's exit:        {e * 1e3:8.1f} ms   (probes removed, trace built)")
        targets.check(f"record() {name}: backward <= 2x plain", r / p <= 2.0, f"{r / p:.2f}x")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--only", choices=["make_dot", "record"])
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    targets = Targets()
    if args.only in (None, "make_dot"):
        bench_make_dot(args.repeat, targets)
    if args.only in (None, "record"):
        bench_record(args.repeat, targets)
    return targets.exit_code()


if __name__ == "__main__":
    raise SystemExit(main())
