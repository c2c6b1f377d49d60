"""What the engine says about packages and interpreters, in the UI language.

The worker explains a missing module with a code and parameters
(`ErrorInfo.code` "missing_module" / "missing_submodule",
engine/worker/missing_module.py) and the interpreter check reports data
(`InterpreterReport`, engine/protocol/interpreter.py); the sentences are made
here with tr(), so the learner reads them in their language. Anything without
a code keeps the English the engine sent.
"""

from __future__ import annotations

from typing import Optional

from PySide6.QtCore import QObject

from autogradviz.engine.protocol import interpreter as interp
from autogradviz.engine.protocol.distributions import install_target, valid_module
from autogradviz.engine.trace.model import ErrorInfo

INSTALL_SCHEME = "install:"


class EnvironmentTexts(QObject):
    """tr() for the environment feature (one translation context)."""

    def error_explanation(self, error: ErrorInfo, python: Optional[str] = None) -> Optional[str]:
        """The explanation of `error` in the UI language, or None (keep the engine's).

        A missing module's package and command are made here from the module
        name alone, for `python` (the interpreter that ran the script: a live
        run). Without `python` the error is a saved trace's: it names the
        module and offers nothing (the trace's `distribution` and `command`
        are data; a URL there would run someone else's code)."""
        code = getattr(error, "code", None)
        p = getattr(error, "params", None) or {}
        if code == "missing_module":
            module = p.get("module")
            target = install_target(module)
            if python is None or target is None:
                if not valid_module(module):
                    return self.tr("A module the script imports was not installed where it ran.")
                return self.tr(
                    "The module '{module}' was not installed in the Python that recorded this trace. Open "
                    "its script and run it here: the app then says how to install what is "
                    "missing.").format(module=module)
            command = interp.pip_install_command(python, [target])
            text = self.tr(
                "The module '{module}' is not installed in the Python that runs your scripts ({python}). "
                "Install the package '{distribution}' into it - with the link below, or in a terminal:\n"
                "    {command}\n"
                "then run the script again. (If '{module}' is a file of your own, put it in the "
                "script's folder.)").format(module=module, distribution=target, python=python, command=command)
            if p.get("pip") is False:
                text += " " + self.tr("This Python has no pip: first run {python} -m ensurepip, or install "
                                      "the package with your environment's own tool (conda install).").format(
                    python=python)
            return text
        if code == "missing_submodule" and isinstance(p.get("module"), str) and isinstance(p.get("top"), str):
            return self.tr(
                "The package '{top}' is installed, but it has no module '{module}': check the spelling, or "
                "whether your version of '{top}' has it (it may be newer or older than the code "
                "expects).").format(module=p["module"], top=p["top"])
        return None

    def error_actions(self, error: ErrorInfo, live: bool) -> list[tuple[str, str]]:
        """(link text, href) offered under the error: install a missing
        package, for a `live` run only (a saved trace offers nothing), the
        package derived from the module name (`install_target`)."""
        p = getattr(error, "params", None) or {}
        target = install_target(p.get("module"))
        if live and getattr(error, "code", None) == "missing_module" and target and p.get("pip") is not False:
            return [(self.tr("Install {name} into this Python…").format(name=target), INSTALL_SCHEME + target)]
        return []

    def interpreter_hint(self, python: str) -> str:
        """A line for a worker that could not start in another interpreter ("" for the app's own)."""
        if interp.same_interpreter(python):
            return ""
        return "\n" + self.tr("Scripts run with {python}, chosen in Tools ▸ Preferences: check it there "
                              "(it lists what is missing), or go back to the app's own Python.").format(python=python)

    def report_summary(self, report: interp.InterpreterReport) -> str:
        """One or two sentences: what the interpreter has, or what is wrong."""
        problem = report.problem
        if problem is None:
            if report.cuda_available:
                cuda = self.tr("CUDA visible: {devices}").format(devices=", ".join(report.cuda_devices) or "CUDA")
            else:
                cuda = self.tr("no CUDA device visible (scripts run on the CPU)")
            return self.tr("Python {python}, torch {torch}; {cuda}. Scripts can run here.").format(
                python=report.python_version, torch=report.torch_version, cuda=cuda)
        if problem == interp.NOT_FOUND:
            return self.tr("There is no file at this path.")
        if problem == interp.NOT_RUNNABLE:
            return self.tr("This file cannot be run as Python 3 ({detail}).").format(detail=report.detail)
        if problem == interp.PYTHON_TOO_OLD:
            return self.tr("Python {version} is too old: scripts need Python {need} or newer.").format(
                version=report.python_version, need=".".join(map(str, interp.MIN_PYTHON)))
        if problem == interp.MISSING_PACKAGES:
            text = self.tr("Python {python} here lacks {missing}, which scripts need to run in it. "
                           "Install with:\n    {command}").format(
                python=report.python_version, missing=", ".join(report.missing), command=report.install_command)
            if not report.has_pip:
                text += "\n" + self.tr("This Python has no pip: install them with your environment's own tool "
                                       "(conda install).")
            return text
        if problem == interp.TORCH_TOO_OLD:
            return self.tr("torch {version} is too old: scripts need torch {need} or newer.").format(
                version=report.torch_version, need=".".join(map(str, interp.MIN_TORCH)))
        if problem == interp.TORCH_BROKEN:
            return self.tr("torch is installed but importing it fails: {detail}").format(detail=report.detail)
        if problem == interp.ENGINE_FAILED:
            return self.tr("torch works, but the worker cannot start here: {detail}").format(detail=report.detail)
        if problem == interp.TIMED_OUT:
            return self.tr("The interpreter did not answer within {s} s.").format(s=int(interp.CHECK_TIMEOUT_S))
        return interp.describe(report)
