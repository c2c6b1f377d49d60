"""Which nn.Module's forward produced each autograd node.

Global module forward (pre-)hooks record, for every module call, the autograd
sequence number at entry and at exit (`torch._C._autograd._get_sequence_nr()`
is the number the next created node will get). Every node created while a
module's forward runs has a sequence number inside that interval, and calls
nest, so a flat, sorted list of "from sequence number S on, the innermost
running module is P" answers `module_of(node)` with one bisect - O(1) per
module call while the script runs, no graph walks.

AccumulateGrad nodes (leaves) have no meaningful sequence number; a parameter
leaf gets its module from its name (`fc1.weight` -> `fc1`), see capture.py.

Module paths: the name the script gives the root module (its variable in
the namespace, `name[i]` / `name['k']` inside a container) followed by the
`named_modules()` path below it, dot-separated: `model` for the root itself,
`model.encoder.layers.0.linear1` for a submodule, always (one root module or
several), so a path's dotted prefixes are exactly its enclosing modules.
Parameters and buffers are named the same way (`model.fc1.weight`; `fc1.weight`
for `fc1 = nn.Linear(...)` at module level). A module nobody holds gets its
parent's path + attribute name, or, at the top, the variable name in the
calling frame, or its class name.
"""

from __future__ import annotations

import bisect
import sys
from types import FrameType
from typing import Callable, Optional

import torch
from torch.nn.modules import module as _nn_module

_get_seq = torch._C._autograd._get_sequence_nr
_is_compiling = torch.compiler.is_compiling


def namespace_module_paths(namespace: dict) -> tuple[dict[int, str], dict[int, str], list]:  # noqa: C901 - over the cap before it was set; to be split (issue 22)
    """(id(module) -> path, id(param or buffer) -> qualified name, keep-alive list)
    for every nn.Module reachable from the namespace (one level into containers)."""
    roots: list[tuple[str, torch.nn.Module]] = []
    for name, val in list(namespace.items()):
        if name.startswith("__"):
            continue
        if isinstance(val, torch.nn.Module):
            roots.append((name, val))
        elif isinstance(val, (list, tuple)):
            for i, v in enumerate(val[:1000]):
                if isinstance(v, torch.nn.Module):
                    roots.append((f"{name}[{i}]", v))
        elif isinstance(val, dict):
            if val is namespace:
                continue
            try:
                items = list(val.items())[:1000]
            except Exception:
                continue
            for k, v in items:
                if isinstance(v, torch.nn.Module):
                    roots.append((f"{name}[{k!r}]", v))
    # A root that is a submodule of another root is not a root.
    sub_ids: set[int] = set()
    for _, m in roots:
        # torch.compile(model) wraps `model` (as `_orig_mod`): the script's
        # own name for it stays its root (`model.0.weight`)
        wrapped = getattr(m, "_orig_mod", None) if type(m).__name__ == "OptimizedModule" else None
        try:
            for _, sm in m.named_modules():
                if sm is not m and (wrapped is None or not any(sm is r for _, r in roots)):
                    sub_ids.add(id(sm))
        except Exception:
            pass
    top = []
    seen: set[int] = set()
    for name, m in roots:
        if id(m) in sub_ids or id(m) in seen:
            continue
        seen.add(id(m))
        top.append((name, m))
    mod_paths: dict[int, str] = {}
    param_names: dict[int, str] = {}
    keep: list = []
    for name, m in top:
        try:
            for sub_name, sm in m.named_modules():
                mod_paths.setdefault(id(sm), f"{name}.{sub_name}" if sub_name else name)
                keep.append(sm)
            for pname, p in list(m.named_parameters()) + list(m.named_buffers()):
                param_names.setdefault(id(p), f"{name}.{pname}")
                keep.append(p)
        except Exception:
            pass
    return mod_paths, param_names, keep


# Ids of the global module hooks the recorder registered (ModuleTracker,
# module_table.ModuleTable): torch.compile(module) warns when global module
# hooks exist ("...fire an extra time for the OptimizedModule"); ours must
# not count (the script's own still do), as under python.
_OWN_HOOK_IDS: set = set()
_saved_has_any_global_hook = None


_HOOK_DICTS = ("_global_backward_pre_hooks", "_global_backward_hooks", "_global_forward_pre_hooks",
               "_global_forward_hooks", "_global_forward_hooks_always_called",
               "_global_forward_hooks_with_kwargs")


def _has_any_global_hook() -> bool:
    """torch's `_has_any_global_hook`, without the recorder's hooks (asked
    at every call of a compiled module: plain loops, no generator)."""
    m = _nn_module
    for name in _HOOK_DICTS:
        d = getattr(m, name, None)
        if d:
            for k in d:
                if k not in _OWN_HOOK_IDS:
                    return True
    return False


def own_global_hook(handle) -> None:
    """Count the global module hook behind `handle` as ours (see above);
    `release_global_hook` when it is removed."""
    global _saved_has_any_global_hook
    if _saved_has_any_global_hook is None and hasattr(_nn_module, "_has_any_global_hook"):
        _saved_has_any_global_hook = _nn_module._has_any_global_hook
        _nn_module._has_any_global_hook = _has_any_global_hook
    _OWN_HOOK_IDS.add(handle.id)


def release_global_hook(handle) -> None:
    global _saved_has_any_global_hook
    _OWN_HOOK_IDS.discard(handle.id)
    if not _OWN_HOOK_IDS and _saved_has_any_global_hook is not None:
        _nn_module._has_any_global_hook = _saved_has_any_global_hook
        _saved_has_any_global_hook = None


