"""Screenshot driver for the README: open the app on the default lesson, run it,
step to STEP (default: the middle), select the node labelled NODE, grab the window.
SCRIPT=path opens and runs that script instead of the default lesson, LESSON=name
that lesson (as the lesson browser opens it); RUNNING=s grabs s seconds into that run; CALL=k
selects the k-th GradScaler call in its panel; PHASE=k shows frame k of the first checkpoint
recompute phase (after STEP); SAVED=1 turns on Show saved tensors; PANEL=id raises that dock (e.g.
memory, checkpoint, modules) before the grab; PRESENT=1 grabs presentation mode; READ=1 keeps a long lesson's reading pane open. W and H set the window size
(default 1600x1000; the app's own default is 1500x950). SWITCH="zh_CN dark"
switches language and theme live after the run, as a teacher would from the
View menu (what the switch re-renders in place is what the picture shows).

    xvfb-run -a .venv/bin/python docs/make_screenshot.py light|dark OUT.png [en|zh_CN]
"""
import os, sys, time
from autogradviz.app.startup import keep_none_alive
keep_none_alive()
from PySide6.QtCore import QCoreApplication, QTimer
from PySide6.QtWidgets import QApplication
from autogradviz.app import i18n
from autogradviz.app.services import settings
theme_name = sys.argv[1]; out = sys.argv[2]
lang = sys.argv[3] if len(sys.argv) > 3 else "en"
QCoreApplication.setOrganizationName("autogradviz-shot"); QCoreApplication.setApplicationName("shot")
app = QApplication([sys.argv[0]])
i18n.set_language(lang, save=False)
from autogradviz.app.window.main_window import MainWindow
from autogradviz.app.theme import ThemeManager
tm = ThemeManager(app); tm.apply(force=True)
w = MainWindow(theme_manager=tm, start_worker=True, restore_autosave=False)
w.set_theme_mode(theme_name)
w.resize(int(os.environ.get("W", 1600)), int(os.environ.get("H", 1000))); w.show()
if os.environ.get("SCRIPT") or os.environ.get("LESSON"):
    for _ in range(1500):  # the default lesson's run first (as at launch)
        app.processEvents(); time.sleep(0.02)
        if w.session.trace is not None and not w.status.layout_busy:
            break
    if os.environ.get("LESSON"):  # LESSON=name: open that lesson as the lesson browser does, and run it
        from autogradviz.app.resources_loader import lessons
        w.files.open_lesson(next(l for l in lessons() if l.name == os.environ["LESSON"]), run=False)
    else:
        w.files.open_file(os.environ["SCRIPT"], ask=False)
    if not os.environ.get("RUNNING"):  # (a grab while running shows the old graph dimmed under it)
        w.session.set_trace(None)
    w.run_script()
if os.environ.get("RUNNING"):  # RUNNING=s: grab s seconds into the run (the running overlay)
    t0 = time.time()
    while time.time() - t0 < float(os.environ["RUNNING"]):
        app.processEvents(); time.sleep(0.02)
    w.grab().save(out)
    print("saved", out, "while running")
    w.shutdown()
    raise SystemExit(0)
t0 = time.time()
while time.time() - t0 < 150:
    app.processEvents(); time.sleep(0.02)
    s = w.session
    if s.trace is not None and not w.status.layout_busy and time.time() - t0 > 3:
        break
for _ in range(50): app.processEvents(); time.sleep(0.02)
if not os.environ.get("READ"):  # READ=1: keep a long lesson's reading pane open (as it opens)
    w.reading_pane.put_away()  # (else as a learner's step key puts it away)
run = w.session.run if hasattr(w.session, "run") else None
n = 0
try:
    n = w.session.step_count
except Exception as e:
    print("no run", e)
step = int(os.environ.get("STEP", max(1, n // 2)))
w.session.set_step(step)
nid = os.environ.get("NODE")
if nid:
    for node in w.session.graph.nodes:
        if node.label == nid:
            w.session.select_node(node.id)
if os.environ.get("SAVED"):  # SAVED=1: Show saved tensors
    w.session.set_show_saved(True)
    t1 = time.time()
    while time.time() - t1 < 30 and (w.status.layout_busy or time.time() - t1 < 1):
        app.processEvents(); time.sleep(0.02)
if os.environ.get("PHASE"):  # PHASE=k: frame k of the first checkpoint recompute phase
    first = w.session.recompute.phase_steps()[:1]
    if first:
        w.session.recompute.enter(first[0], int(os.environ["PHASE"]))
if os.environ.get("CALL"):
    w.panels.widget("gradScaler").set_index(int(os.environ["CALL"]))
if os.environ.get("SWITCH"):
    to_lang, to_theme = os.environ["SWITCH"].split()
    w.set_language(to_lang)
    w.set_theme_mode(to_theme)
    for _ in range(50): app.processEvents(); time.sleep(0.02)
if os.environ.get("PRESENT"):  # View ▸ Presentation (F11)
    w.presentation.set_on(True)
if os.environ.get("PANEL"):
    dock = w.panels.dock(os.environ["PANEL"])
    dock.show(); dock.raise_()
for _ in range(50): app.processEvents(); time.sleep(0.02)
w.grab().save(out)
print("saved", out, "steps", n, "step", step)
w.shutdown()
