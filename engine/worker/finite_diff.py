"""Check a leaf's gradient numerically: central finite differences in float64.

The question "is autograd's gradient right?" needs the script's loss as a
function of one leaf. The recorded graph cannot be run forward again (it is a
backward graph; most nodes keep only what their backward needs), and
re-running the whole script 2N times (N up to 1,000 elements) would cost
2,000 runs. So the worker re-runs the script once, on request, under a
`TorchFunctionMode` that writes down every top-level torch call (function,
arguments, result) — a tape — and stops it when the script calls the
backward being checked (a private BaseException, so the script's own
`except Exception` does not catch it). The loss as a function of the leaf is
then that tape replayed from the leaf: only the calls that depend on it are
recomputed, every floating tensor as float64, the rest stay as recorded. Each
of the 2N evaluations is a replay of a few calls, not a run.

What this relies on, said plainly in docs/worker-protocol.md: the re-run
starts from the random state the recorded run started from (so random
initialisations repeat), the loss depends on the leaf through torch calls
(not through Python numbers such as `.item()`), and only the calls since the
previous backward and since the last in-place write to the leaf (an
optimizer's step) are replayed: the leaf is taken at its value when the
checked backward ran, as autograd's gradient is. The reply carries the replayed loss at the leaf's
own value and the loss the script computed, so a replay that does not
reproduce the script is visible, not silent. Prints of the re-run are
swallowed.
"""

from __future__ import annotations

import io
import os
import sys
import time
from typing import Any, Callable, Optional

import torch
from torch.overrides import TorchFunctionMode

MAX_ELEMENTS = 1000
# Central differences: f(x ± h·e_i), h relative to the element's size.
STEP = 1e-6
_BACKWARDS = (torch.Tensor.backward, torch.autograd.backward, torch.autograd.grad)


class _Stop(BaseException):
    """Raised at the checked backward call: the rest of the script is not needed."""


class CheckError(Exception):
    """A check that cannot be made; `code` names why (the app translates it)."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


class _Tape(TorchFunctionMode):
    """Every top-level torch call up to the `target`-th backward/grad call."""

    def __init__(self, target: int):
        super().__init__()
        self.target = target
        self.seen = 0
        self.calls: list[tuple] = []  # (func, args, kwargs, result)
        self.segment_start = 0  # first call after the previous backward (calls before it are dropped)
        self.root: Any = None  # (func, args, kwargs) of the checked backward

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func in _BACKWARDS:
            if self.seen == self.target:
                self.root = (func, args, kwargs)
                raise _Stop()
            self.seen += 1
            result = func(*args, **kwargs)
            # Only calls after the previous backward are replayed: drop the rest,
            # so a long training loop does not keep every iteration's tensors.
            self.calls = []
            return result
        result = func(*args, **kwargs)
        self.calls.append((func, args, kwargs, result))
        return result


def _flat(x, out: list) -> list:
    if isinstance(x, torch.Tensor):
        out.append(x)
    elif isinstance(x, (list, tuple)):
        for v in x:
            _flat(v, out)
    elif isinstance(x, dict):
        for v in x.values():
            _flat(v, out)
    return out


def _map(x, f):
    if isinstance(x, torch.Tensor):
        return f(x)
    if isinstance(x, list):
        return [_map(v, f) for v in x]
    if isinstance(x, tuple):
        return tuple(_map(v, f) for v in x)
    if isinstance(x, dict):
        return {k: _map(v, f) for k, v in x.items()}
    return x


def _written(args, kwargs) -> list:
    """The tensors an in-place call writes: its first argument (a tensor or a
    list, as torch._foreach_add_ takes), given by position or by keyword
    (`init.kaiming_uniform_(tensor=w)`)."""
    if args:
        return _flat(args[0], [])
    return _flat(next(iter(kwargs.values())), []) if kwargs else []


def _in_place(func) -> bool:
    name = getattr(func, "__name__", "")
    return (name.endswith("_") and not name.endswith("__")) or name.startswith("__i") or name == "__setitem__"


class Replay:
    """The loss as a function of one leaf: the tape's dependent calls, in float64."""

    def __init__(self, tape: _Tape, leaf: torch.Tensor):
        self.leaf_id = id(leaf)
        dep = {id(leaf)}
        self.calls = []
        # Start after the previous backward and after the last in-place write to
        # the leaf (an optimizer's update): the leaf's value from there on is its value now.
        start = tape.segment_start
        for i, (func, args, kw, _res) in enumerate(tape.calls):
            if _in_place(func) and any(t is leaf for t in _written(args, kw)):
                start = max(start, i + 1)
        for func, args, kwargs, result in tape.calls[start:]:
            ins = _flat(args, []) + _flat(kwargs, [])
            if any(id(t) in dep for t in ins) and (_flat(result, []) or _in_place(func)):
                self.calls.append((func, args, kwargs, result))
                for t in _flat(result, []):
                    dep.add(id(t))
                if _in_place(func):
                    dep.update(id(t) for t in _written(args, kwargs))
        func, args, kwargs = tape.root
        self.outputs, self.seeds = _root_outputs(func, args, kwargs)
        if not any(id(t) in dep for t in self.outputs):
            raise CheckError("not_connected", "the checked loss does not depend on this leaf through torch calls")
        self._consts: dict[int, torch.Tensor] = {}

    def _const(self, t: torch.Tensor) -> torch.Tensor:
        c = self._consts.get(id(t))
        if c is None:
            c = t.detach()
            if c.is_floating_point():
                c = c.to(torch.float64)
            self._consts[id(t)] = c
        return c

    def __call__(self, value: torch.Tensor) -> float:
        env: dict[int, torch.Tensor] = {self.leaf_id: value}
        with torch.no_grad():
            for func, args, kwargs, result in self.calls:
                inplace = _in_place(func)
                first = _written(args, kwargs)[:1]

                def sub(t, _first=first, _inplace=inplace):
                    got = env.get(id(t))
                    if got is not None:
                        return got
                    c = self._const(t)
                    return c.clone() if _inplace and _first and t is _first[0] else c
                new = func(*_map(args, sub), **_map(kwargs, sub))
                for old, fresh in zip(_flat(result, []), _flat(new, [])):
                    env[id(old)] = fresh
                if inplace and first and isinstance(new, torch.Tensor):
                    env[id(first[0])] = new
            total = torch.zeros((), dtype=torch.float64)
            for out, seed in zip(self.outputs, self.seeds):
                o = env.get(id(out))
                if o is None:
                    o = self._const(out)
                total = total + (o.to(torch.float64) * (seed if seed is not None else 1.0)).sum()
        return float(total)


