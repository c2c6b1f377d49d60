# 第 10 课：cat、stack、unsqueeze、view/reshape、contiguous、permute
import torch

x = torch.arange(6.0).reshape(2, 3).requires_grad_()

joined = torch.cat([x, x], dim=0)      # 已有的维度变长：(4, 3)
stacked = torch.stack([x, x], dim=0)   # 新增一个维度：(2, 2, 3)
lifted = x.unsqueeze(1)                # 在第 1 维插入大小为 1 的维度：(2, 1, 3)
print("cat:", tuple(joined.shape), " stack:", tuple(stacked.shape),
      " unsqueeze(1):", tuple(lifted.shape))

flipped = x.t()                        # 一个步长互换的视图
print("x.t() contiguous:", flipped.is_contiguous())
try:
    flipped.view(6)                    # view 需要兼容的步长
except RuntimeError as err:
    print("view failed:", str(err).split(". ")[0])
flat_r = flipped.reshape(6)            # reshape 在必要时会复制
flat_c = flipped.contiguous().view(6)  # 或者自己先复制，再 view
moved = stacked.permute(2, 0, 1)       # 重排维度：(3, 2, 2)
print("permute:", tuple(moved.shape))

loss = (joined.sum() + stacked.sum() + lifted.sum()
        + flat_r.sum() + flat_c.sum() + moved.sum())
loss.backward()
# x 每被使用一次，每个元素加 1：cat 2、stack 2、unsqueeze 1、reshape 1、
# contiguous+view 1、permute（作用于 stacked）2。
print("x.grad:", x.grad.tolist())
