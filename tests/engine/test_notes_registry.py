"""engine/trace/notes.py: one registry of note codes, their parameters and
English templates. The engine adds only registered codes (every `add_note`
in its source, every warning it explains, and what real runs wrote), each
note is one record (code, params, text) whose text is the template's, and
a trace from before the record list gives its notes as records too
(`Trace.note_list`)."""

from __future__ import annotations

import ast
import json
import math
from pathlib import Path

import pytest

from autogradviz.engine.trace import notes
from autogradviz.engine.trace.model import Note, Trace
from autogradviz.engine.worker.explain import warning_note
from autogradviz.engine.worker.runner import run_script

ROOT = Path(__file__).resolve().parents[2]
V1 = ROOT / "tests" / "data" / "trace_v1.json"

# One script that makes torch warn twice (a non-leaf .grad read, checkpoint
# without use_reentrant), loses a gradient through a reentrant checkpoint's
# dict output, skips checkpointed saved tensors and calls backward past the
# recording limit.
NOTED = """
import torch
from torch.utils.checkpoint import checkpoint

x = torch.randn(3, requires_grad=True)
y = x * 2
print(y.grad)

def block(t):
    return torch.sin(t) * t

z = checkpoint(block, x)
z.sum().backward()
w = checkpoint(block, x, use_reentrant=False)
w.sum().backward()

def as_dict(t):
    return {"out": t * 3}

d = checkpoint(as_dict, x, use_reentrant=True)
for _ in range(3):
    (x * 1.0).sum().backward()
"""


def _add_note_codes(path: Path) -> list[tuple[str, int]]:
    """(code, line) of every `....add_note("code", ...)` call in a module."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "add_note" and node.args):
            first = node.args[0]
            found.append((first.value if isinstance(first, ast.Constant) else None, node.lineno))
    return found


def test_every_add_note_of_the_engine_names_a_registered_code():
    calls = {}
    for path in sorted((ROOT / "engine").rglob("*.py")):
        for code, line in _add_note_codes(path):
            calls[f"{path.relative_to(ROOT)}:{line}"] = code
    assert len(calls) >= 8, calls  # (the scan finds the calls)
    # runner.py passes the code warning_note found (checked below); model.py defines add_note
    variable = {where for where, code in calls.items() if code is None}
    assert {w.split(":")[0] for w in variable} <= {"engine/worker/runner.py", "engine/trace/model.py"}, variable
    unknown = {where: code for where, code in calls.items() if where not in variable and code not in notes.NOTES}
    assert not unknown, f"note codes not in engine/trace/notes.py: {unknown}"


def test_every_warning_the_engine_explains_has_a_registered_code():
    messages = [
        "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed.",
        "None of the inputs have requires_grad=True. Gradients will be None",
        "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly.",
    ]
    codes = [warning_note(m)[0] for m in messages]
    assert len(set(codes)) == 3 and all(c in notes.NOTES for c in codes)


def test_an_unregistered_code_is_refused():
    with pytest.raises(KeyError):
        Trace().add_note("a_code_nobody_registered", x=1)


def test_a_real_runs_notes_are_registered_records_with_the_templates_text():
    trace = run_script(NOTED, filename="noted.py", max_runs=3).trace
    assert trace.error is None, trace.error
    records = trace.note_records
    codes = [r.code for r in records]
    for expected in ("nonleaf_grad_read", "checkpoint_use_reentrant_missing", "checkpoint_not_read",
                     "checkpoint_output_loses_grad", "runs_truncated"):
        assert expected in codes, codes
    for r in records:
        assert r.code in notes.NOTES and r.text == notes.render(r.code, r.params), r
        assert notes.complete(r.code, r.params), r
    # the older pair of lists says the same, index by index
    assert trace.notes == [r.text for r in records]
    assert [(n.code, n.params) for n in trace.note_codes] == [(r.code, r.params) for r in records]
    lines = NOTED.splitlines()
    read, lose = lines.index("print(y.grad)") + 1, lines.index("d = checkpoint(as_dict, x, use_reentrant=True)") + 1
    warned = next(r for r in records if r.code == "nonleaf_grad_read")
    assert warned.params == {"line": read} and warned.text.startswith(f"Warning (line {read}): Reading .grad")
    lost = next(r for r in records if r.code == "checkpoint_output_loses_grad")
    assert lost.params == {"line": lose, "output_type": "dict"}
    assert lost.text.startswith(f"Checkpoint (line {lose}): the reentrant checkpoint returned a dict ")
    cut = next(r for r in records if r.code == "runs_truncated")
    assert cut.params == {"calls": trace.backward_calls, "recorded": 3} and trace.backward_calls == 5
    back = Trace.from_json(trace.to_json())
    assert back.note_records == records


def test_rendering_separates_thousands_and_says_the_line_only_when_known():
    assert notes.render("runs_truncated", {"calls": 12345, "recorded": 50}) == (
        "12,345 backward/grad calls; only the first 50 were recorded in full.")
    assert notes.render("nonleaf_grad_read", {"line": None}).startswith("Warning: Reading")
    assert notes.render("nonleaf_grad_read", {"line": 1234}).startswith("Warning (line 1234): Reading")


def test_every_template_names_only_its_parameters():
    for kind in notes.NOTES.values():
        text = notes.render(kind.code, kind.params)  # (KeyError: a name that is no parameter)
        assert "{" not in text and text, kind.code


def test_a_file_from_before_note_records_gets_them_from_the_older_lists():
    old = Trace.from_json(V1.read_text(encoding="utf-8"))  # (one note, no codes at all)
    assert old.notes and not old.note_codes and not old.note_records  # (loaded as written)
    assert [(r.code, r.text) for r in old.note_list()] == [("", old.notes[0])]
    data = json.loads(Trace().to_json())
    data["notes"] = ["1 node(s) inside ...", "internal: x: y"]
    data["note_codes"] = [{"code": "checkpoint_not_read", "params": {"nodes": 1}},
                          {"code": "internal_error", "params": {"stage": "x", "error": "y"}}]
    del data["note_records"]
    paired = Trace.from_json(json.dumps(data))
    assert [(r.code, r.params, r.text) for r in paired.note_list()] == [
        ("checkpoint_not_read", {"nodes": 1}, "1 node(s) inside ..."),
        ("internal_error", {"stage": "x", "error": "y"}, "internal: x: y")]
    # made in memory the old way (a test's or a tool's trace): note_list pairs them too
    hand = Trace(notes=["a", "b"], note_codes=[Note("runs_truncated", {"calls": 9, "recorded": 1})])
    assert [(r.code, r.text) for r in hand.note_list()] == [("", "a"), ("", "b")]  # (misaligned: no codes)
    hand.add_note("runs_truncated", calls=60, recorded=50)  # (the older notes come first in the records)
    assert [r.code for r in hand.note_records] == ["", "", "runs_truncated"]


def test_a_non_finite_parameter_is_written_by_name_and_read_back():
    trace = Trace()
    trace.add_note("internal_error", stage="probe", error="x")
    trace.note_records[0].params["value"] = math.inf
    text = trace.to_json()
    assert '"Infinity"' in text and trace.note_records[0].params["value"] == math.inf
