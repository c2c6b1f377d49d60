"""Run every benchmarks/bench_*.py in turn (each in its own process) and print
its output. `make bench` calls this. Exit status: 1 when any benchmark failed."""

from __future__ import annotations

import glob
import os
import subprocess
import sys
import time


def main(argv=None) -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    only = set(argv if argv is not None else sys.argv[1:])
    benches = sorted(glob.glob(os.path.join(here, "bench_*.py")))
    if only:
        benches = [b for b in benches if os.path.basename(b)[:-3] in only or os.path.basename(b) in only]
    env = dict(os.environ)
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    failed = []
    for path in benches:
        name = os.path.basename(path)
        print(f"=== {name}", flush=True)
        t0 = time.perf_counter()
        r = subprocess.run([sys.executable, path], env=env, cwd=os.path.dirname(here))
        status = "ok" if r.returncode == 0 else f"FAILED (exit {r.returncode})"
        print(f"=== {name}: {status} in {time.perf_counter() - t0:.1f} s\n", flush=True)
        if r.returncode != 0:
            failed.append(name)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
