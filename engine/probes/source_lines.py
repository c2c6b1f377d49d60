"""The script line (and its text) that made each node: `Node.line`, `Node.code`.

Installs worker/source_lines.py's torch function mode for the script's run;
after the script, sets `line` and `code` on every captured node: an op
node's from the torch call that created it (innermost frame of the script's
file), a leaf's from where its tensor was made to require grad, when known.
"""

from __future__ import annotations

import torch

from autogradviz.engine.probes.base import FEATURE_ORDER, ORIGINALS, Probe
from autogradviz.engine.probes.statement_text import StatementText


class SourceLinesProbe(Probe):
    name = "source_lines"
    # installed last: its wrappers of the backward entry points are the
    # outermost, so the recorder's work runs with the mode off (`paused`)
    order = FEATURE_ORDER + 1000

    def install(self, ctx) -> None:
        super().install(ctx)
        self.lines = ctx.services.source_lines(ctx.filename, ORIGINALS)  # (worker/source_lines.py, lent)
        for owner, name in ((torch.Tensor, "backward"), (torch.autograd, "backward"), (torch.autograd, "grad")):
            self.patches.wrap(owner, name, self.lines.paused)
        # custom autograd Functions (and reentrant checkpoint's) make their node in C++
        apply_raw = vars(torch.autograd.Function).get("apply")
        if isinstance(apply_raw, classmethod):
            self.patches.set(torch.autograd.Function, "apply", classmethod(self.lines.apply_wrapper(apply_raw.__func__)))
        # nn.Parameter(t) makes a leaf without a torch call the mode sees
        # (Tensor._make_subclass); a parameter a module registers is caught
        # there too, this one is not
        lines = self.lines

        def parameter_new(original):
            def __new__(cls, *args, **kwargs):
                param = original(cls, *args, **kwargs)
                lines._leaf(param)
                return param
            return __new__
        try:
            self.patches.wrap(torch.nn.Parameter, "__new__", parameter_new)
        except Exception as exc:  # another torch: parameters outside modules get no line
            ctx.internal_error("source_lines.parameter", exc)
        self.lines.install()

    def remove(self) -> None:
        lines = getattr(self, "lines", None)
        if lines is not None:
            lines.remove()
        super().remove()

    def contribute(self, trace) -> None:
        lines = getattr(self, "lines", None)
        if lines is None:
            return
        # (a statement over several lines: all of it, statement_text.py)
        line_of, leaf_line, code_of = lines.line_of, lines.leaf_line, StatementText(lines.filename).code
        codes: dict = {}
        # a graph's nodes were made in the thread that called its backward
        # (sequence numbers count per thread)
        thread_of = {run.graph: run.thread_id for run in trace.backward_runs}
        for cap in self.ctx.state.captures:
            thread = thread_of.get(cap.graph.id)
            nodes = cap.graph.nodes
            order = cap.order
            if not nodes or order is None or len(nodes) != len(order):
                continue
            for node, n in zip(nodes, order):
                if node.line is not None:
                    continue
                if node.kind == "leaf":
                    var = getattr(n, "variable", None)
                    line = leaf_line(var) if var is not None else None
                else:
                    line = line_of(n, thread)
                if line is None:
                    continue
                node.line = line
                code = codes.get(line, False)
                if code is False:
                    code = codes[line] = code_of(line)
                node.code = code
