# 第 15 课：保存与加载 state_dict
import io
import torch

torch.manual_seed(0)


class MyModule(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(3, 3)

    def forward(self, x):
        return self.linear(x)


my_model = MyModule()
x = torch.randn(2, 3)
my_model(x).sum().backward()      # my_model 现在有梯度，也有过一张计算图

state = my_model.state_dict()
print("keys:", list(state.keys()))
print("saved tensors require grad:", [t.requires_grad for t in state.values()])

# 笔记里保存到 "xxx.pth"；这里用内存中的文件，效果相同。
buffer = io.BytesIO()
torch.save(state, buffer)
buffer.seek(0)

copy = MyModule()                  # 新的随机权重
copy.load_state_dict(torch.load(buffer))
print("same weights:", torch.equal(copy.linear.weight, my_model.linear.weight))
print("gradients travelled:", copy.linear.weight.grad is not None)

out = copy(x)                      # 新的前向传播建立新的计算图
print("copy output equals original:", torch.equal(out, my_model(x)))
out.sum().backward()
