"""Plain-language explanations for the mistakes learners make most often.

`explain(exc)` looks at an exception's type and message (torch's messages are
stable enough to match on) and returns a short explanation, or None;
`explained(exc)` returns it with its code and parameters ("Codes, not prose"
in docs/architecture.md): the app says it in the learner's language from the
code, and the English text stays in the trace for other readers.
`explain_warning(message)` does the same for warnings (reading `.grad` of a
non-leaf tensor is a UserWarning in torch, not an error), and
`warning_note(message)` adds the code the app translates the note by.

torch.utils.checkpoint's rules are among them: its keyword-argument error is
only explained when torch's checkpoint module raised it (the same words from
another library would mean something else), and its two warnings become notes.
"""

from __future__ import annotations

import os
import re
from typing import Optional

from autogradviz.engine.worker.missing_module import ENGLISH_IMPORT_NAME, missing_module_error
# The warnings' texts are the note registry's (one wording; re-exported for their readers).
from autogradviz.engine.trace.notes import (  # noqa: F401
    NO_INPUT_REQUIRES_GRAD_WARNING, NONLEAF_GRAD_WARNING, OUTPUT_LOSES_GRAD_NOTE, USE_REENTRANT_MISSING_WARNING)

# (code, pattern, text, names): the code says which mistake a rule is about
# (ErrorInfo.code, translated by the app); `names` name the pattern's groups
# in ErrorInfo.params (the text's {0}, {1}, ... in that order).
_RULES: list[tuple[str, re.Pattern, str, tuple]] = []


def _rule(key: str, pattern: str, text: str, names: tuple = ()) -> None:
    _RULES.append((key, re.compile(pattern, re.IGNORECASE | re.DOTALL), text, names))


