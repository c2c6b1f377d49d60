"""The one registry of trace note codes: each code's parameters and English text.

A note tells the learner something about the run (a warning explained, output
cut, recording limits). The worker writes it as a code plus parameters, which
the app says in the UI language, and as English text for people and tools
(docs/trace-format.md, `Trace.note_records`). The English template of every
code lives here and only here: `Trace.add_note(code, **params)` renders it,
so the worker never words a note itself, and the app translates by code
(tests/app/test_note_translations.py: every code registered here has its
Simplified Chinese text; tests/engine/test_notes_registry.py: the engine
adds no code that is not registered).

Rendering (`render`): each `{name}` of the template is the parameter's
value, integers with thousands separators (`1,234`); `{where}` is
" (line N)" from a `line` parameter, or nothing when the line is unknown.
Plain data: no torch, no Qt.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any, Mapping

# -- the English texts of the explained warnings (engine/worker/explain.py matches torch's warnings) --
NONLEAF_GRAD_WARNING = (
    "Reading .grad of a non-leaf tensor: autograd only stores gradients in the .grad "
    "of leaf tensors (the ones you created with requires_grad=True), so this is None. "
    "To keep the gradient of an intermediate tensor, call t.retain_grad() before "
    "backward(), or use torch.autograd.grad(output, t)."
)
NO_INPUT_REQUIRES_GRAD_WARNING = (
    "torch says \"None of the inputs have requires_grad=True. Gradients will be None\": a "
    "reentrant checkpoint (use_reentrant=True, or not given) was called with no input that "
    "requires grad. It runs the function under no_grad and its result only gets a gradient "
    "through its tensor inputs, so nothing inside the segment - not even the parameters of a "
    "checkpointed module - gets a gradient from it: their .grad stays None. Make an input "
    "require grad (x.requires_grad_() on the first input), or use use_reentrant=False, which "
    "records the segment normally."
)
USE_REENTRANT_MISSING_WARNING = (
    "torch says \"the use_reentrant parameter should be passed explicitly\": checkpoint was "
    "called without use_reentrant. It then uses the reentrant variant (today's "
    "default; torch plans to make leaving it out an error). Pass "
    "use_reentrant=False explicitly: the recommended variant, which accepts keyword arguments and "
    "outputs of any structure and works when no input requires grad; pass use_reentrant=True only "
    "to keep the old behaviour on purpose."
)
_OUTPUT_LOSES_GRAD = (
    "Checkpoint{where}: the reentrant checkpoint returned a {output_type} whose tensors do not require "
    "grad, although an input did: whatever gradient they should carry is lost, silently. Reentrant "
    "checkpoint (use_reentrant=True, or not given) runs the function under no_grad and connects to "
    "the graph only the tensors it returns directly (a tensor, or the elements of a tuple); tensors "
    "inside a dict, a list or another object come back detached, so backward never reaches the "
    "segment's inputs and parameters. Return a tensor or a tuple of tensors, or pass "
    "use_reentrant=False, which keeps the gradient in any output structure."
)
# (its older form, {where} and {type}: what the app's tests compare with)
OUTPUT_LOSES_GRAD_NOTE = _OUTPUT_LOSES_GRAD.replace("{output_type}", "{type}")


@dataclass(frozen=True)
class NoteKind:
    """One note code. `params`: its parameters, each with an example value
    (of the type the worker writes; the translation test renders with them).
    `template`: the English text (see the module doc for `{where}`).
    `internal`: a note about recording itself failing, for bug reports;
    the app does not show it, so it needs no translation. `origin`: the
    module that registered it (a probe plugin's notes are its own to
    translate; the app translates the ones of this package)."""

    code: str
    params: Mapping[str, Any]
    template: str
    internal: bool = False
    origin: str = ""


NOTES: dict[str, NoteKind] = {}


def register(code: str, template: str, internal: bool = False, **params: Any) -> NoteKind:
    """Register note `code` with its English `template` and its parameters
    (name=example value)."""
    origin = sys._getframe(1).f_globals.get("__name__", "")
    kind = NOTES[code] = NoteKind(code, dict(params), template, internal, origin)
    return kind


def builtin() -> list[NoteKind]:
    """The codes this package registers (not a plugin's): the app says
    every one of them that is not internal in the UI language."""
    return [k for k in NOTES.values() if k.origin.startswith("autogradviz.")]


def fields(params: Mapping[str, Any], where: str = " (line {0})") -> dict:
    """The values a template is formatted with: the parameters (integers with
    thousands separators) and `where` (`where` formatted with the line, or
    nothing). The app passes its translated `where`."""
    out = {}
    for name, value in params.items():
        out[name] = f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else value
    line = params.get("line")
    out["where"] = where.format(line) if isinstance(line, int) and not isinstance(line, bool) else ""
    return out


def complete(code: str, params: Mapping[str, Any]) -> bool:
    """`params` has every parameter `code`'s template names (a note from an
    older or newer worker may lack one: a reader then shows its text)."""
    kind = NOTES.get(code)
    return kind is not None and all(name in params for name in kind.params)


def render(code: str, params: Mapping[str, Any]) -> str:
    """The English text of a note. Raises KeyError for a code nobody registered."""
    return NOTES[code].template.format(**fields(params))


# -- the codes -------------------------------------------------------------------------------------------
register("nonleaf_grad_read", "Warning{where}: " + NONLEAF_GRAD_WARNING, line=12)
register("checkpoint_use_reentrant_missing", "Warning{where}: " + USE_REENTRANT_MISSING_WARNING, line=6)
register("checkpoint_no_input_requires_grad", "Warning{where}: " + NO_INPUT_REQUIRES_GRAD_WARNING, line=6)
register("checkpoint_output_loses_grad", _OUTPUT_LOSES_GRAD, line=7, output_type="dict")
register("checkpoint_not_read", "{nodes} node(s) inside non-reentrant checkpoint segments: their saved "
         "tensors were not read (reading them re-runs the checkpointed forward).", nodes=3)
register("runs_truncated", "{calls} backward/grad calls; only the first {recorded} were recorded in full.",
         calls=60, recorded=50)
register("runs_unrecorded_threads", "{calls} backward call(s) waited too long for another thread's call "
         "to be recorded and ran unrecorded.", calls=2)
register("output_capped", "The script printed {total} characters; only the first {cap} are kept.",
         total=3_000_000, cap=2_000_000)
register("output_truncated", "{stream} truncated: kept the first {kept} of {total} characters",
         stream="stdout", kept=1_000_000, total=2_000_000)
register("module_paths_cut", "{count} module path(s) in this trace were deeper than {parts} parts or "
         "longer than {chars} characters; they are shown cut to that.", count=2, parts=64, chars=4096)
register("internal_error", "internal: {stage}: {error}", internal=True, stage="finalize",
         error="RuntimeError: boom")
