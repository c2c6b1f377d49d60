"""The rules of torch.utils.checkpoint, each broken by a script and explained.

For every rule the same call is first made under plain torch, here in the
test, to get torch's own message (warning or exception) independently of the
app; the run through `run_script` must show that exact message (stderr or the
error) and add the note or explanation, with the script's line. A script that
follows the rules (use_reentrant=False, a tensor output) gets none of them.
"""

from __future__ import annotations

import functools
import warnings

import pytest
import torch
from torch.utils.checkpoint import checkpoint, checkpoint_sequential

from autogradviz.engine.worker.runner import run_script

FILENAME = "/virtual/rules.py"
CODES = {"checkpoint_use_reentrant_missing", "checkpoint_no_input_requires_grad",
         "checkpoint_output_loses_grad"}

HEAD = """\
import torch
from torch.utils.checkpoint import checkpoint, checkpoint_sequential
torch.manual_seed(0)
lin = torch.nn.Linear(3, 3)
x = torch.randn(2, 3, requires_grad=True)
"""  # lines 1-5: the rule's call is on line 6


def run(body: str):
    return run_script(HEAD + body, filename=FILENAME)


def torch_warnings(fn) -> list[str]:
    """The warnings torch gives for `fn()` (plain torch, nothing of ours)."""
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        fn()
    return [str(w.message) for w in got]


def notes(trace, code):
    """(english text, params) of each note with this code."""
    return [(t, n.params) for t, n in zip(trace.notes, trace.note_codes) if n.code == code]


def rule_notes(trace):
    return [n.code for n in trace.note_codes if n.code in CODES]


def test_use_reentrant_not_given_warns_and_is_noted():
    lin, x = torch.nn.Linear(3, 3), torch.randn(2, 3, requires_grad=True)
    said = torch_warnings(lambda: checkpoint(lin, x))
    [msg] = [m for m in said if "use_reentrant" in m]
    assert msg.startswith("torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly.")
    r = run("y = checkpoint(lin, x)\ny.sum().backward()\n")
    t = r.trace
    assert t.error is None
    assert msg in t.stderr  # printed as plain python prints it
    [(text, params)] = notes(t, "checkpoint_use_reentrant_missing")
    assert params == {"line": 6}
    # torch's words, then what they mean
    assert text.startswith('Warning (line 6): torch says "the use_reentrant parameter should be passed '
                           'explicitly": checkpoint was called without use_reentrant.')
    assert "the use_reentrant parameter should be passed explicitly" in msg
    assert "Pass use_reentrant=False explicitly" in text and "recommended" in text
    assert rule_notes(t) == ["checkpoint_use_reentrant_missing"]
    # the script still ran as under torch: reentrant, gradients reach x and lin
    assert r.namespace["x"].grad is not None and r.namespace["lin"].weight.grad is not None


def test_checkpoint_sequential_without_use_reentrant_is_noted_too():
    seq = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.ReLU(), torch.nn.Linear(3, 3))
    said = torch_warnings(lambda: checkpoint_sequential(seq, 2, torch.randn(2, 3, requires_grad=True)))
    [msg] = [m for m in said if "use_reentrant" in m]
    assert msg.startswith("torch.utils.checkpoint.checkpoint_sequential: the use_reentrant")
    r = run("seq = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.ReLU(), torch.nn.Linear(3, 3))\n"
            "y = checkpoint_sequential(seq, 2, x)\n")
    assert msg in r.trace.stderr
    [(_text, params)] = notes(r.trace, "checkpoint_use_reentrant_missing")
    assert params == {"line": 7}


def test_no_input_requiring_grad_warns_and_is_noted():
    lin = torch.nn.Linear(3, 3)
    said = torch_warnings(lambda: checkpoint(lin, torch.randn(2, 3), use_reentrant=True))
    assert said == ["None of the inputs have requires_grad=True. Gradients will be None"]
    # ... and it is true: the module's parameters get no gradient through the segment
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = checkpoint(lin, torch.randn(2, 3), use_reentrant=True)
    assert not y.requires_grad and lin.weight.grad is None
    r = run("y = checkpoint(lin, torch.randn(2, 3), use_reentrant=True)\nprint(y.requires_grad)\n")
    t = r.trace
    assert t.error is None and t.stdout == "False\n"
    assert said[0] in t.stderr
    [(text, params)] = notes(t, "checkpoint_no_input_requires_grad")
    assert params == {"line": 6}
    assert text.startswith(f'Warning (line 6): torch says "{said[0]}": a reentrant checkpoint')
    assert ".grad stays None" in text and "use_reentrant=False" in text and "requires_grad_()" in text
    assert rule_notes(t) == ["checkpoint_no_input_requires_grad"]


