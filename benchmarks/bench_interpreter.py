"""Running scripts with another Python interpreter (`--python`, Preferences).

Target (exit 1 when missed): `autogradviz trace --python VENV` costs at most
0.5 s more than `autogradviz trace` with the app's own Python, on a small
script (min of N alternating runs). The difference is the interpreter check
(what is installed, without importing torch) and the worker starting from the
engine-only PYTHONPATH folder.
For information: the full check the Preferences dialog runs (imports torch
there, asks for CUDA).

The venv is made in a temporary folder, sees this interpreter's packages
through a .pth line (no download), and is removed afterwards.
Run: .venv/bin/python benchmarks/bench_interpreter.py [--repeat N]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import sysconfig
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from targets import Targets  # noqa: E402

SCRIPT = """\
import torch
w = torch.randn(8, 8, requires_grad=True)
(w @ w).tanh().sum().backward()
print(w.grad.norm().item())
"""
MAX_EXTRA_S = 0.5


def make_venv(root: str) -> str:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", root], check=True, capture_output=True)
    python = os.path.join(root, "Scripts" if os.name == "nt" else "bin", "python")
    own = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                         check=True, capture_output=True, text=True).stdout.strip()
    paths = sysconfig.get_paths()
    with open(os.path.join(own, "this_project.pth"), "w") as f:
        f.write("\n".join(sorted({paths["purelib"], paths["platlib"]})) + "\n")
    return python


def timed(cmd) -> float:
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {r.stderr.strip()}")
    return time.perf_counter() - t0


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    targets = Targets()
    with tempfile.TemporaryDirectory() as tmp:
        python = make_venv(os.path.join(tmp, "env"))
        script = os.path.join(tmp, "s.py")
        with open(script, "w") as f:
            f.write(SCRIPT)
        out = os.path.join(tmp, "t.json")
        base = [sys.executable, "-m", "autogradviz", "trace", script, "-o", out]
        own, other = [], []
        for _ in range(args.repeat):  # alternate, so both see the same machine load
            own.append(timed(base))
            other.append(timed(base + ["--python", python]))
        extra = min(other) - min(own)
        print(f"autogradviz trace: own Python {min(own):.2f} s, --python venv {min(other):.2f} s "
              f"(+{extra:.2f} s)")
        targets.check("trace --python overhead", extra <= MAX_EXTRA_S,
                      f"+{extra:.2f} s, target <= {MAX_EXTRA_S} s")
        from autogradviz.engine.protocol.interpreter import check_interpreter, describe

        t0 = time.perf_counter()
        report = check_interpreter(python)
        print(f"full interpreter check (Preferences): {time.perf_counter() - t0:.2f} s: {describe(report)}")
    return targets.exit_code()


if __name__ == "__main__":
    raise SystemExit(main())
