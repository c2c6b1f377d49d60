"""A backward run as ONE self-contained web page: the screen's drawing, stepped in any browser.

The page holds the scene's SVG (scene_svg.py, the plain graph: every box,
edge, frame and region as on the screen) and, per step, what the scene
changes at that step - node states (current, done, pending), edge states
(gradient, current), the gradient labels and callouts as the scene placed
them, and the caption with the rule (captions.py) - taken from the same
scene after `apply_step`, so it is the same drawing, not a second renderer.
A small inline script toggles the classes and writes the labels with
`textContent` (never markup); next/previous/play, the arrow keys, a slider;
a click on a box shows its details (its title). No network: no external
script, font or image, and a Content-Security-Policy that allows none.

The step data is JSON inside `<script type="application/json">`, with `<`,
`>`, `&` and the line separators escaped, so no string from a script can end
the script element; everything else goes through the XML/HTML escaping of
engine/layout/escape.py.
"""

from __future__ import annotations

import json
from typing import Callable, Optional

from PySide6.QtCore import QRectF

from autogradviz.app.export import render as ex
from autogradviz.app.export.captions import caption_lines, session_for, tr
from autogradviz.app.export.files import ExportCancelled, ExportError, atomic_path
from autogradviz.app.export.scene_svg import (edge_classes, label_data, node_classes, scene_svg,
                                              visible_labels)
from autogradviz.engine.layout.escape import clean, xml_text
from autogradviz.engine.layout.svg_export import _id
from autogradviz.app.export.legend_export import legend_shown
from autogradviz.app.export.phase_export import phase_data
from autogradviz.app.export.scaler_stages import STAGE_KEYS, run_stages, stage_names
from autogradviz.app.graph import recompute_frames
from autogradviz.app.graph.checkpoint_regions import phase_lines
from autogradviz.engine.trace import replay

_PAGE_CSS = """
body{margin:0;font-family:'DejaVu Sans',sans-serif;background:BG;color:FG}
#bar{position:sticky;top:0;display:flex;gap:6px;align-items:center;padding:6px 10px;background:BG;
 border-bottom:1px solid #8888;z-index:2}
#bar button{font-size:14px;min-width:36px}
#step{flex:1}
#caption{white-space:pre-wrap;font-size:13px;padding:6px 10px;border-bottom:1px solid #8888}
#details{white-space:pre-wrap;font-size:12px;padding:6px 10px;min-height:1em}
#stages{padding:6px 10px 0 10px;font-size:12px}
#stages span{display:inline-block;padding:2px 7px;margin:0 4px 2px 0;border:1px solid #8888;border-radius:4px;opacity:.45}
#stages span.done{opacity:.75}
#stages span.now{opacity:1;font-weight:bold;border:2px solid CUR}
#scaler{white-space:pre-wrap;font-size:13px;padding:4px 10px 6px 10px}
#graph svg{display:block;max-width:100%;height:auto}
.node{cursor:pointer}
.node.picked .box{stroke-dasharray:4 2;stroke-width:2.4}
"""

