"""Checking an interpreter from the GUI without blocking it: the same check
as `autogradviz trace --python` (engine/protocol/interpreter.py), run as a
QProcess; the report arrives by signal (importing torch there takes seconds).
"""

from __future__ import annotations

from typing import Optional

from PySide6.QtCore import QObject, QProcess, QProcessEnvironment, QTimer, Signal

from autogradviz.engine.protocol.interpreter import (CHECK_TIMEOUT_S, TIMED_OUT, InterpreterReport,
                                                     check_command, parse_check_output, precheck)


class InterpreterCheck(QObject):
    """One check at a time; a new `start` abandons the one going."""

    finished = Signal(object)  # InterpreterReport

    def __init__(self, parent: Optional[QObject] = None):
        super().__init__(parent)
        self._proc: Optional[QProcess] = None
        self._python = ""
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._timed_out)

    def is_running(self) -> bool:
        return self._proc is not None

    def start(self, python: str) -> None:
        self.cancel()
        self._python = python
        early = precheck(python)
        if early is not None:
            QTimer.singleShot(0, lambda: self.finished.emit(early))
            return
        argv, env = check_command(python)
        proc = QProcess(self)
        qenv = QProcessEnvironment()
        for key, value in env.items():
            qenv.insert(key, value)
        proc.setProcessEnvironment(qenv)
        proc.setProgram(argv[0])
        proc.setArguments(argv[1:])
        proc.finished.connect(self._on_finished)
        proc.errorOccurred.connect(self._on_error)
        self._proc = proc
        self._timer.start(int(CHECK_TIMEOUT_S * 1000))
        proc.start()

    def cancel(self) -> None:
        proc, self._proc = self._proc, None
        self._timer.stop()
        if proc is not None:
            proc.kill()
            proc.waitForFinished(2000)
            proc.deleteLater()

    def _on_finished(self, code: int, _status) -> None:
        proc = self.sender()
        if proc is not self._proc:
            return
        self._proc = None
        self._timer.stop()
        report = parse_check_output(self._python, code, bytes(proc.readAllStandardOutput().data()).decode("utf-8", "replace"),
                                    bytes(proc.readAllStandardError().data()).decode("utf-8", "replace"))
        proc.deleteLater()
        self.finished.emit(report)

    def _on_error(self, error) -> None:
        proc = self.sender()
        if proc is not self._proc or error != QProcess.ProcessError.FailedToStart:
            return
        self._proc = None
        self._timer.stop()
        proc.deleteLater()
        self.finished.emit(parse_check_output(self._python, None, "", proc.errorString()))

    def _timed_out(self) -> None:
        self.cancel()
        self.finished.emit(InterpreterReport(python=self._python, problem=TIMED_OUT))
