"""Probes: what the worker installs into torch while a learner's script runs.

Each probe records one aspect of the script (backward calls, the user's
hooks, module calls; later gradient checkpointing and the GradScaler) with
three methods: `install(context)` before the script, `remove()` after it
(whatever the script did), `contribute(trace)` once everything is removed.

Adding one: a module here with a `base.Probe` subclass, plus one
`register(...)` line in registry.py. Patch torch only through
`self.patches` (base.Patches), so removal restores it exactly.

  base.py         Probe, ProbeContext, Patches, BackwardPosition
  registry.py     the list of probes (one line each)
  probe_set.py    install / remove / contribute for one run
  backward.py     Tensor.backward, autograd.backward, autograd.grad -> Recorder
  node_hooks.py   hooks on grad_fn nodes (the user's and the recorder's own)
  tensor_hooks.py the user's tensor and post-accumulate-grad hooks
  retain_grad.py  which tensors retain their grad
  saved_hooks.py  whether saved-tensor hooks were ever active
  modules.py      which module made each node (ModuleTracker)
"""
