# Lesson 16: TorchScript trace vs script (deprecated in recent torch)
import warnings
import torch


class Gate(torch.nn.Module):
    def forward(self, x):
        # A branch that depends on the data.
        return x if x.sum() > 0 else -x


gate = Gate()
positive = torch.ones(2)
negative = torch.full((2,), -1.0, requires_grad=True)

print("eager, negative input:", gate(negative).tolist())   # the branch runs each time

if not hasattr(torch, "jit"):
    print("torch.jit is not available in this torch:", torch.__version__)
else:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            traced = torch.jit.trace(gate, positive)   # records one run: the x branch
            scripted = torch.jit.script(gate)          # compiles the code: both branches
        except Exception as err:                       # gone or broken in this version
            traced = scripted = None
            print("TorchScript failed here:", type(err).__name__, err)
    deprecated = any(issubclass(w.category, (DeprecationWarning, FutureWarning)) for w in caught)
    print("deprecation warning on torch", torch.__version__ + ":", deprecated)
    if traced is not None:
        print("traced,   negative input:", traced(negative).tolist())    # frozen branch: wrong
        print("scripted, negative input:", scripted(negative).tolist())  # right

loss = gate(negative).sum()   # the eager module, for the graph
loss.backward()
print("negative.grad:", negative.grad.tolist())
