"""input() in a script asks the client over the protocol (input_request /
input_reply); without an answer it gets end of input, as under
`python script.py < /dev/null`. Through the real worker and the real CLI."""

from __future__ import annotations

import subprocess
import sys

ASK = """\
name = input("Name? ")
age = int(input("Age? "))
print(f"hello {name}, next year {age + 1}")
import sys
rest = sys.stdin.read()
print("rest:", rest.splitlines())
"""


def _python_result(source: str, stdin: str) -> str:
    """What plain python prints for `source` with `stdin` as its input."""
    return subprocess.run([sys.executable, "-c", source], input=stdin, capture_output=True, text=True,
                          timeout=60).stdout


def test_input_lines_come_from_the_client_with_their_prompts(worker):
    answers = iter(["Ada", "36", "more", "lines"])
    prompts = []

    def on_input(prompt):
        prompts.append(prompt)
        return next(answers, None)

    outcome = worker.run(ASK, on_input=on_input)
    assert outcome.status == "ok", outcome.message
    assert prompts == ["Name? ", "Age? ", "", "", ""]
    # The same output as python with the same lines typed (the terminal's
    # echo of the typed text is not part of stdout, in either case).
    assert outcome.trace.stdout == _python_result(ASK, "Ada\n36\nmore\nlines\n")
    assert "hello Ada, next year 37" in outcome.trace.stdout


def test_without_an_answer_input_gets_eof_explained(worker):
    outcome = worker.run("x = input('Value: ')\n")
    assert outcome.status == "error"
    error = outcome.trace.error
    assert (error.type, error.message, error.line) == ("EOFError", "EOF when reading a line", 1)
    assert "without a console" in error.explanation
    assert outcome.trace.stdout == "Value: "
    # The worker still serves the next run.
    assert worker.run("print(1)\n").trace.stdout == "1\n"


def test_eof_ends_the_loop_over_stdin(worker):
    source = "import sys\nfor line in sys.stdin:\n    print(line.strip().upper())\nprint('end')\n"
    lines = iter(["a", "b"])
    outcome = worker.run(source, on_input=lambda _p: next(lines, None))
    assert outcome.trace.stdout == "A\nB\nend\n" == _python_result(source, "a\nb\n")


def test_cli_says_in_one_line_that_a_traced_script_has_no_console(tmp_path, cli):
    script = tmp_path / "ask.py"
    script.write_text("name = input('Name? ')\nprint(name)\n")
    r = cli("trace", script, "-o", tmp_path / "t.json")
    assert r.returncode == 1
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 2, r.stderr  # the explanation, then the error as for any script error
    assert "no console input" in lines[0] and "input()" in lines[0] and "'Name?'" in lines[0]
    assert "EOFError" in lines[1]


def test_time_spent_answering_does_not_count_against_the_timeout(worker):
    import time

    def slow_answer(_prompt):
        time.sleep(2.5)
        return "late"

    outcome = worker.run("print(input('? '))\n", timeout=2.0, on_input=slow_answer)
    assert outcome.status == "ok", outcome.message
    assert outcome.trace.stdout == "? late\n"


def test_stdin_buffer_reads_the_same_lines_as_bytes(worker):
    source = ("import sys\nfirst = sys.stdin.buffer.readline()\nprint(repr(first))\n"
              "print(repr(sys.stdin.buffer.read()))\nprint(repr(sys.stdin.buffer.read()))\n")
    lines = iter(["größe 3", "b", "c"])
    outcome = worker.run(source, on_input=lambda _p: next(lines, None))
    assert outcome.status == "ok", outcome.message
    assert outcome.trace.stdout == _python_result(source, "größe 3\nb\nc\n")
    assert "b'b\\nc\\n'" in outcome.trace.stdout
