/* combatsim live page: the map. The battlefield to scale (SVG, north up), every fighter where
 * the loader places it and every cover point; hovering or focusing a fighter draws its weapons'
 * range bands. Dragging a fighter or a cover point (or the arrow keys on a focused one) is an
 * edit of its `position`, made the form's way (window.combatsimPage.edit), so the YAML, the
 * figures and the form follow. A traced battle (the map's own button, or the trace panel's)
 * is replayed turn by turn: who moved where, who attacked whom and what came of it.
 *
 * The server gives everything drawn: POST /api/map (the battlefield) and POST /api/trace (its
 * "replay"); this file keeps no model of the rules of its own.
 */
"use strict";
(() => {
  const NS = "http://www.w3.org/2000/svg";
  const W = 640, PAD = 28, MIN_SPAN = 10, SNAP = 0.5, KEY_STEP = 1, KEY_BIG = 5;
  // fighters closer than STACKED px are drawn fanned out, FAN px apart (a marker is 16 px wide, 18 with its edge)
  const STACKED = 4, FAN = 20, GOLDEN_ANGLE = Math.PI * (3 - Math.sqrt(5));
  const MAX_LOG = 40; // shots listed per turn (a 500-fighter turn has hundreds)
  const MAP_PAGE = "map-" + Math.random().toString(36).slice(2, 10);
  const box = document.getElementById("map-panel");
  if (!box) return;
  const page = () => window.combatsimPage;
  const M = { field: null, seq: 0, timer: null, replay: null, step: 0, playing: null, geo: null, hover: null, focusKey: null, keyTimer: null, pending: new Map() };

  // ---------- the panel ----------
  box.innerHTML = `
    <h3 id="map-h">Map <span class="muted small" id="map-scale"></span></h3>
    <div class="map-wrap"><svg id="map-svg" role="group" aria-labelledby="map-h" aria-describedby="map-help"></svg></div>
    <p id="map-info" class="map-info small" role="status" aria-live="polite"></p>
    <p id="map-help" class="muted small">Drag a fighter or a cover point to move it; from the keyboard, Tab to the map, N and P pick a marker, the arrow keys move it (Shift: 5 m). Hover or focus a fighter for its weapons' ranges. Fighters on one spot are drawn fanned out around it. North is up.</p>
    <div id="map-legend" class="legend small"></div>
    <form id="map-replay-form" class="inline map-replay">
      <label>Battle <input type="number" id="map-battle" value="0" min="0" step="1"></label>
      <button type="submit" id="map-replay">Replay on the map</button>
      <span id="map-replay-status" class="muted small" role="status" aria-live="polite"></span>
    </form>
    <div id="map-steps" class="map-steps" hidden>
      <button type="button" id="map-prev" aria-label="Previous turn">◀</button>
      <input type="range" id="map-turn" min="0" max="0" value="0" aria-label="Turn shown">
      <button type="button" id="map-next" aria-label="Next turn">▶</button>
      <button type="button" id="map-play">Play</button>
      <button type="button" id="map-exit">Back to the scenario</button>
      <span id="map-turn-label" class="map-turn-label" role="status" aria-live="polite"></span>
    </div>
    <ul id="map-log" class="map-log small" aria-label="What happened in the turn shown"></ul>`;
  const $ = (id) => document.getElementById(id);
  const svg = $("map-svg");

  // ---------- helpers ----------
  function node(tag, attrs = {}, text = null) {
    const n = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) if (v != null && v !== false) n.setAttribute(k, v === true ? "" : v);
    if (text != null) n.textContent = text;
    return n;
  }
  const m1 = (v) => String(Number(Number(v).toFixed(1))); // meters as the YAML writes them: 3, 2.5
  const at = (p) => `(${m1(p[0])}, ${m1(p[1])})`;
  const colour = (side) => {
    const i = (M.field?.sides || []).indexOf(side);
    return (page()?.colours || [])[(i < 0 ? 0 : i) % 4] || "var(--side0)";
  };
  const snap = (v) => Math.round(v / SNAP) * SNAP;
  const esc = (t) => String(t ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));

  // ---------- loading the battlefield ----------
  function schedule() {
    clearTimeout(M.timer);
    M.timer = setTimeout(load, 120);
  }
  async function load() {
    const p = page();
    if (!p) return;
    const seq = ++M.seq;
    try {
      const source = p.source(); // null until a scenario is open
      if (!source) return;
      const field = await p.api("POST", "/api/map", source);
      if (seq !== M.seq) return;
      M.field = field;
      for (const [path, entry] of M.pending) if (entry.sent != null && entry.sent <= seq) M.pending.delete(path);
      box.classList.remove("stale");
      draw();
    } catch (e) {
      if (seq !== M.seq) return;
      box.classList.add("stale"); // the last good map stays, faded, until the edit is fixed
      $("map-info").textContent = "The map shows the last valid fight: " + e.message;
    }
  }
  document.addEventListener("combatsim:changed", () => {
    if (M.replay) stopReplay(); // a replay is of the fight before the edit
    schedule();
  });
  document.addEventListener("combatsim:trace", (ev) => {
    if (ev.detail?.replay) startReplay(ev.detail.replay, ev.detail.battle ?? 0);
  });

  // ---------- geometry: meters to the picture, north up, one scale for both axes ----------
  function geometry(points) {
    let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    for (const [x, y] of points) { x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y); }
    if (!isFinite(x0)) { x0 = y0 = 0; x1 = y1 = MIN_SPAN; }
    const grow = (lo, hi) => {
      const span = Math.max(hi - lo, MIN_SPAN), mid = (lo + hi) / 2, margin = span * 0.08 + 2;
      return [mid - span / 2 - margin, mid + span / 2 + margin];
    };
    [x0, x1] = grow(x0, x1); [y0, y1] = grow(y0, y1);
    const H = Math.round(Math.min(460, Math.max(200, (W - 2 * PAD) * (y1 - y0) / (x1 - x0) + 2 * PAD)));
    const scale = Math.min((W - 2 * PAD) / (x1 - x0), (H - 2 * PAD) / (y1 - y0));
    // the whole picture, centred on the fight: its meters at the left, right, top and bottom
    x0 -= ((W - scale * (x1 - x0)) / 2) / scale; x1 = x0 + W / scale;
    y1 += ((H - scale * (y1 - y0)) / 2) / scale; y0 = y1 - H / scale;
    return {
      W, H, scale, x0, x1, y0, y1,
      x: (mx) => (mx - x0) * scale,
      y: (my) => (y1 - my) * scale,
      mx: (px) => x0 + px / scale,
      my: (py) => y1 - py / scale,
    };
  }
  /** A round step for the grid: about every 60 px. */
  function gridStep(scale) {
    const want = 60 / scale;
    const p = Math.pow(10, Math.floor(Math.log10(want)));
    return [1, 2, 5, 10].map((k) => k * p).find((s) => s >= want) || 10 * p;
  }

  // ---------- drawing ----------
  function placesNow() {
    // where each fighter is drawn: the replay's turn, or the scenario (with drags not yet back)
    if (M.replay) {
      const r = M.replay, t = M.step;
      return t === 0 ? r.start.positions : r.turns[t - 1].positions;
    }
    return M.field.fighters.map((f) => {
      const moved = M.pending.get(f.path)?.p;
      return moved ? [moved[0] + f.offset[0], moved[1] + f.offset[1]] : f.position;
    });
  }
  function coverNow() {
    return M.field.cover_points.map((c) => M.pending.get(c.path)?.p || c.position);
  }
  function draw() {
    if (!M.field) return;
    const places = placesNow(), covers = coverNow();
    const all = [...places, ...covers];
    if (M.replay) for (const t of M.replay.turns) all.push(...t.positions);
    const g = (M.geo = geometry(all));
    const refocus = svg.contains(document.activeElement) ? document.activeElement.dataset.key : null;
    svg.replaceChildren();
    svg.setAttribute("viewBox", `0 0 ${g.W} ${g.H}`);
    Object.assign(svg.dataset, { scale: g.scale, x0: g.x0, y1: g.y1 });
    svg.append(node("defs", {}), grid(g));
    svg.querySelector("defs").innerHTML = `<marker id="map-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="context-stroke"/></marker>`;
    const rings = node("g", { class: "rings", "aria-hidden": "true" });
    svg.append(rings);
    covers.forEach((c, i) => svg.append(coverMarker(M.field.cover_points[i], c, g)));
    if (M.replay) svg.append(replayLayer(g));
    const dots = fanned(places, g);
    const spots = labelSpots(dots, covers, g);
    M.field.fighters.forEach((f, i) => svg.append(fighterMarker(f, i, places[i], g, spots[i], dots[i])));
    $("map-scale").textContent = `(grid: ${m1(gridStep(g.scale))} m)`;
    legend();
    rove(refocus);
    if (M.hover != null) showRanges(M.hover);
  }
  /** Where each fighter's name goes: right of its marker, else left, above or below, the first
   * place that runs into no other name, marker or cover point; null when none is free (the
   * name then shows on hover or focus; the marker's title and label keep it for a reader). */
  function labelSpots(dots, covers, g) {
    const boxes = [], hits = (a, b) => a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];
    const square = ([x, y], r) => [x - r, y - r, x + r, y + r];
    const things = [...dots.map((d) => square(d, 9)), ...covers.map((c) => square([g.x(c[0]), g.y(c[1])], 8))];
    return M.field.fighters.map((f, i) => {
      const [x, y] = dots[i], w = 6.3 * f.name.length;
      const tries = [
        { x: 11, y: 4, anchor: null, box: [x + 10, y - 8, x + 12 + w, y + 5] },
        { x: -11, y: 4, anchor: "end", box: [x - 12 - w, y - 8, x - 10, y + 5] },
        { x: 0, y: -12, anchor: "middle", box: [x - w / 2, y - 22, x + w / 2, y - 9] },
        { x: 0, y: 21, anchor: "middle", box: [x - w / 2, y + 9, x + w / 2, y + 22] },
      ];
      const spot = tries.find((t) => t.box[0] >= 0 && t.box[2] <= g.W && t.box[1] >= 0 && t.box[3] <= g.H
        && !boxes.some((b) => hits(b, t.box)) && !things.some((b) => b !== things[i] && hits(b, t.box)));
      if (spot) boxes.push(spot.box);
      return spot || null;
    });
  }
  /** Where each fighter's marker is drawn, in pixels: at its place, except that fighters on
   * one spot (within ``STACKED`` px, which would hide each other) are fanned out around it on
   * a sunflower spiral, the first at the spot. Only the drawing moves: the marker's label, its
   * data and a drag read its place in meters. */
  function fanned(places, g) {
    const dots = places.map((p) => [g.x(p[0]), g.y(p[1])]);
    const stacks = [];
    dots.forEach((d, i) => {
      const stack = stacks.find((s) => Math.abs(s.x - d[0]) < STACKED && Math.abs(s.y - d[1]) < STACKED);
      if (stack) stack.members.push(i); else stacks.push({ x: d[0], y: d[1], members: [i] });
    });
    for (const stack of stacks) {
      stack.members.forEach((i, k) => {
        const r = FAN * Math.sqrt(k), turn = k * GOLDEN_ANGLE;
        dots[i] = [stack.x + r * Math.cos(turn), stack.y + r * Math.sin(turn)];
      });
    }
    return dots;
  }
  // ---------- the keyboard: the map is one stop of the Tab order (a fight of 500 fighters is
  // not 500 stops before the form); N and P go from marker to marker, the arrow keys move one ----
  const markers = () => [...svg.querySelectorAll(".fighter"), ...svg.querySelectorAll(".cover[tabindex]")];
  /** The marker of ``key`` (else the last one focused, else the first fighter) takes the map's
   * place in the Tab order; focused if ``key`` was (the map was redrawn under the focus). */
  function rove(key) {
    const all = markers();
    const next = all.find((n) => n.dataset.key === (key ?? M.focusKey)) || all[0];
    for (const n of all) n.tabIndex = n === next ? 0 : -1;
    if (next && key != null) next.focus({ preventScroll: true });
  }
  svg.addEventListener("focusin", (ev) => {
    const key = ev.target.dataset?.key;
    if (key == null) return;
    M.focusKey = key;
    for (const n of markers()) n.tabIndex = n === ev.target ? 0 : -1;
  });
  svg.addEventListener("keydown", (ev) => {
    const step = { n: 1, N: 1, p: -1, P: -1 }[ev.key];
    if (!step || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const all = markers(), k = all.indexOf(document.activeElement);
    if (k < 0) return;
    ev.preventDefault();
    all[(k + step + all.length) % all.length].focus();
  });

  function grid(g) {
    const layer = node("g", { class: "grid-layer", "aria-hidden": "true" });
    const step = gridStep(g.scale);
    for (let x = Math.ceil(g.x0 / step) * step; x <= g.x1; x += step) {
      layer.append(node("line", { class: x === 0 ? "axis0" : "gridline", x1: g.x(x), x2: g.x(x), y1: 0, y2: g.H }));
      layer.append(node("text", { x: g.x(x) + 2, y: g.H - 4, class: "gridlabel" }, m1(x)));
    }
    for (let y = Math.ceil(g.y0 / step) * step; y <= g.y1; y += step) {
      layer.append(node("line", { class: y === 0 ? "axis0" : "gridline", x1: 0, x2: g.W, y1: g.y(y), y2: g.y(y) }));
      layer.append(node("text", { x: 3, y: g.y(y) - 3, class: "gridlabel" }, m1(y)));
    }
    // a scale bar: one grid step, in the corner
    const bx = g.W - 12 - step * g.scale, by = 16;
    layer.append(node("line", { class: "scalebar", x1: bx, x2: g.W - 12, y1: by, y2: by }));
    layer.append(node("text", { class: "gridlabel", x: g.W - 12, y: by - 4, "text-anchor": "end" }, `${m1(step)} m`));
    return layer;
  }
  function coverMarker(c, p, g) {
    const s = 14, x = g.x(p[0]), y = g.y(p[1]);
    const label = `${c.cover} cover at ${at(p)} m`;
    const el = node("g", { class: `cover ${c.cover}`, transform: `translate(${x},${y})`, tabindex: M.replay ? null : -1, role: "button",
      "aria-label": `${label}; arrow keys move it, N and P: the next and previous marker`, "data-key": c.path, "data-path": c.path, "data-x": p[0], "data-y": p[1] });
    el.append(node("rect", { x: -s / 2, y: -s / 2, width: s, height: s, rx: 2 }));
    if (c.cover === "partial") el.append(node("path", { d: `M${-s / 2},${s / 2} L${s / 2},${-s / 2} L${s / 2},${s / 2} z`, class: "half" }));
    el.append(node("title", {}, label));
    if (!M.replay) movable(el, { path: c.path, offset: [0, 0], from: p, group: [el] });
    return el;
  }
  function fighterMarker(f, i, p, g, spot, dot) {
    const [x, y] = dot;
    const r = M.replay, status = r ? (M.step === 0 ? r.start : r.turns[M.step - 1]) : null;
    const out = status ? status.out[i] : false, how = status ? status.status[i] : null;
    const cover = r ? "" : f.cover !== "none" ? `, ${f.cover} cover` : "";
    const words = `${f.name} (${f.side}) at ${at(p)} m${cover}${how && how !== "unhurt" ? ", " + how : ""}${out ? ", out of the fight" : ""}`;
    const el = node("g", {
      class: `fighter${out ? " out" : ""}${how === "dead" ? " dead" : ""}${f.cover !== "none" && !r ? " covered " + f.cover : ""}`,
      transform: `translate(${x},${y})`, tabindex: -1, role: "button", "data-key": f.name, "data-name": f.name, "data-side": f.side,
      "data-path": f.path || "", "data-x": p[0], "data-y": p[1],
      "aria-label": words + (r ? "" : "; arrow keys move it (Shift: 5 m), N and P: the next and previous marker"),
    });
    el.append(node("circle", { r: 8, fill: colour(f.side), class: "dot" }));
    if (out) el.append(node("path", { d: "M-5,-5 L5,5 M-5,5 L5,-5", class: "cross" }));
    const left = x > g.W - 120; // no free place: on the marker's right, shown on hover or focus
    const where = spot || { x: left ? -11 : 11, y: 4, anchor: left ? "end" : null };
    el.append(node("text", { x: where.x, y: where.y, "text-anchor": where.anchor, class: `name${spot ? "" : " crowded"}` }, f.name));
    el.append(node("title", {}, words));
    el.addEventListener("pointerenter", () => showRanges(i));
    el.addEventListener("pointerleave", () => hideRanges(i));
    el.addEventListener("focus", () => showRanges(i));
    el.addEventListener("blur", () => hideRanges(i));
    if (!r && f.path) {
      const group = () => [...svg.querySelectorAll(".fighter")].filter((n) => n.dataset.path === f.path);
      movable(el, { path: f.path, offset: f.offset, from: p, group: null, groupOf: group, fighter: i });
    }
    return el;
  }

  // ---------- weapon ranges on hover or focus ----------
  function showRanges(i) {
    M.hover = i;
    const f = M.field?.fighters[i], g = M.geo, layer = svg.querySelector(".rings");
    if (!f || !g || !layer) return;
    const p = placesNow()[i];
    layer.replaceChildren();
    const x = g.x(p[0]), y = g.y(p[1]);
    const lines = [];
    f.weapons.forEach((w, k) => {
      const dash = ["", "6 4", "2 3", "10 3 2 3"][k % 4];
      if (w.kind === "melee") {
        const reach = M.field.melee_range;
        layer.append(node("circle", { cx: x, cy: y, r: reach * g.scale, class: "ring melee", "data-weapon": w.name, "data-range": reach }));
        lines.push(`${w.name}: melee, ${m1(reach)} m`);
        return;
      }
      const first = f.weapons.find((x) => x.kind !== "melee") === w;
      w.bands.forEach((b, j) => {
        const last = j === w.bands.length - 1;
        if (!first && !last) return; // another weapon: its reach only (the line below has its bands)
        layer.append(node("circle", { cx: x, cy: y, r: b.to * g.scale, class: `ring band-${b.name}${last ? " max" : ""}`, "stroke-dasharray": dash || null, "data-weapon": w.name, "data-range": b.to }));
        const spot = labelSpot(x, y, b.to * g.scale, k, g);
        if (spot) layer.append(node("text", { ...spot, class: "ringlabel" }, first ? `${b.name} ${m1(b.to)} m` : `${w.name} ${m1(b.to)} m`));
      });
      if (w.blast_radius) lines.push(`${w.name}: ${w.bands.map((b) => `${b.name} ${m1(b.to)} m`).join(", ")}; blast ${m1(w.blast_radius)} m`);
      else lines.push(`${w.name}: ${w.bands.map((b) => `${b.name} ${m1(b.to)} m`).join(", ")}`);
    });
    $("map-info").textContent = `${f.name} (${f.side}) at ${at(p)} m · ` + (lines.join(" · ") || "no weapon");
  }
  /** Where on a ring its label shows inside the picture (each weapon on rays of its own). */
  function labelSpot(x, y, r, k, g) {
    if (r < 14) return null;
    for (const deg of [-45, -135, 45, 135, -90, 90, -20, -160, 20, 160]) {
      const a = ((deg - k * 12) * Math.PI) / 180, lx = x + Math.cos(a) * r, ly = y + Math.sin(a) * r;
      const anchor = Math.cos(a) < -0.1 ? "end" : "start";
      const room = anchor === "end" ? lx > 70 : lx < g.W - 70;
      if (room && lx > 4 && lx < g.W - 4 && ly > 12 && ly < g.H - 14) return { x: lx + (anchor === "end" ? -2 : 2), y: ly - 2, "text-anchor": anchor };
    }
    return null;
  }
  function hideRanges(i) {
    if (M.hover !== i) return;
    const active = document.activeElement;
    if (active && svg.contains(active) && active.dataset.name && active.dataset.name !== M.field?.fighters[i]?.name) return;
    M.hover = null;
    svg.querySelector(".rings")?.replaceChildren();
    $("map-info").textContent = "";
  }

  // ---------- moving: drag, or arrow keys ----------
  /** Pointer and keyboard moves of a marker; ``spec.path`` is the field set, ``spec.offset``
   * this copy's offset from the member's position (copies of a member move together). */
  function movable(el, spec) {
    el.classList.add("movable");
    el.addEventListener("pointerdown", (ev) => {
      if (ev.button !== 0) return;
      ev.preventDefault();
      el.focus({ preventScroll: true });
      el.setPointerCapture(ev.pointerId);
      const start = toMeters(ev), from = [Number(el.dataset.x), Number(el.dataset.y)];
      const group = spec.groupOf ? spec.groupOf() : spec.group;
      const origins = group.map((n) => [Number(n.dataset.x), Number(n.dataset.y)]);
      let moved = null;
      const move = (e) => {
        const now = toMeters(e);
        const d = [snap(from[0] + now[0] - start[0]) - from[0], snap(from[1] + now[1] - start[1]) - from[1]];
        moved = d;
        group.forEach((n, k) => place(n, [origins[k][0] + d[0], origins[k][1] + d[1]]));
        if (spec.fighter != null) showRangesAt(spec.fighter, [from[0] + d[0], from[1] + d[1]]);
      };
      const up = () => {
        el.removeEventListener("pointermove", move);
        el.removeEventListener("pointerup", up);
        el.removeEventListener("pointercancel", up);
        if (moved && (moved[0] || moved[1])) commit(spec, [from[0] + moved[0], from[1] + moved[1]], true);
      };
      el.addEventListener("pointermove", move);
      el.addEventListener("pointerup", up);
      el.addEventListener("pointercancel", up);
    });
    el.addEventListener("keydown", (ev) => {
      const d = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1] }[ev.key];
      if (!d) return;
      ev.preventDefault();
      const step = ev.shiftKey ? KEY_BIG : KEY_STEP;
      const p = [Number(el.dataset.x) + d[0] * step, Number(el.dataset.y) + d[1] * step];
      commit(spec, p, false);
    });
  }
  function toMeters(ev) {
    const pt = svg.createSVGPoint();
    pt.x = ev.clientX; pt.y = ev.clientY;
    const q = pt.matrixTransform(svg.getScreenCTM().inverse());
    return [M.geo.mx(q.x), M.geo.my(q.y)];
  }
  function place(n, p) {
    n.dataset.x = p[0]; n.dataset.y = p[1];
    n.setAttribute("transform", `translate(${M.geo.x(p[0])},${M.geo.y(p[1])})`);
  }
  /** The rings of a fighter being dragged follow it (their labels go until it is dropped). */
  function showRangesAt(i, p) {
    const g = M.geo, layer = svg.querySelector(".rings");
    if (!layer || M.hover !== i) return;
    for (const ring of layer.querySelectorAll("circle")) { ring.setAttribute("cx", g.x(p[0])); ring.setAttribute("cy", g.y(p[1])); }
    for (const t of layer.querySelectorAll("text")) t.remove();
  }
  /** The marker's new place as an edit of its member's (or cover point's) position. A drag is
   * sent at once; arrow keys are gathered for a moment, so that a held key is one edit. */
  function commit(spec, p, now) {
    const base = [Number(m1(p[0] - spec.offset[0])), Number(m1(p[1] - spec.offset[1]))];
    const entry = { p: base, sent: null };
    M.pending.set(spec.path, entry);
    draw();
    const send = () => {
      entry.sent = M.seq + 1; // the map loaded after this edit shows it: the entry goes then
      page()?.edit(spec.path, `[${m1(base[0])}, ${m1(base[1])}]`);
    };
    clearTimeout(M.keyTimer);
    if (now) send();
    else M.keyTimer = setTimeout(send, 250);
  }

  // ---------- replay ----------
  $("map-replay-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const p = page();
    if (!p) return;
    const battle = Number($("map-battle").value) || 0;
    const source = p.source();
    if (!source) return;
    const body = { ...source, battle, page: MAP_PAGE };
    const seed = p.seed();
    if (seed != null) body.seed = seed;
    $("map-replay-status").textContent = "Tracing…";
    try {
      const answer = await p.api("POST", "/api/trace", body);
      $("map-replay-status").textContent = "";
      startReplay(answer.replay, battle);
    } catch (e) {
      $("map-replay-status").textContent = e.message;
    }
  });
  function startReplay(replay, battle) {
    if (!replay || !M.field || replay.fighters.length !== M.field.fighters.length) return;
    stopPlaying();
    M.replay = replay; M.battle = battle;
    const turns = replay.turns.length;
    $("map-turn").max = turns; $("map-turn").value = 0;
    $("map-steps").hidden = false;
    box.classList.add("replaying");
    showStep(0);
  }
  function stopReplay() {
    stopPlaying();
    M.replay = null;
    $("map-steps").hidden = true;
    $("map-log").replaceChildren();
    box.classList.remove("replaying");
    draw();
  }
  function stopPlaying() {
    clearInterval(M.playing); M.playing = null;
    $("map-play").textContent = "Play";
  }
  function showStep(t) {
    const r = M.replay, n = r.turns.length;
    M.step = Math.max(0, Math.min(n, t));
    $("map-turn").value = M.step;
    const end = r.winner ? `${r.winner} won` : "a draw";
    $("map-turn-label").textContent = M.step === 0
      ? `Battle ${M.battle}: the start (${n} turn${n === 1 ? "" : "s"}; ${end})`
      : `Battle ${M.battle}, turn ${M.step} of ${n}${M.step === n ? ` (${end})` : ""}`;
    $("map-prev").disabled = M.step === 0; $("map-next").disabled = M.step === n;
    draw();
    log();
  }
  function replayLayer(g) {
    const layer = node("g", { class: "replay", "aria-hidden": "true" });
    if (M.step === 0) return layer;
    const turn = M.replay.turns[M.step - 1], names = M.replay.fighters;
    for (const mv of turn.moves) {
      layer.append(node("line", { class: "move", x1: g.x(mv.from[0]), y1: g.y(mv.from[1]), x2: g.x(mv.to[0]), y2: g.y(mv.to[1]), "data-who": names[mv.who].name, "marker-end": "url(#map-arrow)" }));
    }
    for (const s of turn.shots) {
      const hit = s.result !== "miss";
      layer.append(node("line", {
        class: `shot${hit ? " hit" : " miss"}${s.melee ? " melee" : ""}`, stroke: colour(names[s.from].side), "marker-end": "url(#map-arrow)",
        x1: g.x(s.from_at[0]), y1: g.y(s.from_at[1]), x2: g.x(s.to_at[0]), y2: g.y(s.to_at[1]),
        "data-from": names[s.from].name, "data-to": names[s.to].name, "data-result": s.result,
      }));
    }
    for (const gr of turn.grenades) {
      layer.append(node("circle", { class: "burst", cx: g.x(gr.at[0]), cy: g.y(gr.at[1]), r: 10 }));
      layer.append(node("line", { class: "throw", x1: g.x(M.replay.turns[M.step - 1].positions[gr.by][0]), y1: g.y(M.replay.turns[M.step - 1].positions[gr.by][1]), x2: g.x(gr.at[0]), y2: g.y(gr.at[1]) }));
    }
    return layer;
  }
  function log() {
    const list = $("map-log");
    if (!M.replay || M.step === 0) { list.replaceChildren(); return; }
    const turn = M.replay.turns[M.step - 1], names = M.replay.fighters;
    const items = [];
    for (const mv of turn.moves) items.push(`${names[mv.who].name} moves ${at(mv.from)} → ${at(mv.to)}`);
    const shots = turn.shots.map((s) => `${names[s.from].name} ${s.melee ? "strikes" : "shoots"} ${names[s.to].name}${s.weapon ? ` (${s.weapon})` : ""}: ${s.result}`);
    for (const gr of turn.grenades) items.push(`${names[gr.by].name}'s grenade lands at ${at(gr.at)}${gr.hit.length ? `: ${gr.hit.map((k) => names[k].name).join(", ")} hurt` : ""}`);
    items.push(...shots);
    const out = turn.out.map((o, i) => (o && (M.step === 1 ? !M.replay.start.out[i] : !M.replay.turns[M.step - 2].out[i]) ? names[i].name : null)).filter(Boolean);
    if (out.length) items.push(`out of the fight: ${out.join(", ")}`);
    const shown = items.slice(0, MAX_LOG);
    if (items.length > shown.length) shown.push(`… and ${items.length - shown.length} more (the trace below has them all)`);
    if (!shown.length) shown.push("nothing moved and nobody attacked");
    list.replaceChildren(...shown.map((t) => { const li = document.createElement("li"); li.textContent = t; return li; }));
  }
  $("map-prev").addEventListener("click", () => { stopPlaying(); showStep(M.step - 1); });
  $("map-next").addEventListener("click", () => { stopPlaying(); showStep(M.step + 1); });
  $("map-turn").addEventListener("input", () => { stopPlaying(); showStep(Number($("map-turn").value)); });
  $("map-exit").addEventListener("click", () => { stopReplay(); $("map-replay").focus(); });
  $("map-play").addEventListener("click", () => {
    if (M.playing) { stopPlaying(); return; }
    if (M.step >= M.replay.turns.length) showStep(0);
    $("map-play").textContent = "Pause";
    M.playing = setInterval(() => {
      if (!M.replay || M.step >= M.replay.turns.length) { stopPlaying(); return; }
      showStep(M.step + 1);
    }, 900);
  });

  function legend() {
    const sides = (M.field.sides || []).map((s) => `<span><svg width="12" height="12" aria-hidden="true"><circle cx="6" cy="6" r="5" fill="${colour(s)}"/></svg> ${esc(s)}</span>`);
    const kinds = new Set(M.field.cover_points.map((c) => c.cover));
    const cover = [];
    if (kinds.has("partial")) cover.push(`<span><svg width="12" height="12" aria-hidden="true" class="cover partial"><rect x="1" y="1" width="10" height="10"/><path class="half" d="M1,11 L11,1 L11,11 z"/></svg> partial cover</span>`);
    if (kinds.has("full")) cover.push(`<span><svg width="12" height="12" aria-hidden="true" class="cover full"><rect x="1" y="1" width="10" height="10"/></svg> full cover</span>`);
    const covered = new Set(M.replay ? [] : M.field.fighters.map((f) => f.cover).filter((c) => c !== "none"));
    if (covered.size) cover.push(`<span><svg width="14" height="14" aria-hidden="true" class="fighter covered"><circle class="dot" cx="7" cy="7" r="5" fill="#9aa0aa"/></svg> in cover where it starts</span>`);
    if (covered.has("hidden")) cover.push(`<span><svg width="14" height="14" aria-hidden="true" class="fighter covered hidden"><circle class="dot" cx="7" cy="7" r="5" fill="#9aa0aa"/></svg> hidden</span>`);
    const replay = M.replay ? [`<span class="key-move">⇢ walked or ran</span>`, `<span>→ attack, in the attacker's colour (solid: it hurt; dashed: no harm)</span>`, `<span>✕ out of the fight</span>`] : [];
    $("map-legend").innerHTML = [...sides, ...cover, ...replay].join("");
  }
})();
