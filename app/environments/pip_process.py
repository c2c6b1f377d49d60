"""pip in the background: `PY -m pip install NAME` (or uninstall) as a
QProcess, so the window stays responsive while it downloads and builds.

Its output (stdout and stderr merged, in order) streams out line by line for
the log; `cancel` ends pip (terminate, then kill: pip rolls back an
interrupted install on SIGTERM). pip's own settings apply as usual (its config
files and PIP_* environment variables such as PIP_INDEX_URL), exactly as in a
terminal. Like Thonny's package manager, this never imports pip into the
app's own process.
"""

from __future__ import annotations

from typing import Optional

from PySide6.QtCore import QObject, QProcess, QProcessEnvironment, QTimer, Signal

from autogradviz.engine.protocol.interpreter import pip_install_arguments

KILL_GRACE_MS = 1500
CANCELLED = -2
FAILED_TO_START = -1


class PipProcess(QObject):
    """One pip command at a time."""

    output = Signal(str)           # text pip printed (a chunk, in order)
    finished = Signal(bool, int)   # success, exit code (CANCELLED, FAILED_TO_START)

    def __init__(self, parent: Optional[QObject] = None):
        super().__init__(parent)
        self._proc: Optional[QProcess] = None
        self._cancelled = False
        self._kill_timer = QTimer(self)
        self._kill_timer.setSingleShot(True)
        self._kill_timer.timeout.connect(self._kill)
        self.command: list[str] = []

    def is_running(self) -> bool:
        return self._proc is not None and self._proc.state() != QProcess.ProcessState.NotRunning

    @staticmethod
    def command_for(python: str, distributions: list[str], uninstall: bool = False) -> list[str]:
        """The exact command `install` / `uninstall` runs (the dialog shows it before it runs)."""
        if uninstall:
            arguments = ["pip", "uninstall", "--yes", "--disable-pip-version-check", *distributions]
        else:
            arguments = [*pip_install_arguments(distributions), "--progress-bar", "off"]
        return [python, "-m", *arguments]

    def install(self, python: str, distributions: list[str]) -> None:
        self._start(python, self.command_for(python, distributions)[2:])

    def uninstall(self, python: str, distributions: list[str]) -> None:
        self._start(python, self.command_for(python, distributions, uninstall=True)[2:])

    def cancel(self) -> None:
        if not self.is_running():
            return
        self._cancelled = True
        assert self._proc is not None  # (running)
        self._proc.terminate()
        self._kill_timer.start(KILL_GRACE_MS)

    def wait(self, ms: int = 3000) -> None:
        """Block until pip ended (closing the app: leave nothing running)."""
        if self.is_running():
            assert self._proc is not None  # (running)
            self._proc.kill()
            self._proc.waitForFinished(ms)

    def _start(self, python: str, arguments: list[str]) -> None:
        if self.is_running():
            raise RuntimeError("pip is already running")
        proc = QProcess(self)
        env = QProcessEnvironment.systemEnvironment()
        env.insert("PYTHONIOENCODING", "utf-8")
        env.insert("PYTHONUNBUFFERED", "1")
        proc.setProcessEnvironment(env)
        proc.setProcessChannelMode(QProcess.ProcessChannelMode.MergedChannels)
        proc.setProgram(python)
        proc.setArguments(["-m", *arguments])
        proc.readyReadStandardOutput.connect(self._read)
        proc.finished.connect(self._on_finished)
        proc.errorOccurred.connect(self._on_error)
        self.command = [python, "-m", *arguments]
        self._cancelled = False
        self._proc = proc
        proc.start()

    def _read(self) -> None:
        proc = self.sender()
        if isinstance(proc, QProcess):
            text = bytes(proc.readAllStandardOutput().data()).decode("utf-8", "replace")
            if text:
                self.output.emit(text)

    def _kill(self) -> None:
        if self.is_running():
            assert self._proc is not None  # (running)
            self._proc.kill()

    def _on_error(self, error) -> None:
        proc = self.sender()
        if error == QProcess.ProcessError.FailedToStart and proc is self._proc:
            self.output.emit(proc.errorString() + "\n")
            self._proc = None
            proc.deleteLater()
            self.finished.emit(False, FAILED_TO_START)

    def _on_finished(self, code: int, status) -> None:
        proc = self.sender()
        if proc is not self._proc or not isinstance(proc, QProcess):
            return
        self._kill_timer.stop()
        rest = bytes(proc.readAllStandardOutput().data()).decode("utf-8", "replace")
        if rest:
            self.output.emit(rest)
        self._proc = None
        proc.deleteLater()
        if self._cancelled:
            self.finished.emit(False, CANCELLED)
        else:
            self.finished.emit(status == QProcess.ExitStatus.NormalExit and code == 0, int(code))
