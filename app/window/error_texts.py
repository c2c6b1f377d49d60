"""The explanation of a script's error in the UI language, from its code.

The worker recognises the mistakes learners make most often
(engine/worker/explain.py) and sends each as `ErrorInfo.code` with
`ErrorInfo.params` ("Codes, not prose", docs/architecture.md); its English
sentence stays in `ErrorInfo.explanation` for other readers of the trace. Here
each code becomes a tr() sentence, so a learner in zh_CN never reads the
worker's English under "What this means:", and a live language switch can say
it again. A code this app does not know (a newer worker) keeps the English.
A missing module's codes are the environment feature's (environments/texts.py).
"""

from __future__ import annotations

from typing import Optional

from PySide6.QtCore import QObject

from autogradviz.engine.trace.model import ErrorInfo


class ErrorTexts(QObject):
    """tr() for error explanations (one translation context)."""

    def explanation(self, error: Optional[ErrorInfo]) -> Optional[str]:
        """`error`'s explanation in the UI language; None when its code is
        unknown here or its parameters are not what the code needs."""
        if error is None:
            return None
        code = getattr(error, "code", None)
        p = getattr(error, "params", None) or {}
        make = self._texts().get(code) if code else None
        if make is None:
            return None
        try:
            text = make(p)
            if code not in ("syntax", "import_name", "input_eof") and isinstance(p.get("module"), str):
                text += " " + self._module_note(str(code), p)  # (a code: `make` was found for it)
            return text
        except (KeyError, IndexError, ValueError, TypeError):
            return None

    def _module_note(self, code: str, p: dict) -> str:
        """The layer the error happened in (the worker read it from the traceback):
        its path, class and arguments; a Linear given the wrong number of features
        says what it takes and what it got."""
        where = {"module": _text(p["module"]), "cls": _text(p.get("module_class", "")),
                 "args": _text(p.get("module_args", ""))}
        if code == "shape_matmul" and p.get("module_class") == "Linear":
            return self.tr("It happened inside {module}, a {cls}({args}): it takes {expected} input features and "
                           "got {got}.").format(expected=_int(p["rows_b"]), got=_int(p["cols_a"]), **where)
        return self.tr("It happened inside {module}, a {cls}({args}).").format(**where)

    def _texts(self) -> dict:
        return {
            "syntax": lambda p: self.tr("Python could not read this line: check for a missing bracket, colon, "
                                   "quote or comma near the marked position."),
            "import_name": lambda p: self.tr("The module was found, but a name could not be imported from it: "
                                        "check the spelling, or whether the installed version provides it."),
            "shape_matmul": lambda p: self.tr(
                "Shape mismatch in a matrix multiplication: the left matrix is {ra}x{ca} and the right one is "
                "{rb}x{cb}. For A @ B the number of columns of A ({ca}) must equal the number of rows of B "
                "({rb}). For nn.Linear(in_features, out_features) the last dimension of the input must be "
                "in_features. Print the .shape of both operands; you may need to transpose one (.T) or change "
                "the layer's size.").format(ra=_int(p["rows_a"]), ca=_int(p["cols_a"]), rb=_int(p["rows_b"]),
                                            cb=_int(p["cols_b"])),
            "shape_matmul2": lambda p: self.tr(
                "Shape mismatch in a matrix product: the inner dimensions of the two operands must agree "
                "(for A @ B, A.shape[-1] == B.shape[-2]). Print the .shape of both operands."),
            "shape_broadcast": lambda p: self.tr(
                "Shape mismatch: the two tensors cannot be broadcast together. Broadcasting lines shapes up "
                "from the right; at dimension {dim} one tensor has size {a} and the other {b}, and sizes must "
                "be equal or one of them must be 1. Print both .shape values; reshape, unsqueeze or transpose "
                "one of them so the dimensions line up.").format(dim=_int(p["dim"]), a=_int(p["size_a"]),
                                                                 b=_int(p["size_b"])),
            "shape_view": lambda p: self.tr(
                "Shape mismatch in view/reshape: the new shape must contain exactly as many elements as the "
                "tensor has ({n}). Use -1 for the one dimension you want computed.").format(n=_int(p["numel"])),
            "device": lambda p: self.tr(
                "Device mismatch: the tensors in this operation live on different devices (for example one on "
                "the CPU and one on the GPU). An operation needs all its tensors on the same device: move them "
                "with .to(device) (the script's predefined `device` variable), and move the model too with "
                "model.to(device)."),
            "dtype": lambda p: self.tr(
                "Dtype mismatch: the tensors in this operation have different data types (for example float32 "
                "and float64, or float and long). Most operations need matching dtypes: convert one with "
                ".float(), .double() or .to(other.dtype). Note that torch.tensor([1, 2]) makes integers while "
                "torch.tensor([1., 2.]) makes floats, and numpy arrays become float64."),
            "only_float_grad": lambda p: self.tr(
                "Only floating-point (or complex) tensors can require gradients: gradients are fractional "
                "values. Create the tensor as float (torch.tensor([1., 2.]) or .float()) before setting "
                "requires_grad=True."),
            "inplace_leaf": lambda p: self.tr(
                "In-place operation on a leaf tensor that requires grad: autograd must keep a leaf's value as "
                "it was, so ops like x += 1, x.add_(1) or x[0] = 0 are not allowed on it. To update parameters "
                "by hand, do it inside `with torch.no_grad():` (as optimizers do); otherwise write x = x + 1 to "
                "make a new tensor."),
            "inplace_modified": lambda p: self.tr(
                "A tensor that autograd saved for the backward pass was changed in place afterwards (for "
                "example with +=, .add_(), .relu_() or an index assignment), so the gradient can no longer be "
                "computed correctly. Use the out-of-place version (x = x + 1) or clone() the tensor before "
                "modifying it."),
            "backward_twice": lambda p: self.tr(
                "Backward through the same graph twice: the first backward() freed the values the graph saved, "
                "to save memory. If you really need a second pass, call the first one as "
                "backward(retain_graph=True). In a training loop, this usually means part of the graph is "
                "reused across iterations: recompute the forward pass (the loss) inside the loop, or .detach() "
                "the tensor carried over."),
            "nonscalar": lambda p: self.tr(
                "backward() on a tensor with more than one element: backward() without an argument only works "
                "for a single number (a scalar), such as a loss. Reduce the tensor first (y.sum().backward() or "
                "y.mean().backward()), or pass the gradient explicitly: y.backward(torch.ones_like(y))."),
            "no_grad_fn": lambda p: self.tr(
                "This tensor is not part of an autograd graph: nothing it depends on has requires_grad=True (or "
                "it was computed under torch.no_grad() or after .detach()), so it has no grad_fn and there is "
                "nothing to differentiate. Create the inputs you want gradients for with requires_grad=True, "
                "e.g. torch.randn(3, requires_grad=True), and compute from them with grad enabled."),
            "unused_input": lambda p: self.tr(
                "torch.autograd.grad was asked for the gradient with respect to a tensor the output does not "
                "depend on. Check the inputs list, or pass allow_unused=True to get None for it."),
            "nonleaf_grad_none": lambda p: self.tr(
                "Something is None where a tensor was expected. If it is a .grad: .grad is only filled for leaf "
                "tensors that require grad (created by you with requires_grad=True), and only after backward() "
                "ran. For an intermediate tensor, call t.retain_grad() before backward()."),
            "input_eof": lambda p: self.tr(
                "input() found no line to read: the input ended. `autogradviz trace` and `export` run a script "
                "without a console, so input() gets end of input there; in the app, type the line in the Output "
                "pane's input box (Ctrl+D there ends the input). Put the values in the script to run it "
                "anywhere."),
            "checkpoint_kwargs": lambda p: self.tr(
                "torch.utils.checkpoint.checkpoint was given keyword argument(s) it would have to pass on to the "
                "checkpointed function ({names}), and the reentrant variant cannot: it is built on a "
                "torch.autograd.Function, which takes only positional arguments. Reentrant is what "
                "use_reentrant=True selects, and also what checkpoint does today when use_reentrant is not "
                "given. Fix it in one of three ways: pass use_reentrant=False (the recommended variant, which "
                "hands keyword arguments on); pass the values positionally, checkpoint(fn, x, value, "
                "use_reentrant=True); or bind them first, checkpoint(functools.partial(fn, {first}=value), x, "
                "...). If {names} was meant as an option of checkpoint itself, check its spelling.").format(
                names=_text(p["names"]), first=_text(p["first"])),
            "checkpoint_sequential_kwargs": lambda p: self.tr(
                "torch.utils.checkpoint.checkpoint_sequential was given keyword argument(s) it does not know "
                "({names}). Its only options are use_reentrant and preserve_rng_state: each segment receives "
                "just the output of the previous one, so there is nothing to pass keyword arguments to. Check "
                "the spelling, or bind such values into the modules or functions (functools.partial) before "
                "passing them.").format(names=_text(p["names"])),
        }


def _int(value) -> str:
    """A size from the worker's params (an int; text from an odd message is kept as it is)."""
    if isinstance(value, bool):
        raise ValueError(value)
    return str(value) if isinstance(value, (int, str)) else str(int(value))


def _text(value) -> str:
    if not isinstance(value, str):
        raise ValueError(value)
    return value
