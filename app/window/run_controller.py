"""Runs scripts and reports what the worker says: run and stop, the script's
output, traces, crashes, timeouts (with the line that was running), progress on
long work, and the device selector.

The worker crosses the process boundary with codes and data; this module turns
them into text in the UI language (`tr`). A note or a reason code it does not
know is shown in the English the worker sent with it, so a newer worker still
says something useful to an older app.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Mapping, Optional, Union, cast

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import QComboBox, QInputDialog, QWidget

from autogradviz.engine.trace.model import Note, NoteRecord, Trace
from autogradviz.engine.trace.notes import NOTES

from autogradviz.app.environments.texts import EnvironmentTexts
from autogradviz.app.features import note_text as feature_note_text
from autogradviz.app.panels.editor import CodeEditor
from autogradviz.app.panels.output import OutputPane
from autogradviz.app.services import settings
from autogradviz.app.services.worker_process import FAILED, WorkerProcess
from autogradviz.app.session import TraceSession
from autogradviz.app.window.error_texts import ErrorTexts
from autogradviz.app.window.output_texts import OutputTexts
from autogradviz.app.window.status_bar import WindowStatus

EDITOR_FILE = "<editor>"


class RunController(QObject):
    """Sends the editor's text to the worker and reports the answer in the
    output pane, the editor (error and timeout lines), the session and the
    status bar. `script_file()` names the file the text belongs to."""

    runFinished = Signal(object)  # Trace, after it reached the session
    busyChanged = Signal(bool)    # a run is going (Stop is possible)

    def __init__(self, window: QWidget, worker: WorkerProcess, session: TraceSession, editor: CodeEditor,
                 output: OutputPane, status: WindowStatus, device_combo: QComboBox,
                 script_file: Callable[[], str]):
        super().__init__(window)
        self._window = window
        self.worker = worker
        self._session = session
        self._editor = editor
        self._output = output
        self._status = status
        self._combo = device_combo
        self._script_file = script_file
        self._device = "cpu"  # applied when the worker says what it has (`on_ready`)
        self._got_output = False
        self._env_texts = EnvironmentTexts(self)
        self._error_texts = ErrorTexts(self)
        self._said = OutputTexts(output, self)  # our Output lines, said again on a language switch
        editor.installEventFilter(self)  # a live language switch says the error again
        device_combo.activated.connect(self._device_chosen)  # user choices only
        # Bound methods only: the worker may outlive this window (tests share one),
        # and Qt drops a connection to a deleted receiver, never one to a lambda.
        w = worker
        w.stateChanged.connect(self._on_state)
        w.readyInfo.connect(self.on_ready)
        w.outputReceived.connect(self._on_output)
        w.workingFolder.connect(self._on_working_folder)
        w.inputRequested.connect(self._on_input_requested)
        w.stateChanged.connect(self._end_input_unless_running)
        output.inputSubmitted.connect(self._on_input_sent)
        w.traceReady.connect(self._on_trace)
        w.traceFailed.connect(self._on_trace_failed)
        w.crashed.connect(self._on_crashed)
        w.timedOut.connect(self._on_timed_out)
        w.progress.connect(self.on_progress)
        w.runStopped.connect(self._on_stopped)
        w.runCancelled.connect(self._on_cancelled)
        w.valuesArrived.connect(session.deliver_values)
        session.valuesRequested.connect(w.fetch)
        w.gradientChecked.connect(session.deliver_gradient_check)
        session.gradientCheckRequested.connect(w.check_gradient)

    @property
    def device(self) -> str:
        """"cpu" or "cuda": where the next run goes."""
        return self._device

    @property
    def _device(self) -> str:
        """The device is the worker configuration's (engine/protocol/worker_config.py),
        which every worker the app starts shares; this controller chooses it."""
        return self.worker.config.device

    @_device.setter
    def _device(self, device: str) -> None:
        self.worker.config.device = device

    # -- commands ------------------------------------------------------------------
    def run_script(self) -> None:
        """Send the editor's text to the worker (a run already going is cancelled)."""
        source = self._editor.toPlainText()
        self._editor.clear_error()
        self._editor.clear_stopped_line()
        self._output.clear()
        self._said.clear()
        self._got_output = False
        run_file = self._script_file() or EDITOR_FILE
        device = self._device.upper()
        self._output.append_info(self._said.say(lambda: self.tr("▶ Running {name} on {device}…").format(
            name=os.path.basename(run_file) if run_file != EDITOR_FILE else self.tr("untitled.py"), device=device)))
        self.worker.timeout_s = settings.run_timeout_s()
        # (`config`: the worker's configuration, also the comparison run's: app/panels/memory/comparison_run.py)
        self._session.run_request = {"source": source, "filename": run_file, "device": self._device,
                                     "config": self.worker.config}
        self.worker.run(source, run_file, self._device)
        self._status.run_started()
        self.busyChanged.emit(self.worker.is_busy())

    def stop_script(self) -> None:
        if not self.worker.stop():
            self._status.show_message(self.tr("Nothing is running."), 3000)

    def ask_timeout(self) -> None:
        value, ok = QInputDialog.getInt(self._window, self.tr("Run timeout"),
                                        self.tr("Stop a script after this many seconds:"),
                                        settings.run_timeout_s(), 1, 3600)
        if ok:
            settings.put("run/timeout_s", value)
            self.worker.timeout_s = value

    # -- what the worker reports ------------------------------------------------------
    def on_ready(self, info: dict) -> None:
        self.update_devices()
        if info.get("cuda_available") and settings.get("run/device", "cpu") == "cuda":
            self._combo.setCurrentIndex(1)  # the user's last choice, now possible
            self._device = "cuda"
        self._status.update_worker()

    def on_run_timed_out(self, line: Optional[int]) -> None:
        """The worker said which line of the script was running when the run
        timeout stopped it: mark it in the editor and say so in the output."""
        if line is None or not self._editor.mark_stopped_line(line, self.tr(
                "The script was running this line when the run timeout stopped it.")):
            return
        self._output.append_info(self.tr("It was running line {n} when it was stopped.").format(n=line))

    def on_progress(self, code: str, params: Mapping[str, Any]) -> None:
        """The worker's progress on long work (e.g. code "summarising" with
        {"nodes": N, "done": k}), shown in the status bar while the run lasts."""
        if code == "finite_differences":  # a check's, not a run's: the box shows it
            self._session.deliver_gradient_check_progress(params)
            return
        self._status.set_progress(code, params)

    def _on_state(self, _state: str) -> None:
        self.busyChanged.emit(self.worker.is_busy())

    def _on_cancelled(self) -> None:
        self._output.append_info(self.tr("Previous run cancelled."))

    def _on_input_requested(self, prompt: str) -> None:
        """The script waits in input(): the Output pane asks the learner (the timeout is paused)."""
        self._output.request_input(prompt)

    def _on_input_sent(self, text) -> None:
        self.worker.send_input(text)

    def _end_input_unless_running(self, state: str) -> None:
        if not self.worker.waiting_for_input():
            self._output.end_input()

    def _on_working_folder(self, folder: str) -> None:
        """Where the script runs: its own folder, or home for text never saved."""
        if self._script_file():
            self._output.append_info(self._said.say(lambda: self.tr("Working folder: {folder}").format(
                folder=folder)))
        else:
            self._output.append_info(self._said.say(lambda: self.tr(
                "Working folder: {folder} (your home folder: the script is not saved; save it to run it "
                "in its own folder)").format(folder=folder)))

    def _on_output(self, stream: str, text: str) -> None:
        self._got_output = True
        self._output.append_output(stream, text)

    def _on_trace(self, trace: Trace) -> None:
        self.show_trace(trace)

    def show_trace(self, trace: Trace, saved_file: Optional[str] = None) -> None:
        """Put a trace on screen: a run's, or one opened from `saved_file`
        (shown as it was recorded; its error line is marked in the editor only
        when the editor holds the code it was recorded from)."""
        out = self._output
        if saved_file is not None:
            out.clear()
            self._said.clear()
            self._editor.clear_error()
            self._editor.clear_stopped_line()
            out.append_info(self.tr("Saved trace {path}: recorded from {script} with torch {torch} on {device}. "
                                    "No worker holds its tensors: only the values saved in it can be shown.").format(
                path=saved_file, script=trace.script or "?", torch=trace.torch_version or "?",
                device=(trace.device or "?").upper()))
        if saved_file is not None or not self._got_output:
            if trace.stdout:
                out.append_output("stdout", trace.stdout)
            if trace.stderr:
                out.append_output("stderr", trace.stderr)
        self._session.set_trace(trace, saved_file=saved_file)
        err = trace.error
        if err is not None:
            explanation = self.error_explanation(err)
            if saved_file is None or trace.source == self._editor.toPlainText():
                self._editor.set_error(err.line, self._error_message(err))
            if err.line:  # the link to the line, "(line n)"
                self._said.say(lambda: "({0})".format(self.tr("line {n}").format(n=err.line)))
            if explanation:  # (the pane writes the label, a space, the explanation)
                self._said.say(lambda: self.tr("What this means:") + " " + (self.error_explanation(err) or ""))
            out.append_error(err.type, err.message, err.line, explanation, err.traceback,
                             line_format=self.tr("line {n}"), explanation_label=self.tr("What this means:"))
            for text, href in self._env_texts.error_actions(err, live=saved_file is None):  # install a missing package
                out.append_action(text, href)
        for i, text in enumerate(self.note_texts(trace)):
            def nth_note(i: int = i, text: str = text) -> str:  # (said again in a new language)
                return _nth(self.note_texts(trace), i, text)
            out.append_note(self._said.say(nth_note))
        nodes = sum(len(g.nodes) for g in trace.graphs)
        seconds = f"{trace.duration_s:.2f}" if trace.duration_s is not None else "?"
        if not trace.graphs and err is None:
            out.append_info(self._said.say(lambda: self.tr(
                "Finished in {s} s. No autograd graph was built: no tensor in the script requires grad "
                "(try requires_grad=True).").format(s=seconds)))
        elif err is None:
            out.append_success(self._said.say(lambda: self.tr(
                "Finished in {s} s: {g} graph(s), {n} nodes, {r} backward run(s). "
                "Step through them below the graph.").format(
                s=seconds, g=len(trace.graphs), n=nodes, r=len(trace.backward_runs))))
        if saved_file is None:
            self._status.stop_clock()
            self.runFinished.emit(trace)
        else:
            self._status.update_graph()

    def error_explanation(self, err) -> Optional[str]:
        """The explanation of the script's error in the UI language (the
        worker's English for a code this app does not know)."""
        live = self._session.saved_file is None  # a saved trace's error offers no command
        return (self._env_texts.error_explanation(err, self.worker.python if live else None)
                or self._error_texts.explanation(err) or err.explanation)

    def _error_message(self, err) -> str:
        explanation = self.error_explanation(err)
        return f"{err.type}: {err.message}" + ("\n\n" + explanation if explanation else "")

    def eventFilter(self, obj, event) -> bool:  # noqa: N802
        if obj is self._editor and event.type() == QEvent.Type.LanguageChange:
            trace = self._session.trace
            err = trace.error if trace is not None else None
            if err is not None and self._editor.error_line is not None:
                self._editor.set_error(self._editor.error_line, self._error_message(err))
        return False

    def note_texts(self, trace: Trace) -> list[str]:
        """The trace's notes in the UI language, internal ones left out.

        One record per note (code, params, English text: engine/trace/notes.py
        registers the codes); a trace from before the records pairs `notes[i]`
        with `note_codes[i]` only when the two line up (`Trace.note_list`), so
        a note never gets another's code: one without a code shows its English."""
        texts = []
        for note in trace.note_list():
            kind = NOTES.get(note.code)
            if (kind is not None and kind.internal) or note.code.startswith("internal") or (
                    note.text.startswith("internal:")):
                continue
            texts.append(self.note_text(note if note.code else None, note.text))
        return texts

    def note_text(self, note: Optional[Union[Note, NoteRecord]], english: str) -> str:
        """One note in the UI language; the English text for a code this app does not know."""
        params = note.params if note is not None else {}
        code = note.code if note is not None else None
        text = feature_note_text(code, params)  # a feature's own notes (checkpoint: app/features/)
        if text:
            return text

        def count(name):
            value = params.get(name)
            return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else None

        if code in ("output_capped", "output_truncated") and count("total") and (count("cap") or count("kept")):
            return self.tr("The script printed {total} characters; only the first {cap} are kept.").format(
                total=count("total"), cap=count("cap") or count("kept"))
        if code == "module_paths_cut" and count("count") and count("parts") and count("chars"):
            return self.tr("{count} module path(s) in this trace were deeper than {parts} parts or longer than "
                           "{chars} characters; they are shown cut to that.").format(
                count=count("count"), parts=count("parts"), chars=count("chars"))
        if code == "nonleaf_grad_read":
            line = params.get("line")
            where = self.tr(" (line {0})").format(line) if isinstance(line, int) else ""
            return self.tr("Warning{where}: Reading .grad of a non-leaf tensor: autograd only stores "
                           "gradients in the .grad of leaf tensors (the ones you created with "
                           "requires_grad=True), so this is None. To keep the gradient of an intermediate "
                           "tensor, call t.retain_grad() before backward(), or use "
                           "torch.autograd.grad(output, t).").format(where=where)
        if code == "runs_truncated" and count("calls") and count("recorded"):
            return self.tr("{calls} backward/grad calls; only the first {recorded} were recorded in full.").format(
                calls=count("calls"), recorded=count("recorded"))
        if code == "runs_unrecorded_threads" and count("calls"):  # (engine/worker/run_tags.py)
            return self.tr("{n} backward call(s) waited too long for another thread's call to be recorded "
                           "and ran unrecorded.").format(n=count("calls"))
        return english

    def _on_trace_failed(self, message: str) -> None:
        self._output.append_problem(self.tr("The trace could not be read."), message)
        self._status.stop_clock()

    def _on_crashed(self, message: str) -> None:
        if self.worker.state == FAILED:
            self._output.append_problem(
                self.tr("The worker process could not be started."),
                self.tr("It {how}.").format(how=message) + "\n"
                + self.tr("Check that torch is installed in this Python (run `autogradviz doctor`), "
                          "then press Run to try again.")
                + self._env_texts.interpreter_hint(self.worker.python))
        else:
            self._output.append_problem(
                self.tr("The worker process stopped unexpectedly."),
                self.tr("It {how}.").format(how=message) + "\n"
                + self.tr("Your code is safe in the editor; a fresh worker is starting."))
        self._clear_graph()
        self._status.update_worker()

    def _on_timed_out(self, _seconds: float, line: Optional[int] = None) -> None:
        self._output.append_problem(
            self.tr("Stopped: the script ran longer than the run timeout ({s} s).").format(
                s=int(round(self.worker.timeout_s))),
            self.tr("Change it in Run ▸ Run Timeout…, or look for an endless loop."))
        self._clear_graph()
        self._status.set_progress(None, {})
        self.on_run_timed_out(line if isinstance(line, int) else None)

    def _on_stopped(self) -> None:
        self._output.append_problem(self.tr("Stopped."), self.tr("The script was ended by Stop."))
        self._clear_graph()
        self._status.stop_clock()

    def _clear_graph(self) -> None:
        """The run produced no trace: the previous graph no longer matches the code."""
        if self._session.trace is not None:
            self._session.set_trace(None)
        self._status.update_graph()

    def report_layout_failure(self, message: str) -> None:
        self._output.append_problem(self.tr("The graph could not be laid out."), message)

    # -- the device selector --------------------------------------------------------------
    def update_devices(self) -> None:
        """Enable CUDA only when the worker reported a usable GPU; say why in the tooltip."""
        item = cast(QStandardItemModel, self._combo.model()).item(1)  # (a combo box's own model)
        info = self.worker.info
        available = bool(info.get("cuda_available"))
        item.setEnabled(available)
        if available:
            names = ", ".join(info.get("cuda_devices") or [])
            tip = self.tr("Run on the GPU: {names}").format(names=names or "CUDA")
        elif info:
            tip = self.tr("CUDA is not available: the worker's torch {v} reports no usable GPU "
                          "(CPU-only build or no driver).").format(v=info.get("torch_version", "?"))
        else:
            tip = self.tr("Waiting for the worker to report whether a GPU is available.")
        item.setToolTip(tip)
        self._combo.setItemData(1, tip, Qt.ItemDataRole.ToolTipRole)
        self._combo.setItemData(0, self.tr("Run on the CPU"), Qt.ItemDataRole.ToolTipRole)
        self._combo.setToolTip(self.tr("Device the script runs on (its `device` variable)") + "\n" + tip)
        if not available and self._combo.currentIndex() == 1:
            self._combo.setCurrentIndex(0)
        if not available:
            self._device = "cpu"

    def _device_chosen(self, index: int) -> None:
        self._device = self._combo.itemData(index) or "cpu"
        settings.put("run/device", self._device)


def _nth(items: list, i: int, default):
    return items[i] if i < len(items) else default