class ModuleTracker:
    """Installs global module hooks; answers module_of(node) afterwards."""

    def __init__(self, namespace_getter: Callable[[], dict], user_filename: Optional[str] = None,
                 on_output: Optional[Callable] = None):
        self._ns = namespace_getter
        self._filename = user_filename
        # called with each module call's output (capture shows it on its node)
        self._on_output = on_output
        self._handles: list = []
        # sorted by sequence number: (seq, path, class name)
        self._seqs: list[int] = []
        self._marks: list[tuple[Optional[str], Optional[str], Optional[int]]] = []
        # (module, path, class name, call number, the exception being handled
        # when the call began: sys.exc_info()[1])
        self._stack: list[tuple[torch.nn.Module, str, str, int, Optional[BaseException]]] = []
        # called with (module, path, output) after each forward that returned
        # (the layer table, module_table.py: one global hook fewer to call)
        self.after_call: Optional[Callable] = None
        self._calls = 0  # module forward calls so far (Node.module_call)
        self._ns_key: Optional[tuple] = None
        self._paths: dict[int, str] = {}
        self._keep: list = []

    # -- install / remove ----------------------------------------------------
    def install(self) -> None:
        self._handles.append(_nn_module.register_module_forward_pre_hook(self._pre))
        self._handles.append(_nn_module.register_module_forward_hook(self._post, always_call=True))
        for h in self._handles:
            own_global_hook(h)

    def remove(self) -> None:
        for h in self._handles:
            release_global_hook(h)
            try:
                h.remove()
            except Exception:
                pass
        self._handles.clear()

    # -- hooks ---------------------------------------------------------------
    def _path_of(self, module) -> str:
        p = self._paths.get(id(module))
        if p is not None:
            return p
        try:
            ns = self._ns()
            # Rebuild the namespace's module map only when the namespace's
            # modules/containers changed (a module made anew in every
            # forward would otherwise rebuild it at every call).
            key = tuple((k, id(v)) for k, v in ns.items()
                        if isinstance(v, (torch.nn.Module, list, tuple, dict)) and not k.startswith("__"))
            if key != self._ns_key:
                self._ns_key = key
                paths, _, keep = namespace_module_paths(ns)
                self._paths.update(paths)
                self._keep.extend(keep)
        except Exception:
            pass
        p = self._paths.get(id(module))
        if p is not None:
            return p
        self._keep.append(module)
        if self._stack:
            parent, ppath = self._stack[-1][0], self._stack[-1][1]
            try:
                for cname, child in parent._modules.items():
                    if child is module:
                        self._paths[id(module)] = p = f"{ppath}.{cname}"
                        return p
            except Exception:
                pass
        # A module nobody holds at module level: a local variable of the caller?
        try:
            f: Optional[FrameType] = sys._getframe(2)
            depth = 0
            while f is not None and depth < 30:
                if self._filename is None or f.f_code.co_filename == self._filename:
                    for k, v in f.f_locals.items():
                        if v is module:
                            self._paths[id(module)] = k
                            self._keep.append(module)
                            return k
                f = f.f_back
                depth += 1
        except Exception:
            pass
        p = type(module).__name__
        self._paths[id(module)] = p
        return p

    def _pre(self, module, args):
        if _is_compiling():  # Dynamo traces this hook: nothing of ours in its graph
            return None
        try:
            path = self._path_of(module)
            cls = type(module).__name__
            self._calls += 1
            self._stack.append((module, path, cls, self._calls, sys.exc_info()[1]))
            self._mark(path, cls, self._calls)
        except Exception:
            pass
        return None

    def path_of(self, module) -> str:
        """The module's path (known from its pre-hook on; see the module docstring)."""
        p = self._paths.get(id(module))
        return p if p is not None else self._path_of(module)

    @property
    def calls(self) -> int:
        """Module forward calls so far."""
        return self._calls

    def _post(self, module, args, output):
        if _is_compiling():
            return None
        if self._on_output is not None:
            self._on_output(output)
        try:
            stack = self._stack
            entry = None
            if stack and stack[-1][0] is module:
                entry = stack.pop()
            elif any(e[0] is module for e in stack):
                while stack and stack[-1][0] is not module:
                    stack.pop()
                if stack:
                    entry = stack.pop()
            if self.after_call is not None:
                self._after(module, entry, output)
            if stack:
                _, path, cls, call, _ = stack[-1]
                self._mark(path, cls, call)
            else:
                self._mark(None, None, None)
        except Exception:
            pass
        return None

    def _after(self, module, entry, output) -> None:
        """`after_call` for a forward that returned. This hook is also called
        (always_call) when the forward raised, from torch's handler of that
        exception: sys.exc_info() then names an exception other than the
        one being handled when the call began (None mostly)."""
        after = self.after_call
        if after is None:
            return
        if entry is None:
            if sys.exc_info()[1] is None:
                after(module, self.path_of(module), output)
        elif sys.exc_info()[1] is entry[4]:
            after(module, entry[1], output)

    def _mark(self, path, cls, call) -> None:
        seq = _get_seq()
        if self._seqs and self._seqs[-1] == seq:
            self._marks[-1] = (path, cls, call)
        else:
            self._seqs.append(seq)
            self._marks.append((path, cls, call))

    # -- queries -------------------------------------------------------------
    def module_of(self, node) -> tuple[Optional[str], Optional[str], Optional[int]]:
        """(module path, class name, call number) of the innermost module
        whose forward was running when `node` was created."""
        try:
            seq = node._sequence_nr()
        except Exception:
            return None, None, None
        i = bisect.bisect_right(self._seqs, seq) - 1
        if i < 0:
            return None, None, None
        return self._marks[i]
