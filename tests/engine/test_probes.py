"""The probe extension point: one registration line adds a probe; the runner
installs it before the script, removes it after (whatever the script does),
then lets it contribute to the trace; removal leaves torch exactly as it was.

The dummy probe (probe_plugins/dummy_probe.py) wraps
torch.utils.checkpoint.checkpoint as the checkpoint recorder will. Expected
values come from torch, computed in the test without the app.
"""

from __future__ import annotations

import os
import pathlib

import pytest
import torch
import torch.utils.checkpoint
from torch.autograd.function import _HookMixin
from torch.nn.modules import module as nn_module

from autogradviz.engine.probes import registry
from autogradviz.engine.probes.base import Patches, Probe
from autogradviz.engine.protocol.client import WorkerClient
from autogradviz.engine.worker.runner import run_script

PLUGINS = pathlib.Path(__file__).parent / "probe_plugins"
FILENAME = "/virtual/probed.py"

SCRIPT = """\
import torch
from torch.utils.checkpoint import checkpoint
x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
y = checkpoint(torch.sin, x, use_reentrant=False)
seen = []
def hook(g):
    seen.append(checkpoint(torch.cos, g, use_reentrant=False))
    return g
z = y * 2
z.register_hook(hook)
z.sum().backward()
w = checkpoint(torch.exp, x, use_reentrant=False)
"""


@pytest.fixture
def dummy(monkeypatch):
    monkeypatch.syspath_prepend(str(PLUGINS))
    import dummy_probe

    dummy_probe.INSTANCES.clear()
    registry.register("dummy", "dummy_probe:DummyProbe")  # the one registration line
    yield dummy_probe
    registry.unregister("dummy")


def _note(trace, code):
    ks = [i for i, n in enumerate(trace.note_codes) if n.code == code]
    assert len(ks) == 1, trace.note_codes
    return trace.notes[ks[0]], trace.note_codes[ks[0]].params


def test_a_registered_probe_is_installed_removed_and_contributes(dummy):
    original = torch.utils.checkpoint.checkpoint
    r = run_script(SCRIPT, filename=FILENAME)
    tr = r.trace
    assert tr.error is None, tr.error
    (probe,) = dummy.INSTANCES
    assert probe.log == ["install", "remove", "contribute"]
    assert probe.script_ran_before_install is False and probe.script_ran_before_remove is True
    assert torch.utils.checkpoint.checkpoint is original and probe.restored
    # the script saw plain torch results
    ref: dict = {"__name__": "__main__"}
    exec(compile(SCRIPT, "<plain>", "exec"), ref)
    assert r.namespace["x"].grad.tolist() == ref["x"].grad.tolist()
    assert r.namespace["seen"][0].tolist() == ref["seen"][0].tolist()
    assert r.namespace["w"].tolist() == ref["w"].tolist()
    # where each call happened: before any backward, inside run 0 at the
    # step the hook ran before, after the backward
    run = tr.backward_runs[0]
    hook_step = next(e.step for e in run.events if e.kind == "tensor_hook")
    assert probe.positions == [(0, None, None), (1, 0, hook_step), (1, None, None)]
    # its trace field
    text, params = _note(tr, "dummy_probe")
    assert text == "dummy probe: 3 checkpoint call(s)"
    assert params["log"] == ["install", "remove", "contribute"]
    assert params["restored"] is True


def test_without_the_registration_line_there_is_no_dummy(monkeypatch):
    monkeypatch.syspath_prepend(str(PLUGINS))
    import dummy_probe

    dummy_probe.INSTANCES.clear()
    tr = run_script(SCRIPT, filename=FILENAME).trace
    assert tr.error is None
    assert dummy_probe.INSTANCES == [] and "dummy_probe" not in [n.code for n in tr.note_codes]


@pytest.mark.parametrize("tail,error", [
    ("", None),
    ("raise ValueError('mine')\n", "ValueError"),
    ("import sys\nsys.exit(3)\n", "SystemExit"),
    ("def bad(g):\n    raise RuntimeError('in hook')\nq = x.exp()\nq.register_hook(bad)\nq.sum().backward()\n",
     "RuntimeError"),
    ("raise KeyboardInterrupt\n", "KeyboardInterrupt"),
])
def test_removal_restores_torch_exactly(dummy, tail, error):
    run_script(SCRIPT, filename=FILENAME)  # lazy imports inside torch happen now
    before = _torch_state()
    r = run_script(SCRIPT + tail, filename=FILENAME)
    assert (r.trace.error.type if r.trace.error else None) == error
    assert _torch_state() == before
    (_, probe) = dummy.INSTANCES
    assert probe.log == ["install", "remove", "contribute"]
    # and torch works as plain torch afterwards: no recording of ours
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    calls = []
    a.register_hook(lambda g: calls.append(g.tolist()))
    (a * 3).sum().backward()
    assert a.grad.tolist() == [3.0, 3.0] and calls == [[3.0, 3.0]]
    assert r.trace.backward_runs[0].graph  # (the run itself was recorded)


def _torch_state():
    """Every attribute of what the probes patch, by identity, and the global
    module hooks."""
    owners = [torch.Tensor, torch.autograd, torch.autograd.graph.saved_tensors_hooks, _HookMixin,
              torch.utils.checkpoint]
    attrs = {(repr(o), k): id(v) for o in owners for k, v in list(vars(o).items())}
    hooks = (tuple(nn_module._global_forward_pre_hooks), tuple(nn_module._global_forward_hooks),
             tuple(nn_module._global_forward_hooks_always_called))
    return attrs, hooks