def _root_outputs(func, args, kwargs) -> tuple[list, list]:
    """The tensors the checked backward started from, and the gradients it seeded them with."""
    if func is torch.Tensor.backward:
        seed = kwargs.get("gradient", args[1] if len(args) > 1 else None)
        return [args[0]], [_seed(seed)]
    outs = kwargs.get("outputs" if func is torch.autograd.grad else "tensors", args[0] if args else None)
    seeds = kwargs.get("grad_outputs" if func is torch.autograd.grad else "grad_tensors",
                       args[2] if func is torch.autograd.grad and len(args) > 2 else
                       (args[1] if func is torch.autograd.backward and len(args) > 1 else None))
    outs = [outs] if isinstance(outs, torch.Tensor) else list(outs)
    seeds = [seeds] if isinstance(seeds, torch.Tensor) or seeds is None else list(seeds)
    seeds = (seeds + [None] * len(outs))[:len(outs)]
    return outs, [_seed(s) for s in seeds]


def _seed(s):
    return s.detach().to(torch.float64) if isinstance(s, torch.Tensor) else None


def find_leaf(namespace: dict, label: str) -> Optional[torch.Tensor]:
    """The tensor a trace label names in the script's namespace: a variable
    ("w"), a container item ("ps[0]", "d['k']") or a module parameter
    ("fc1.weight", "model.fc1.weight")."""
    val = namespace.get(label)
    if isinstance(val, torch.Tensor):
        return val
    for name, v in list(namespace.items()):
        if name.startswith("__"):
            continue
        if isinstance(v, (list, tuple)):
            for i, t in enumerate(v):
                if isinstance(t, torch.Tensor) and f"{name}[{i}]" == label:
                    return t
        elif isinstance(v, dict) and v is not namespace:
            for k, t in list(v.items()):
                if isinstance(t, torch.Tensor) and f"{name}[{k!r}]" == label:
                    return t
        elif isinstance(v, torch.nn.Module):
            for pname, p in v.named_parameters():
                if label in (pname, f"{name}.{pname}"):
                    return p
    return None


def rerun_tape(source: str, filename: str, target: int, rng_state: Optional[dict],
               device: str = "cpu", inputs: tuple = ()) -> tuple[_Tape, dict]:
    """Run the script again under the tape until its `target`-th backward call.

    As the recorded run did: a real `__main__` module (pickling the script's
    classes works) with `device` predefined, and input() answered with the
    lines the learner typed in that run (`inputs`, each ending in a newline),
    then end of input."""
    from autogradviz.engine.worker.main_module import MainModule

    code = compile(source, filename, "exec")
    main = MainModule(source, filename, device)
    namespace = main.namespace
    tape = _Tape(target)
    saved_rng = rng_snapshot()
    # what a script may switch for the whole process, put back as the runner does
    torch_state = (torch.is_grad_enabled(), torch.get_default_dtype(), torch.is_anomaly_enabled(), None)
    saved_out, saved_err = sys.stdout, sys.stderr
    saved_argv, saved_path, saved_stdin = sys.argv, list(sys.path), sys.stdin
    sys.stdout, sys.stderr = io.StringIO(), io.StringIO()
    sys.stdin = io.StringIO("".join(inputs))
    # as the recorded run had them (engine/worker/service.py: the file's name alone)
    sys.argv = [os.path.basename(filename) if os.path.isfile(filename) else filename]
    if os.path.isfile(filename):
        sys.path.insert(0, os.path.dirname(os.path.abspath(filename)))
    try:
        if rng_state is not None:
            rng_restore(rng_state)
        with main, tape:
            exec(code, namespace)
    except _Stop:
        pass
    except BaseException as exc:
        if isinstance(exc, KeyboardInterrupt):
            raise
        raise CheckError("rerun_failed", f"the script raised {type(exc).__name__}: {exc} when run again") from None
    finally:
        sys.stdout, sys.stderr = saved_out, saved_err
        sys.argv, sys.path[:] = saved_argv, saved_path
        sys.stdin = saved_stdin
        rng_restore(saved_rng)
        from autogradviz.engine.worker.runner import _restore_torch_state

        _restore_torch_state(torch_state)
    if tape.root is None:
        raise CheckError("backward_not_reached", "running the script again never reached that backward call")
    return tape, namespace


