# Lesson 15: save and load a state_dict
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
my_model(x).sum().backward()      # my_model now has gradients and had a graph

state = my_model.state_dict()
print("keys:", list(state.keys()))
print("saved tensors require grad:", [t.requires_grad for t in state.values()])

# The notes save to "xxx.pth"; a file in memory does the same here.
buffer = io.BytesIO()
torch.save(state, buffer)
buffer.seek(0)

copy = MyModule()                  # fresh random weights
copy.load_state_dict(torch.load(buffer))
print("same weights:", torch.equal(copy.linear.weight, my_model.linear.weight))
print("gradients travelled:", copy.linear.weight.grad is not None)

out = copy(x)                      # a new forward builds a new graph
print("copy output equals original:", torch.equal(out, my_model(x)))
out.sum().backward()
