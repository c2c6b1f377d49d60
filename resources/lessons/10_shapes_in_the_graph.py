# Lesson 10: cat, stack, unsqueeze, view/reshape, contiguous, permute
import torch

x = torch.arange(6.0).reshape(2, 3).requires_grad_()

joined = torch.cat([x, x], dim=0)      # an existing dimension grows: (4, 3)
stacked = torch.stack([x, x], dim=0)   # a new dimension: (2, 2, 3)
lifted = x.unsqueeze(1)                # a new size-1 dimension at 1: (2, 1, 3)
print("cat:", tuple(joined.shape), " stack:", tuple(stacked.shape),
      " unsqueeze(1):", tuple(lifted.shape))

flipped = x.t()                        # a view with swapped strides
print("x.t() contiguous:", flipped.is_contiguous())
try:
    flipped.view(6)                    # view needs compatible strides
except RuntimeError as err:
    print("view failed:", str(err).split(". ")[0])
flat_r = flipped.reshape(6)            # reshape copies when it must
flat_c = flipped.contiguous().view(6)  # or copy yourself, then view
moved = stacked.permute(2, 0, 1)       # reorder dimensions: (3, 2, 2)
print("permute:", tuple(moved.shape))

loss = (joined.sum() + stacked.sum() + lifted.sum()
        + flat_r.sum() + flat_c.sum() + moved.sum())
loss.backward()
# Each use of x adds 1 per element: cat 2, stack 2, unsqueeze 1, reshape 1,
# contiguous+view 1, permute (of stacked) 2.
print("x.grad:", x.grad.tolist())
