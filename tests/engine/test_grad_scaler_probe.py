"""The GradScaler probe against an independent record made inside the test.

The reference wraps the *instance* methods of each GradScaler and optimizer the
script makes (the probe wraps the class), reads the stage with `.get`, the scale
with `get_scale()` and sees whether `optimizer.step()` ran; it runs the script
without the probe. The probe's `scaler_events` must equal it call by call, torch's
messages must be reproduced exactly, and training must end with the same
parameters as a plain run.
"""

from __future__ import annotations

import textwrap

import pytest
import torch

from autogradviz.engine.probes.grad_scaler import GradScalerProbe

FILENAME = "/virtual/scaler_script.py"

LOOP = textwrap.dedent("""
    import torch
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 16, growth_interval=2)
    x = torch.randn(4, 3)
    for it in range(6):
        opt.zero_grad()
        with torch.autocast("cpu", dtype=torch.bfloat16):
            loss = model(x).float().pow(2).mean()
        if it == 1:
            loss = loss * float("inf")          # an overflow: the step is skipped
        scaler.scale(loss).backward()
        if it == 3:
            scaler.unscale_(opt)                # explicit, before clipping
            torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        scaler.step(opt)
        scaler.update()
""")

WRONG_ORDERS = textwrap.dedent("""
    import torch
    torch.manual_seed(0)
    a = torch.nn.Linear(2, 1)
    b = torch.nn.Linear(2, 1)
    oa = torch.optim.SGD(a.parameters(), lr=0.1)
    ob = torch.optim.SGD(b.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    x = torch.randn(3, 2)
    def attempt(f):
        try:
            f()
        except (RuntimeError, AssertionError) as e:
            print(type(e).__name__, e)
    scaler.scale(a(x).sum() + b(x).sum()).backward()
    scaler.unscale_(oa)
    attempt(lambda: scaler.unscale_(oa))        # unscale_ twice
    scaler.step(oa)
    attempt(lambda: scaler.unscale_(oa))        # unscale_ after step
    attempt(lambda: scaler.step(oa))            # step twice
    scaler.step(ob)                             # ob: READY -> STEPPED, unscales itself
    scaler.update()
    attempt(lambda: scaler.update())            # update with no step
    oa.zero_grad(); ob.zero_grad()
    attempt(lambda: scaler.step(oa))            # step with no gradients
""")


def _exec(source: str) -> dict:
    ns = {"__name__": "__main__"}
    exec(compile(source, FILENAME, "exec"), ns)
    return ns


def with_probe(source: str):
    probe = GradScalerProbe(FILENAME)
    probe.install()
    try:
        ns = _exec(source)
    finally:
        probe.remove()
    return probe.events, ns


def reference(source: str):
    """Run `source` with instance-level wrappers of the test's own (no probe)."""
    from torch.amp.grad_scaler import GradScaler

    record: list[dict] = []
    names: dict[int, str] = {}
    depth = [0]  # calls GradScaler makes inside another call belong to that call
    original_init = GradScaler.__init__

    def name_of(opt):
        return names.setdefault(id(opt), f"o{len(names) + 1}")

    def stage(scaler, opt):
        st = scaler._per_optimizer_states.get(id(opt))
        return "READY" if st is None else st["stage"].name

    def instrument(scaler):
        for call in ("scale", "unscale_", "step", "update"):
            bound = getattr(scaler, call)

            def wrapped(*args, _bound=bound, _call=call, **kwargs):
                if depth[0]:
                    return _bound(*args, **kwargs)
                opt = args[0] if _call in ("unscale_", "step") else None
                entry = {"call": _call, "optimizer": name_of(opt) if opt is not None else None,
                         "stage_before": stage(scaler, opt) if opt is not None else None,
                         "scale_before": scaler.get_scale(), "error": None, "skipped": None}
                ran = []
                if _call == "step":
                    inner = opt.step
                    opt.step = lambda *a, **k: (ran.append(1), inner(*a, **k))[1]
                depth[0] += 1
                try:
                    return _bound(*args, **kwargs)
                except Exception as exc:
                    entry["error"] = (type(exc).__name__, str(exc))
                    raise
                finally:
                    depth[0] -= 1
                    if _call == "step":
                        del opt.step
                        if entry["error"] is None:
                            entry["skipped"] = not ran
                    entry["scale_after"] = scaler.get_scale()
                    entry["stage_after"] = stage(scaler, opt) if opt is not None else None
                    record.append(entry)

            setattr(scaler, call, wrapped)

    def init(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        instrument(self)

    GradScaler.__init__ = init
    try:
        ns = _exec(source)
    finally:
        GradScaler.__init__ = original_init
    return record, ns


def _as_reference(events) -> list[dict]:
    return [{"call": e.call, "optimizer": e.optimizer, "stage_before": e.stage_before,
             "stage_after": e.stage_after, "scale_before": e.scale_before, "scale_after": e.scale_after,
             "skipped": e.skipped,
             "error": None if e.error is None else (e.error.type, e.error.message)} for e in events]


def test_training_loop_matches_an_independent_record_and_plain_python():
    events, ns = with_probe(LOOP)
    ref, ref_ns = reference(LOOP)
    assert _as_reference(events) == ref
    # an overflow at iteration 1: skipped, then backoff; growth after 2 clean iterations
    steps = [e for e in events if e.call == "step"]
    assert [e.skipped for e in steps] == [False, True, False, False, False, False]
    updates = [e for e in events if e.call == "update"]
    assert updates[1].scale_after == updates[1].scale_before / 2
    assert any(u.scale_after == 2 * u.scale_before for u in updates)
    assert [e.iteration for e in updates] == list(range(6))
    # step() unscaled itself except where the script called unscale_ first
    assert [e.implicit_unscale for e in steps] == [True, True, True, False, True, True]
    # the script is unchanged: same parameters as without any recording
    for name, p in ns["model"].named_parameters():
        assert torch.equal(p, dict(ref_ns["model"].named_parameters())[name])
    plain = _exec(LOOP)
    for name, p in plain["model"].named_parameters():
        assert torch.equal(p, dict(ns["model"].named_parameters())[name])
    assert ns["scaler"].get_scale() == plain["scaler"].get_scale()


def test_gradient_norms_are_torchs():
    events, ns = with_probe(LOOP)
    explicit = [e for e in events if e.call == "unscale_"][0]
    # recompute independently: the same script stopped right before that unscale_
    src = LOOP.replace("        scaler.unscale_(opt)", "        break")
    assert src != LOOP
    ref = _exec(src)
    grads = [p.grad.double() for p in ref["model"].parameters()]
    scaled = torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(g) for g in grads]))
    assert explicit.grad_norm_scaled == pytest.approx(float(scaled), rel=1e-12)
    inv = 1.0 / ref["scaler"].get_scale()
    assert explicit.grad_norm_unscaled == pytest.approx(float(scaled) * inv, rel=1e-6)