def test_dict_output_loses_its_gradient_and_is_noted():
    lin, x = torch.nn.Linear(3, 3), torch.randn(2, 3, requires_grad=True)
    # plain torch: no warning, no error - the gradient is silently gone
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        out = checkpoint(lambda t: {"out": lin(t)}, x, use_reentrant=True)
    assert got == [] and out["out"].requires_grad is False and out["out"].grad_fn is None
    r = run("out = checkpoint(lambda t: {'out': lin(t)}, x, use_reentrant=True)\n"
            "print(out['out'].requires_grad)\n")
    t = r.trace
    assert t.error is None and t.stdout == "False\n" and "Warning" not in t.stderr
    [(text, params)] = notes(t, "checkpoint_output_loses_grad")
    assert params == {"line": 6, "output_type": "dict"}
    assert text.startswith("Checkpoint (line 6): the reentrant checkpoint returned a dict")
    assert "tuple" in text and "use_reentrant=False" in text
    assert rule_notes(t) == ["checkpoint_output_loses_grad"]


def test_tuple_output_keeps_its_gradient_and_is_not_noted():
    r = run("a, b = checkpoint(lambda t: (lin(t), t * 2), x, use_reentrant=True)\n"
            "(a.sum() + b.sum()).backward()\n")
    assert r.trace.error is None and rule_notes(r.trace) == []
    assert r.namespace["x"].grad is not None


def test_integer_tensors_in_a_dict_have_no_gradient_to_lose():
    r = run("out = checkpoint(lambda t: {'idx': lin(t).argmax(-1)}, x, use_reentrant=True)\n")
    assert r.trace.error is None and rule_notes(r.trace) == []
    assert r.namespace["out"]["idx"].dtype == torch.int64


def test_keyword_arguments_with_reentrant_are_explained():
    lin, x = torch.nn.Linear(3, 3), torch.randn(2, 3, requires_grad=True)
    with pytest.raises(ValueError) as raised:
        checkpoint(lambda t, scale=1: lin(t) * scale, x, use_reentrant=True, scale=2)
    assert str(raised.value) == "Unexpected keyword arguments: scale"
    r = run("y = checkpoint(lambda t, scale=1: lin(t) * scale, x, use_reentrant=True, scale=2)\n")
    e = r.trace.error
    assert (e.type, e.message, e.line) == ("ValueError", str(raised.value), 6)
    ex = e.explanation
    assert ex.startswith("torch.utils.checkpoint.checkpoint was given keyword argument(s)")
    assert "(scale)" in ex and "torch.autograd.Function" in ex and "only positional arguments" in ex
    assert "use_reentrant=False" in ex and "functools.partial(fn, scale=value)" in ex
    # the fixes it names work under plain torch
    fn = lambda t, scale=1: lin(t) * scale  # noqa: E731
    checkpoint(fn, x, use_reentrant=False, scale=2)
    checkpoint(fn, x, 2, use_reentrant=True)
    checkpoint(functools.partial(fn, scale=2), x, use_reentrant=True)


def test_keyword_arguments_of_checkpoint_sequential_are_explained_as_such():
    seq = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.Linear(3, 3))
    with pytest.raises(ValueError) as raised:
        checkpoint_sequential(seq, 2, torch.randn(2, 3), use_reentrant=False, scale=2)
    assert str(raised.value) == "Unexpected keyword arguments: scale"
    r = run("seq = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.Linear(3, 3))\n"
            "y = checkpoint_sequential(seq, 2, x, use_reentrant=False, scale=2)\n")
    e = r.trace.error
    assert (e.message, e.line) == (str(raised.value), 7)
    assert e.explanation.startswith("torch.utils.checkpoint.checkpoint_sequential was given")
    assert "use_reentrant and preserve_rng_state" in e.explanation


def test_the_same_words_from_elsewhere_are_not_explained_as_checkpoint():
    r = run("raise ValueError('Unexpected keyword arguments: scale')\n")
    assert r.trace.error.message == "Unexpected keyword arguments: scale"
    assert r.trace.error.explanation is None


def test_a_correct_script_gets_none_of_these_notes():
    src = ("y = checkpoint(lin, x, use_reentrant=False)\n"
           "d = checkpoint(lambda t: {'out': lin(t)}, x, use_reentrant=False)\n"
           "(y.sum() + d['out'].sum()).backward()\n")
    with warnings.catch_warnings(record=True) as got:  # plain torch: silent
        warnings.simplefilter("always")
        exec(compile(HEAD + src, "<plain>", "exec"), {})
    assert got == []
    r = run(src)
    assert r.trace.error is None and rule_notes(r.trace) == []
    assert "Warning" not in r.trace.stderr
    assert r.namespace["x"].grad is not None
