"""What plain python does with each lesson: run as a script in a fresh process.

    python lesson_reference.py OUT.pt LESSON.py [LESSON.py ...]

For each lesson: what it prints, and the .grad of every leaf its last
backward() that did not raise reached, taken right when that backward returned
(what the stepper shows at the end of that run; scaler.step() or clipping
change .grad later). Written to OUT.pt as {lesson path: (stdout, [tensors])}.

A process of its own, not the test's: whatever the test process imported
before (setuptools' distutils hook is switched off for good once pip is looked
up in a process, and a lesson importing torch.utils.benchmark then fails) is
not the plain python the lessons are compared with.
"""

from __future__ import annotations

import contextlib
import io
import os
import runpy
import sys
import warnings

import torch


def graph_leaves(roots) -> list:
    """The leaf tensors a backward from `roots` accumulates into (its AccumulateGrad nodes)."""
    seen, leaves, todo = set(), [], [r.grad_fn for r in roots if isinstance(r, torch.Tensor) and r.grad_fn]
    while todo:
        fn = todo.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        if hasattr(fn, "variable"):
            leaves.append(fn.variable)
        todo += [nxt for nxt, _ in fn.next_functions]
    return leaves


def reference(path: str) -> tuple[str, list]:
    out, snap, real_backward = io.StringIO(), [], torch.autograd.backward

    def backward(tensors, *args, **kwargs):
        done = real_backward(tensors, *args, **kwargs)
        roots = [tensors] if isinstance(tensors, torch.Tensor) else list(tensors)
        snap[:] = [leaf.grad.detach().clone() for leaf in graph_leaves(roots) if leaf.grad is not None]
        return done

    torch.autograd.backward = backward
    cwd = os.getcwd()
    try:
        os.chdir(os.path.dirname(path))
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()), warnings.catch_warnings():
            runpy.run_path(path, run_name="__main__")
    finally:
        os.chdir(cwd)
        torch.autograd.backward = real_backward
    return out.getvalue(), list(snap)


if __name__ == "__main__":
    torch.save({p: reference(p) for p in sys.argv[2:]}, sys.argv[1])
