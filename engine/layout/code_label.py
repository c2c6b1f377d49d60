"""A short label for an unnamed op node, taken from the line that made it.

`h = y + c` made an AddBackward0 nobody named: its box reads `y + c` rather
than nothing. Only where the line plainly makes one operation - one binary or
unary operator, one comparison, or one call of a torch function
(`torch.tanh(h)`, `F.relu(x)`) or of a tensor method (`y.sum()`) on simple
operands (names, attributes, constants; not `w[0]` or `x.T`, ops themselves) - since a label on
the wrong one of several nodes of a line would mislead. Calls of the script's
own functions or modules (`square(y)`, `self.fc(x)`) make several nodes and
get none. No torch here: the layout runs in the GUI process.
"""

from __future__ import annotations

import ast
from functools import lru_cache
from typing import Optional

MAX_CHARS = 28
_TORCH_NAMESPACES = {"torch", "F", "functional", "nn", "fn"}


# tensor attributes that are operations themselves (they make a node)
_OP_ATTRIBUTES = {"T", "mT", "H", "mH", "real", "imag"}


def _simple(e: ast.AST) -> bool:
    """An operand that makes no node of its own: a name, a constant, an
    attribute (`self.w`). Not a subscript: indexing a tensor is an op."""
    if isinstance(e, (ast.Name, ast.Constant)):
        return True
    if isinstance(e, ast.Attribute):
        return e.attr not in _OP_ATTRIBUTES and _simple(e.value)
    if isinstance(e, ast.UnaryOp) and isinstance(e.operand, ast.Constant):
        return True  # -1
    return False


def _root_name(e: ast.AST) -> Optional[str]:
    while isinstance(e, ast.Attribute):
        e = e.value
    return e.id if isinstance(e, ast.Name) else None


def _one_op(e: ast.AST) -> bool:
    if isinstance(e, ast.BinOp):
        return _simple(e.left) and _simple(e.right)
    if isinstance(e, ast.UnaryOp):
        return _simple(e.operand)
    if isinstance(e, ast.Compare):
        return len(e.ops) == 1 and _simple(e.left) and _simple(e.comparators[0])
    if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute):
        if not all(_simple(a) for a in e.args) or not all(_simple(k.value) for k in e.keywords):
            return False
        base = e.func.value
        root = _root_name(base)
        if root in _TORCH_NAMESPACES:
            return True  # torch.tanh(h), F.relu(x), torch.nn.functional.gelu(x)
        # a tensor method on a plain name: y.sum(), x.pow(2) - not self.fc(x)
        return isinstance(base, ast.Name) and base.id != "self"
    return False


@lru_cache(maxsize=4096)
def code_label(code: Optional[str]) -> Optional[str]:
    """`y + c` for `z = y + c` / `return y + c`; None when the line is not one op."""
    if not code:
        return None
    try:
        tree = ast.parse(code.strip())
    except SyntaxError:  # (a line of a statement that spans several)
        return None
    if len(tree.body) != 1:
        return None
    st = tree.body[0]
    if isinstance(st, (ast.Assign, ast.AnnAssign, ast.Return, ast.Expr)):
        value = st.value
    else:
        return None
    if value is None or not _one_op(value):
        return None
    text = ast.get_source_segment(code.strip(), value)
    if not text or len(text) > MAX_CHARS:
        return None
    return text
