"""What `autogradviz WORD` means when WORD is not a known subcommand.

`autogradviz FILE.py` opens the app on a script and `autogradviz TRACE.json`
on a saved trace; anything else must say what is wrong in one line (exit 2)
instead of opening a window on the default lesson: a typo of a subcommand
(`autogradviz exprot x.py`) names the nearest one (difflib), a path that does
not exist says so. Standard library only: it runs before Qt is imported.
"""

from __future__ import annotations

import difflib
import os
from typing import Optional, Sequence

TRACE_SUFFIX = ".json"


def looks_like_path(word: str) -> bool:
    """A path rather than a (mistyped) command: it has a folder or a suffix."""
    return os.sep in word or "/" in word or "." in os.path.basename(word) or word.startswith("~")


def nearest_command(word: str, commands: Sequence[str]) -> Optional[str]:
    """The subcommand `word` most probably meant, or None when none is close."""
    found = difflib.get_close_matches(word.lower(), list(commands), n=1, cutoff=0.5)
    return found[0] if found else None


def open_target_problem(word: str, commands: Sequence[str]) -> Optional[str]:
    """Why `autogradviz WORD` cannot open the app on WORD (one line, no program
    name), or None when WORD is a file the app can open."""
    path = os.path.expanduser(word)
    if os.path.isfile(path):
        return trace_file_problem(path) if is_trace_file(path) else None
    if os.path.isdir(path):
        return f"{word} is a folder; give the path of a .py script or a saved .json trace"
    if os.path.lexists(path):
        return f"{word} is not a regular file"
    if looks_like_path(word):
        return f"{word}: no such file"
    guess = nearest_command(word, commands)
    listed = ", ".join(commands)
    if guess is not None:
        return f"unknown command {word!r} (did you mean {guess!r}? the commands are {listed})"
    return f"unknown command {word!r} (the commands are {listed}; to open a script give its path)"


def trace_file_problem(path: str) -> Optional[str]:
    """Why the saved trace at `path` cannot be opened (one line), or None.
    Only its `format` and `version` are looked at (the app reads the rest)."""
    from autogradviz.engine.trace import codec  # (msgspec; no Qt, no torch)

    try:
        with open(path, "rb") as f:
            codec.check_head(f.read())
    except OSError as exc:
        return f"{path}: cannot read the file: {exc.strerror or exc}"
    except codec.TraceDecodeError as exc:
        return f"{path}: {exc}"
    return None


def is_trace_file(path: str) -> bool:
    """`path` names a saved trace (opened as a trace, not as a script)."""
    return path.lower().endswith(TRACE_SUFFIX)
