"""A script runs in its own folder, as `cd folder && python script.py` does:
data files and modules next to it are found, through the real worker and the
real CLI; unsaved text runs in the home folder; the worker's folder comes back."""

from __future__ import annotations

import os

from autogradviz.engine.trace.model import Trace

SCRIPT = """\
import os, sys
import helper_next_to_me
with open("data.csv") as f:
    print("data:", f.read().strip())
print("cwd:", os.getcwd())
print("path0:", sys.path[0])
print("helper:", helper_next_to_me.VALUE)
print("file:", __file__)
print("beside:", open(os.path.join(os.path.dirname(__file__), "data.csv")).readline().strip())
"""


def _project(tmp_path):
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "data.csv").write_text("a,b\n1,2\n")
    (folder / "helper_next_to_me.py").write_text("VALUE = 42\n")
    script = folder / "train.py"
    script.write_text(SCRIPT)
    return folder, script


def test_script_runs_in_its_folder_and_the_worker_folder_comes_back(worker, tmp_path):
    folder, script = _project(tmp_path)
    before = worker.run("import os\nprint(os.getcwd())\n", filename="<editor>").trace.stdout
    outcome = worker.run(script.read_text(), filename=str(script))
    assert outcome.status == "ok", outcome.message
    out = outcome.trace.stdout
    assert "data: a,b\n1,2" in out
    assert f"cwd: {folder}" in out
    assert f"path0: {folder}" in out
    assert "helper: 42" in out
    # The next run of unsaved text is in the home folder again, and the
    # script's folder is no longer on sys.path.
    after = worker.run("import os, sys\nprint(os.getcwd())\nprint(%r in sys.path)\n" % str(folder),
                       filename="<editor>").trace.stdout
    assert after == before.strip() + "\nFalse\n"
    assert before.strip() == os.path.expanduser("~")


def test_started_names_the_working_folder(worker, tmp_path):
    folder, script = _project(tmp_path)
    worker.send_raw('{"type": "run", "id": 9001, "source": "x = 1", "filename": %s}' % _json(str(script)))
    seen = {}
    while "trace" not in seen:
        msg = worker.next_message(timeout=60)
        assert msg is not None
        seen[msg["type"]] = msg
    assert seen["started"]["cwd"] == str(folder)


def _json(text: str) -> str:
    import json
    return json.dumps(text)


def test_cli_trace_runs_the_script_in_its_folder(tmp_path, cli):
    folder, script = _project(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    relative = os.path.relpath(script, elsewhere)
    r = cli("trace", relative, cwd=elsewhere)
    assert r.returncode == 0, r.stderr
    trace = Trace.from_json(r.stdout)
    assert "data: a,b\n1,2" in trace.stdout
    assert f"cwd: {folder}" in trace.stdout
    # As python 3.9+ does, __file__ is absolute: paths built from it still work.
    assert f"file: {script}" in trace.stdout and "beside: a,b" in trace.stdout
    assert trace.script == relative  # the trace names the script as it was given
