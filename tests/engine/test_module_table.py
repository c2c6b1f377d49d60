"""The layer table (Trace.modules) counts each module's calls that returned,
as the script itself counts them.

The table is kept by the module tracker's own forward hook (one global hook
for both, engine/worker/module_table.py); that hook also runs when a forward
raises (always_call), and such a call is not a call that returned. The
script below counts its returned calls with a forward hook of its own and
prints them, under plain python; the trace run in-process by the runner
must hold the same counts, the same first output shapes, and no row for a
module that never returned.
"""

from __future__ import annotations

import ast
import subprocess
import sys

from autogradviz.engine.worker.runner import run_script

SCRIPT = """\
import collections
import torch

counts = collections.Counter()


def count(module, args, output):
    counts[names[id(module)]] += 1


class Bad(torch.nn.Module):
    def forward(self, x):
        raise ValueError("no")


lin = torch.nn.Linear(2, 3)
seq = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.ReLU())
bad = Bad()
handles = [m.register_forward_hook(count) for m in (lin, seq, seq[0], seq[1], bad)]
names = {id(lin): "lin", id(seq): "seq", id(seq[0]): "seq.0", id(seq[1]): "seq.1", id(bad): "bad"}
x = torch.randn(1, 2)
for _ in range(3):
    lin(x)
try:
    bad(x)
except ValueError:
    seq(lin(x))          # called while the exception is being handled
    try:
        bad(x)
    except ValueError:
        pass
    lin(x)
loss = seq(lin(x)).sum()
loss.backward()
for h in handles:
    h.remove()
print(dict(counts))
"""


def test_table_counts_returned_calls_as_the_script_does(tmp_path):
    path = tmp_path / "table.py"
    path.write_text(SCRIPT)
    plain = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=300)
    assert plain.returncode == 0, plain.stderr
    expected = ast.literal_eval(plain.stdout.strip().splitlines()[-1])
    assert expected == {"lin": 6, "seq": 2, "seq.0": 2, "seq.1": 2}  # (the script's own count; bad never returned)

    out: list = []
    trace = run_script(SCRIPT, str(path), on_output=lambda stream, text: out.append(text)).trace
    assert trace.error is None
    assert ast.literal_eval("".join(out).strip().splitlines()[-1]) == expected
    table = {m.path: m for m in trace.modules}
    assert {p: m.calls for p, m in table.items()} == expected
    assert table["lin"].output_shape == [1, 3] and table["seq.1"].output_shape == [1, 3]
    assert table["lin"].class_name == "Linear" and table["lin"].params == 9
