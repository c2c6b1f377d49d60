# Lesson 33: Dropout and preserve_rng_state
# Run, then open the Checkpoints panel: the masks are shown side by side.
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
block = nn.Sequential(nn.Linear(6, 6), nn.Dropout(0.5))
x = torch.randn(2, 6, requires_grad=True)
masks = []


def watched(t):
    out = block(t)
    masks.append(out != 0)          # which elements Dropout kept this time
    return torch.tanh(out)


for preserve in (True, False):
    masks.clear()
    y = checkpoint(watched, x, use_reentrant=False, preserve_rng_state=preserve)
    y.sum().backward()              # re-runs `watched`: a second mask
    print(f"preserve_rng_state={preserve}: re-run mask equals the forward's:",
          torch.equal(masks[0], masks[1]))