def rng_snapshot() -> dict:
    """The random states a script's initialisations draw from (torch CPU, Python, NumPy)."""
    import random

    state = {"torch": torch.get_rng_state(), "python": random.getstate()}
    try:
        import numpy

        state["numpy"] = numpy.random.get_state()
    except Exception:
        pass
    return state


def rng_restore(state: dict) -> None:
    import random

    torch.set_rng_state(state["torch"])
    random.setstate(state["python"])
    if "numpy" in state:
        import numpy

        numpy.random.set_state(state["numpy"])


def check(source: str, filename: str, run_index: int, label: str, rng_state: Optional[dict],
          max_elements: int = MAX_ELEMENTS, on_progress: Optional[Callable[[int, int], None]] = None,
          device: str = "cpu", inputs: tuple = ()) -> dict:
    """Finite differences of the checked loss with respect to the leaf `label`.

    Returns {"shape", "fd" (flattened, float64), "loss" (replayed at the leaf's
    value), "loss_recorded" (what the script computed), "step", "seconds"}.
    Raises CheckError for a check that cannot be made."""
    t0 = time.perf_counter()
    tape, namespace = rerun_tape(source, filename, run_index, rng_state, device=device, inputs=inputs)
    leaf = find_leaf(namespace, label)
    if leaf is None:
        raise CheckError("leaf_not_found", f"no tensor named {label!r} when the script was run again")
    n = leaf.numel()
    if n > max_elements:
        raise CheckError("too_many", f"{label} has {n:,} elements; finite differences are limited to {max_elements:,}")
    replay = Replay(tape, leaf)
    x0 = leaf.detach().to(torch.float64).clone()
    flat = x0.reshape(-1)
    fd = []
    # One thread: the replays are many small ops, for which torch's thread pool
    # only costs (measured: 110 ms -> 0.7 ms a replay of a small MLP on a busy 2-core machine).
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        loss = replay(x0)
        for i in range(n):
            h = STEP * max(1.0, abs(float(flat[i])))
            plus, minus = flat.clone(), flat.clone()
            plus[i] += h
            minus[i] -= h
            fd.append((replay(plus.reshape(x0.shape)) - replay(minus.reshape(x0.shape))) / (2 * h))
            if on_progress is not None and (i + 1) % 50 == 0:
                on_progress(i + 1, n)
    finally:
        torch.set_num_threads(threads)
    recorded = sum(float((o.detach().double() * (s if s is not None else 1.0)).sum())
                   for o, s in zip(replay.outputs, replay.seeds))
    return {"shape": list(leaf.shape), "fd": fd, "loss": loss, "loss_recorded": recorded, "step": STEP,
            "seconds": time.perf_counter() - t0}


def handle_request(req: dict, last_run: Any, source: Optional[str], filename: str,
                   rng_state: Optional[dict], on_progress=None, device: str = "cpu", inputs: tuple = ()) -> dict:
    """The `gradient_check` reply to a `check_gradient` request (docs/worker-protocol.md)."""
    reply: dict = {"type": "gradient_check", "id": req.get("id"), "leaf": req.get("leaf"), "run": req.get("run")}
    label, run_index = req.get("leaf"), req.get("run")
    try:
        if last_run is None or source is None:
            raise CheckError("no_run", "no run to check (the last run was dropped or none has finished)")
        if not isinstance(label, str) or not label:
            raise CheckError("no_label", "finite differences need a leaf with a name")
        if not isinstance(run_index, int) or run_index < 0:
            raise CheckError("bad_request", "check_gradient: 'run' must be a backward run's index")
        limit = req.get("max_elements", MAX_ELEMENTS)
        result = check(source, filename, run_index, label, rng_state,
                       max_elements=min(int(limit), MAX_ELEMENTS), on_progress=on_progress,
                       device=device, inputs=inputs)
        reply.update(result)
        grad_id = req.get("grad_tensor")
        if isinstance(grad_id, str):
            s = last_run.fetch(grad_id)
            reply["autograd"] = list(s.values) if s is not None else None
    except CheckError as exc:
        reply["error"] = exc.code
        reply["message"] = str(exc)
    except Exception as exc:  # a bug of ours: say so, keep the worker
        reply["error"] = "failed"
        reply["message"] = f"{type(exc).__name__}: {exc}"
    return reply
