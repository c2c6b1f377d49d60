"""Runs scripts and reports what the worker says: run/stop, worker state,
output, traces, crashes, timeouts, and the device selector.

A mixin of `MainWindow`. Strings use the "MainWindow" translation context
explicitly (QCoreApplication.translate) so they stay in one context for
translators and at run time (Qt looks them up by the window's class name).
"""

from __future__ import annotations

import os

from PySide6.QtCore import QCoreApplication, Qt

from autogradviz.engine.trace.model import Trace

from autogradviz.app.services import settings
from autogradviz.app.services.worker_process import CRASHED, FAILED, READY, STARTING


class RunReportsMixin:
    """Worker wiring and run reporting for `MainWindow`."""

    def _connect_worker(self) -> None:
        w = self.worker
        w.stateChanged.connect(self._on_worker_state)
        w.readyInfo.connect(self._on_ready)
        w.outputReceived.connect(self._on_output)
        w.traceReady.connect(self._on_trace)
        w.traceFailed.connect(self._on_trace_failed)
        w.crashed.connect(self._on_crashed)
        w.timedOut.connect(self._on_timed_out)
        w.runStopped.connect(self._on_stopped)
        w.runCancelled.connect(self._on_cancelled)
        w.valuesArrived.connect(self._on_values)

    def _connect_session(self) -> None:
        s = self.session
        s.valuesRequested.connect(self.worker.fetch)
        s.graphChanged.connect(lambda _gid: self._update_graph_label())
        s.traceChanged.connect(self._update_graph_label)
        gv = self.graph_view
        box = getattr(gv, "saved_box", None)
        if box is not None:  # keep View ▸ Show Saved Tensors and the view's checkbox in step
            box.toggled.connect(self._sync_show_saved)
        if hasattr(gv, "layoutStarted"):
            gv.layoutStarted.connect(self._on_layout_started)
            gv.layoutFinished.connect(self._on_layout_finished)
            gv.layoutFailed.connect(self._on_layout_failed)

    def run_script(self) -> None:
        """Send the editor's text to the worker (a run already going is cancelled)."""
        source = self.editor.toPlainText()
        self.editor.clear_error()
        self.output.clear()
        self._got_output = False
        if self._path:
            self._run_file = self._path
        elif self._lesson is not None:
            self._run_file = str(self._lesson.path)
        else:
            self._run_file = "<editor>"
        shown = os.path.basename(self._run_file) if self._run_file != "<editor>" else QCoreApplication.translate("MainWindow", "untitled.py")
        self.output.append_info(QCoreApplication.translate("MainWindow", "▶ Running {name} on {device}…").format(
            name=shown, device=self._device.upper()))
        self.worker.timeout_s = settings.run_timeout_s()
        self.worker.run(source, self._run_file, self._device)
        self._tick.start()
        self._update_worker_label()

    def stop_script(self) -> None:
        if not self.worker.stop():
            self.statusBar().showMessage(QCoreApplication.translate("MainWindow", "Nothing is running."), 3000)

    def _on_worker_state(self, state: str) -> None:
        if state in (READY, CRASHED, FAILED) and not self.worker.is_busy():
            self._tick.stop()
        self._update_worker_label()
        self.actions["stop"].setEnabled(self.worker.is_busy())

    def _on_ready(self, info: dict) -> None:
        self._update_device_combo()
        if info.get("cuda_available") and settings.get("run/device", "cpu") == "cuda":
            self.device_combo.setCurrentIndex(1)  # the user's last choice, now possible
            self._device = "cuda"
        self._update_worker_label()

    def _on_output(self, stream: str, text: str) -> None:
        self._got_output = True
        self.output.append_output(stream, text)

    def _on_trace(self, trace: Trace) -> None:
        self._last_trace = trace
        if not self._got_output:
            if trace.stdout:
                self.output.append_output("stdout", trace.stdout)
            if trace.stderr:
                self.output.append_output("stderr", trace.stderr)
        self.session.set_trace(trace)
        err = trace.error
        if err is not None:
            message = f"{err.type}: {err.message}"
            if err.explanation:
                message += "\n\n" + err.explanation
            self.editor.set_error(err.line, message)
            self.output.append_error(err.type, err.message, err.line, err.explanation,
                                     err.traceback, line_format=QCoreApplication.translate("MainWindow", "line {n}"),
                                     explanation_label=QCoreApplication.translate("MainWindow", "What this means:"))
        for note in getattr(trace, "notes", None) or []:
            if not note.startswith("internal:"):
                self.output.append_note(note)
        nodes = sum(len(g.nodes) for g in trace.graphs)
        seconds = f"{trace.duration_s:.2f}" if trace.duration_s is not None else "?"
        if not trace.graphs and err is None:
            self.output.append_info(QCoreApplication.translate("MainWindow", 
                "Finished in {s} s. No autograd graph was built: no tensor in the script requires grad "
                "(try requires_grad=True).").format(s=seconds))
        elif err is None:
            self.output.append_success(QCoreApplication.translate("MainWindow", 
                "Finished in {s} s: {g} graph(s), {n} nodes, {r} backward run(s). "
                "Step through them below the graph.").format(
                s=seconds, g=len(trace.graphs), n=nodes, r=len(trace.backward_runs)))
        self._update_graph_label()
        self._update_worker_label()
        self.runFinished.emit(trace)

    def _on_trace_failed(self, message: str) -> None:
        self.output.append_problem(QCoreApplication.translate("MainWindow", "The trace could not be read."), message)
        self._update_worker_label()

    def _on_crashed(self, message: str) -> None:
        if self.worker.state == FAILED:
            self.output.append_problem(
                QCoreApplication.translate("MainWindow", "The worker process could not be started."),
                QCoreApplication.translate("MainWindow", "It {how}.").format(how=message) + "\n"
                + QCoreApplication.translate("MainWindow", "Check that torch is installed in this Python (run `autogradviz doctor`), "
                          "then press Run to try again."))
            self._clear_graph()
            self._update_worker_label()
            return
        self.output.append_problem(
            QCoreApplication.translate("MainWindow", "The worker process stopped unexpectedly."),
            QCoreApplication.translate("MainWindow", "It {how}.").format(how=message) + "\n"
            + QCoreApplication.translate("MainWindow", "Your code is safe in the editor; a fresh worker is starting."))
        self._clear_graph()
        self._update_worker_label()

    def _on_timed_out(self, seconds: float) -> None:
        self.output.append_problem(
            QCoreApplication.translate("MainWindow", "Stopped: the script ran longer than the run timeout ({s} s).").format(
                s=int(round(self.worker.timeout_s))),
            QCoreApplication.translate("MainWindow", "Change it in Run ▸ Run Timeout…, or look for an endless loop."))
        self._clear_graph()

    def _on_cancelled(self) -> None:
        self.output.append_info(QCoreApplication.translate("MainWindow", "Previous run cancelled."))

    def _on_stopped(self) -> None:
        self.output.append_problem(QCoreApplication.translate("MainWindow", "Stopped."), QCoreApplication.translate("MainWindow", "The script was ended by Stop."))
        self._clear_graph()
        self._tick.stop()
        self._update_worker_label()

    def _clear_graph(self) -> None:
        """The run produced no trace: the previous graph no longer matches the code."""
        if self.session.trace is not None:
            self.session.set_trace(None)
        self._last_trace = None
        self._update_graph_label()

    def _on_values(self, tensor_id: str, summary, error) -> None:
        self.session.deliver_values(tensor_id, summary, error)

    def _update_worker_label(self) -> None:
        state = self.worker.state if hasattr(self, "worker") else STARTING
        busy = self.worker.is_busy() if hasattr(self, "worker") else False
        if busy and state == STARTING:
            text = QCoreApplication.translate("MainWindow", "Starting the worker (importing torch), then running…")
        elif busy:
            text = QCoreApplication.translate("MainWindow", "Running {s:.1f} s").format(s=self.worker.running_seconds())
        elif state == STARTING:
            text = QCoreApplication.translate("MainWindow", "Worker starting (importing torch)…")
        elif state == READY:
            version = self.worker.info.get("torch_version", "")
            text = QCoreApplication.translate("MainWindow", "Worker ready · torch {v}").format(v=version) if version else QCoreApplication.translate("MainWindow", "Worker ready")
        elif state == CRASHED:
            text = QCoreApplication.translate("MainWindow", "Worker crashed · restarting")
        elif state == FAILED:
            text = QCoreApplication.translate("MainWindow", "Worker failed to start · press Run to retry")
        else:
            text = QCoreApplication.translate("MainWindow", "Worker stopped")
        self.worker_label.setText(text)
        self.busy.setVisible(busy or state in (STARTING, CRASHED) or self._layout_busy)
        if hasattr(self, "actions"):
            self.actions["stop"].setEnabled(busy)

    def _update_device_combo(self) -> None:
        if not hasattr(self, "device_combo"):
            return
        model = self.device_combo.model()
        item = model.item(1)
        info = self.worker.info if hasattr(self, "worker") else {}
        available = bool(info.get("cuda_available"))
        item.setEnabled(available)
        if available:
            names = ", ".join(info.get("cuda_devices") or [])
            tip = QCoreApplication.translate("MainWindow", "Run on the GPU: {names}").format(names=names or "CUDA")
        elif info:
            tip = QCoreApplication.translate("MainWindow", "CUDA is not available: the worker's torch {v} reports no usable GPU "
                          "(CPU-only build or no driver).").format(v=info.get("torch_version", "?"))
        else:
            tip = QCoreApplication.translate("MainWindow", "Waiting for the worker to report whether a GPU is available.")
        item.setToolTip(tip)
        self.device_combo.setItemData(1, tip, Qt.ToolTipRole)
        self.device_combo.setItemData(0, QCoreApplication.translate("MainWindow", "Run on the CPU"), Qt.ToolTipRole)
        self.device_combo.setToolTip(QCoreApplication.translate("MainWindow", "Device the script runs on (its `device` variable)") + "\n" + tip)
        if not available and self.device_combo.currentIndex() == 1:
            self.device_combo.setCurrentIndex(0)
        if not available:
            self._device = "cpu"

    def _device_changed(self, index: int) -> None:
        self._device = self.device_combo.itemData(index) or "cpu"
        settings.put("run/device", self._device)
