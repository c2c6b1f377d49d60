"""Run by tests/app/test_save_files.py as a subprocess: File > Save of a real
editor through the real FileController onto a disk that fills up half-way.

    python save_on_full_disk.py FOLDER MODE

MODE "fsize": the process may not write files past 4,096 bytes
(RLIMIT_FSIZE: every write beyond fails with EFBIG, as on a full disk);
MODE "tmpfs": FOLDER is a small tmpfs (the test mounts it in a user
namespace), filled up here before saving (ENOSPC). Prints one JSON line:
what save() returned, the message box's text, whether the file on disk is
still the original and whether the editor kept the new text.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import sys

FOLDER, MODE = sys.argv[1], sys.argv[2]
os.environ["QT_QPA_PLATFORM"] = "offscreen"
os.environ["XDG_CONFIG_HOME"] = os.path.join(FOLDER, "config")
os.environ["XDG_DATA_HOME"] = os.path.join(FOLDER, "data")

from PySide6.QtCore import QCoreApplication, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget  # noqa: E402

from autogradviz.app.panels.editor import CodeEditor  # noqa: E402
from autogradviz.app.panels.output import OutputPane  # noqa: E402
from autogradviz.app.window.file_controller import FileController  # noqa: E402

app = QApplication([])
QCoreApplication.setOrganizationName("autogradviz-tests")
QCoreApplication.setApplicationName("autogradviz-tests")
window = QWidget()
editor = CodeEditor()
files = FileController(window, editor, OutputPane())

path = os.path.join(FOLDER, "script.py")
original = "".join(f"x{i} = torch.ones(3) * {i}  # line {i:04d}\n" for i in range(49))
original = original[:1821 - 14] + "print('done')\n"
assert len(original.encode()) == 1821
with open(path, "w", encoding="utf-8") as f:
    f.write(original)
assert files.open_file(path, ask=False)
new_text = original + "".join(f"y{i} = x{i % 49} + 1\n" for i in range(600))  # (~8 KB)
editor.selectAll()
editor.insertPlainText(new_text)

from autogradviz.app.panels.lessons import edits as lesson_edits  # noqa: E402

assert lesson_edits.keep("01_lesson", original)  # kept edits and an autosave from before the disk filled
files.autosave.save_now()
autosaved = files.autosave.text_path.read_text(encoding="utf-8")
assert autosaved == new_text

if MODE == "fsize":
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # (a write past the limit fails with EFBIG)
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
else:  # fill the tmpfs: not one more block is free
    fd = os.open(os.path.join(FOLDER, "filler"), os.O_WRONLY | os.O_CREAT)
    try:
        while os.write(fd, b"\0" * 512):
            pass
    except OSError:
        pass
    os.close(fd)

editor.appendPlainText("z = 2\n" * 400)  # (the autosave's next copy: bigger than the space left)
try:
    files.autosave.save_now()
    autosave_raised = None
except OSError as exc:
    autosave_raised = repr(exc)
edits_kept = lesson_edits.keep("01_lesson", editor.toPlainText())
editor.undo()  # (back to new_text)
assert editor.toPlainText() == new_text

seen = []


def answer_message_box():
    box = QApplication.activeModalWidget()
    if isinstance(box, QMessageBox):
        seen.append(box.text())
        box.done(QMessageBox.Ok)
    else:
        QTimer.singleShot(20, answer_message_box)


QTimer.singleShot(0, answer_message_box)
saved = files.save()
with open(path, encoding="utf-8") as f:
    on_disk = f.read()
leftovers = sorted(n for n in os.listdir(FOLDER) if n not in ("script.py", "filler", "config", "data"))

def folder_files(folder):
    return sorted(os.listdir(folder))


print(json.dumps({"autosave_raised": autosave_raised,
                  "autosave_kept": files.autosave.text_path.read_text(encoding="utf-8") == autosaved,
                  "autosave_files": folder_files(files.autosave.text_path.parent),
                  "edits_kept": edits_kept, "edits_original": lesson_edits.kept("01_lesson") == original,
                  "edits_files": folder_files(lesson_edits.edits_dir()),
                  "saved": saved, "messages": seen, "original_kept": on_disk == original,
                  "size_on_disk": len(on_disk.encode()), "editor_kept_text": editor.toPlainText() == new_text,
                  "modified": editor.document().isModified(), "leftovers": leftovers}), flush=True)
