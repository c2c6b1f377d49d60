"""Which line of the script made each autograd node (and each leaf tensor).

A `TorchFunctionMode` sees every torch call the script makes at the Python
level (operators, Tensor methods, torch.* and F.* functions; calls made
inside one of those - F.linear's own work, a layer norm's pieces - run with
the mode popped and are not seen again). Around each call it reads the
autograd sequence number (`_get_sequence_nr()`: the number the next node will
get) before and after; only when the call made nodes does it walk the Python
stack to the innermost frame of the script's own file - also inside the
script's functions, classes and module forwards - and remember "nodes with
sequence numbers [start, end) were made on line L". Calls that make no node
(the great majority inside a backward's hooks, .shape, printing) cost two
counter reads, so the forward pays about 1.5 us per torch call and the
backward nothing (the engine's C++ never calls Python torch functions; our
recorder's hooks run inside the handler of `Tensor.backward`, where the mode
is popped). After the script, `line_of(node)` is one bisect.

This is the same line torch's anomaly mode stores with a node's traceback
(the innermost frame of the script in `metadata["traceback_"]`), at a
fraction of its cost: anomaly mode formats the whole stack for every node.

Threads: torch function modes and sequence numbers are per thread, so the
mode enters each thread the script starts (threading's profile hook, handed
back at once) and keeps that thread's intervals apart; `line_of(node,
thread)` looks in the thread whose backward captured the node's graph.

Leaves: a tensor made with `requires_grad=True`, or turned into one with
`requires_grad_()` / `.requires_grad = True`, and every nn.Parameter
registered on a module (a global parameter-registration hook: the line is
the script's `nn.Linear(...)` or `self.fc = ...`), remember their line in a
weak, identity-keyed table; `leaf_line(tensor)` reads it.

Wrappers that probes put on Tensor methods (backward, retain_grad,
register_hook) would be entered twice through the mode (torch hands the mode
the patched method); the handler calls the innermost original instead
(probes/base.py `ORIGINALS`), so each wrapper runs once, as without us.
"""

from __future__ import annotations

import bisect
import functools
import linecache
import sys
import threading
from types import FrameType, FunctionType
from typing import Any, Optional

import torch
from torch.overrides import TorchFunctionMode
from torch.utils.weak import WeakIdKeyDictionary

_get_seq = torch._C._autograd._get_sequence_nr
_Tensor = torch.Tensor
_getframe = sys._getframe
_get_ident = threading.get_ident
# Ways to make a leaf that requires grad, apart from a factory's keyword.
_REQUIRES_GRAD_SETTERS = (_Tensor.requires_grad_, _Tensor.requires_grad.__set__)  # type: ignore[attr-defined]  # (a descriptor at run time)


_is_compiling = torch.compiler.is_compiling
_NoSubclassTF = torch._C.DisableTorchFunctionSubclass
_handle_torch_function_code = getattr(torch.overrides.handle_torch_function, "__code__", None)
# the module of torch.compile's CompiledFunction (an autograd.Function per compiled graph)
_AOT_RUNTIME = "torch._functorch._aot_autograd.runtime_wrappers"


def _template1(f, a, k): return f(*a)  # noqa: E704 (one line: every instruction on it)


def _template2(f, a, k): return f(*a, **k)  # noqa: E704


_TEMPLATES = (_template1.__code__, _template2.__code__)
# (caller's code, its instruction offset, kwargs given) -> trampoline
_trampolines: dict = {}
_TRAMPOLINE_CODES: set = set()
# Torch functions the mode is handed that only switch a thread-local flag:
# they make no node and warn about nothing, so the handler calls them at
# once (torch.no_grad() and torch.compile's runtime wrapper call them around
# every compiled call: four per training step).
_FLAG_SETTERS = frozenset(f for f in (getattr(torch._C, "_set_grad_enabled", None),
                                      getattr(torch._C, "_set_view_replay_enabled", None)) if f is not None)


def _direct(func, args, kwargs):
    return func(*args, **kwargs) if kwargs else func(*args)


