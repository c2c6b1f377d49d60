"""The child relay (engine/worker/children.py) with real workers and real
spawned children: its key is on no command line, its socket folder goes
also when the worker was killed mid-run, and two processes printing at once
show whole lines, as under python.
"""

from __future__ import annotations

import ast
import os
import re
import signal
import tempfile
import textwrap
import threading

import pytest

from autogradviz.engine.protocol.client import WorkerClient

posix_only = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="/proc, AF_UNIX relay")

SPAWN_TWO = textwrap.dedent('''
    import multiprocessing as mp
    import os

    def child(rank, barrier):
        with open(f"/proc/{os.getpid()}/cmdline", "rb") as f:  # (what `ps` shows of this child)
            cmdline = f.read().replace(b"\\0", b" ").decode()
        print("CMDLINE", rank, repr(cmdline), flush=True)
        print("ENV", rank, "AUTOGRADVIZ_RELAY_KEY" in os.environ, flush=True)
        barrier.wait()
        for i in range(200):
            print(rank, [3.0, 3.0, 3.0, 3.0], i, flush=True)

    if __name__ == "__main__":
        ctx = mp.get_context("spawn")
        barrier = ctx.Barrier(2)
        ranks = [ctx.Process(target=child, args=(r, barrier)) for r in range(2)]
        for p in ranks:
            p.start()
        for p in ranks:
            p.join()
        print("PARENT ENV", "AUTOGRADVIZ_RELAY_KEY" in os.environ)
''')


@pytest.fixture(scope="module")
def two_ranks(worker, tmp_path_factory):
    """One run of SPAWN_TWO (a saved file: spawned children import it)."""
    path = tmp_path_factory.mktemp("ranks") / "ranks.py"
    path.write_text(SPAWN_TWO, encoding="utf-8")
    outcome = worker.run(SPAWN_TWO, filename=str(path), timeout=180)
    assert outcome.status == "ok", (outcome.message, outcome.trace.stderr)
    return outcome.trace


@posix_only
def test_the_relays_key_is_on_no_command_line(two_ranks):
    lines = [line for line in two_ranks.stdout.splitlines() if line.startswith("CMDLINE")]
    assert len(lines) == 2, two_ranks.stdout[-2000:]
    for line in lines:
        cmdline = ast.literal_eval(line.split(" ", 2)[2])
        assert "child_main" in cmdline  # (the child is ours: recorded, and it reached the relay)
        cfg = ast.literal_eval(re.search(r"child_main\((\{.*?\})", cmdline).group(1))
        assert "key" not in cfg
        assert not re.search(r"[0-9a-f]{32}", cmdline), cmdline
    # the key was in the child's environment only until the child took it
    assert sorted(line for line in two_ranks.stdout.splitlines() if line.startswith("ENV")) == \
        ["ENV 0 False", "ENV 1 False"]
    assert "PARENT ENV False" in two_ranks.stdout


@posix_only
def test_prints_of_two_processes_stay_whole_lines(two_ranks):
    """`print(rank, list, i, flush=True)` in two processes at once: each
    print one line, as python's line-buffered stdout makes it (the pieces
    of the two prints used to interleave: `10  [3.0, ...][3.0, ...]`)."""
    lines = [line for line in two_ranks.stdout.splitlines()
             if not line.startswith(("CMDLINE", "ENV", "PARENT"))]
    whole = re.compile(r"[01] \[3\.0, 3\.0, 3\.0, 3\.0\] \d+")
    broken = [line for line in lines if not whole.fullmatch(line)]
    assert not broken, broken[:5]
    for rank in "01":
        assert [int(line.split()[-1]) for line in lines if line[0] == rank] == list(range(200))


def _new_relay_folders(before: set, pgid: int | None = None) -> list[str]:
    """Relay folders made since `before`; with `pgid`, only those of processes in
    that group (other workers - a test's shared worker, another run on the
    machine - make theirs at the same time)."""
    base = tempfile.gettempdir()
    names = [n for n in set(os.listdir(base)) - before if n.startswith("autogradviz_relay_")]
    if pgid is not None:
        names = [n for n in names if _group_of(int(n.split("_")[2])) == pgid]
    return [os.path.join(base, n) for n in names]


def _group_of(pid: int) -> int | None:
    try:
        return os.getpgid(pid)
    except (ProcessLookupError, PermissionError):
        return None


@posix_only
def test_a_killed_workers_relay_folder_is_removed_by_the_next_worker(tmp_path):
    script = tmp_path / "waits.py"
    script.write_text(textwrap.dedent('''
        import multiprocessing as mp
        import time

        def child():
            print("child up", flush=True)
            time.sleep(120)

        if __name__ == "__main__":
            p = mp.get_context("spawn").Process(target=child)
            p.start()
            p.join()
    '''), encoding="utf-8")
    before = set(os.listdir(tempfile.gettempdir()))
    up = threading.Event()
    first = WorkerClient()
    first.start()
    pgid = first.ready_info["pgid"]
    done = []
    runner = threading.Thread(target=lambda: done.append(first.run(
        script.read_text(), filename=str(script), timeout=180,
        on_output=lambda stream, text: "child up" in text and up.set())), daemon=True)
    runner.start()
    try:
        assert up.wait(120), "the child never printed"
        folders = _new_relay_folders(before, pgid)
        assert len(folders) == 1 and os.path.isdir(folders[0])
        os.killpg(pgid, signal.SIGKILL)  # the worker and its child, mid-run: no close() runs
        runner.join(60)
        assert done and done[0].status == "crashed"
        assert os.path.isdir(folders[0])  # (left behind by the dead worker)
        with WorkerClient() as second:
            second.start()
            assert not os.path.exists(folders[0])
    finally:
        first.close()