_rule(
    "shape_matmul",
    r"mat1 and mat2 shapes cannot be multiplied \((\d+)x(\d+) and (\d+)x(\d+)\)",
    "Shape mismatch in a matrix multiplication: the left matrix is {0}x{1} and the "
    "right one is {2}x{3}. For A @ B the number of columns of A ({1}) must equal the "
    "number of rows of B ({2}). For nn.Linear(in_features, out_features) the last "
    "dimension of the input must be in_features. Print the .shape of both operands; "
    "you may need to transpose one (.T) or change the layer's size.",
    ("rows_a", "cols_a", "rows_b", "cols_b"),
)
_rule(
    "shape_matmul2",
    r"(size mismatch|shapes? .* cannot be multiplied|Expected size for first two dimensions of batch2)",
    "Shape mismatch in a matrix product: the inner dimensions of the two operands must "
    "agree (for A @ B, A.shape[-1] == B.shape[-2]). Print the .shape of both operands.",
)
_rule(
    "shape_broadcast",
    r"The size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\) at non-singleton dimension (\d+)",
    "Shape mismatch: the two tensors cannot be broadcast together. Broadcasting lines "
    "shapes up from the right; at dimension {2} one tensor has size {0} and the other "
    "{1}, and sizes must be equal or one of them must be 1. Print both .shape values; "
    "reshape, unsqueeze or transpose one of them so the dimensions line up.",
    ("size_a", "size_b", "dim"),
)
_rule(
    "shape_view",
    r"shape '\[.*\]' is invalid for input of size (\d+)",
    "Shape mismatch in view/reshape: the new shape must contain exactly as many "
    "elements as the tensor has ({0}). Use -1 for the one dimension you want computed.",
    ("numel",),
)
_rule(
    "device",
    r"(Expected all tensors to be on the same device|on the expected device|"
    r"Expected object of device type|is on (cuda|cpu).* but .* (cuda|cpu)|device type .* but got)",
    "Device mismatch: the tensors in this operation live on different devices (for "
    "example one on the CPU and one on the GPU). An operation needs all its tensors on "
    "the same device: move them with .to(device) (the script's predefined `device` "
    "variable), and move the model too with model.to(device).",
)
_rule(
    "dtype",
    r"(expected (m1 and m2|scalar type|both vectors) .*(dtype|type)|"
    r"expected .* to have the same dtype|found dtype \w+ but expected \w+|"
    r"can't be cast to the desired output type|result type \w+ can't be cast|"
    r"expected scalar type \w+ but found \w+|Expected object of scalar type)",
    "Dtype mismatch: the tensors in this operation have different data types (for "
    "example float32 and float64, or float and long). Most operations need matching "
    "dtypes: convert one with .float(), .double() or .to(other.dtype). Note that "
    "torch.tensor([1, 2]) makes integers while torch.tensor([1., 2.]) makes floats, and "
    "numpy arrays become float64.",
)
_rule(
    "only_float_grad",
    r"only Tensors of floating point( and complex)? dtype can require gradients",
    "Only floating-point (or complex) tensors can require gradients: gradients are "
    "fractional values. Create the tensor as float (torch.tensor([1., 2.]) or "
    ".float()) before setting requires_grad=True.",
)
_rule(
    "inplace_leaf",
    r"a leaf Variable that requires grad (is being|has been) used in an in-place operation",
    "In-place operation on a leaf tensor that requires grad: autograd must keep a leaf's "
    "value as it was, so ops like x += 1, x.add_(1) or x[0] = 0 are not allowed on it. "
    "To update parameters by hand, do it inside `with torch.no_grad():` (as optimizers "
    "do); otherwise write x = x + 1 to make a new tensor.",
)
_rule(
    "inplace_modified",
    r"one of the variables needed for gradient computation has been modified by an inplace operation",
    "A tensor that autograd saved for the backward pass was changed in place afterwards "
    "(for example with +=, .add_(), .relu_() or an index assignment), so the gradient "
    "can no longer be computed correctly. Use the out-of-place version (x = x + 1) or "
    "clone() the tensor before modifying it.",
)
_rule(
    "backward_twice",
    r"Trying to backward through the graph a second time",
    "Backward through the same graph twice: the first backward() freed the values the "
    "graph saved, to save memory. If you really need a second pass, call the first "
    "one as backward(retain_graph=True). In a training loop, this usually means part "
    "of the graph is reused across iterations: recompute the forward pass (the loss) "
    "inside the loop, or .detach() the tensor carried over.",
)
_rule(
    "nonscalar",
    r"grad can be implicitly created only for (real )?scalar outputs",
    "backward() on a tensor with more than one element: backward() without an argument "
    "only works for a single number (a scalar), such as a loss. Reduce the tensor "
    "first (y.sum().backward() or y.mean().backward()), or pass the gradient "
    "explicitly: y.backward(torch.ones_like(y)).",
)
_rule(
    "no_grad_fn",
    r"(element \d+ of tensors does not require grad and does not have a grad_fn|"
    r"One of the differentiated Tensors does not require grad|"
    r"does not require grad and does not have a grad_fn)",
    "This tensor is not part of an autograd graph: nothing it depends on has "
    "requires_grad=True (or it was computed under torch.no_grad() or after .detach()), "
    "so it has no grad_fn and there is nothing to differentiate. Create the inputs "
    "you want gradients for with requires_grad=True, e.g. torch.randn(3, "
    "requires_grad=True), and compute from them with grad enabled.",
)
_rule(
    "unused_input",
    r"(One of the differentiated Tensors|The differentiated Tensor at index \d+) appears to not have been "
    r"used in the graph",
    "torch.autograd.grad was asked for the gradient with respect to a tensor the "
    "output does not depend on. Check the inputs list, or pass allow_unused=True to "
    "get None for it.",
)
_rule(
    "nonleaf_grad_none",
    r"'NoneType' object has no attribute",
    "Something is None where a tensor was expected. If it is a .grad: .grad is only "
    "filled for leaf tensors that require grad (created by you with "
    "requires_grad=True), and only after backward() ran. For an intermediate tensor, "
    "call t.retain_grad() before backward().",
)


CHECKPOINT_KWARGS = (
    "torch.utils.checkpoint.checkpoint was given keyword argument(s) it would have to pass on to "
    "the checkpointed function ({0}), and the reentrant variant cannot: it is built on a "
    "torch.autograd.Function, which takes only positional arguments. Reentrant is what "
    "use_reentrant=True selects, and also what checkpoint does today when use_reentrant is not "
    "given. Fix it in one of three ways: pass use_reentrant=False (the recommended variant, which "
    "hands keyword arguments on); pass the values positionally, checkpoint(fn, x, value, "
    "use_reentrant=True); or bind them first, checkpoint(functools.partial(fn, {1}=value), x, ...). "
    "If {0} was meant as an option of checkpoint itself, check its spelling."
)
CHECKPOINT_SEQUENTIAL_KWARGS = (
    "torch.utils.checkpoint.checkpoint_sequential was given keyword argument(s) it does not know "
    "({0}). Its only options are use_reentrant and preserve_rng_state: each segment receives just "
    "the output of the previous one, so there is nothing to pass keyword arguments to. Check the "
    "spelling, or bind such values into the modules or functions (functools.partial) before "
    "passing them."
)

# torch's own module (the file raising a checkpoint error must be this one)
_CHECKPOINT_FILE = os.path.join("torch", "utils", "checkpoint.py")


