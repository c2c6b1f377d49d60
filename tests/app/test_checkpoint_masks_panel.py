"""The Checkpoints panel shows a segment's Dropout masks, forward and re-run
side by side: the cells are the recorded mask (■ kept, □ dropped), and the
verdict says whether the re-run drew the forward's mask - which the script
itself checks here (it keeps both masks it saw)."""

from __future__ import annotations

import re

import pytest

from autogradviz.app.panels.checkpoint import CheckpointPanel
from autogradviz.app.session import TraceSession

from test_graph_support import trace_of

SCRIPT = """
import torch
from torch.utils.checkpoint import checkpoint
torch.manual_seed(3)
SEEN = []
def f(t):
    out = torch.nn.functional.dropout(t, 0.5, training=True)
    SEEN.append((out != 0).int().reshape(-1).tolist())
    return out * 2
x = torch.ones(2, 8, requires_grad=True)
y = checkpoint(f, x, use_reentrant=True, preserve_rng_state={preserve})
y.sum().backward()
print("SAME", SEEN[0] == SEEN[1])
"""


@pytest.mark.parametrize("preserve", [True, False])
def test_masks_side_by_side(qtbot, preserve):
    src = SCRIPT.format(preserve=preserve)
    trace = trace_of(src)
    same = "SAME True" in trace.stdout
    assert same is preserve  # what torch did, seen by the script itself
    session = TraceSession()
    panel = CheckpointPanel(session)
    qtbot.addWidget(panel)
    panel.show()
    session.set_trace(trace)
    text = panel.masks.text()
    assert panel.masks.isVisible()
    (c,) = trace.checkpoints
    (r,) = c.recomputations
    cells = re.sub(r"<[^>]+>", "", text)
    grids = re.findall(r"[■□]+", cells)
    # forward grid then re-run grid (two rows of 8 each)
    drawn = "".join(grids)
    want = "".join("■" if v else "□" for v in c.masks[0].values) + \
        "".join("■" if v else "□" for v in r.masks[0].values)
    assert drawn == want
    assert ("same mask" in text) is same and ("different mask" in text) is (not same)
    assert ("gradient no longer matches the forward" in text) is (not same)
    # in a low dock the masks and their verdict scroll, never squeezed into a
    # label too short for its wrapped lines (the verdict's last line was cut off)
    panel.resize(900, 260)
    qtbot.wait(50)
    assert panel.masks.height() >= panel.masks.heightForWidth(panel.masks.width())


def test_panel_follows_the_recompute_phase(qtbot):
    """During the stepper's recompute phase (between session step r.step and
    r.step + 1) the panel highlights the re-run being shown."""
    trace = trace_of(SCRIPT.format(preserve=True))
    session = TraceSession()
    panel = CheckpointPanel(session)
    qtbot.addWidget(panel)
    session.set_trace(trace)
    (r,) = trace.checkpoints[0].recomputations
    session.set_step(r.step)
    assert panel.highlighted == []
    session.recompute.enter(r.step, 1)
    assert panel.highlighted == [0]
    session.set_step(0)
    assert panel.highlighted == [] and session.recompute.frame is None