def _trampoline_for(frame, kwargs):
    """The torch call goes through a trampoline that warnings take for the
    caller's frame: a warning torch raises inside the call (a C++ TORCH_WARN
    is attributed to the innermost Python frame, `warnings.warn(...,
    stacklevel=2)` in a torch function to the frame above it) names the
    script's file and line, counts in the script module's
    `__warningregistry__` and is filtered by its module name, as under
    python - not this handler. The trampoline is a one-line function whose
    code carries the caller's file name, line and name and runs in the
    caller's globals; one per call site (made once, cached)."""
    key = (frame.f_code, frame.f_lasti, not kwargs)
    tramp = _trampolines[key] = _make_trampoline(frame, bool(kwargs))
    return tramp


def _make_trampoline(frame, with_kwargs: bool):
    co = frame.f_code
    tpl = _TEMPLATES[1 if with_kwargs else 0]
    try:
        code = tpl.replace(co_filename=co.co_filename, co_firstlineno=frame.f_lineno or 1,
                           co_name=co.co_name, co_qualname=getattr(co, "co_qualname", co.co_name))  # type: ignore[call-arg]  # (3.11+; 3.10 below)
    except (TypeError, ValueError):  # (before 3.11: no co_qualname)
        code = tpl.replace(co_filename=co.co_filename, co_firstlineno=frame.f_lineno or 1, co_name=co.co_name)
    _TRAMPOLINE_CODES.add(code)
    return FunctionType(code, frame.f_globals)


def _drop_trampoline(exc: BaseException) -> None:
    """The trampoline's frame out of the traceback (the script's line would
    show twice): this handler's entry is first, then the trampoline's."""
    tb = exc.__traceback__
    if tb is None:
        return
    for _ in range(2):
        nxt = tb.tb_next if tb is not None else None
        if nxt is None:
            return
        if nxt.tb_frame.f_code in _TRAMPOLINE_CODES:
            tb.tb_next = nxt.tb_next
            return
        tb = nxt