_SCRIPT = r"""
(function(){
"use strict";
var D = JSON.parse(document.getElementById("steps").textContent);
var svg = document.querySelector("#graph svg");
var NS = "http://www.w3.org/2000/svg";
var layer = document.createElementNS(NS, "g");
layer.setAttribute("id", "labels");
svg.appendChild(layer);
var phaseLayer = document.createElementNS(NS, "g");
phaseLayer.setAttribute("class", "phase");
svg.insertBefore(phaseLayer, layer);
var overlays = [];  // the checkpoint regions, then the "not stored" chips (scene_svg.py: overlay-k)
for (var o = 0; document.getElementById("overlay-" + o); o++) {
  var og = document.getElementById("overlay-" + o);
  overlays.push([og, og.getAttribute("class")]);
}
var byId = {};
svg.querySelectorAll(".node,.edge").forEach(function(g){ byId[g.id] = g; });
var base = {};
Object.keys(byId).forEach(function(id){ base[id] = byId[id].getAttribute("class"); });
var STATES = ["current", "done", "pending", "grad"];
var cur = -1, timer = null;
var slider = document.getElementById("step");
slider.max = String(D.steps.length - 1);
function classes(id, state){
  var cls = base[id].split(" ").filter(function(c){ return STATES.indexOf(c) < 0; });
  if (state) { cls = cls.concat(state.split(" ")); }
  byId[id].setAttribute("class", cls.join(" "));
}
function label(l){
  var g = document.createElementNS(NS, "g");
  g.setAttribute("class", "label " + l[0] + (l[6] ? " fresh" : ""));
  g.setAttribute("data-for", l[7]);
  var t = document.createElementNS(NS, "title");
  t.textContent = l[5].join("\n");
  g.appendChild(t);
  if (l[8]) {  // a label placed away from its edge or box: its leader line
    var ln = document.createElementNS(NS, "line");
    ln.setAttribute("class", "leader");
    ln.setAttribute("x1", l[8][0]); ln.setAttribute("y1", l[8][1]);
    ln.setAttribute("x2", l[8][2]); ln.setAttribute("y2", l[8][3]);
    g.appendChild(ln);
  }
  var r = document.createElementNS(NS, "rect");
  r.setAttribute("x", l[1]); r.setAttribute("y", l[2]);
  r.setAttribute("width", l[3]); r.setAttribute("height", l[4]); r.setAttribute("rx", "4");
  g.appendChild(r);
  l[5].forEach(function(line, i){
    var tx = document.createElementNS(NS, "text");
    tx.setAttribute("x", l[1] + 5);
    tx.setAttribute("y", l[2] + 2 + (i + 0.5) * D.lh);
    tx.setAttribute("xml:space", "preserve");
    if (i === 0) { tx.setAttribute("class", "first"); }
    tx.textContent = line;
    g.appendChild(tx);
  });
  layer.appendChild(g);
}
function el(tag, cls, parent, attrs){
  var e = document.createElementNS(NS, tag);
  if (cls) { e.setAttribute("class", cls); }
  for (var a in attrs) { if (Object.prototype.hasOwnProperty.call(attrs, a)) { e.setAttribute(a, attrs[a]); } }
  parent.appendChild(e);
  return e;
}
function box(r){ return {x: r[0], y: r[1], width: r[2], height: r[3]}; }
function phase(p){  // a checkpoint's recompute state, as the scene showed it (phase_export.py)
  while (phaseLayer.firstChild) { phaseLayer.removeChild(phaseLayer.firstChild); }
  overlays.forEach(function(ov, i){
    var cls = ov[1];
    if (p && i < D.nr && p.a === i) { cls += " active"; }
    if (p && i >= D.nr && p.f[i - D.nr]) {
      cls += " " + p.f[i - D.nr][0];
      var t = ov[0].querySelector("text");
      if (t) { t.textContent = p.f[i - D.nr][1]; }
    }
    ov[0].setAttribute("class", cls);
  });
  if (!p) { return; }
  if (p.lit) {
    var g = el("g", "rerun", phaseLayer, {"data-node": p.lit[4]});
    var b = box(p.lit); b.rx = "6";
    el("rect", "glow", g, b); el("rect", "", g, b);
  }
  if (p.ring) { var rb = box(p.ring); rb.rx = "6"; el("rect", "ring", phaseLayer, rb); }
  if (p.panel) {
    var pg = el("g", "phase-panel", phaseLayer, {});
    var pb = box(p.panel); pb.rx = "5";
    el("rect", "", pg, pb);
    p.panel[4].forEach(function(line, i){
      var tx = el("text", line[1], pg, {x: p.panel[0] + 8, y: p.panel[1] + 4 + (i + 0.5) * D.lh});
      tx.setAttribute("xml:space", "preserve");
      tx.textContent = line[0];
    });
  }
}
function stages(g){  // the GradScaler stage of this position (scaler_stages.py)
  var box = document.getElementById("stages");
  if (!box) { return; }
  box.querySelectorAll("span").forEach(function(sp, i){
    sp.className = !g ? "" : (i === g[0] ? "now" : (i < g[0] ? "done" : ""));
  });
  document.getElementById("scaler").textContent = g ? g[1] : "";
}
function show(k){
  k = Math.max(0, Math.min(D.steps.length - 1, k));
  var state = {};
  for (var i = 0; i <= k; i++) {
    var ch = D.steps[i].c;
    for (var id in ch) { if (Object.prototype.hasOwnProperty.call(ch, id)) { state[id] = ch[id]; } }
  }
  Object.keys(byId).forEach(function(id){ classes(id, state[id] || ""); });
  while (layer.firstChild) { layer.removeChild(layer.firstChild); }
  D.steps[k].l.forEach(label);
  phase(D.steps[k].p);
  stages(D.steps[k].g);
  document.getElementById("caption").textContent = D.steps[k].t.join("\n");
  slider.value = String(k);
  cur = k;
  document.body.setAttribute("data-step", String(k));
}
function play(){
  if (timer) { clearInterval(timer); timer = null; return; }
  if (cur >= D.steps.length - 1) { show(0); }
  timer = setInterval(function(){
    if (cur >= D.steps.length - 1) { clearInterval(timer); timer = null; return; }
    show(cur + 1);
  }, 900);
}
document.getElementById("prev").onclick = function(){ show(cur - 1); };
document.getElementById("next").onclick = function(){ show(cur + 1); };
document.getElementById("first").onclick = function(){ show(0); };
document.getElementById("last").onclick = function(){ show(D.steps.length - 1); };
document.getElementById("play").onclick = play;
slider.oninput = function(){ show(parseInt(slider.value, 10)); };
document.addEventListener("keydown", function(e){
  if (e.key === "ArrowRight") { show(cur + 1); e.preventDefault(); }
  else if (e.key === "ArrowLeft") { show(cur - 1); e.preventDefault(); }
  else if (e.key === "Home") { show(0); } else if (e.key === "End") { show(D.steps.length - 1); }
  else if (e.key === " ") { play(); e.preventDefault(); }
});
svg.addEventListener("click", function(e){
  var g = e.target.closest ? e.target.closest(".node") : null;
  svg.querySelectorAll(".node.picked").forEach(function(n){ n.classList.remove("picked"); });
  var box = document.getElementById("details");
  if (!g) { box.textContent = ""; return; }
  g.classList.add("picked");
  var t = g.querySelector("title");
  box.textContent = t ? t.textContent : "";
});
var at = /^#step=(\d+)$/.exec(location.hash);  // a link to one position: run.html#step=12
show(at ? parseInt(at[1], 10) : D.start);
if (location.hash === "#timing") {  // (benchmarks: ms from navigation start to a stepped page)
  var tm = document.createElement("pre");
  tm.id = "timing";
  tm.textContent = String(Math.round(performance.now()));
  document.body.appendChild(tm);
}
if (location.hash === "#walk") {  // (tests: what each position lights, read back from the DOM)
  var seen = [], rerun = [], scaler = [];
  for (var k = 0; k < D.steps.length; k++) {
    show(k);
    scaler.push(document.getElementById("scaler") ? document.getElementById("scaler").textContent : "");
    if (D.steps[k].f) {
      var r = phaseLayer.querySelector(".rerun");
      var act = svg.querySelector(".checkpoint-region.active");
      rerun.push([r ? r.getAttribute("data-node") : "", act ? act.id : ""]);
      continue;
    }
    if (D.steps[k].s) { continue; }
    var lit = [];
    svg.querySelectorAll(".node.current").forEach(function(n){ lit.push(n.getAttribute("data-node") || n.id); });
    seen.push(lit.sort().join(","));
  }
  [["walk", seen], ["walk-rerun", rerun], ["walk-scaler", scaler]].forEach(function(w){
    var pre = document.createElement("pre");
    pre.id = w[0];
    pre.textContent = JSON.stringify(w[1]);
    document.body.appendChild(pre);
  });
}
})();
"""