def test_wrong_orders_reproduce_torchs_exact_messages():
    events, _ = with_probe(WRONG_ORDERS)
    ref, _ = reference(WRONG_ORDERS)
    assert _as_reference(events) == ref
    errors = [(e.call, e.optimizer, e.stage_before, e.error.type, e.error.message)
              for e in events if e.error is not None]
    assert errors == [
        ("unscale_", "o1", "UNSCALED", "RuntimeError",
         "unscale_() has already been called on this optimizer since the last update()."),
        ("unscale_", "o1", "STEPPED", "RuntimeError", "unscale_() is being called after step()."),
        ("step", "o1", "STEPPED", "RuntimeError", "step() has already been called since the last update()."),
        ("update", None, None, "AssertionError", "No inf checks were recorded prior to update."),
        ("step", "o1", "READY", "AssertionError", "No inf checks were recorded for this optimizer."),
    ]
    ob_step = [e for e in events if e.call == "step" and e.optimizer == "o2"][0]
    assert ob_step.implicit_unscale and ob_step.stage_before == "READY" and ob_step.stage_after == "STEPPED"


def test_reading_state_inserts_nothing_and_remove_restores_torch():
    from torch.amp.grad_scaler import GradScaler

    before = {name: GradScaler.__dict__[name] for name in ("scale", "unscale_", "step", "update")}
    probe = GradScalerProbe(FILENAME)
    probe.install()
    try:
        scaler = GradScaler("cpu")
        opt = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=0.1)
        scaler.scale(torch.ones(1, requires_grad=True).sum())
        assert len(scaler._per_optimizer_states) == 0  # scale() must not create an entry
        del opt
    finally:
        probe.remove()
    assert {name: GradScaler.__dict__[name] for name in before} == before


def test_registered_probe_records_through_the_runner_and_links_scaled_runs():
    """The probe as the worker runs it: registered, installed by run_script;
    each backward started from scaler.scale(loss) carries `scaled_by`, and its
    leaf gradients are the scale times the unscaled ones torch ends with."""
    from autogradviz.engine.trace.model import Trace
    from autogradviz.engine.worker.runner import run_script

    src = LOOP.replace("for it in range(6):", "for it in range(3):")
    result = run_script(src, filename=FILENAME)
    trace = Trace.from_json(result.trace.to_json())  # what the app reads
    assert trace.error is None
    scales = [i for i, e in enumerate(trace.scaler_events) if e.call == "scale"]
    assert len(scales) == 3 and len(trace.backward_runs) == 3
    assert [r.scaled_by for r in trace.backward_runs] == scales
    assert [e.call for e in trace.scaler_events] == ["scale", "step", "update"] * 3
    # the trace's first run: weight.grad is scale x the gradient of the plain loss
    plain = _exec(LOOP.replace("for it in range(6):", "for it in range(0):"))
    model, x = plain["model"], plain["x"]
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = model(x).float().pow(2).mean()
    loss.backward()
    run = trace.backward_runs[0]
    graph = trace.graph(run.graph)
    weight = next(n for n in graph.nodes if n.label == "model.weight")
    scale = trace.scaler_events[run.scaled_by].scale_before
    assert scale == 2.0 ** 16
    got = torch.tensor(run.leaf_grads[weight.id].values, dtype=torch.float64)
    assert torch.allclose(got / scale, model.weight.grad.double().flatten(), rtol=1e-6, atol=0)


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_cuda_float16_loop_matches_the_reference():
    src = (LOOP.replace('GradScaler("cpu"', 'GradScaler("cuda"')
           .replace('torch.autocast("cpu", dtype=torch.bfloat16)', 'torch.autocast("cuda", dtype=torch.float16)')
           .replace("model = torch.nn.Linear(3, 1)", "model = torch.nn.Linear(3, 1).cuda()")
           .replace("x = torch.randn(4, 3)", "x = torch.randn(4, 3, device='cuda')"))
    events, ns = with_probe(src)
    ref, _ = reference(src)
    assert _as_reference(events) == ref
    assert any(e.skipped for e in events if e.call == "step")
    assert all(set(e.found_inf) == {"cuda:0"} for e in events if e.call == "step")