class SourceLines(TorchFunctionMode):
    """The mode plus what it learned: node sequence intervals and leaf lines."""

    def __init__(self, filename: Optional[str], originals: Optional[dict] = None):
        super().__init__()
        self.filename = filename
        self.originals = originals if originals is not None else {}
        # parallel lists, sorted by start (sequence numbers only grow in a thread)
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.lines: list[int] = []
        self.leaves = WeakIdKeyDictionary()
        self._handle: Any = None  # torch's RemovableHandle once installed
        # Torch function modes and autograd sequence numbers are per thread:
        # the installing thread's intervals are the lists above, another
        # thread's are here (ident -> (starts, ends, lines)); the mode enters
        # the script's new threads through threading's profile hook.
        self.thread = _get_ident()
        self.by_thread: dict = {}
        self.noted = 0  # intervals noted so far, all threads
        self._saved_profile: Any = None
        self._optimizer_originals: Optional[tuple] = None  # (see _pause_optimizers)

    # -- install / remove ---------------------------------------------------
    def install(self) -> None:
        self.__enter__()
        self._saved_profile = threading.getprofile() if hasattr(threading, "getprofile") else None
        threading.setprofile(self._enter_in_thread)
        try:
            from torch.nn.modules.module import register_module_parameter_registration_hook
            self._handle = register_module_parameter_registration_hook(self._param_registered)
        except Exception:  # (older torch: parameters then get no line)
            self._handle = None
        self._pause_optimizers()

    def _pause_optimizers(self) -> None:
        """`Optimizer.zero_grad` and every optimizer's `step` (torch wraps each
        class's step through `Optimizer.profile_hook_step` when the first
        instance is made) run with this mode off the stack: they make no
        nodes (a step without a closure runs under no_grad), and the torch
        calls inside them (about 40 per training step: each parameter's
        .grad, add_, the profiler's record_function) would each go through
        the handler - most of what a compiled training loop paid for us. A
        step given a closure (LBFGS: forward and backward inside) keeps the
        mode, so its nodes get their lines. Warnings raised inside are then
        attributed by torch's own frames, as under python."""
        try:
            opt = torch.optim.Optimizer
            hook_step = opt.__dict__["profile_hook_step"].__func__
            zero_grad = opt.__dict__["zero_grad"]
        except Exception:  # (another torch: optimizers run through the mode)
            return
        paused = self.paused

        def profile_hook_step(func):
            step = hook_step(func)
            quiet = paused(step)

            @functools.wraps(step)
            def maybe_quiet(*args, **kwargs):
                if len(args) > 1 or kwargs.get("closure") is not None:
                    return step(*args, **kwargs)
                return quiet(*args, **kwargs)
            return maybe_quiet

        opt.profile_hook_step = staticmethod(profile_hook_step)  # type: ignore[method-assign]  # (patched while recording, restored in remove())
        opt.zero_grad = paused(zero_grad)  # type: ignore[method-assign]  # (patched while recording, restored in remove())
        self._optimizer_originals = (hook_step, zero_grad)

    def apply_wrapper(self, apply_func):
        """`torch.autograd.Function.apply`'s function, wrapped to note the
        line of the node it makes: a custom Function (or a reentrant
        checkpoint's CheckpointFunction) is not a torch call the mode sees.
        Only at the top level (the mode on top of this thread's stack): inside
        a torch call or a backward, the outer call notes the line."""
        _len, _at = torch._C._len_torch_function_stack, torch._C._get_function_stack_at
        _pop, _push = torch._C._pop_torch_function_stack, torch._C._push_on_torch_function_stack
        mode = self

        @functools.wraps(apply_func)
        def apply(cls, *args, **kwargs):
            if _is_compiling():  # (Dynamo traces it: a plain call)
                return apply_func(cls, *args, **kwargs)
            n = _len()
            if not n or _at(n - 1) is not mode:
                return apply_func(cls, *args, **kwargs)
            s0, noted = _get_seq(), mode.noted
            if cls.__module__ == _AOT_RUNTIME:
                # torch.compile's CompiledFunction: its forward runs the
                # compiled graph (nothing of the script's; its runtime's
                # torch calls made in there need no handler); the node it
                # makes gets this call's line below
                _pop()
                try:
                    out = apply_func(cls, *args, **kwargs)
                finally:
                    _push(mode)
            else:
                out = apply_func(cls, *args, **kwargs)
            # (a forward that made nodes of its own noted them: the intervals
            # stay disjoint and sorted, the Function's node gets none)
            if _get_seq() != s0 and mode.noted == noted:
                mode._note(s0, _get_seq(), _getframe())
            return out
        return apply

    def _enter_in_thread(self, frame, event, arg):
        """threading's profile hook: the first event of a new thread puts the
        mode on that thread's stack and hands back the script's own hook."""
        sys.setprofile(self._saved_profile)
        try:
            torch._C._push_on_torch_function_stack(self)
        except Exception:  # (another torch: that thread's nodes get no line)
            pass

    def remove(self) -> None:
        if self._optimizer_originals is not None:
            hook_step, zero_grad = self._optimizer_originals
            torch.optim.Optimizer.profile_hook_step = staticmethod(hook_step)  # type: ignore[method-assign]  # (patched while recording, restored in remove())
            torch.optim.Optimizer.zero_grad = zero_grad  # type: ignore[method-assign]  # (patched while recording, restored in remove())
            self._optimizer_originals = None
        if threading._profile_hook == self._enter_in_thread:
            threading.setprofile(self._saved_profile)
        if self._handle is not None:
            self._handle.remove()
            self._handle = None
        self.__exit__(None, None, None)
        _trampolines.clear()  # (they hold the script's code and globals)

    def paused(self, fn):
        """`fn` wrapped to run with this mode off the stack (when it is on top):
        the recorder's work inside a backward call (capture, hooks on every
        node) then pays nothing for us; nodes made inside a backward get no
        line either way."""
        _len, _at = torch._C._len_torch_function_stack, torch._C._get_function_stack_at
        _pop, _push = torch._C._pop_torch_function_stack, torch._C._push_on_torch_function_stack

        @functools.wraps(fn)
        def call(*args, **kwargs):
            if _is_compiling():  # (Dynamo traces it: a plain call)
                return fn(*args, **kwargs)
            n = _len()
            if not n or _at(n - 1) is not self:
                return fn(*args, **kwargs)
            _pop()
            try:
                return fn(*args, **kwargs)
            finally:
                _push(self)
        return call

    # -- the mode ---------------------------------------------------------------
    def __torch_function__(self, func, types, args=(), kwargs=None):
        if _is_compiling() or func in _FLAG_SETTERS:
            # Dynamo traces this handler: it sees a plain call and puts
            # nothing of ours in the graph (no graph break, no warning);
            # a flag setter: nothing to note (see _FLAG_SETTERS)
            return func(*args, **kwargs) if kwargs else func(*args)
        orig = self.originals.get(func)
        while orig is not None:  # a probe's wrapper: it already ran once
            func = orig
            orig = self.originals.get(func)
        s0 = _get_seq()
        # the call from the caller's trampoline (see _trampoline_for)
        f = _getframe(1)
        if f.f_code is _handle_torch_function_code:
            f = f.f_back.f_back
        tramp = _trampolines.get((f.f_code, f.f_lasti, not kwargs)) if f is not None else _direct
        if tramp is None:
            tramp = _trampoline_for(f, kwargs)
        try:
            out = tramp(func, args, kwargs)
        except BaseException as e:
            _drop_trampoline(e)
            raise
        s1 = _get_seq()
        if s1 != s0:
            self._note(s0, s1, f)
        elif kwargs and kwargs.get("requires_grad") is True and isinstance(out, _Tensor):
            self._leaf(out)
        elif func in _REQUIRES_GRAD_SETTERS and args and isinstance(args[0], _Tensor):
            self._leaf(args[0])
        return out

    def _note(self, s0: int, s1: int, f: Optional[FrameType]) -> None:
        """Nodes with sequence numbers [s0, s1) were made by the script's
        current line: that of the innermost frame of the script's file from
        `f` (the torch call's caller) out."""
        fn = self.filename
        while f is not None and f.f_code.co_filename != fn:
            f = f.f_back
        line = f.f_lineno if f is not None else None
        if line is not None:
            self.noted += 1
            ident = _get_ident()
            if ident == self.thread:
                self.starts.append(s0)
                self.ends.append(s1)
                self.lines.append(line)
            else:
                lists: Optional[tuple[list, list, list]] = self.by_thread.get(ident)
                if lists is None:
                    lists = self.by_thread[ident] = ([], [], [])
                lists[0].append(s0)
                lists[1].append(s1)
                lists[2].append(line)

    def _script_line(self) -> Optional[int]:
        fn = self.filename
        f: Optional[FrameType] = _getframe(2)
        while f is not None:
            if f.f_code.co_filename == fn:
                return f.f_lineno
            f = f.f_back
        return None

    def _leaf(self, t) -> None:
        try:
            with _NoSubclassTF():  # (a Tensor subclass that logs its calls sees none of ours)
                new = t.requires_grad and t.grad_fn is None and t not in self.leaves
            if new:
                line = self._script_line()
                if line is not None:
                    self.leaves[t] = line
        except Exception:
            pass

    def _param_registered(self, module, name, param):
        if param is not None:
            self._leaf(param)
        return None

    # -- queries (after the script) ------------------------------------------------
    def line_of(self, node, thread: Optional[int] = None) -> Optional[int]:
        """The script line that made autograd Node `node` in thread `thread`
        (an ident; None: the installing thread), or None."""
        try:
            seq = node._sequence_nr()
        except Exception:
            return None
        if thread is None or thread == self.thread:
            starts, ends, lines = self.starts, self.ends, self.lines
        else:
            starts, ends, lines = self.by_thread.get(thread, ((), (), ()))
        i = bisect.bisect_right(starts, seq) - 1
        if i >= 0 and seq < ends[i]:
            return lines[i]
        return None

    def leaf_line(self, tensor) -> Optional[int]:
        try:
            return self.leaves.get(tensor)
        except Exception:
            return None

    def code(self, line: Optional[int]) -> Optional[str]:
        """Line `line`'s text, stripped (the runner put the source in linecache)."""
        if line is None or not self.filename:
            return None
        text = linecache.getline(self.filename, line).strip()
        return text or None