def _cleaned(v):
    """Every string as escape.clean makes it (control characters as Control
    Pictures, a lone surrogate as U+FFFD), as in the SVG: a page holds no
    string a browser cannot encode."""
    if isinstance(v, str):
        return clean(v)
    if isinstance(v, dict):
        return {clean(k): _cleaned(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_cleaned(x) for x in v]
    return v


def _json_for_html(data) -> str:
    """JSON that cannot end its <script> element nor start a comment/CDATA."""
    text = json.dumps(_cleaned(data), ensure_ascii=False, separators=(",", ":"))
    return (text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def _node_state(item, roots: set) -> str:
    return " ".join(c for c in node_classes(item, roots).split() if c in ("current", "done", "pending"))


def _edge_state(ei) -> str:
    return " ".join(c for c in edge_classes(ei).split() if c in ("current", "grad"))


def _state_of(scene, roots: set) -> dict:
    """Per svg id: the state classes the scene shows now ("" for none)."""
    out = {_id("node-", item.key): _node_state(item, roots) for item in scene.key_items.values()}
    out.update({f"edge-{ei.pos_index}": _edge_state(ei) for ei in scene.edge_items})
    return out


def _touched(scene, old, new) -> tuple[list, list]:
    """The node and edge items `apply_step` may restyle going from state
    `old` to `new` (the same rule as GraphScene.apply_step): a big graph's
    page is built from these, not from every item at every step."""
    so = old.status if old is not None else {}
    sn = new.status if new is not None else {}
    nodes = []
    for nid in {k for k in set(so) | set(sn) if so.get(k) != sn.get(k)}:
        nodes.extend(scene.node_items.get(nid, ()))
        for table in (scene.group_boxes, scene.stand_in_items):
            if nid in table:
                nodes.append(table[nid])
    eo = old.edge_grads if old is not None else {}
    en = new.edge_grads if new is not None else {}
    edges = []
    for t in set(eo) | set(en):
        if eo.get(t) is not en.get(t):
            edges.extend(scene.trace_edge_items.get(t, ()))
    for nid in {getattr(old, "current", None), getattr(new, "current", None)} - {None}:
        for item in scene.node_items.get(nid, ()):
            edges.extend(scene.in_edges.get(item.key, ()))
    return nodes, edges


def _positions(trace, run: int, n: int, stages) -> list[tuple[int, object, object]]:
    """The page's positions in playing order: (step, recompute frame or None,
    GradScaler stage after the last step or None)."""
    seq: list[tuple[int, object, object]] = [(k, f, None) for k, f in recompute_frames.sequence(trace, run, n)]
    if stages is not None:
        seq += [(n, None, st) for st in stages.after]
    return seq


def _stage_of(stages, k: int, frame, after) -> Optional[list]:
    if stages is None:
        return None
    st = after or (stages.at_start if k == 0 and frame is None else stages.during)
    return [STAGE_KEYS.index(st.key), st.text]


def _frame_caption(frame, n: int) -> list[str]:
    """A recompute sub-step's words: which checkpoint, which frame, the op now."""
    lines = [ex.recompute_caption(frame, n)]
    lines += [text for text, how in phase_lines(frame) if how in ("title", "now")]
    return lines


def write_webpage(scene, trace, run: int, path: str, title: str = "",
                  progress: Optional[Callable[[int, int], None]] = None,
                  cancelled: Optional[Callable[[], bool]] = None, legend=None) -> ex.ExportInfo:
    """One HTML file stepping through backward run `run` (step 0 to the last),
    with a checkpoint's recompute sub-steps and the GradScaler stages where
    the run has them; `legend`: the legend widget when the picture shows it."""
    from autogradviz.app.export.scene_svg import label_line_height

    if scene.graph is None or scene.layout is None:
        raise ExportError(tr("nothing to export: no graph is shown"))
    if not (0 <= run < len(trace.backward_runs)):
        raise ExportError(tr("no backward run {0} to export (the trace has {1})").format(
            run, len(trace.backward_runs)))
    n = replay.step_count(trace, run)
    session = session_for(trace, run)
    roots = set(scene.graph.roots)
    old = scene.state
    overlay = getattr(scene, "checkpoint_overlay", None)
    old_frame = overlay.frame if overlay is not None else None
    stages = run_stages(trace, run)
    positions = _positions(trace, run, n, stages)
    steps = []
    try:
        scene.apply_step(None)
        if overlay is not None:
            overlay.show_frame(None)
        prev = _state_of(scene, roots)  # the plain graph: what the page's SVG shows
        rect = ex.content_rect(scene)
        old_state, was_frame, state_k = None, False, None
        for i, (k, frame, after) in enumerate(positions):
            if cancelled is not None and cancelled():
                raise ExportCancelled(tr("export cancelled"))
            state = old_state if state_k == k else replay.state_at(trace, run, k)
            state_k = k
            scene.apply_step(state)
            if overlay is not None:
                overlay.show_frame(frame)
            if frame is not None or was_frame:  # (the inner graph's nodes: every item)
                now = _state_of(scene, roots)
                rect = rect.united(ex.content_rect(scene))
            else:
                nodes, edges = _touched(scene, old_state, state)
                now = {_id("node-", it.key): _node_state(it, roots) for it in nodes}
                now.update({f"edge-{ei.pos_index}": _edge_state(ei) for ei in edges})
            old_state, was_frame = state, frame is not None
            changed = {j: v for j, v in now.items() if prev.get(j, "") != v}
            prev.update(changed)
            labels = []
            for owner, lab in visible_labels(scene):
                d = label_data(lab)
                labels.append([d["kind"], d["x"], d["y"], d["w"], d["h"], d["lines"], d["fresh"], owner,
                               d.get("leader")])
                rect = rect.united(lab.sceneBoundingRect())  # (labels are all that grows the picture)
            text = _frame_caption(frame, n) if frame is not None else caption_lines(session, k)
            step: dict[str, object] = {"c": changed, "l": labels, "t": text}
            ph = phase_data(scene)
            if ph is not None:
                step["p"] = ph
            g = _stage_of(stages, k, frame, after)
            if g is not None:
                step["g"] = g
            if frame is not None:
                step["f"] = 1
            if after is not None:
                step["s"] = 1
            steps.append(step)
            if progress is not None:
                progress(i + 1, len(positions))
        scene.apply_step(None)
        if overlay is not None:
            overlay.show_frame(None)
        with legend_shown(scene, legend, rect) as shown:
            if shown is not None:
                rect = rect.united(shown.sceneBoundingRect().adjusted(-ex.MARGIN, -ex.MARGIN, ex.MARGIN, ex.MARGIN))
            svg = scene_svg(scene, rect or QRectF(0, 0, 10, 10), title=title, words=ex.svg_words(),
                            with_state=False, with_labels=False)
    finally:
        scene.apply_step(old)
        if overlay is not None:
            overlay.show_frame(old_frame)
    svg = svg.split("?>", 1)[1].lstrip() if svg.startswith("<?xml") else svg
    start = next((i for i, (k, f, a) in enumerate(positions) if k == min(1, n) and f is None and a is None), 0)
    nr = len(overlay.regions) if overlay is not None else 0
    data = {"steps": steps, "start": start, "lh": round(label_line_height(scene), 2), "nr": nr}
    st = scene.style
    css = (_PAGE_CSS.replace("BG", st.background.name()).replace("FG", st.text.name())
           .replace("CUR", st.current.name()))
    page_title = title or tr("Autograd graph: backward run {0}").format(run + 1)
    w = {k: xml_text(v) for k, v in (
        ("first", tr("First step (Home)")), ("prev", tr("Previous step (Left arrow)")),
        ("play", tr("Play / pause (Space)")), ("next", tr("Next step (Right arrow)")),
        ("last", tr("Last step (End)")), ("step", tr("Step")), ("details", tr("Click a box for its details")))}
    scaler_html = ""
    if stages is not None:
        scaler_html = ("<div id=\"stages\" aria-label=\"GradScaler\">" + "".join(
            f"<span>{xml_text(name)}</span>" for name in stage_names()) + "</div><div id=\"scaler\"></div>")
    html = "".join([
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">",
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">",
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
        f"<title>{xml_text(page_title)}</title><style>{css}</style></head><body>",
        "<div id=\"bar\">",
        f"<button id=\"first\" title=\"{w['first']}\">|\u25c0</button>",
        f"<button id=\"prev\" title=\"{w['prev']}\">\u25c0</button>",
        f"<button id=\"play\" title=\"{w['play']}\">\u25b6\u2016</button>",
        f"<button id=\"next\" title=\"{w['next']}\">\u25b6</button>",
        f"<button id=\"last\" title=\"{w['last']}\">\u25b6|</button>",
        f"<input id=\"step\" type=\"range\" min=\"0\" value=\"0\" "
        f"aria-label=\"{w['step']}\"></div>",
        scaler_html,
        "<div id=\"caption\" aria-live=\"polite\"></div>",
        f"<div id=\"graph\">{svg}</div>",
        f"<div id=\"details\" title=\"{w['details']}\"></div>",
        f"<script type=\"application/json\" id=\"steps\">{_json_for_html(data)}</script>",
        f"<script>{_SCRIPT}</script></body></html>\n",
    ])
    with atomic_path(path) as tmp:
        with open(tmp, "w", encoding="utf-8", newline="\n") as f:
            f.write(html)
    return ex.ExportInfo(path, "html", int(round(rect.width())) if rect else 0,
                         int(round(rect.height())) if rect else 0, frames=len(positions))