def _checkpoint_kwargs(exc: BaseException) -> Optional[tuple[str, dict, str]]:
    """(code, params, text) explaining checkpoint's `Unexpected keyword arguments`,
    when torch's checkpoint or checkpoint_sequential raised it (last frame)."""
    m = re.fullmatch(r"Unexpected keyword arguments: (.*)", str(exc), re.DOTALL)
    if not isinstance(exc, ValueError) or m is None:
        return None
    tb = exc.__traceback__
    if tb is None:
        return None
    while tb.tb_next is not None:
        tb = tb.tb_next
    code = tb.tb_frame.f_code
    if not os.path.normpath(code.co_filename).endswith(_CHECKPOINT_FILE):
        return None
    names = [n for n in m.group(1).split(",") if n]
    shown = ", ".join(names)
    if code.co_name == "checkpoint_sequential":
        return "checkpoint_sequential_kwargs", {"names": shown}, CHECKPOINT_SEQUENTIAL_KWARGS.format(shown)
    if code.co_name == "checkpoint":
        first = names[0] if names else "name"
        return "checkpoint_kwargs", {"names": shown, "first": first}, CHECKPOINT_KWARGS.format(shown, first)
    return None


_rule(
    "input_eof",
    r"^EOF when reading a line$",
    "input() found no line to read: the input ended. `autogradviz trace` and `export` run a script "
    "without a console, so input() gets end of input there; in the app, type the line in the Output "
    "pane's input box (Ctrl+D there ends the input). Put the values in the script to run it anywhere.",
)


def explain(exc: BaseException) -> Optional[str]:
    found = explained(exc)
    return found[2] if found is not None else None


SYNTAX_TEXT = ("Python could not read this line: check for a missing bracket, colon, "
               "quote or comma near the marked position.")


def explained(exc: BaseException) -> Optional[tuple[str, dict, str]]:
    """(code, params, English text) for a mistake learners make often, else None.
    A missing module's code comes from missing_module_error (the runner sets it)."""
    msg = str(exc)
    found = _checkpoint_kwargs(exc)
    if found is not None:
        return found
    if isinstance(exc, SyntaxError):
        return "syntax", {}, SYNTAX_TEXT
    if isinstance(exc, ModuleNotFoundError):
        missing = missing_module_error(exc)
        return (missing[0], missing[1], missing[2]) if missing is not None else None
    if isinstance(exc, ImportError):  # e.g. a native library that fails to load: its message says it
        return ("import_name", {}, ENGLISH_IMPORT_NAME) if msg.startswith("cannot import name") else None
    if isinstance(exc, AttributeError) and "'NoneType'" not in msg:
        return None
    for key, pat, text, names in _RULES:
        m = pat.search(msg)
        if m:
            groups = m.groups()
            params = {n: _number(g) for n, g in zip(names, groups)}
            try:
                return key, params, text.format(*groups)
            except (IndexError, KeyError):
                return key, params, text
    return None


def _number(text: str):
    """A size from torch's message as an int (the app formats it), else the text."""
    try:
        return int(text)
    except (TypeError, ValueError):
        return text


# Added to an explanation when the error was raised inside a module's forward
# (engine/worker/error_module.py gives the params "module", "module_class",
# "module_args"); a Linear given the wrong number of features says both numbers.
MODULE_NOTE = "It happened inside {module}, a {cls}({args})."
MODULE_LINEAR_NOTE = ("It happened inside {module}, a {cls}({args}): it takes {expected} input features and "
                      "got {got}.")


def module_note(code: str, params: dict) -> str:
    """The English sentence naming the module an error happened in ("" without one)."""
    if "module" not in params:
        return ""
    where = {"module": params["module"], "cls": params.get("module_class", ""), "args": params.get("module_args", "")}
    if code == "shape_matmul" and params.get("module_class") == "Linear":
        return MODULE_LINEAR_NOTE.format(expected=params.get("rows_b"), got=params.get("cols_a"), **where)
    return MODULE_NOTE.format(**where)


def warning_note(message: str) -> Optional[tuple[str, str]]:
    """(code, English explanation) for a warning worth a note, else None."""
    if "is not a leaf Tensor is being accessed" in message or (
            ".grad attribute of a Tensor that is not a leaf" in message):
        return "nonleaf_grad_read", NONLEAF_GRAD_WARNING
    if message.startswith("None of the inputs have requires_grad=True. Gradients will be None"):
        return "checkpoint_no_input_requires_grad", NO_INPUT_REQUIRES_GRAD_WARNING
    # checkpoint's and checkpoint_sequential's (worded slightly differently)
    if message.startswith("torch.utils.checkpoint") and (
            "use_reentrant parameter should be passed explicitly" in message):
        return "checkpoint_use_reentrant_missing", USE_REENTRANT_MISSING_WARNING
    return None


def explain_warning(message: str) -> Optional[str]:
    found = warning_note(message)
    return found[1] if found is not None else None
