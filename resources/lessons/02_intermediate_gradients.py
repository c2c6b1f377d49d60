# Lesson 2: three ways to get the gradient of an intermediate tensor
import torch

x = torch.ones(2, 2, requires_grad=True)
y = x * 2            # the intermediate tensor whose gradient we want
z = y ** 2
t = z.mean()

# Way 1: retain_grad() keeps y.grad after backward.
y.retain_grad()

# Way 3: register_hook() calls a function with y's gradient during backward.
# This is the hook from the study notes. It "never updates" global_grad:
global_grad = 0.0

def extract_grad(grad):
    print("hook fired, grad =", grad)
    global global_feat      # <- names the WRONG variable (should be global_grad)
    global_grad = grad      # ...so this only sets a local variable
    return grad             # returning a tensor replaces the gradient (here: by itself)

handle = y.register_hook(extract_grad)
t.backward(retain_graph=True)   # keep the graph: way 2 walks it again below
handle.remove()                 # always remove hooks you no longer need

print("way 1  y.grad         =", y.grad)
print("way 3  global_grad    =", global_grad, "<- still 0.0, although the hook fired")

# Way 2: torch.autograd.grad returns the gradient instead of storing it in .grad.
(dy,) = torch.autograd.grad(t, y)
print("way 2  autograd.grad  =", dy)
print("x.grad =", x.grad)
