# 第 16 课：TorchScript 的 trace 与 script（新版 torch 中已弃用）
import warnings
import torch


class Gate(torch.nn.Module):
    def forward(self, x):
        # 一个取决于数据的分支。
        return x if x.sum() > 0 else -x


gate = Gate()
positive = torch.ones(2)
negative = torch.full((2,), -1.0, requires_grad=True)

print("eager, negative input:", gate(negative).tolist())   # 每次都会执行分支判断

if not hasattr(torch, "jit"):
    print("torch.jit is not available in this torch:", torch.__version__)
else:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            traced = torch.jit.trace(gate, positive)   # 只记录一次运行：x 分支
            scripted = torch.jit.script(gate)          # 编译代码：两个分支都有
        except Exception as err:                       # 在这个版本中已移除或不可用
            traced = scripted = None
            print("TorchScript failed here:", type(err).__name__, err)
    deprecated = any(issubclass(w.category, (DeprecationWarning, FutureWarning)) for w in caught)
    print("deprecation warning on torch", torch.__version__ + ":", deprecated)
    if traced is not None:
        print("traced,   negative input:", traced(negative).tolist())    # 分支被冻结：错误
        print("scripted, negative input:", scripted(negative).tolist())  # 正确

loss = gate(negative).sum()   # 用即时执行的模块来建图
loss.backward()
print("negative.grad:", negative.grad.tolist())
