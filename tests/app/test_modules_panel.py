"""The Modules panel (layer table) against torch: every module's parameter count
is `sum(p.numel() for p in m.parameters())` and its output shape is what a forward
hook sees, both computed by plain torch in a separate process (the GUI process
never imports torch)."""

from __future__ import annotations

import json
import subprocess
import sys

from PySide6.QtCore import Qt

from autogradviz.app.services.worker_process import READY

SCRIPT = """\
import torch
from torch import nn

class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 3, 3, padding=1)
        self.norm = nn.BatchNorm2d(3)
    def forward(self, x):
        return torch.relu(self.norm(self.conv(x)))

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block()
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(3 * 4 * 4, 5))
        self.head[1].bias.requires_grad_(False)
    def forward(self, x):
        return self.head(self.block(x))

torch.manual_seed(0)
net = Net()
out = net(torch.randn(2, 2, 4, 4))
out.sum().backward()
"""

EXPECTED = r"""
import json, sys, torch
ns = {"__name__": "__main__"}
seen = {}
def hook(module, args, output):
    seen.setdefault(id(module), list(output.shape))
handle = torch.nn.modules.module.register_module_forward_hook(hook)
exec(sys.stdin.read(), ns)
handle.remove()
net = ns["net"]
rows = {}
for name, m in net.named_modules():
    path = "net" + ("." + name if name else "")
    rows[path] = {"class": type(m).__name__, "params": sum(p.numel() for p in m.parameters()),
                  "trainable": sum(p.numel() for p in m.parameters() if p.requires_grad),
                  "shape": seen.get(id(m))}
print(json.dumps(rows))
"""


def expected_rows() -> dict:
    done = subprocess.run([sys.executable, "-c", EXPECTED], input=SCRIPT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_layer_table_matches_torch_and_hides_without_modules(qtbot, main_window, wait_until):
    w = main_window
    wait_until(lambda: w.worker.state == READY, 60_000, "worker ready")
    w.editor.setPlainText(SCRIPT)
    with qtbot.waitSignal(w.runFinished, timeout=60_000):
        w.run_script()
    dock = w.panels.dock("modules")
    assert dock.isVisible(), "a trace with modules shows the Modules panel"
    panel = w.panels.widget("modules")
    expected = expected_rows()
    assert {r.path for r in w.session.trace.modules} == set(expected)
    for path, want in expected.items():
        item = panel.item_for(path)
        assert item is not None, path
        assert item.text(0) == f"{path}  ({want['class']})"
        assert item.text(1) == "[" + ", ".join(map(str, want["shape"])) + "]"
        assert item.text(2) == f"{want['params']:,}"
        assert item.text(3) == "1"
    # nested by path: net > block > conv
    assert panel.item_for("net.block.conv").parent() is panel.item_for("net.block")
    assert panel.item_for("net").parent() is None
    total, trainable = expected["net"]["params"], expected["net"]["trainable"]
    assert f"{total:,}" in panel.totals.text() and f"{trainable:,}" in panel.totals.text()
    assert trainable < total  # the frozen bias

    # A row selects a node its module made.
    item = panel.item_for("net.head.1")
    panel.tree.itemClicked.emit(item, 0)
    node = w.session.node(w.session.selected_node)
    assert node is not None and (node.module or "").startswith("net.head.1")

    # A script without modules: no table, no panel.
    w.editor.setPlainText("import torch\nx = torch.ones(2, requires_grad=True)\n(x * 2).sum().backward()\n")
    with qtbot.waitSignal(w.runFinished, timeout=60_000):
        w.run_script()
    assert not w.panels.dock("modules").isVisible()
    assert w.panels.widget("modules").rows() == []
