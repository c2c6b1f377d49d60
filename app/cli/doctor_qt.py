"""`autogradviz doctor`'s lines about the display and Qt's platform plugin.

The plugin is tried for real, in a subprocess (creating a QGuiApplication is
what aborts when the plugin or its libraries are missing, and an abort there
only ends the subprocess). When it fails, the missing system libraries come
from `ldd` of the xcb plugin and from Qt's own QT_DEBUG_PLUGINS messages, and
the command that installs them is named (display_check.py).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from typing import Callable, Optional

from autogradviz.app.cli.display_check import (
    display_problem, install_command, missing_libraries_in, missing_xcb_libraries, platform_name)

CHECK_TIMEOUT_S = 30.0
_CHECK = ("import sys\nfrom PySide6.QtGui import QGuiApplication\n"
          "app = QGuiApplication(sys.argv[:1])\nprint('platform=' + app.platformName())\n")


def try_platform(platform: Optional[str] = None) -> tuple[bool, str, str]:
    """(loaded, platform name or why not, Qt's messages): a QGuiApplication
    created in a subprocess, on `platform` (None: what the environment picks)."""
    env = dict(os.environ, QT_DEBUG_PLUGINS="1")
    if platform is not None:
        env["QT_QPA_PLATFORM"] = platform
    try:
        done = subprocess.run([sys.executable, "-c", _CHECK], capture_output=True, text=True,
                              timeout=CHECK_TIMEOUT_S, env=env)
    except subprocess.TimeoutExpired:
        return False, f"did not answer within {CHECK_TIMEOUT_S:g} s", ""
    except OSError as exc:
        return False, f"could not be tried ({exc})", ""
    for out_line in done.stdout.splitlines():
        if out_line.startswith("platform=") and done.returncode == 0:
            return True, out_line[len("platform="):], done.stderr
    if done.returncode < 0:
        try:
            how = f"Qt aborted ({signal.Signals(-done.returncode).name})"
        except ValueError:
            how = f"Qt was killed by signal {-done.returncode}"
    else:
        how = f"Qt exited with code {done.returncode}"
    return False, how, done.stderr


def report_qt_platform(line: Callable[[str, str], None]) -> int:
    """Print the display and platform-plugin lines through `line(name, value)`;
    the number of problems found (0 or 1)."""
    import importlib.util

    if importlib.util.find_spec("PySide6") is None:  # (said on the PySide6 line already)
        line("qt platform", "not checked: PySide6 is not installed")
        return 0
    no_display = display_problem()
    if no_display is not None:
        line("display", "none: the app cannot open a window here; `autogradviz export` and "
             "`autogradviz trace` work without one (set DISPLAY, or run under xvfb-run, for the app)")
        loaded, detail, _ = try_platform("offscreen")
        line("qt platform", f"offscreen {'ok (export works)' if loaded else 'FAILED: ' + detail}")
        return 0 if loaded else 1
    shown = os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY") or platform_name(os.environ)
    line("display", shown or "the system's")
    loaded, detail, messages = try_platform()
    if loaded:
        line("qt platform", f"{detail} ok")
        return 0
    line("qt platform", f"FAILED: {detail}")
    missing = list(dict.fromkeys(missing_xcb_libraries() + missing_libraries_in(messages)))
    if missing:
        line("missing libs", ", ".join(missing))
        command = install_command(missing)
        line("fix", f"{command}" if command else "install the packages that provide these libraries")
    else:
        last = [m for m in messages.splitlines() if m.strip()][-3:]
        line("qt says", " | ".join(last) or "nothing")
    return 1
