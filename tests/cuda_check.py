"""`make cuda-check`: what only a machine with a CUDA device can verify.

CI has no GPU, so the CUDA paths are otherwise never run. This script, on a
machine with one:

1. runs every test marked `cuda` (pyproject.toml's `markers`; each also skips
   itself without a device), and fails when none ran;
2. runs `autogradviz trace --device cuda` on the CUDA-relevant lessons, made
   to run on the device (the lessons themselves run on the CPU for everyone):
   - lesson 20 (GradScaler) with `torch.amp.GradScaler("cuda")` and float16
     autocast: scaler events recorded, their found-inf flags per `cuda:0`,
     float16 tensors and `cuda:0` devices in the trace;
   - lesson 18 (memory) as it is (it uses the device when there is one) with
     its autograd part on the device: `torch.cuda.max_memory_allocated`
     printed >= 4 MiB, the memory probe's `cuda_allocated` figures set;
   - lesson 30 (checkpoint) on the device: the checkpoint and its re-run
     recorded, the same gradients as without checkpoint, `cuda:0` devices;
3. prints one line per thing it verified, and exits 1 when one failed.

Without a CUDA device it prints `skipped: no CUDA device ...` and exits 0
(README, "Checking CUDA"): nothing was verified, and the line says so.
`--device cpu` runs step 2 on the CPU (only to check this script itself
where there is no GPU; the cuda-marked tests are not run then).

Run: .venv/bin/python tests/cuda_check.py [--device cpu]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LESSONS = os.path.join(ROOT, "resources", "lessons")


def _lesson(name: str) -> str:
    with open(os.path.join(LESSONS, name), encoding="utf-8") as f:
        return f.read()


def _replace(text: str, pairs) -> str:
    """`text` with each (old, new) replaced; an `old` the lesson no longer
    has is an error (the check would silently test something else)."""
    for old, new in pairs:
        if old not in text:
            raise SystemExit(f"cuda_check: the lesson no longer contains {old!r}: update tests/cuda_check.py")
        text = text.replace(old, new)
    return text


def grad_scaler_script(device: str) -> str:
    return _replace(_lesson("20_amp_loop.py"), [
        ('torch.amp.GradScaler("cpu")', f'torch.amp.GradScaler("{device}")'),
        ('torch.autocast("cpu", dtype=torch.bfloat16)', f'torch.autocast("{device}", dtype=torch.float16)'),
        ("x = torch.randn(8, 3)", "x = torch.randn(8, 3, device=device)"),
        ("torch.tensor([[1.0], [-2.0], [0.5]])", "torch.tensor([[1.0], [-2.0], [0.5]], device=device)"),
        ("torch.zeros(3, 1, requires_grad=True)", "torch.zeros(3, 1, device=device, requires_grad=True)"),
        ("torch.zeros(1, requires_grad=True)", "torch.zeros(1, device=device, requires_grad=True)"),
    ])


def memory_script(device: str) -> str:
    return _replace(_lesson("18_cuda_memory.py"), [
        ("torch.randn(64, 64, requires_grad=True)", "torch.randn(64, 64, device=device, requires_grad=True)"),
    ])


def checkpoint_script(device: str) -> str:
    return _replace(_lesson("30_checkpoint_mlp.py"), [
        ("nn.Linear(16, 4))", "nn.Linear(16, 4)).to(device)"),
        ("head = nn.Linear(4, 1)", "head = nn.Linear(4, 1).to(device)"),
        ("torch.randn(8, 4, requires_grad=True)", "torch.randn(8, 4, device=device, requires_grad=True)"),
    ])


def _devices(trace: dict) -> set:
    """Every tensor summary's device in a trace file's data."""
    found = set()

    def walk(v):
        if isinstance(v, dict):
            if "shape" in v and "dtype" in v and "device" in v:
                found.add(v["device"])
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    walk(trace.get("graphs"))
    walk(trace.get("backward_runs"))
    return found


def _dtypes(trace: dict) -> set:
    found = set()

    def walk(v):
        if isinstance(v, dict):
            if "shape" in v and "dtype" in v:
                found.add(v["dtype"])
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    walk(trace.get("graphs"))
    walk(trace.get("backward_runs"))
    return found


class Checks:
    """One printed line per check; remembers failures."""

    def __init__(self) -> None:
        self.failed = 0

    def check(self, what: str, ok: bool, detail: str = "") -> None:
        print(f"  {'verified' if ok else 'FAILED'}: {what}" + (f" ({detail})" if detail else ""), flush=True)
        self.failed += not ok


def trace_lesson(name: str, source: str, device: str, tmp: str) -> tuple[int, dict, str]:
    path = os.path.join(tmp, name)
    out = os.path.join(tmp, name + ".json")
    with open(path, "w", encoding="utf-8") as f:
        f.write(source)
    r = subprocess.run([sys.executable, "-m", "autogradviz", "trace", path, "--device", device,
                        "-o", out, "--timeout", "300"], capture_output=True, text=True, timeout=600)
    data = {}
    if os.path.exists(out):
        with open(out, encoding="utf-8") as f:
            data = json.load(f)
    return r.returncode, data, r.stderr.strip()


def check_lessons(device: str, checks: Checks) -> None:
    want = "cuda:0" if device == "cuda" else device
    with tempfile.TemporaryDirectory() as tmp:
        print(f"lesson 20, GradScaler with float16 autocast, `autogradviz trace --device {device}`:")
        rc, tr, err = trace_lesson("amp_loop.py", grad_scaler_script(device), device, tmp)
        checks.check("the trace ran to the end", rc == 0 and not tr.get("error"), err or str(tr.get("error") or ""))
        events = tr.get("scaler_events", [])
        calls = sorted({e.get("call") for e in events})
        checks.check("scaler events recorded (scale, step, update)",
                     {"scale", "step", "update"} <= set(calls), f"{len(events)} events: {', '.join(calls)}")
        flags = {k for e in events for k in (e.get("found_inf") or {})}
        checks.check(f"found-inf flags per device {want}", flags == {want}, f"{sorted(flags)}")
        checks.check(f"tensor summaries on {want}", want in _devices(tr), f"{sorted(_devices(tr))}")
        checks.check("float16 tensors under autocast", "float16" in _dtypes(tr), f"{sorted(_dtypes(tr))}")
        checks.check(f"trace device {device}", tr.get("device") == device, str(tr.get("device")))

        print(f"lesson 18, memory, `autogradviz trace --device {device}`:")
        rc, tr, err = trace_lesson("cuda_memory.py", memory_script(device), device, tmp)
        checks.check("the trace ran to the end", rc == 0 and not tr.get("error"), err or str(tr.get("error") or ""))
        peak = [line for line in tr.get("stdout", "").splitlines() if line.startswith("peak after one")]
        if device == "cuda":
            nbytes = int(peak[0].split(":")[1].split()[0]) if peak else 0
            checks.check("torch.cuda.max_memory_allocated >= 4 MiB after one 1024x1024 tensor",
                         nbytes >= 4 * 1024 * 1024, f"{nbytes:,} bytes")
        runs = (tr.get("memory") or {}).get("runs", [])
        parts = [r.get("after_backward") or {} for r in runs]
        checks.check("memory timeline recorded", bool(runs) and any(r.get("points") for r in runs),
                     f"{len(runs)} runs")
        if device == "cuda":
            checks.check("the memory probe's torch.cuda figures", any(p.get("cuda_max_allocated") for p in parts),
                         f"{[p.get('cuda_max_allocated') for p in parts]}")
        checks.check(f"tensor summaries on {want}", want in _devices(tr), f"{sorted(_devices(tr))}")

        print(f"lesson 30, checkpoint, `autogradviz trace --device {device}`:")
        rc, tr, err = trace_lesson("checkpoint_mlp.py", checkpoint_script(device), device, tmp)
        checks.check("the trace ran to the end", rc == 0 and not tr.get("error"), err or str(tr.get("error") or ""))
        cps = tr.get("checkpoints", [])
        checks.check("a checkpoint recorded and re-run in backward",
                     len(cps) == 1 and bool(cps[0].get("recomputations")), f"{len(cps)} checkpoints")
        checks.check("same loss and gradient as without checkpoint",
                     "same loss: True" in tr.get("stdout", "") and "same gradient: True" in tr.get("stdout", ""),
                     tr.get("stdout", "").strip().replace("\n", "; "))
        checks.check(f"tensor summaries on {want}", want in _devices(tr), f"{sorted(_devices(tr))}")


def marked_test_files() -> list[str]:
    """The test files that hold a cuda-marked test. Only these are collected:
    a GPU server often has torch but no Qt, and collecting tests/app there
    would fail on the missing PySide6 before any CUDA test ran (seen on the
    first run on an H200)."""
    found = []
    for folder, _dirs, files in os.walk(os.path.join(ROOT, "tests")):
        for name in sorted(files):
            if name.startswith("test_") and name.endswith(".py"):
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8") as f:
                    if "mark.cuda" in f.read():
                        found.append(path)
    return sorted(found)


def run_marked_tests(checks: Checks) -> None:
    print("tests marked cuda (pytest -m cuda):", flush=True)
    files = marked_test_files()
    if not files:
        checks.check("cuda-marked tests found", False, "no test file under tests/ has a cuda mark")
        return
    env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"))
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "cuda", "-rs",
                        *files], cwd=ROOT, env=env, capture_output=True, text=True)
    tail = [line for line in r.stdout.strip().splitlines() if line.strip()][-1:] or [r.stderr.strip()]
    ran = r.returncode == 0 and "passed" in tail[0] and "skipped" not in tail[0]
    if not ran:
        print(r.stdout[-4000:], r.stderr[-2000:], sep="\n")
    checks.check("every cuda-marked test passed, none skipped", ran, tail[0])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cuda", choices=["cuda", "cpu"],
                    help="cpu: run the lesson checks on the CPU (a check of this script)")
    args = ap.parse_args(argv)
    import torch

    if args.device == "cuda" and not torch.cuda.is_available():
        print(f"skipped: no CUDA device (torch {torch.__version__}, CUDA build "
              f"{torch.version.cuda or 'none'}, sees none): nothing was verified", flush=True)
        return 0
    if args.device == "cuda":
        print(f"CUDA device: {torch.cuda.get_device_name(0)} (torch {torch.__version__}, "
              f"CUDA {torch.version.cuda})", flush=True)
    checks = Checks()
    if args.device == "cuda":
        run_marked_tests(checks)
    check_lessons(args.device, checks)
    print(f"cuda-check: {'all verified' if not checks.failed else f'{checks.failed} FAILED'}"
          f" on {args.device}", flush=True)
    return 1 if checks.failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
