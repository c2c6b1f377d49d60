# Lesson 13: train() vs eval(), Dropout's zeros and its 1/(1-p) scaling
import torch
from torch import nn

torch.manual_seed(2)
model = nn.Sequential(nn.Dropout(0.3))   # the notes' example, p = 0.3
data = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0])

model.train()                  # the default mode; say it anyway
print("train:", [round(v, 4) for v in model(data).tolist()])
model.eval()
print("eval: ", model(data).tolist())

# The two modes build different graphs.
net = nn.Sequential(nn.Linear(5, 5), nn.Dropout(0.3))
x = torch.ones(1, 5)

net.train()
out_train = net(x)
out_train.sum().backward()     # run 1: with the dropout mask
kept = (out_train != 0).float().sum().item()
print("train mode: kept", int(kept), "of 5")

net.zero_grad()
net.eval()
out_eval = net(x)
out_eval.sum().backward()      # run 2: no dropout at all
print("eval mode: kept", int((out_eval != 0).float().sum().item()), "of 5")