class _Logged(Probe):
    log: list = []

    def install(self, ctx):
        super().install(ctx)
        self.log.append(("install", self.name))

    def remove(self):
        self.log.append(("remove", self.name))
        super().remove()


class _Late(_Logged):
    name, order = "late", 5


class _Early(_Logged):
    name, order = "early", -1


def test_order_lower_installs_first_and_is_removed_last():
    _Logged.log = []
    registry.register("late", _Late)
    registry.register("early", _Early)
    try:
        assert run_script("x = 1\n", filename=FILENAME).trace.error is None
        # registered last, "early" (order -1) comes before the core probes
        # (order 0) and "late" (5) after them
        names = [n for n, _ in registry.create()]
    finally:
        registry.unregister("late")
        registry.unregister("early")
    assert _Logged.log == [("install", "early"), ("install", "late"), ("remove", "late"), ("remove", "early")]
    core = [names.index(n) for n in ("modules", "backward", "node_hooks", "tensor_hooks")]
    assert names[0] == "early" and names.index("late") > max(core)
    # feature probes (default FEATURE_ORDER) come after both
    assert names.index("grad_scaler") > names.index("late")


class _Broken(Probe):
    name = "broken"

    def install(self, ctx):
        super().install(ctx)
        self.patches.set(torch.autograd, "grad", lambda *a, **k: 1 / 0)
        raise RuntimeError("boom")


class _BadContribution(Probe):
    name = "bad_contribution"

    def contribute(self, trace):
        raise KeyError("field")


def test_a_failing_probe_is_undone_at_once_and_noted():
    original = torch.autograd.grad
    registry.register("broken", _Broken)
    registry.register("bad_contribution", _BadContribution)
    try:
        r = run_script("import torch\nx = torch.tensor([3.0], requires_grad=True)\n"
                       "g, = torch.autograd.grad((x * x).sum(), x)\n", filename=FILENAME)
    finally:
        registry.unregister("broken")
        registry.unregister("bad_contribution")
    assert r.trace.error is None, r.trace.error
    assert r.namespace["g"].tolist() == [6.0]  # the broken patch was not active during the script
    assert torch.autograd.grad is original
    internal = [n.params for n in r.trace.note_codes if n.code == "internal_error"]
    assert internal == [{"stage": "broken.install", "error": "RuntimeError: boom"},
                        {"stage": "bad_contribution.contribute", "error": "KeyError: 'field'"}]
    assert all(t.startswith("internal: ") for t in r.trace.notes if "boom" in t or "field" in t)
    assert len(r.trace.backward_runs) == 1  # the others still recorded


class _Owner:
    @staticmethod
    def s(a):
        return a + 1

    @classmethod
    def c(cls, a):
        return a + 2


class _Child(_Owner):
    pass


def test_patches_restore_descriptors_and_inherited_attributes():
    raw_s, raw_c = vars(_Owner)["s"], vars(_Owner)["c"]
    p = Patches()
    got = p.wrap(_Owner, "s", lambda orig: (lambda a: orig(a) * 10))
    assert got(1) == 2
    p.wrap(_Owner, "c", lambda orig: (lambda cls, a: orig(a) * 10))
    p.wrap(_Child, "s", lambda orig: (lambda a: orig(a) + 100))  # inherited: the patched one
    assert (_Owner.s(1), _Owner().s(1), _Owner.c(1), _Child.s(1)) == (20, 20, 30, 120)
    assert p.restore() == []
    assert vars(_Owner)["s"] is raw_s and vars(_Owner)["c"] is raw_c
    assert "s" not in vars(_Child) and _Child.s(1) == 2 and len(p) == 0


def test_a_probe_in_the_real_worker_process(tmp_path):
    # In the worker, the same one line runs at interpreter start-up.
    (tmp_path / "sitecustomize.py").write_text(
        "from autogradviz.engine.probes import registry\n"
        "registry.register('dummy', 'dummy_probe:DummyProbe')\n")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(tmp_path), str(PLUGINS)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    with WorkerClient(env=env) as client:
        client.start()
        out = client.run(SCRIPT, filename=FILENAME, timeout=120)
        again = client.run(SCRIPT + "raise ValueError('x')\n", filename=FILENAME, timeout=120)
    assert out.status == "ok", out.message
    text, params = _note(out.trace, "dummy_probe")
    assert text == "dummy probe: 3 checkpoint call(s)"
    hook_step = next(e.step for e in out.trace.backward_runs[0].events if e.kind == "tensor_hook")
    assert params == {"calls": 3, "log": ["install", "remove", "contribute"], "positions": [[0, None, None], [1, 0, hook_step],
                                                                  [1, None, None]],
                      "restored": True, "script_ran_before_install": False,
                      "script_ran_before_remove": True}
    # a fresh probe for every run, removed also when the script raised
    assert again.trace.error.type == "ValueError"
    assert _note(again.trace, "dummy_probe")[1]["log"] == ["install", "remove", "contribute"]
    assert _note(again.trace, "dummy_probe")[1]["restored"] is True
