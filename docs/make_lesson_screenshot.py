"""Screenshot driver for the lesson browser: open LESSON (a lesson name), run it,
follow its "what to look at" item LOOK (an index) when given, grab the window.
SEARCH=text types into the browser's search box. FORWARD=n then steps n times
(through a checkpoint's recompute frames where LOOK entered one).

    xvfb-run -a .venv/bin/python docs/make_lesson_screenshot.py light|dark OUT.png [en|zh_CN]
"""
import os, sys, time
from autogradviz.app.startup import keep_none_alive
keep_none_alive()
from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QApplication
from autogradviz.app import i18n
theme_name, out = sys.argv[1], sys.argv[2]
lang = sys.argv[3] if len(sys.argv) > 3 else "en"
QCoreApplication.setOrganizationName("autogradviz-shot"); QCoreApplication.setApplicationName("shot")
app = QApplication([sys.argv[0]])
i18n.set_language(lang, save=False)
from autogradviz.app.window.main_window import MainWindow
from autogradviz.app.theme import ThemeManager
from autogradviz.app.resources_loader import lessons


def wait(seconds, until=lambda: False):
    t0 = time.time()
    while time.time() - t0 < seconds and not until():
        app.processEvents(); time.sleep(0.02)


tm = ThemeManager(app); tm.apply(force=True)
w = MainWindow(theme_manager=tm, start_worker=True, restore_autosave=False)
w.set_theme_mode(theme_name)
w.resize(1600, 1000); w.show()
wait(60, lambda: w.session.trace is not None and not w.status.layout_busy)
name = os.environ.get("LESSON", "05_linear_function")
lesson = next(l for l in lessons() if l.name == name)
w.session.set_trace(None)
w.files.open_lesson(lesson, run=True)
wait(60, lambda: w.session.trace is not None and not w.status.layout_busy)
wait(1)
w.lessons_panel.select(name)
if os.environ.get("SEARCH"):
    w.lessons_panel.search.setText(os.environ["SEARCH"])
if os.environ.get("LOOK"):
    w.lessons_panel.look(int(os.environ["LOOK"]))
    wait(0.5)
    wait(5, lambda: not w.status.layout_busy)
    wait(0.3)
for _ in range(int(os.environ.get("FORWARD", 0))):  # FORWARD=n: n steps (or recompute frames) on
    w.stepper.go_forward()
    wait(0.2)
w.grab().save(out)
print("saved", out)
w.shutdown()
