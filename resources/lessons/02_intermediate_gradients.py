# Lesson 2: three ways to get an intermediate gradient
import torch

x = torch.ones(2, 2, requires_grad=True)
y = x * 2      # the intermediate tensor we care about
z = y ** 2
t = z.mean()

# Way 1: retain_grad() keeps y.grad after backward.
y.retain_grad()

# Way 3: register_hook() calls a function with y's
# gradient during backward. This hook comes from the
# study notes; it "never updates" global_grad:
global_grad = 0.0

def extract_grad(grad):
    print("hook fired, grad =", grad)
    global global_feat  # <- WRONG name (global_grad)
    global_grad = grad  # so this sets a local only
    return grad         # a returned tensor replaces grad

handle = y.register_hook(extract_grad)
# retain_graph: way 2 walks the same graph again.
t.backward(retain_graph=True)
handle.remove()        # remove hooks you are done with

print("way 1  y.grad         =", y.grad)
print("way 3  global_grad    =", global_grad,
      "<- still 0.0, yet the hook fired")

# Way 2: autograd.grad returns the gradient
# instead of storing it in .grad.
(dy,) = torch.autograd.grad(t, y)
print("way 2  autograd.grad  =", dy)
print("x.grad =", x.grad)
