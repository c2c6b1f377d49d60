# 第 13 课：train() 与 eval()，Dropout 置零以及按 1/(1-p) 放大
import torch
from torch import nn

torch.manual_seed(2)
model = nn.Sequential(nn.Dropout(0.3))   # 笔记中的例子，p = 0.3
data = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0])

model.train()                  # 默认模式；但还是明确写出来
print("train:", [round(v, 4) for v in model(data).tolist()])
model.eval()
print("eval: ", model(data).tolist())

# 两种模式建出的计算图不同。
net = nn.Sequential(nn.Linear(5, 5), nn.Dropout(0.3))
x = torch.ones(1, 5)

net.train()
out_train = net(x)
out_train.sum().backward()     # 第 1 次运行：带 dropout 掩码
kept = (out_train != 0).float().sum().item()
print("train mode: kept", int(kept), "of 5")

net.zero_grad()
net.eval()
out_eval = net(x)
out_eval.sum().backward()      # 第 2 次运行：完全没有 dropout
print("eval mode: kept", int((out_eval != 0).float().sum().item()), "of 5")
