"""Can Qt open a window here? Asked before Qt is imported.

Without a display, or without the system libraries Qt's xcb platform plugin
needs (libxcb-cursor0 is the one Debian and Ubuntu leave out most often), Qt
prints a screen of plugin messages and aborts the process (SIGABRT, exit 134,
a core dump). The GUI asks here first and exits with status 2 and one line
that names the fix; `autogradviz doctor` reports the same, and tries the
plugin for real in a subprocess (a crash there is contained).

The missing libraries come from `ldd` of the plugin (it lists every missing
dependency, also indirect ones, at once); a Debian package name is derived
from each soname the way Debian names library packages (libxcb-cursor.so.0 ->
libxcb-cursor0, libxkbcommon-x11.so.0 -> libxkbcommon-x11-0). Standard
library only: it runs before PySide6 is imported.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from typing import Mapping, Optional

# Platform plugins that draw without a display server.
HEADLESS_PLATFORMS = ("offscreen", "minimal", "minimalegl", "vnc", "eglfs", "linuxfb", "vkkhrdisplay")
_NOT_FOUND = re.compile(r"^\s*(\S+)\s*=>\s*not found", re.MULTILINE)
_CANNOT_LOAD = re.compile(r"(lib[\w.+-]+\.so[\w.]*): cannot open shared object file")


def platform_name(env: Mapping[str, str]) -> str:
    """The platform plugin Qt will pick ("" = its default)."""
    return (env.get("QT_QPA_PLATFORM") or "").split(";")[0].split(":")[0].strip().lower()


def uses_display_server(platform: str = sys.platform) -> bool:
    """Only X11/Wayland systems need a display named in the environment."""
    return not (platform.startswith("win") or platform == "darwin")


def display_problem(env: Optional[Mapping[str, str]] = None, platform: str = sys.platform) -> Optional[str]:
    """Why no window can be opened here (one line), or None."""
    env = os.environ if env is None else env
    if not uses_display_server(platform):
        return None
    chosen = platform_name(env)
    if chosen in HEADLESS_PLATFORMS:
        return None
    has_x, has_wayland = bool(env.get("DISPLAY")), bool(env.get("WAYLAND_DISPLAY"))
    if chosen == "xcb" and has_x or chosen.startswith("wayland") and has_wayland:
        return None
    if not chosen and (has_x or has_wayland):
        return None
    needed = {"xcb": "DISPLAY is not"}.get(chosen, "WAYLAND_DISPLAY is not" if chosen.startswith("wayland")
                                             else "neither DISPLAY nor WAYLAND_DISPLAY is")
    return (f"no display to open the window on ({needed} set): run it in a desktop session, "
            "set DISPLAY (ssh -X, xvfb-run), or use `autogradviz export SCRIPT.py` or "
            "`autogradviz trace SCRIPT.py`, which need no display")


def x_display_unreachable(display: str) -> Optional[str]:
    """Why no X server answers at `display` (":0", "unix:1", "localhost:10.0"),
    or None when one does or it cannot be told. Qt's xcb plugin aborts the
    process when it cannot connect, so this is asked first (a connect, ~1 ms)."""
    import socket

    m = re.match(r"^(?P<host>[^:]*):(?P<number>\d+)(?:\.\d+)?$", display.strip())
    if m is None:
        return None  # (a launchd path on macOS, or a form this does not know: let Qt try)
    host, number = m.group("host"), int(m.group("number"))
    try:
        if host in ("", "unix"):
            for address in ("\0/tmp/.X11-unix/X%d" % number, "/tmp/.X11-unix/X%d" % number):
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                    sock.settimeout(1.0)
                    try:
                        sock.connect(address)
                        return None
                    except OSError:
                        continue
            return f"no X server answers at DISPLAY={display}"
        with socket.create_connection((host, 6000 + number), timeout=2.0):
            return None
    except OSError as exc:
        return f"no X server answers at DISPLAY={display} ({exc.strerror or exc})"
    except Exception:  # (an unusual platform without AF_UNIX and the like: let Qt try)
        return None


def xcb_plugin_path() -> Optional[str]:
    """Qt's xcb platform plugin of the installed PySide6, without importing it."""
    spec = importlib.util.find_spec("PySide6")
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        path = os.path.join(folder, "Qt", "plugins", "platforms", "libqxcb.so")
        if os.path.isfile(path):
            return path
    return None


def missing_libraries_in(text: str) -> list[str]:
    """Sonames `ldd` reported as "not found", or that a loader message (Qt's
    QT_DEBUG_PLUGINS output, a dlopen error) could not open, in order."""
    found = _NOT_FOUND.findall(text) + _CANNOT_LOAD.findall(text)
    return list(dict.fromkeys(found))


def missing_xcb_libraries() -> list[str]:
    """System libraries the xcb plugin needs and cannot find ([] when it has
    all of them, or when this cannot be told: no ldd, no plugin)."""
    plugin, ldd = xcb_plugin_path(), shutil.which("ldd")
    if plugin is None or ldd is None:
        return []
    try:
        done = subprocess.run([ldd, plugin], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return []
    return missing_libraries_in(done.stdout + done.stderr)


def debian_package(soname: str) -> str:
    """The Debian/Ubuntu package that normally ships `soname`
    (libxcb-cursor.so.0 -> libxcb-cursor0)."""
    name, _, version = soname.partition(".so")
    version = version.lstrip(".").split(".")[0]
    name = name.lower()
    if version and name[-1:].isdigit():
        name += "-"
    return name + version


def install_command(sonames: list[str]) -> Optional[str]:
    """The command that installs the packages holding `sonames`, where this
    system's package manager is known (apt-get), else None."""
    if not sonames or shutil.which("apt-get") is None:
        return None
    return "sudo apt-get install " + " ".join(dict.fromkeys(debian_package(s) for s in sonames))


def missing_libraries_problem(sonames: list[str]) -> Optional[str]:
    """One line naming the missing libraries and how to install them, or None."""
    if not sonames:
        return None
    command = install_command(sonames)
    fix = f"install them with `{command}`" if command else "install the packages that provide them"
    return (f"Qt's xcb platform plugin cannot load: missing system libraries {', '.join(sonames)}; "
            f"{fix} (details: `autogradviz doctor`)")


def gui_start_problem(env: Optional[Mapping[str, str]] = None) -> Optional[str]:
    """Why the GUI cannot start here (one line), or None: no display, or the
    xcb plugin lacking libraries while X11 is what Qt will use."""
    env = os.environ if env is None else env
    problem = display_problem(env)
    if problem is not None or not uses_display_server() or sys.platform == "darwin":
        return problem
    chosen = platform_name(env)
    if chosen == "xcb" or (not chosen and env.get("DISPLAY") and not env.get("WAYLAND_DISPLAY")):
        unreachable = x_display_unreachable(env.get("DISPLAY", ""))
        if unreachable is not None:
            return (f"{unreachable}, so the app cannot open its window: start it in your desktop session "
                    "or fix DISPLAY (ssh -X, xvfb-run), or use `autogradviz export SCRIPT.py` or "
                    "`autogradviz trace SCRIPT.py`, which need no display")
        return missing_libraries_problem(missing_xcb_libraries())
    return None
