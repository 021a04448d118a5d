/* combatsim live page: plain JavaScript, inline SVG charts, no network but this server.
 *
 * The page talks only to the documented HTTP API (docs/serve.md). One scenario is edited at a
 * time: its YAML text (S.yaml) plus field edits from the form (S.sets, "PATH=VALUE" as for
 * `combatsim run --set`); adding or removing a side or member rewrites the text itself (the
 * server writes it in, POST /api/build). Every edit starts a new run after a short pause; the server cancels
 * the page's previous run, and figures stream in over server-sent events.
 */
"use strict";
(() => {
  const params = new URLSearchParams(location.search);
  const TOKEN = params.get("token") || "";
  const PAGE = "page-" + Math.random().toString(36).slice(2, 10) + Date.now().toString(36);
  const $ = (id) => document.getElementById(id);
  const DEBOUNCE_MS = 150;
  const SIDE_COLOURS = ["var(--side0)", "var(--side1)", "var(--side2)", "var(--side3)"];
  // No form leaves the page (its Content-Security-Policy allows no inline handler to say so).
  // A dialog's form closes its dialog with the button's value, as method="dialog" would, once
  // its fields are valid.
  for (const form of document.querySelectorAll("form")) {
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const dialog = form.closest("dialog"), value = e.submitter?.value || "";
      if (!dialog || (value !== "cancel" && !form.reportValidity())) return;
      dialog.close(value);
    });
  }

  const S = {
    scenarios: [], file: null, original: "", yaml: "", yamlEdited: false, view: null,
    sets: new Map(), catalogue: { weapons: [], armor: [], archetypes: [] }, open: new Set(),
    runId: null, runSeq: 0, stream: null, shown: null, debounce: null, checkSeq: 0, lastEdited: null,
    overview: [], overviewSort: { key: "dies", dir: -1 }, overviewTimer: null,
    studies: {}, odds: [],
  };
  // Timings for the browser test and the curious (performance.now() milliseconds).
  const perf = (window.combatsimPerf = { editAt: null, firstAt: null, thousandAt: null, runs: 0 });

  /** An edit starts the clock: the next run's first figures and 1,000 battles count from here. */
  function editClock() {
    Object.assign(perf, { editAt: performance.now(), firstAt: null, thousandAt: null });
    S.runSeq++; // figures still arriving from the previous run are no longer shown
    if (S.stream) { S.stream.close(); S.stream = null; }
    markStale();
  }
  /** The figures shown are an earlier fight's: faded, and the status says new ones are coming
   * (until the new run's first figures replace them). */
  function markStale() {
    if (!S.shown) return; // nothing shown yet: "Waiting for the first figures…" says it
    $("results").classList.add("stale");
    $("run-status").dataset.state = "pending";
    status("run-status", "Edited: new figures are coming (faded below: the previous ones, not this fight's).");
    $("run-progress").value = 0;
    $("exact-attacks").hidden = true;
    document.dispatchEvent(new CustomEvent("combatsim:run-stale")); // static/story.js
  }

  // ---------- HTTP ----------
  function withToken(url) {
    if (!TOKEN) return url;
    return url + (url.includes("?") ? "&" : "?") + "token=" + encodeURIComponent(TOKEN);
  }
  function errorList(data) {
    if (!data) return [];
    const e = data.errors || (data.error ? [data.error] : data.detail ? [data.detail] : []);
    return (Array.isArray(e) ? e : [e]).map((x) => {
      const item = typeof x === "string" ? { line: null, message: x } : { line: x.line ?? null, message: x.message || String(x) };
      if (item.line == null) { // "file.yaml:38: ..." or "line 38" in the message itself
        const m = /\.ya?ml:(\d+):/.exec(item.message) || /\bline (\d+)\b/.exec(item.message);
        if (m) item.line = Number(m[1]);
      }
      if (item.line != null) item.message = item.message.replace(/^\S+\.ya?ml:\d+:\s*/, "");
      return item;
    });
  }
  async function api(method, url, body) {
    const opts = { method, headers: {} };
    if (TOKEN) opts.headers.Authorization = "Bearer " + TOKEN;
    // the server takes a POST, PUT or DELETE only as JSON: no form of another page can send it
    if (method !== "GET") opts.headers["Content-Type"] = "application/json";
    if (body !== undefined) opts.body = JSON.stringify(body);
    const res = await fetch(url, opts);
    const text = await res.text();
    let data = null;
    try { data = text ? JSON.parse(text) : null; } catch { data = { text }; }
    if (!res.ok) {
      const list = errorList(data);
      const err = new Error(list.map((x) => x.message).join("; ") || `${res.status} ${res.statusText}`);
      err.status = res.status; err.data = data; err.list = list;
      throw err;
    }
    return data;
  }
  function listen(url, onData, onEnd) {
    const es = new EventSource(withToken(url));
    let ended = false;
    const end = () => { if (!ended) { ended = true; es.close(); onEnd && onEnd(); } };
    es.onmessage = (ev) => {
      let data;
      try { data = JSON.parse(ev.data); } catch { return; }
      onData(data);
      if (data.state && data.state !== "running" && data.state !== "queued") end();
    };
    es.onerror = () => end();
    return { close: () => { ended = true; es.close(); } };
  }

  // ---------- formatting ----------
  // Rates and their intervals' ends as the CLI prints them: one decimal ("draws 0.7%
  // (0.3-1.4%)"; 1,000 battles, none won: "0.0% (0.0-0.4%)").
  const end = (x) => (x == null || isNaN(x) ? "–" : (100 * x).toFixed(1));
  const pct = (x, digits = 1) => (x == null || isNaN(x) ? "–" : (100 * x).toFixed(digits) + "%");
  // An exact chance: 0 only when no way of the dice gives it, never a rounded 0.0% or 100.0%.
  const chance = (p, fraction) => {
    if (p == null || isNaN(p)) return "–";
    if (fraction === "0") return "0";
    if (fraction === "1") return "100%";
    if (p < 0.0005) return "< 0.1%";
    if (p > 0.9995) return "> 99.9%";
    return pct(p);
  };
  const pp = (x) => (x == null || isNaN(x) ? "–" : (x >= 0 ? "+" : "−") + Math.abs(100 * x).toFixed(1) + " pts");
  const pValue = (p) => (p == null || isNaN(p) ? "" : p < 0.001 ? "< 0.001" : Number(p).toPrecision(2));
  const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
  const num = (x) => (typeof x === "number" ? x : x && typeof x === "object" ? x.rate ?? x.value ?? null : x == null ? null : Number(x));
  const ciOf = (obj, key) => {
    const v = obj[key];
    if (v && typeof v === "object" && Array.isArray(v.ci95)) return v.ci95;
    return obj[key + "_ci95"] || null;
  };
  const interval = (ci) => (ci ? `${end(ci[0])}-${end(ci[1])}%` : "");
  // The server's verdict leads with "SIDE win R% (L-H%)" rounded to whole points; the page
  // writes that part again from the figures, with the interval's ends as above.
  const verdictText = (r) => {
    const text = Array.isArray(r.verdict) ? r.verdict.join(" ") : r.verdict || "";
    const first = (r.side_order || [])[0];
    const s = first && r.sides?.[first];
    if (!s || s.win_rate == null || !Array.isArray(s.ci95)) return text;
    return text.replace(/^(.* win )\S+ \([^)]*\)/, (m, lead) => lead === `${first} win ` ? `${lead}${pct(s.win_rate)} (${interval(s.ci95)})` : m);
  };
  function el(tag, attrs = {}, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (v == null || v === false) continue;
      if (k === "text") node.textContent = v;
      else if (k === "html") node.innerHTML = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children.flat()) if (c != null) node.append(c);
    return node;
  }
  function status(id, text, bad = false) {
    const node = $(id);
    node.textContent = text;
    node.classList.toggle("bad", bad);
  }

  // ---------- SVG charts ----------
  /** Horizontal bars with 95% whiskers. rows: [{label, indent, bars: [{value, ci, colour, name}]}] */
  function intervalChart(rows, { title = "", labelW = 150, valueW = 150, W = 640, ticks = [0, 0.25, 0.5, 0.75, 1] } = {}) {
    const barArea = W - labelW - valueW, top = 18;
    const heights = rows.map((r) => (r.bars.length > 1 ? 30 : 22));
    const H = top + heights.reduce((a, b) => a + b, 0) + 4;
    const x = (v) => labelW + Math.max(0, Math.min(1, v)) * barArea;
    let svg = "";
    for (const t of ticks) {
      svg += `<line class="grid" x1="${x(t)}" x2="${x(t)}" y1="${top - 4}" y2="${H}"/>`;
      svg += `<text x="${x(t)}" y="11" text-anchor="middle" class="tick">${t * 100}%</text>`;
    }
    let y = top, summary = [];
    rows.forEach((r, i) => {
      const h = heights[i], bh = r.bars.length > 1 ? 11 : 14;
      const room = Math.floor((labelW - 8) / 7);
      const label = r.label.length > room ? r.label.slice(0, room - 1) + "…" : r.label;
      svg += `<text x="${4 + 12 * (r.indent || 0)}" y="${y + h / 2 + 4}" ${r.indent ? "" : 'font-weight="600"'}>${esc(label)}<title>${esc(r.label)}</title></text>`;
      const texts = [];
      r.bars.forEach((b, j) => {
        const by = y + (h - bh * r.bars.length - 2 * (r.bars.length - 1)) / 2 + j * (bh + 2);
        const v = b.value ?? 0;
        svg += `<rect x="${labelW}" y="${by}" width="${Math.max(0.5, x(v) - labelW)}" height="${bh}" fill="${b.colour}" opacity="0.85"><title>${esc(b.name || r.label)} ${pct(v, 1)} (${interval(b.ci)})</title></rect>`;
        if (b.ci) {
          const cy = by + bh / 2;
          svg += `<line class="whisker" x1="${x(b.ci[0])}" x2="${x(b.ci[1])}" y1="${cy}" y2="${cy}"/>`;
          svg += `<line class="whisker" x1="${x(b.ci[0])}" x2="${x(b.ci[0])}" y1="${cy - 4}" y2="${cy + 4}"/>`;
          svg += `<line class="whisker" x1="${x(b.ci[1])}" x2="${x(b.ci[1])}" y1="${cy - 4}" y2="${cy + 4}"/>`;
        }
        texts.push(`${pct(v)}${b.ci ? ` (${interval(b.ci)})` : ""}`);
      });
      texts.forEach((t, j) => {
        const ty = y + (r.bars.length > 1 ? 12 + j * 13 : h / 2 + 4);
        svg += `<text x="${labelW + barArea + 8}" y="${ty}" class="val" fill="${r.bars[j].colour}">${esc(t)}</text>`;
      });
      summary.push(`${r.label}: ${r.bars.map((b, j) => (b.name ? b.name + " " : "") + texts[j]).join(", ")}`);
      y += h;
    });
    svg += `<line class="axis" x1="${labelW}" x2="${labelW}" y1="${top - 4}" y2="${H}"/>`;
    const aria = esc((title ? title + ". " : "") + summary.join("; "));
    return `<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="${aria}">${svg}</svg>`;
  }

  /** Rate against one swept value: a point with whiskers per side, a marked best value. */
  function sweepChart(xs, series, { mark = null, target = null, xLabel = "" } = {}) {
    const W = 640, H = 300, L = 46, R = 16, T = 14, B = 42;
    const lo = Math.min(...xs), hi = Math.max(...xs), span = hi - lo || 1;
    const x = (v) => L + ((v - lo) / span) * (W - L - R);
    const y = (v) => T + (1 - v) * (H - T - B);
    let svg = "";
    for (const t of [0, 0.25, 0.5, 0.75, 1]) {
      svg += `<line class="grid" x1="${L}" x2="${W - R}" y1="${y(t)}" y2="${y(t)}"/>`;
      svg += `<text x="${L - 6}" y="${y(t) + 4}" text-anchor="end">${t * 100}%</text>`;
    }
    xs.forEach((v) => { svg += `<text x="${x(v)}" y="${H - B + 16}" text-anchor="middle">${esc(v)}</text>`; });
    svg += `<text x="${(L + W - R) / 2}" y="${H - 6}" text-anchor="middle" class="muted">${esc(xLabel)}</text>`;
    svg += `<line class="axis" x1="${L}" x2="${L}" y1="${T}" y2="${H - B}"/><line class="axis" x1="${L}" x2="${W - R}" y1="${H - B}" y2="${H - B}"/>`;
    if (target != null) svg += `<line class="grid" style="stroke:#9aa0aa;stroke-dasharray:2 3" x1="${L}" x2="${W - R}" y1="${y(target)}" y2="${y(target)}"/>`;
    if (mark != null && mark.value != null) {
      svg += `<line class="mark" x1="${x(mark.value)}" x2="${x(mark.value)}" y1="${T}" y2="${H - B}"/>`;
      const anchor = x(mark.value) > W - 160 ? "end" : "start", dx = anchor === "end" ? -6 : 6;
      svg += `<text x="${x(mark.value) + dx}" y="${T + 12}" text-anchor="${anchor}" fill="var(--bad)" font-weight="700">${esc(mark.label)}</text>`;
    }
    const nS = series.length;
    series.forEach((s, k) => {
      const off = (k - (nS - 1) / 2) * 5;
      const pts = s.points.filter((p) => p.value != null);
      svg += `<polyline fill="none" stroke="${s.colour}" stroke-width="2" points="${pts.map((p) => `${x(p.x) + off},${y(p.value)}`).join(" ")}"/>`;
      pts.forEach((p) => {
        const px = x(p.x) + off;
        if (p.ci) svg += `<line stroke="${s.colour}" stroke-width="1.5" x1="${px}" x2="${px}" y1="${y(p.ci[0])}" y2="${y(p.ci[1])}"/><line stroke="${s.colour}" x1="${px - 4}" x2="${px + 4}" y1="${y(p.ci[0])}" y2="${y(p.ci[0])}"/><line stroke="${s.colour}" x1="${px - 4}" x2="${px + 4}" y1="${y(p.ci[1])}" y2="${y(p.ci[1])}"/>`;
        svg += `<circle cx="${px}" cy="${y(p.value)}" r="4" fill="${s.colour}"><title>${esc(s.name)} at ${esc(p.x)}: ${pct(p.value, 1)} (${interval(p.ci)})</title></circle>`;
      });
    });
    const aria = series.map((s) => `${s.name} win: ` + s.points.map((p) => `${p.x}: ${pct(p.value)}`).join(", ")).join("; ");
    const legend = `<div class="legend">${series.map((s) => `<span style="color:${s.colour}">● ${esc(s.name)} win</span>`).join("")}${mark ? `<span style="color:var(--bad)">┆ ${esc(mark.label)}</span>` : ""}</div>`;
    return legend + `<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="${esc(aria)}">${svg}</svg>`;
  }

  /** Tornado: each lever's effect one step down and one step up, with whiskers, around 0. */
  function tornadoChart(levers, { what = "win rate" } = {}) {
    const W = 760, labelW = 230, R = 12, T = 22, rowH = 26;
    const H = T + levers.length * rowH + 8;
    let m = 0.05;
    levers.forEach((l) => l.steps.forEach((s) => { m = Math.max(m, Math.abs(s.value ?? 0), ...(s.ci || []).map(Math.abs)); }));
    m = Math.min(1, Math.ceil(m * 20) / 20);
    const x = (v) => labelW + ((v + m) / (2 * m)) * (W - labelW - R);
    let svg = "";
    const step = m > 0.4 ? 0.2 : m > 0.2 ? 0.1 : 0.05;
    m = Math.ceil(m / step - 1e-9) * step;
    const ticks = [];
    for (let t = -m; t <= m + 1e-9; t += step) ticks.push(Math.round(t * 100) / 100);
    for (const t of ticks) {
      svg += `<line class="grid" x1="${x(t)}" x2="${x(t)}" y1="${T - 4}" y2="${H}"/>`;
      svg += `<text x="${x(t)}" y="12" text-anchor="middle">${t > 0 ? "+" : t < 0 ? "−" : ""}${Math.round(Math.abs(t) * 100)}</text>`;
    }
    levers.forEach((l, i) => {
      const y0 = T + i * rowH;
      const label = l.label.length > 30 ? l.label.slice(0, 29) + "…" : l.label;
      svg += `<text x="4" y="${y0 + rowH / 2 + 4}">${esc(label)}<title>${esc(l.label)}</title></text>`;
      l.steps.forEach((s, j) => {
        if (s.value == null) return;
        const by = y0 + 4 + j * 9, bh = 8;
        const a = x(Math.min(0, s.value)), b = x(Math.max(0, s.value));
        svg += `<rect x="${a}" y="${by}" width="${Math.max(0.5, b - a)}" height="${bh}" fill="${s.colour}" opacity="${s.significant === false ? 0.45 : 0.9}"><title>${esc(l.label)} ${esc(s.name)}: ${pp(s.value)} (${s.ci ? pp(s.ci[0]) + " to " + pp(s.ci[1]) : ""})${s.p != null ? ", p=" + Number(s.p).toPrecision(2) : ""}</title></rect>`;
        if (s.ci) {
          const cy = by + bh / 2;
          svg += `<line class="whisker thin" x1="${x(s.ci[0])}" x2="${x(s.ci[1])}" y1="${cy}" y2="${cy}"/><line class="whisker thin" x1="${x(s.ci[0])}" x2="${x(s.ci[0])}" y1="${cy - 3}" y2="${cy + 3}"/><line class="whisker thin" x1="${x(s.ci[1])}" x2="${x(s.ci[1])}" y1="${cy - 3}" y2="${cy + 3}"/>`;
        }
      });
    });
    svg += `<line class="zero" x1="${x(0)}" x2="${x(0)}" y1="${T - 4}" y2="${H}"/>`;
    const aria = `Change in ${what}, percentage points: ` + levers.map((l) => `${l.label}: ${l.steps.map((s) => `${s.name} ${pp(s.value)}`).join(", ")}`).join("; ");
    const legend = `<div class="legend"><span style="color:var(--side1)">■ one step down</span><span style="color:var(--side0)">■ one step up</span><span class="muted">change in ${esc(what)}, points; faded: not significant</span></div>`;
    return legend + `<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="${esc(aria)}">${svg}</svg>`;
  }

  /** Vertical bars (odds of each outcome), a second series drawn as outlines. */
  function barsChart(labels, series, { xLabel = "" } = {}) {
    const W = 640, H = 240, L = 46, R = 10, T = 14, B = 40;
    const n = labels.length, slot = (W - L - R) / Math.max(1, n);
    const y = (v) => T + (1 - v) * (H - T - B);
    let svg = "";
    for (const t of [0, 0.25, 0.5, 0.75, 1]) {
      svg += `<line class="grid" x1="${L}" x2="${W - R}" y1="${y(t)}" y2="${y(t)}"/><text x="${L - 6}" y="${y(t) + 4}" text-anchor="end">${t * 100}%</text>`;
    }
    series.forEach((s, k) => {
      s.values.forEach((v, i) => {
        const bx = L + i * slot + slot * 0.15, bw = slot * 0.7;
        svg += k === 0
          ? `<rect x="${bx}" y="${y(v)}" width="${bw}" height="${y(0) - y(v)}" fill="var(--side0)" opacity="0.85"><title>${esc(labels[i])}: ${esc(s.name)} ${pct(v, 2)}</title></rect>`
          : `<rect x="${bx + bw * 0.2}" y="${y(v)}" width="${bw * 0.6}" height="${y(0) - y(v)}" fill="none" stroke="var(--side1)" stroke-width="2"><title>${esc(labels[i])}: ${esc(s.name)} ${pct(v, 2)}</title></rect>`;
      });
    });
    const every = Math.ceil(n / 24);
    labels.forEach((l, i) => { if (i % every === 0) svg += `<text x="${L + (i + 0.5) * slot}" y="${H - B + 14}" text-anchor="middle">${esc(l)}</text>`; });
    svg += `<text x="${(L + W) / 2}" y="${H - 6}" text-anchor="middle">${esc(xLabel)}</text>`;
    svg += `<line class="axis" x1="${L}" x2="${W - R}" y1="${y(0)}" y2="${y(0)}"/>`;
    const legend = `<div class="legend">${series.map((s, k) => `<span style="color:${k ? "var(--side1)" : "var(--side0)"}">${k ? "□" : "■"} ${esc(s.name)}</span>`).join("")}</div>`;
    const aria = series.map((s) => `${s.name}: ` + s.values.map((v, i) => `${labels[i]} ${pct(v, 1)}`).join(", ")).join("; ");
    return legend + `<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="${esc(aria)}">${svg}</svg>`;
  }

  // ---------- overview ----------
  function sideStats(row) {
    return (row.sides || []).map((s) => ({
      side: s.side ?? s.name,
      win: num(s.win ?? s.win_rate), winCi: s.win_ci95 || ciOf(s, "win"),
      loses: num(s.loses_someone), losesCi: ciOf(s, "loses_someone"),
      dies: num(s.someone_dies), diesCi: ciOf(s, "someone_dies"),
    }));
  }
  function overviewKey(row, key) {
    const st = sideStats(row);
    if (key === "name" || key === "system") return String(row[key] || "").toLowerCase();
    if (key === "battles") return row.battles || 0;
    if (key === "loses") return Math.max(-1, ...st.map((s) => s.loses ?? -1));
    return (row.dangerous ? 10 : 0) + Math.max(-1, ...st.map((s) => s.dies ?? -1));
  }
  /** A row's win rates and draws: each a line of text (the page's own font size, the whole
   * name) with a small bar and its interval drawn beside it. */
  function miniRates(st, row) {
    const lines = st.map((s, i) => ({ who: s.side, rate: s.win, ci: s.winCi, colour: SIDE_COLOURS[i % 4], what: "win" }));
    if (row.draw != null) lines.push({ who: "draws", rate: row.draw, ci: row.draw_ci95, colour: "var(--draw)", what: "" });
    return el("div", { class: "rates" }, lines.map((l) => {
      const x = (v) => Math.max(0, Math.min(100, 100 * (v ?? 0)));
      const whisker = l.ci ? `<line x1="${x(l.ci[0])}" x2="${x(l.ci[1])}" y1="5" y2="5" class="whisker"/>` : "";
      const bar = `<svg viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true"><rect x="0" y="1" width="${Math.max(0.5, x(l.rate))}" height="8" fill="${l.colour}"/>${whisker}</svg>`;
      return el("div", { class: "rate" + (l.what ? "" : " draw") },
        el("span", { class: "who", style: `color:${l.colour}`, text: l.what ? l.who : "draws" }),
        el("span", { class: "bar", html: bar }),
        el("span", { class: "val", text: `${pct(l.rate)} ${l.ci ? "(" + interval(l.ci) + ")" : ""}` }));
    }));
  }
  function renderOverview() {
    const body = $("overview-table").tBodies[0];
    const { key, dir } = S.overviewSort;
    const rows = [...S.overview].sort((a, b) => {
      const ka = overviewKey(a, key), kb = overviewKey(b, key);
      return (ka < kb ? -1 : ka > kb ? 1 : 0) * dir;
    });
    if (!rows.length) { body.innerHTML = `<tr><td colspan="6" class="muted">No scenario in this folder yet.</td></tr>`; return; }
    body.replaceChildren(...rows.map((row) => {
      const st = sideStats(row);
      const sideLines = (f, c) => st.map((s) => `<div>${esc(s.side)}: <b>${pct(s[f])}</b> <span class="muted small">${interval(s[c])}</span></div>`).join("");
      const open = el("button", { type: "button", class: "linkish", onclick: () => openScenario(row.file), text: row.name || row.file });
      return el("tr", { class: row.dangerous ? "dangerous" : null },
        el("td", {}, open, row.dangerous ? el("span", { class: "danger", title: "dangerous: someone of the first side dies in at least one battle in ten", "aria-label": "dangerous", text: " ☠" }) : null,
          el("div", { class: "muted small", text: row.file })),
        el("td", { text: row.system || "" }),
        el("td", { class: "mini" }, row.battles ? miniRates(st, row) : el("span", { class: "muted", text: "running…" })),
        el("td", { html: row.battles ? sideLines("loses", "losesCi") : "" }),
        el("td", { html: row.battles ? sideLines("dies", "diesCi") : "" }),
        el("td", { text: row.battles ? row.battles.toLocaleString() : "…" }));
    }));
  }
  async function pollOverview() {
    clearTimeout(S.overviewTimer);
    if ($("overview").hidden) return;
    try {
      S.overview = await api("GET", "/api/overview");
      renderOverview();
      const least = Math.min(...S.overview.map((r) => r.battles || 0));
      $("overview-note").firstChild.textContent = `Each scenario is run in the background and refined while this page is open (at least ${least.toLocaleString()} battles each so far). `;
    } catch (e) {
      status("conn", e.message, true);
    }
    S.overviewTimer = setTimeout(pollOverview, 2500);
  }
  for (const b of document.querySelectorAll("#overview-table th button")) {
    b.addEventListener("click", () => {
      const key = b.dataset.sort;
      S.overviewSort = { key, dir: S.overviewSort.key === key ? -S.overviewSort.dir : key === "name" || key === "system" ? 1 : -1 };
      for (const th of document.querySelectorAll("#overview-table th")) th.setAttribute("aria-sort", "none");
      b.parentElement.setAttribute("aria-sort", S.overviewSort.dir > 0 ? "ascending" : "descending");
      renderOverview();
    });
  }

  // ---------- scenario: loading and the form ----------
  async function loadScenarioList() {
    try {
      S.scenarios = await api("GET", "/api/scenarios");
      const pick = $("scenario-pick");
      for (const option of [...pick.options].slice(1)) option.remove();
      for (const s of S.scenarios) pick.append(el("option", { value: s.file, text: `${s.name} (${s.file})` }));
      status("conn", "");
    } catch (e) {
      status("conn", "Cannot reach the server: " + e.message, true);
    }
  }
  function showOverview() {
    stopRun();
    $("scenario").hidden = true; $("overview").hidden = false;
    $("scenario-pick").value = "";
    if (location.hash) history.replaceState(null, "", location.pathname + location.search);
    pollOverview();
  }
  async function openScenario(file) {
    if (!file) return showOverview();
    clearTimeout(S.overviewTimer);
    $("overview").hidden = true; $("scenario").hidden = false;
    $("scenario-pick").value = file;
    history.replaceState(null, "", location.pathname + location.search + "#" + encodeURIComponent(file));
    try {
      const data = await api("GET", "/api/scenarios/" + encodeURIComponent(file).replace(/%2F/g, "/"));
      Object.assign(S, { file, original: data.yaml, yaml: data.yaml, yamlEdited: false, view: data.view, sets: new Map() });
      $("yaml").value = data.yaml;
      clearYamlErrors();
      $("scenario-h").textContent = data.view?.name || file;
      $("scenario-system").textContent = data.view?.system || "";
      await loadCatalogue(data.view?.system);
      renderForm();
      fillStudyControls();
      if (S.odds.length) pickOddsFor(data.view?.system);
      $("trace").textContent = "";
      for (const id of ["sweep-chart", "compare-out", "explain-chart", "sweep-text", "compare-text", "explain-text"]) $(id).innerHTML = "";
      for (const id of ["sweep-status", "compare-status", "explain-status"]) status(id, "");
      markEdited();
      clearFigures(); // another fight's figures are not shown, not even faded
      editClock();
      startRun();
      $("scenario-h").focus?.();
    } catch (e) {
      status("run-status", "Could not open " + file + ": " + e.message, true);
    }
  }
  function clearFigures() {
    S.shown = null;
    for (const id of ["win-chart", "cas-chart", "verdict", "csv-links"]) $(id).replaceChildren();
    delete $("csv-links").dataset.run;
    $("results").classList.remove("stale");
    $("exact-attacks").hidden = true;
    document.dispatchEvent(new CustomEvent("combatsim:run-stale")); // static/story.js
    status("run-status", "Waiting for the first figures…");
    $("run-status").dataset.state = "pending";
  }
  async function loadCatalogue(system) {
    try {
      S.catalogue = await api("GET", "/api/catalogue?system=" + encodeURIComponent(system || ""));
    } catch { S.catalogue = { weapons: [], armor: [] }; }
  }
  function memberPath(member, key) {
    const p = member.paths || {};
    return p[key] ?? p["numbers." + key] ?? null;
  }
  function currentValue(path, fallback) {
    return S.sets.has(path) ? S.sets.get(path) : fallback;
  }
  /** A form field: a number, text, a choice or a toggle, editing one field path. */
  function fieldInput(label, path, value, { type = "number", choices = null, wide = false, min = null, max = null, step = "any", who = "", help = "", from = "" } = {}) {
    const id = "f-" + (path || label).replace(/[^A-Za-z0-9]+/g, "-") + "-" + Math.random().toString(36).slice(2, 6);
    const errId = id + "-err";
    let input;
    const shown = currentValue(path, value);
    if (type === "checkbox") {
      input = el("input", { id, type, checked: isOn(shown), "aria-describedby": errId });
      value = String(isOn(value));
    } else if (choices) {
      const opts = [...new Set([...(shown != null && shown !== "" ? [String(shown)] : []), ...choices.map(String)])];
      input = el("select", { id, "aria-describedby": errId }, opts.map((c) => el("option", { value: c, text: c, selected: String(shown) === c })));
    } else {
      input = el("input", { id, type, value: shown ?? "", "aria-describedby": errId, min, max, step: type === "number" ? step : null, size: type === "text" ? 10 : null, placeholder: type === "number" && shown == null ? "unset" : null });
    }
    if (who) input.setAttribute("aria-label", `${who}: ${label}`);
    if (!path) input.disabled = true;
    else {
      input.dataset.path = path;
      input.dataset.original = value ?? "";
      input.addEventListener(choices || type === "checkbox" ? "change" : "input", () => onFieldEdit(input));
    }
    const title = [help, from ? `(${from})` : ""].filter(Boolean).join(" ");
    return el("label", { class: "field" + (wide ? " wide" : "") + (type === "checkbox" ? " flag" : "") + (from && !S.sets.has(path) ? " inherited" : ""), for: id, title: title || null },
      el("span", { text: label }), input, el("span", { class: "err", id: errId, "aria-live": "polite" }));
  }
  /** A flag as YAML 1.1 writes it (the scenario loader's reading: on, yes, true). */
  function isOn(v) {
    return typeof v === "string" ? ["on", "yes", "y", "true"].includes(v.toLowerCase()) : v === true;
  }
  /** A setting of the rule system or the tactics as a control: a toggle, a choice, or a
   * number with its model's bounds (never raw JSON). ``from``: where an unset value comes from. */
  function settingField(c, path, value, who, from = "") {
    const label = c.name.replace(/_/g, " ");
    const shown = value === undefined ? c.default : value;
    if (c.kind === "flag") return fieldInput(label, path, shown, { type: "checkbox", who, help: c.help, from });
    if (c.kind === "choice") return fieldInput(label, path, shown, { choices: c.choices, wide: true, who, help: c.help, from });
    return fieldInput(label, path, shown, { min: c.min, max: c.max, step: c.integer ? 1 : "any", who, help: c.help, from });
  }
  function controls() { return S.view?.controls || { options: [], tactics: [], rule_tactics: [] }; }
  /** Details that stay open across the form's re-renders (after every edit of the YAML). */
  function keptOpen(key, summary, ...body) {
    const box = el("details", { class: "settings", "data-key": key, open: S.open.has(key) }, el("summary", { text: summary }), ...body);
    box.addEventListener("toggle", () => { if (box.open) S.open.add(key); else S.open.delete(key); });
    return box;
  }
  /** Every tactic of a side or member: the generic ones and the system's own (tactics.rules),
   * each showing its own value, else the side's, else the default. */
  function tacticsBox(key, prefix, own, side, who) {
    const rules = own.rules && typeof own.rules === "object" ? own.rules : {};
    const sideRules = side && side.rules && typeof side.rules === "object" ? side.rules : {};
    const pick = (mine, theirs, k) => (k in mine ? [mine[k], ""] : theirs && k in theirs ? [theirs[k], "the side's"] : [undefined, "default"]);
    const generic = controls().tactics.map((c) => {
      const [v, from] = pick(own, side, c.name);
      return settingField(c, `${prefix}.tactics.${c.name}`, v, who, from);
    });
    const ruleFields = controls().rule_tactics.map((c) => {
      const top = c.name in own && !(c.name in rules) ? { ...rules, [c.name]: own[c.name] } : rules;
      const [v, from] = pick(top, sideRules, c.name);
      return settingField(c, `${prefix}.tactics.rules.${c.name}`, v, who, from);
    });
    const written = [...Object.entries(own).filter(([k]) => k !== "rules"), ...Object.entries(rules)].map(([k, v]) => `${k.replace(/_/g, " ")} ${valueOf(v)}`);
    const summary = `tactics${written.length ? ": " + written.join(", ") : side ? " (the side's)" : ""}`;
    return keptOpen(key, summary,
      el("div", { class: "fields" }, generic),
      ruleFields.length ? el("div", { class: "fields rule-tactics", "data-rule-tactics": who }, el("span", { class: "group", text: `${S.view?.system || "system"}'s own` }), ruleFields) : null);
  }
  /** The fight's own settings: the turn limit and every plain rule option of its system. */
  function rulesBox() {
    const options = S.view?.options?.rules || {};
    const fields = controls().options.map((c) => settingField(c, `rules.options.${c.name}`, options[c.name], "rules", c.name in options ? "" : "default"));
    const turns = fieldInput("turn limit", "turn_limit", S.view?.options?.turn_limit ?? 20, { min: 1, max: 1000, step: 1, who: "fight" });
    const set = Object.keys(options).length;
    return keptOpen("rules", `Rules: ${S.view?.system || "?"} options and the turn limit${set ? ` (${set} set in the file)` : ""}`,
      el("div", { class: "fields", id: "rule-options" }, turns, fields));
  }
  function valueOf(v) {
    if (v == null) return "";
    if (Array.isArray(v)) return v.join(", ");
    if (typeof v === "object") return v.name ?? JSON.stringify(v);
    return v;
  }
  function renderMember(side, member) {
    const head = el("div", { class: "member-head" },
      el("span", { class: "who", text: member.name }),
      member.archetype ? el("span", { class: "badge", title: "archetype", text: member.archetype }) : null,
      member.position ? el("span", { class: "muted small", text: `at (${member.position.join(", ")})` }) : null,
      el("button", { type: "button", class: "small remove", "aria-label": `Remove ${member.name} from ${side.name}`, title: "Remove this member", text: "Remove",
        onclick: () => buildFight({ remove: "member", side: sideIndex(side), member: side.members.indexOf(member) }) }));
    const fields = el("div", { class: "fields" });
    const field = (label, path, value, opts = {}) => fieldInput(label, path, value, { ...opts, who: member.name });
    fields.append(field("count", memberPath(member, "count"), member.count ?? 1, { min: 0 }));
    for (const [key, v] of Object.entries(member.numbers || {})) {
      fields.append(field(key.split(".").pop().replace(/_/g, " "), memberPath(member, key), valueOf(v)));
    }
    const weapons = Array.isArray(member.weapons) ? member.weapons : member.weapons ? [member.weapons] : [];
    weapons.forEach((w, i) => {
      const path = memberPath(member, `weapons.${i}`) ?? memberPath(member, `weapons[${i}]`) ?? (weapons.length === 1 ? memberPath(member, "weapon") ?? memberPath(member, "weapons") : null);
      fields.append(field(weapons.length > 1 ? `weapon ${i + 1}` : "weapon", path, valueOf(w), { choices: S.catalogue.weapons || [], wide: true }));
    });
    if (member.armor !== undefined) {
      fields.append(field("armor", memberPath(member, "armor"), valueOf(member.armor) || "none", { choices: ["none", ...(S.catalogue.armor || [])], wide: true }));
    }
    if (member.position && memberPath(member, "position")) {
      fields.append(field("position", memberPath(member, "position"), `[${member.position.join(", ")}]`, { type: "text" }));
    }
    const prefix = memberPath(member, "count").replace(/\.count$/, "");
    const tactics = tacticsBox(prefix, prefix, member.tactics || {}, side.tactics || {}, member.name);
    return el("div", { class: "member", "data-member": member.name, "data-side": side.name }, head, fields, tactics);
  }
  function renderForm() {
    const box = $("sides");
    const view = S.view;
    if (!view) { box.textContent = "The scenario could not be read; fix the YAML."; return; }
    box.replaceChildren(rulesBox(), ...(view.sides || []).map((side, i) => {
      const tactics = tacticsBox(`sides[${i}]`, `sides[${i}]`, side.tactics || {}, null, side.name);
      tactics.classList.add("side-fields");
      tactics.dataset.sideTactics = side.name;
      // the side's own buttons first: a keyboard user reaches them before every member's fields
      return el("fieldset", { class: "side", "data-side": side.name, style: `border-left: 4px solid ${SIDE_COLOURS[i % 4]}` },
        el("legend", { text: side.name }),
        el("div", { class: "row-actions side-actions" },
          el("button", { type: "button", class: "small add-member", text: "+ Add a member", "aria-label": `Add a member to ${side.name}`, onclick: () => pickArchetype({ add: "member", side: i }, `Add a member to ${side.name}`) }),
          el("button", { type: "button", class: "small remove", text: "Remove the side", "aria-label": `Remove the side ${side.name}`, onclick: () => buildFight({ remove: "side", side: i }) })),
        tactics, (side.members || []).map((m) => renderMember(side, m)));
    }), el("div", { class: "row-actions" },
      el("button", { type: "button", id: "add-side", class: "small", text: "+ Add a side", onclick: () => pickArchetype({ add: "side" }, "Add a side: its first member") })));
  }
  function sideIndex(side) { return (S.view?.sides || []).indexOf(side); }

  // ---------- building the fight: sides and members from the catalogue's archetypes ----------
  /** The archetypes a new member can be: the scenario's own and its catalogues' (ready), then
   * the shipped catalogue's others (which bring their catalogue into the scenario). */
  function archetypes() {
    const ready = S.view?.archetypes || [];
    const names = new Set(ready.map((a) => a.name));
    return [...ready, ...(S.catalogue.archetypes || []).filter((a) => !names.has(a.name))];
  }
  function archetypeCard(a, op) {
    const numbers = Object.entries(a.numbers || {}).map(([k, v]) => `${k.replace(/_/g, " ")} ${v}`).join(" · ");
    const kit = [...(a.weapons || []), a.armor].filter(Boolean).join(", ");
    const text = [a.name, numbers, kit, a.catalogue || ""].join(" ").toLowerCase();
    const button = el("button", { type: "button", class: "archetype", "data-archetype": a.name, onclick: () => { $("archetype-dialog").close("cancel"); buildFight({ ...op, archetype: a.name, catalogue: a.catalogue }); } },
      el("b", { text: a.name.replace(/_/g, " ") }),
      a.catalogue ? el("span", { class: "muted small", text: ` from the shipped ${a.catalogue} catalogue` }) : null,
      el("span", { class: "small numbers", text: numbers }),
      kit ? el("span", { class: "small muted", text: kit }) : null);
    return el("li", { "data-text": text }, button);
  }
  function pickArchetype(op, title) {
    $("archetype-h").textContent = title;
    $("archetype-list").replaceChildren(...archetypes().map((a) => archetypeCard(a, op)));
    $("archetype-search").value = "";
    filterArchetypes();
    $("archetype-dialog").showModal();
    $("archetype-search").focus();
  }
  function filterArchetypes() {
    const words = $("archetype-search").value.toLowerCase().split(/\s+/).filter(Boolean);
    let shown = 0;
    for (const li of $("archetype-list").children) {
      li.hidden = !words.every((w) => li.dataset.text.includes(w));
      shown += !li.hidden;
    }
    $("archetype-count").textContent = `${shown} of ${$("archetype-list").children.length} archetypes`;
  }
  $("archetype-search").addEventListener("input", filterArchetypes);
  $("archetype-search").addEventListener("keydown", (ev) => { // Enter takes the first one shown
    if (ev.key !== "Enter") return;
    ev.preventDefault();
    $("archetype-list").querySelector("li:not([hidden]) button")?.click();
  });
  /** A side or member added or removed: the server writes it into the text (the form's field
   * edits folded in first, the comments kept); the YAML, the form and the figures follow. */
  let building = Promise.resolve();
  function buildFight(op) { // one at a time: each is written into the text the last one made
    building = building.then(() => buildOnce(op));
    return building;
  }
  async function buildOnce(op) {
    const body = { yaml: S.yaml, scenario: S.file, op };
    if (S.sets.size) body.set = [...S.sets].map(([p, v]) => `${p}=${v}`);
    $("form-errors").textContent = "";
    try {
      const res = await api("POST", "/api/build", body);
      editClock();
      Object.assign(S, { yaml: res.yaml, sets: new Map(), view: res.view || S.view });
      $("yaml").value = res.yaml;
      clearYamlErrors();
      renderForm(); fillStudyControls(); markEdited();
      scheduleRun();
      // the keyboard stays where the work is: the new member's first field, or the side's adding
      const sides = [...document.querySelectorAll("#sides fieldset.side")];
      const side = op.add === "side" ? sides[sides.length - 1] : sides[op.side];
      const members = side ? [...side.querySelectorAll(".member")] : [];
      const target = op.add ? members[members.length - 1]?.querySelector("input") : side?.querySelector(".add-member");
      (target || $("add-side")).focus();
    } catch (e) {
      $("form-errors").textContent = e.message;
    }
  }
  function onFieldEdit(input) {
    const path = input.dataset.path;
    const value = input.type === "checkbox" ? String(input.checked) : input.value.trim();
    editClock();
    if (value === String(input.dataset.original)) S.sets.delete(path);
    else S.sets.set(path, value);
    S.lastEdited = input;
    setFieldError(input, "");
    markEdited();
    scheduleRun();
  }
  function setFieldError(input, message) {
    const err = $(input.getAttribute("aria-describedby"));
    if (err) err.textContent = message;
    input.setAttribute("aria-invalid", message ? "true" : "false");
  }
  function markEdited() {
    const edited = S.sets.size > 0 || S.yaml !== S.original;
    $("edited-flag").hidden = !edited;
    $("edited-flag").textContent = S.sets.size ? `edited (${S.sets.size} field${S.sets.size > 1 ? "s" : ""}${S.yaml !== S.original ? " + YAML" : ""})` : "edited";
    document.dispatchEvent(new CustomEvent("combatsim:changed")); // the map (map.js) redraws
  }

  // ---------- the YAML editor ----------
  function renderGutter(bad = new Map()) {
    const lines = $("yaml").value.split("\n").length;
    let out = "";
    for (let i = 1; i <= lines; i++) out += bad.has(i) ? `<span class="bad" title="${esc(bad.get(i))}">${i}</span>` : i + "\n";
    $("yaml-gutter").innerHTML = out;
    $("yaml-gutter").scrollTop = $("yaml").scrollTop;
  }
  function clearYamlErrors() {
    $("yaml-errors").replaceChildren();
    $("yaml").setAttribute("aria-invalid", "false");
    renderGutter();
  }
  function showYamlErrors(errors) {
    const bad = new Map();
    errors.forEach((e) => { if (e.line != null && !bad.has(e.line)) bad.set(e.line, e.message); });
    renderGutter(bad);
    $("yaml").setAttribute("aria-invalid", errors.length ? "true" : "false");
    $("yaml-errors").replaceChildren(...errors.map((e) => el("li", {},
      e.line != null ? el("button", { type: "button", class: "linkish", onclick: () => goToLine(e.line), text: `line ${e.line}` }) : null,
      e.line != null ? ": " : "", e.message)));
  }
  function goToLine(n) {
    const ta = $("yaml"), lines = ta.value.split("\n");
    const start = lines.slice(0, n - 1).reduce((a, l) => a + l.length + 1, 0);
    ta.focus();
    ta.setSelectionRange(start, start + (lines[n - 1] || "").length);
    ta.scrollTop = Math.max(0, (n - 5) * 18);
  }
  let yamlTimer = null;
  $("yaml").addEventListener("input", () => {
    editClock();
    renderGutter();
    clearTimeout(yamlTimer);
    yamlTimer = setTimeout(checkYaml, DEBOUNCE_MS);
  });
  $("yaml").addEventListener("scroll", () => { $("yaml-gutter").scrollTop = $("yaml").scrollTop; });
  async function checkYaml() {
    const text = $("yaml").value, seq = ++S.checkSeq;
    try {
      const res = await api("POST", "/api/check", { yaml: text, scenario: S.file });
      if (seq !== S.checkSeq) return;
      const errors = errorList(res);
      if (errors.length) { showYamlErrors(errors); $("results").classList.add("stale"); status("run-status", "Fix the YAML to see new figures (the figures below are the last good ones).", true); return; }
      clearYamlErrors();
      S.yaml = text; S.view = res.view || S.view;
      renderForm(); fillStudyControls(); markEdited();
      startRun();
    } catch (e) {
      if (seq === S.checkSeq) showYamlErrors(e.list?.length ? e.list : [{ line: null, message: e.message }]);
    }
  }
  function selectTab(which) {
    const yaml = which === "yaml";
    $("tab-form").setAttribute("aria-selected", String(!yaml)); $("tab-yaml").setAttribute("aria-selected", String(yaml));
    $("tab-form").tabIndex = yaml ? -1 : 0; $("tab-yaml").tabIndex = yaml ? 0 : -1;
    $("panel-form").hidden = yaml; $("panel-yaml").hidden = !yaml;
    if (yaml) {
      renderGutter();
      const n = S.sets.size;
      $("yaml-note").textContent = n ? `${n} field edit${n > 1 ? "s" : ""} from the form ${n > 1 ? "are" : "is"} applied on top of this text (Download YAML gives both together).` : "";
    }
  }
  $("tab-form").addEventListener("click", () => selectTab("form"));
  $("tab-yaml").addEventListener("click", () => selectTab("yaml"));
  for (const tab of [$("tab-form"), $("tab-yaml")]) {
    tab.addEventListener("keydown", (ev) => {
      if (ev.key !== "ArrowLeft" && ev.key !== "ArrowRight") return;
      const other = tab.id === "tab-form" ? "yaml" : "form";
      selectTab(other); $("tab-" + other).focus();
    });
  }

  // ---------- runs ----------
  function sourceBody() {
    // edited text names the file it is an edit of: its catalogue paths are read from there
    const body = S.yaml === S.original ? { scenario: S.file } : { yaml: S.yaml, scenario: S.file };
    if (S.sets.size) body.set = [...S.sets].map(([p, v]) => `${p}=${v}`);
    return body;
  }
  function intOrNull(id) { const v = $(id).value.trim(); return v === "" ? null : Number(v); }
  function scheduleRun() { clearTimeout(S.debounce); S.debounce = setTimeout(startRun, DEBOUNCE_MS); }
  function stopRun() {
    clearTimeout(S.debounce);
    if (S.stream) { S.stream.close(); S.stream = null; }
    if (S.runId) { api("DELETE", `/api/runs/${S.runId}`).catch(() => {}); S.runId = null; }
  }
  async function startRun(retry = 0) {
    const seq = ++S.runSeq;
    if (S.stream) { S.stream.close(); S.stream = null; }
    const body = { ...sourceBody(), battles: intOrNull("battles") || 1000, page: PAGE };
    const precision = intOrNull("precision"), seed = intOrNull("seed");
    if (precision) body.precision = precision;
    if (seed != null) body.seed = seed;
    if (!$("results").classList.contains("stale")) status("run-status", "Starting…");
    try {
      const { id } = await api("POST", "/api/runs", body);
      if (seq !== S.runSeq) { api("DELETE", `/api/runs/${id}`).catch(() => {}); return; }
      S.runId = id; perf.runs++; perf.postedAt = performance.now();
      clearEditErrors();
      // only this run's figures, and only while it is the page's run: the last look after its
      // stream ends may answer after an edit has started the next one
      const mine = (data) => { if (seq === S.runSeq) renderRun(data, id); };
      S.stream = listen(`/api/runs/${id}/events`, mine, () => api("GET", `/api/runs/${id}`).then(mine).catch(() => {}));
    } catch (e) {
      if (seq !== S.runSeq) return;
      if (e.status === 429 && retry < 20) { status("run-status", "The server is busy; trying again…"); setTimeout(() => { if (seq === S.runSeq) startRun(retry + 1); }, 400); return; }
      if (e.status === 422) { showEditErrors(e.list); return; }
      status("run-status", e.message, true);
    }
  }
  function clearEditErrors() {
    $("form-errors").textContent = "";
    for (const input of document.querySelectorAll("#sides [aria-invalid=true]")) setFieldError(input, "");
  }
  function showEditErrors(list) {
    $("results").classList.add("stale");
    const messages = list.map((e) => (e.line != null ? `line ${e.line}: ` : "") + e.message);
    status("run-status", "Not run: " + messages[0], true);
    const input = S.lastEdited && document.body.contains(S.lastEdited) ? S.lastEdited : null;
    if (input) setFieldError(input, messages.join(" "));
    else $("form-errors").textContent = messages.join(" ");
    if (!$("panel-yaml").hidden) showYamlErrors(list);
  }
  function renderRun(r, id) {
    const done = r.battles_done ?? r.battles_completed ?? 0, wanted = r.battles_requested || intOrNull("battles") || done;
    const state = r.state || "done";
    if (!done && S.shown && S.shown !== id && state !== "failed") return; // the old figures stay, faded, until new ones come
    if (done > 0 && perf.firstAt == null) perf.firstAt = performance.now();
    if (done >= 1000 && perf.thousandAt == null) perf.thousandAt = performance.now();
    const words = { running: "running", done: "done", cancelled: "stopped", failed: "failed" }[state] || state;
    const took = perf.editAt != null && perf.firstAt != null ? ` · first figures ${Math.round(perf.firstAt - perf.editAt)} ms after the edit` : "";
    status("run-status", `${done.toLocaleString()} of ${Number(wanted).toLocaleString()} battles · ${words}${took}`, state === "failed");
    $("run-status").dataset.battles = done;
    $("run-status").dataset.state = state;
    $("run-status").dataset.run = id;
    $("results").classList.remove("stale");
    $("run-progress").max = wanted || 1; $("run-progress").value = done;
    if (r.error) status("run-status", "The run failed: " + r.error, true);
    $("verdict").textContent = verdictText(r);
    if (state === "done" && id) {
      loadExact(id);
      document.dispatchEvent(new CustomEvent("combatsim:run-done", { detail: { id } })); // static/story.js
    } else if ($("exact-attacks").dataset.run !== id) $("exact-attacks").hidden = true;
    if (!done) return;
    S.shown = id;
    const order = r.side_order || Object.keys(r.sides || {});
    const winRows = order.map((side, i) => ({ label: side, bars: [{ value: r.sides[side]?.win_rate, ci: r.sides[side]?.ci95, colour: SIDE_COLOURS[i % 4], name: "wins" }] }));
    if (r.draws) winRows.push({ label: "draw", bars: [{ value: r.draws.rate, ci: r.draws.ci95, colour: "var(--draw)", name: "draws" }] });
    $("win-chart").innerHTML = intervalChart(winRows, { title: "Win and draw rates" });
    const cas = (r.casualties || []).filter((c) => c.level !== "copy");
    $("cas-chart").innerHTML = intervalChart(cas.map((c) => ({
      label: c.who, indent: c.level === "side" ? 0 : 1,
      bars: [{ value: c.down_rate, ci: c.down_ci95, colour: "var(--down)", name: "down" }, { value: c.dead_rate, ci: c.dead_ci95, colour: "var(--dead)", name: "dead" }],
    })), { title: "Casualties, down and dead" });
    const links = $("csv-links");
    if (id && links.dataset.run !== id) {
      links.dataset.run = id;
      const stem = (S.file || "scenario").replace(/\.ya?ml$/, "");
      const link = (t, ext, text) => el("a", { href: withToken(`/api/runs/${id}/${t}.${ext}`), download: `${stem}-${t}.${ext}`, text });
      const tables = ["battles", "combatants", "casualties", "attacks"];
      links.replaceChildren("Tables of this run: ", ...tables.map((t) => link(t, "csv", t + ".csv")),
        el("span", { class: "parquet-links muted" }, "Parquet: ", ...tables.flatMap((t, i) => [i ? " · " : "", link(t, "parquet", t)])));
    }
  }
  // The exact odds of one attack for the attacks the run made most, worked out by the server
  // once the run has ended (as the single-run report shows them), beside the sampled casualties.
  async function loadExact(id) {
    const box = $("exact-attacks");
    if (box.dataset.run === id) return;
    box.dataset.run = id; box.hidden = false;
    status("exact-status", "Working out the exact odds of the attacks used most…");
    $("exact-table").replaceChildren(); $("exact-note").textContent = "";
    // the rows come as they are worked out (some walks take seconds): asked again until done
    const ask = async () => {
      if (box.dataset.run !== id || box.hidden) return;
      try {
        const d = await api("GET", `/api/runs/${id}/exact`);
        if (box.dataset.run !== id) return;
        renderExact(d);
        if (d.complete === false) setTimeout(ask, 500);
      } catch (e) {
        if (box.dataset.run === id) status("exact-status", "No exact odds: " + e.message, true);
      }
    };
    await ask();
  }
  function renderExact(d) {
    if (!d.rows.length) { status("exact-status", "No attack was made in these battles."); return; }
    const left = d.rows.filter((r) => r.reason === "being worked out…").length;
    status("exact-status", `The ${d.rows.length} attacks used most (of ${d.pairs} kinds) in ${Number(d.battles).toLocaleString()} battles.`
      + (left ? ` Working out the exact odds of ${left} more…` : ""));
    const sampled = (rate, ci) => (rate == null ? "–" : `${pct(rate)}<br><small class="muted">${interval(ci)}</small>`);
    const chances = (r) => (r.reason
      ? `<td class="why muted" colspan="3">${esc(r.reason)}</td>`
      : ["p_hit", "p_down", "p_dead"].map((k) => `<td class="num" title="${esc(r.exact[k])}">${chance(r[k], r.exact[k])}</td>`).join(""));
    const how = (r) => esc(r.weapon) + (r.shots > 1 ? `, ${r.shots} shots` : "")
      + (r.closed_in == null ? "" : `, moved in ${r.closed_in} m`);
    const one = "one such attack on the unhurt target at the start; 0: no way of the dice gives it (it takes more than one)";
    const head = `<tr><th>attack</th><th class=num>made</th><th class=num title="${one}">P(hit)</th>`
      + `<th class=num title="${one}">P(down)<br><small class=muted>one attack</small></th><th class=num title="${one}">P(dead)<br><small class=muted>one attack</small></th>`
      + "<th class=num>target ends down<br><small class=muted>the whole fight</small></th><th class=num>ends dead<br><small class=muted>the whole fight</small></th></tr>";
    const rows = d.rows.map((r) => `<tr><td class="who">${esc(r.attacker)} → ${r.target == null ? "<i>a point</i>" : esc(r.target)}`
      + `<br><small class="muted">${how(r)}</small></td><td class="num">${Number(r.attacks).toLocaleString()}</td>${chances(r)}`
      + `<td class="num">${sampled(r.down_rate, r.down_ci95)}</td><td class="num">${sampled(r.dead_rate, r.dead_ci95)}</td></tr>`);
    $("exact-table").innerHTML = head + rows.join("");
    $("exact-note").textContent = d.note + " Hover a chance for its exact fraction.";
  }
  for (const id of ["battles", "precision", "seed"]) $(id).addEventListener("change", () => { editClock(); scheduleRun(); });

  // ---------- studies: sweep + balance, compare, explain ----------
  /** Every field a sweep can vary, grouped by where it is: the fight's rule options and turn
   * limit, each side's tactics, and each member's count, numbers, weapons, armor and tactics;
   * each with its kind (a number, a choice, a toggle) and its value now. */
  function sweepFields() {
    const out = [], c = controls(), view = S.view || {};
    const group = (label, items) => { if (items.length) out.push({ label, items }); };
    const setting = (ctl, path, value) => ({ path, label: ctl.name.replace(/_/g, " "), kind: ctl.kind === "flag" ? "flag" : ctl.kind, choices: ctl.choices, integer: ctl.integer, min: ctl.min, max: ctl.max, value: value === undefined ? ctl.default : value });
    const tactic = (prefix, own, side) => [
      ...c.tactics.map((t) => setting(t, `${prefix}.tactics.${t.name}`, own[t.name] ?? side?.[t.name])),
      ...c.rule_tactics.map((t) => setting(t, `${prefix}.tactics.rules.${t.name}`, own.rules?.[t.name] ?? side?.rules?.[t.name])),
    ].map((f) => ({ ...f, label: "tactics · " + f.label }));
    const options = view.options?.rules || {};
    group("the fight", [
      { path: "turn_limit", label: "turn limit", kind: "number", integer: true, min: 1, value: view.options?.turn_limit ?? 20 },
      ...c.options.map((o) => setting(o, `rules.options.${o.name}`, options[o.name])).map((f) => ({ ...f, label: "rules · " + f.label })),
    ]);
    (view.sides || []).forEach((side, i) => {
      group(`${side.name} · side`, tactic(`sides[${i}]`, side.tactics || {}, null));
      for (const m of side.members || []) {
        const prefix = memberPath(m, "count").replace(/\.count$/, "");
        const items = [{ path: `${prefix}.count`, label: "count", kind: "number", integer: true, min: 0, value: m.count ?? 1 }];
        for (const [key, path] of Object.entries(m.paths || {})) {
          const v = (m.numbers || {})[key];
          if (typeof v === "number") items.push({ path, label: key.replace(/_/g, " "), kind: "number", integer: Number.isInteger(v), value: v });
        }
        (m.weapons || []).forEach((w, k) => items.push({ path: `${prefix}.weapons[${k}]`, label: m.weapons.length > 1 ? `weapon ${k + 1}` : "weapon", kind: "choice", choices: S.catalogue.weapons || [], value: w }));
        items.push({ path: `${prefix}.armor`, label: "armor", kind: "choice", choices: ["none", ...(S.catalogue.armor || [])], value: m.armor ?? "none" });
        group(`${side.name} · ${m.name}`, [...items, ...tactic(prefix, m.tactics || {}, side.tactics || {})]);
      }
    });
    return out;
  }
  function fillStudyControls() {
    const fields = $("sweep-field");
    const prev = fields.value;
    S.sweepable = new Map();
    fields.replaceChildren(...sweepFields().map((g) => el("optgroup", { label: g.label }, g.items.map((f) => {
      S.sweepable.set(f.path, { ...f, where: g.label });
      return el("option", { value: f.path, text: `${g.label} · ${f.label}` });
    }))));
    const groups = (S.view?.sides || []).flatMap((side) => side.members || []).filter((m) => m.paths?.count);
    const biggest = groups.sort((a, b) => (b.count ?? 1) - (a.count ?? 1))[0];
    if (S.sweepable.has(prev)) fields.value = prev;
    else if (biggest) fields.value = biggest.paths.count;
    if (fields.value !== prev) sweepValues();
    const sides = (S.view?.sides || []).map((s) => s.name);
    for (const id of ["balance-side", "explain-side"]) {
      const sel = $(id), keep = sel.value;
      sel.replaceChildren(...sides.map((n) => el("option", { value: n, text: n })));
      if (sides.includes(keep)) sel.value = keep;
    }
  }
  /** The values a sweep of the chosen field offers: a range for a number, a pick of the
   * choices (weapons, armor, a tactic's words) or both ways of a toggle. */
  function sweepValues() {
    const f = S.sweepable?.get($("sweep-field").value);
    if (!f) return;
    const number = f.kind === "number";
    $("sweep-range").hidden = !number; $("sweep-pick").hidden = number;
    if (number) {
      const v = Number(f.value ?? 0), lo = f.min ?? -Infinity;
      const step = f.integer ? 1 : Math.abs(v) >= 2 ? 1 : 0.1;
      const from = f.path.endsWith(".count") ? Math.max(0, Math.min(1, v)) : Math.max(lo, +(v - 3 * step).toFixed(6));
      const to = f.path.endsWith(".count") ? Math.max(8, v + 4) : Math.min(f.max ?? Infinity, +(v + 3 * step).toFixed(6));
      $("sweep-from").value = from; $("sweep-to").value = to; $("sweep-step").value = step;
      return;
    }
    const choices = f.kind === "flag" ? ["true", "false"] : [...new Set([String(f.value ?? ""), ...(f.choices || []).map(String)])].filter(Boolean);
    const now = choices.indexOf(String(f.kind === "flag" ? isOn(f.value) : f.value));
    $("sweep-values").replaceChildren(...choices.map((c, i) => el("option", { value: c, text: c, selected: f.kind === "flag" || (i >= now && i < now + 3) || (now < 0 && i < 3) })));
    $("sweep-values").size = Math.min(6, Math.max(2, choices.length));
  }
  $("sweep-field").addEventListener("change", sweepValues);
  /** The vary's values as `combatsim sweep` reads them: LO..HI/STEP for whole numbers, else
   * the values listed (at most 50). Null, with the reason shown, when there are none. */
  function sweepSpec(f) {
    if (f.kind !== "number") {
      const picked = [...$("sweep-values").selectedOptions].map((o) => o.value);
      if (picked.length < 2) { status("sweep-status", "Pick at least two values to compare.", true); return null; }
      return picked.join(",");
    }
    const lo = Number($("sweep-from").value), hi = Number($("sweep-to").value), step = Number($("sweep-step").value) || 1;
    if (!(hi > lo)) { status("sweep-status", "“to” must be larger than “from”.", true); return null; }
    if ([lo, hi, step].every(Number.isInteger)) return step === 1 ? `${lo}..${hi}` : `${lo}..${hi}/${step}`;
    const values = [];
    for (let v = lo; v <= hi + 1e-9 && values.length < 50; v += step) values.push(+v.toFixed(6));
    return values.join(",");
  }
  /** POST a study, waiting politely while the server is at its cap of running jobs (429). */
  async function postStudy(body, statusId, tries = 40) {
    for (let i = 0; ; i++) {
      try { return await api("POST", "/api/studies", body); }
      catch (e) {
        if (e.status !== 429 || i >= tries) throw e;
        status(statusId, "Waiting for a free worker…");
        await new Promise((ok) => setTimeout(ok, 750));
      }
    }
  }
  function runStudy(kind, body, statusId, render) {
    const old = S.studies[kind];
    if (old) { old.stream?.close(); api("DELETE", `/api/studies/${old.id}`).catch(() => {}); }
    status(statusId, "Running…");
    const entry = (S.studies[kind] = { id: null, stream: null });
    return postStudy({ kind, ...sourceBody(), ...body, page: PAGE }, statusId).then(({ id }) => {
      entry.id = id;
      const show = (data) => {
        if (S.studies[kind] !== entry) return;
        const words = data.state === "running" ? "running…" : data.state;
        const done = data.battles_done ?? data.battles_completed;
        status(statusId, `${words}${done ? ` · ${Number(done).toLocaleString()} battles` : ""}`, data.state === "failed");
        if (data.error) status(statusId, data.error, true);
        render(data);
      };
      entry.stream = listen(`/api/studies/${id}/events`, show, () => api("GET", `/api/studies/${id}`).then(show).catch(() => {}));
    }).catch((e) => {
      status(statusId, e.message, true);
      if (e.status === 422 && S.lastEdited) setFieldError(S.lastEdited, e.message);
    });
  }
  /** The command's own printed lines, folded away under the chart. */
  function commandText(id, verdict, what) {
    const lines = Array.isArray(verdict) ? verdict : verdict ? [verdict] : [];
    if (!lines.length) { $(id).replaceChildren(); return; }
    $(id).replaceChildren(el("details", {}, el("summary", { text: `What ${what} prints` }), el("pre", { class: "trace", text: lines.join("\n") })));
  }
  function sideOrder() { return (S.view?.sides || []).map((s) => s.name); }
  function sweepSeries(rows, path) {
    const column = path.toLowerCase().replace(/[^0-9a-z]+/g, "_").replace(/^_+|_+$/g, ""); // table.csv's name
    const xKey = rows.length && (path in rows[0] ? path : column in rows[0] ? column : Object.keys(rows[0]).find((k) => k === "value" || k.endsWith(path.split(".").pop())));
    const xs = rows.map((r) => { const x = r[xKey] ?? r.values?.[path]; return typeof x === "number" || (x !== "" && !isNaN(Number(x)) && typeof x !== "boolean") ? Number(x) : x; });
    const series = sideOrder().map((side, i) => ({
      name: side, colour: SIDE_COLOURS[i % 4],
      points: rows.map((r, k) => ({ x: xs[k], value: r[`win_rate_${side}`] ?? null, ci: r[`ci_low_${side}`] != null ? [r[`ci_low_${side}`], r[`ci_high_${side}`]] : null })),
    }));
    return { xs, series };
  }
  $("sweep-form").addEventListener("submit", () => {
    const path = $("sweep-field").value;
    const f = S.sweepable?.get(path);
    if (!path || !f) return;
    const spec = sweepSpec(f);
    if (spec == null) return;
    const side = $("balance-side").value, target = Number($("balance-target").value);
    const battles = intOrNull("sweep-battles") || 300;
    const label = $("sweep-field").selectedOptions[0]?.textContent || path;
    const state = { rows: [], best: null };
    const draw = () => {
      if (!state.rows.length) return;
      const { xs, series } = sweepSeries(state.rows, path);
      const mark = state.best ? { value: state.best.value, label: `balance: ${state.best.value} (${side} ${pct(state.best.rate ?? state.best.win_rate)})` } : null;
      if (xs.every((x) => typeof x === "number" && !isNaN(x))) {
        $("sweep-chart").innerHTML = sweepChart(xs, series, { mark, target, xLabel: label });
        return;
      }
      // words (a weapon, an armor, a tactic): one row of win rates per value
      $("sweep-chart").innerHTML = intervalChart(xs.map((x, k) => ({
        label: String(x) + (state.best && String(state.best.value) === String(x) ? " ◆" : ""),
        bars: series.map((s) => ({ value: s.points[k].value, ci: s.points[k].ci, colour: s.colour, name: `${s.name} wins` })),
      })), { title: `${label}: win rates` });
    };
    runStudy("sweep", { vary: [`${path}=${spec}`], battles }, "sweep-status", (d) => {
      state.rows = d.rows || []; draw();
      if (d.state !== "running" && state.line) status("sweep-status", state.line); // the balance's word stays
    });
    runStudy("balance", { vary: `${path}=${spec}`, target: `${side} win ${target}`, battles }, "sweep-status", (d) => {
      const best = d.best || d.summary?.best;
      if (best) { state.best = best; draw(); }
      if (d.state && d.state !== "running") {
        commandText("sweep-text", d.verdict, "combatsim balance");
        if (best) state.line = `balance: ${best.value} gives ${side} ${pct(best.rate ?? best.win_rate)} (${interval(best.ci95 ?? best.win_ci95)}) against the aim of ${pct(target)}`;
        if (state.line) status("sweep-status", state.line);
      }
    });
  });
  $("compare-run").addEventListener("click", () => {
    if (!S.sets.size && S.yaml === S.original) { status("compare-status", "Edit something first: the comparison is the edited fight against the file as written."); return; }
    status("compare-status", "");
    const sets = [...S.sets].map(([p, v]) => `${p}=${v}`);
    // B is the edited fight: the YAML tab's text when it was edited (plus the form's edits),
    // else the file with the form's edits; A is always the file as written.
    const body = S.yaml !== S.original
      ? { scenario: S.file, yaml: S.yaml, set: sets, battles: intOrNull("battles") || 1000 }
      : { scenario: S.file, b_set: sets, battles: intOrNull("battles") || 1000 };
    const old = S.studies.compare;
    if (old) { old.stream?.close(); api("DELETE", `/api/studies/${old.id}`).catch(() => {}); }
    const entry = (S.studies.compare = { id: null, stream: null });
    status("compare-status", "Running…");
    postStudy({ kind: "compare", ...body, page: PAGE }, "compare-status").then(({ id }) => {
      entry.id = id;
      const show = (d) => {
        const diffs = d.differences || d.summary?.differences || [];
        const first = diffs[0];
        const gist = first ? `${first.side} win: B − A = ${pp(first.difference)} (${pp(first.ci95?.[0])} to ${pp(first.ci95?.[1])}), p ${pValue(first.p_value).startsWith("<") ? "" : "= "}${pValue(first.p_value)}` : "";
        status("compare-status", d.state === "running" ? `running… ${d.battles_done ? Number(d.battles_done).toLocaleString() + " battles" : ""}` : d.error || gist || d.state, d.state === "failed");
        if (d.state !== "running") commandText("compare-text", d.verdict, "combatsim compare");
        renderCompare(diffs);
      };
      entry.stream = listen(`/api/studies/${id}/events`, show, () => api("GET", `/api/studies/${id}`).then(show).catch(() => {}));
    }).catch((e) => status("compare-status", e.message, true));
  });
  function renderCompare(diffs) {
    if (!diffs.length) return;
    const rows = diffs.map((d) => el("tr", {},
      el("th", { scope: "row", text: d.side === "draws" ? "draws" : `${d.side} win` }),
      el("td", { class: "num", text: pct(d.a, 1) }), el("td", { class: "num", text: pct(d.b, 1) }),
      el("td", { class: "num", text: pp(d.difference) }),
      el("td", { class: "num", text: d.ci95 ? `${pp(d.ci95[0])} to ${pp(d.ci95[1])}` : "" }),
      el("td", { class: "num", text: pValue(d.p_value) }),
      el("td", { text: d.significant ? "yes" : "no" })));
    const table = el("table", { class: "diff-table" },
      el("caption", { class: "muted small", text: "A = as written, B = edited; paired on the same battle seeds" }),
      el("thead", {}, el("tr", {}, ["", "A", "B", "B − A", "95% interval", "p-value", "significant"].map((h) => el("th", { scope: "col", text: h })))),
      el("tbody", {}, rows));
    const levers = diffs.map((d, i) => ({ label: d.side === "draws" ? "draws" : `${d.side} win`, steps: [{ name: "B − A", value: d.difference, ci: d.ci95, p: d.p_value, significant: d.significant, colour: SIDE_COLOURS[i % 4] }] }));
    const chart = el("div", { class: "chart", html: tornadoChart(levers, { what: "rate, B − A" }).replace(/<div class="legend">.*?<\/div>/, "") });
    $("compare-out").replaceChildren(table, chart);
  }
  /** One lever's row with plain names: the server's table has a column per side for each
   * field (``member_<side>``, ``lever_<side>``...), filled for the side of the lever's member. */
  function leverRow(r) {
    if (r.lever != null) return r;
    const side = sideOrder().sort((a, b) => b.length - a.length).find((s) => r[`lever_${s}`] != null);
    if (side == null) return r;
    const out = {};
    for (const [k, v] of Object.entries(r)) {
      if (k.endsWith(`_${side}`)) out[k.slice(0, -side.length - 1)] = v;
      else if (!sideOrder().some((s) => k.endsWith(`_${s}`))) out[k] = v;
    }
    out.side = side;
    return out;
  }
  $("explain-form").addEventListener("submit", () => {
    const side = $("explain-side").value;
    runStudy("explain", { side, battles: intOrNull("explain-battles") || 200 }, "explain-status", (d) => {
      const rows = (d.rows || []).map(leverRow).sort((a, b) => (a.rank ?? 0) - (b.rank ?? 0)).slice(0, 14);
      if (!rows.length) return;
      const n = (v) => (v == null || Number.isNaN(Number(v)) ? null : Number(v));
      const levers = rows.map((r) => ({
        label: `${r.member ? r.member + ": " : ""}${r.lever} (${r.value ?? "?"})`,
        steps: [
          { name: `down to ${r.down ?? "–"}`, value: n(r.difference_down), ci: n(r.ci_low_down) != null ? [n(r.ci_low_down), n(r.ci_high_down)] : null, p: n(r.p_down), colour: "var(--side1)", significant: n(r.p_down) != null ? n(r.p_down) < 0.05 : null },
          { name: `up to ${r.up ?? "–"}`, value: n(r.difference_up), ci: n(r.ci_low_up) != null ? [n(r.ci_low_up), n(r.ci_high_up)] : null, p: n(r.p_up), colour: "var(--side0)", significant: n(r.p_up) != null ? n(r.p_up) < 0.05 : null },
        ],
      }));
      $("explain-chart").innerHTML = tornadoChart(levers, { what: `${side} win rate` });
      if (d.state !== "running") {
        if (d.text) status("explain-status", Array.isArray(d.text) ? d.text.join(" ") : d.text);
        commandText("explain-text", d.verdict, "combatsim explain");
      }
    });
  });

  // ---------- trace ----------
  $("trace-form").addEventListener("submit", async () => {
    const body = { ...sourceBody(), battle: Number($("trace-index").value) || 0 };
    const seed = intOrNull("seed");
    if (seed != null) body.seed = seed;
    $("trace").textContent = "Replaying…";
    try {
      const answer = await api("POST", "/api/trace", body);
      $("trace").textContent = answer.text;
      document.dispatchEvent(new CustomEvent("combatsim:trace", { detail: { ...answer, battle: body.battle } }));
    } catch (e) {
      $("trace").textContent = e.message;
    }
  });

  // ---------- odds ----------
  function calculators(data) {
    const list = Array.isArray(data) ? data : Array.isArray(data?.calculators) ? data.calculators : Object.entries(data || {}).map(([name, c]) => ({ name, ...c }));
    return list.map((c) => ({ ...c, name: c.name || c.calculator || c.system, args: c.arguments || c.args || [] }));
  }
  async function loadOdds() {
    try {
      S.odds = calculators(await api("GET", "/api/odds"));
      $("odds-calc").replaceChildren(...S.odds.map((c) => el("option", { value: c.name, text: c.help ? `${c.name} — ${c.help}` : c.name })));
      pickOddsFor(S.view?.system);
    } catch (e) {
      $("odds-error").textContent = "Odds calculators unavailable: " + e.message;
    }
  }
  /** The calculator of the scenario's system ("sr-classic" and "sr-d8" -> "sr", "sr2097" -> "2097"). */
  function pickOddsFor(system) {
    const sys = String(system || "");
    // the longest name the system's starts or ends with: "sr2097" is 2097's, not classic "sr"'s
    const fits = S.odds.filter((c) => sys === c.name || sys.startsWith(c.name) || sys.endsWith(c.name));
    const match = fits.sort((a, b) => (b.name === sys) - (a.name === sys) || b.name.length - a.name.length)[0];
    if (match) $("odds-calc").value = match.name;
    renderOddsArgs();
    const d8 = $("odds-d8");
    if (d8) d8.checked = /(^|-)d8$/.test(sys); // "sr-d8" rolls eight-sided dice
  }
  function renderOddsArgs() {
    const calc = S.odds.find((c) => c.name === $("odds-calc").value);
    const box = $("odds-args");
    box.replaceChildren();
    for (const a of calc?.args || []) {
      const name = (a.name || a.dest || "").replace(/^--/, "");
      const id = "odds-" + name;
      const flag = a.type === "bool" || a.type === "flag" || a.action === "store_true" || typeof a.default === "boolean";
      const input = flag
        ? el("input", { type: "checkbox", id, "data-arg": name, "data-flag": "1", checked: a.default === true })
        : a.choices ? el("select", { id, "data-arg": name },
          // an optional argument without a default starts blank: not given, as on the command line
          a.required || a.default != null ? null : el("option", { value: "", text: "—", selected: true }),
          a.choices.map((c) => el("option", { value: c, text: c, selected: c === a.default })))
          : el("input", { type: a.type === "int" || a.type === "integer" || typeof a.default === "number" ? "number" : "text", id, "data-arg": name, value: a.default ?? "", size: 6 });
      if (a.required) input.required = true;
      box.append(el("label", { for: id, title: a.help || "" }, name.replace(/[-_]/g, " ") + (a.required ? " *" : "") + " ", input));
    }
  }
  $("odds-calc").addEventListener("change", renderOddsArgs);
  $("odds-form").addEventListener("submit", async () => {
    const calc = S.odds.find((c) => c.name === $("odds-calc").value);
    if (!calc) return;
    const args = {};
    for (const input of $("odds-args").querySelectorAll("[data-arg]")) {
      const v = input.dataset.flag ? input.checked : input.value.trim();
      if (v === "" || v === false) continue;
      args[input.dataset.arg] = input.type === "number" ? Number(v) : v;
    }
    $("odds-error").textContent = "";
    try {
      const res = await api("POST", "/api/odds", { system: calc.system || calc.name, calculator: calc.name, args });
      drawOdds(res);
    } catch (e) {
      $("odds-error").textContent = e.message;
      $("odds-chart").innerHTML = "";
    }
  });
  function drawOdds(res) {
    const dist = res.distribution;
    if (dist && Array.isArray(dist.values)) {
      const series = Object.entries(dist.series || {}).slice(0, 2).map(([name, values]) => ({ name: name || "exactly", values }));
      if (series.length === 1) { // and the chance of at least each value, AnyDice's second view
        let sum = 0;
        series.push({ name: "at least", values: series[0].values.slice().reverse().map((v) => (sum += v)).reverse() });
      }
      $("odds-chart").innerHTML = barsChart(dist.values.map(String), series, { xLabel: dist.outcome || "" });
    } else {
      const arrays = Object.entries(res).filter(([, v]) => Array.isArray(v) && v.length && v.every((x) => typeof x === "number" && x >= 0 && x <= 1));
      if (!arrays.length) { $("odds-chart").innerHTML = ""; }
      else {
        const n = arrays[0][1].length;
        const series = arrays.filter(([, v]) => v.length === n).slice(0, 2).map(([name, values]) => ({ name: name.replace(/_/g, " "), values }));
        $("odds-chart").innerHTML = barsChart([...Array(n).keys()].map(String), series, { xLabel: arrays[0][0].replace(/_/g, " ") });
      }
    }
    if (typeof res.table === "string") $("odds-chart").append(el("pre", { class: "trace", text: res.table }));
    else {
      const facts = Object.entries(res).filter(([, v]) => typeof v === "number" || typeof v === "string").map(([k, v]) => `${k.replace(/_/g, " ")}: ${typeof v === "number" && v > 0 && v < 1 ? pct(v, 2) : v}`);
      $("odds-chart").append(el("p", { class: "muted small", text: facts.join(" · ") }));
    }
  }

  // ---------- download / save ----------
  /** The edited scenario as text: the server folds the form's field edits into it
   * (POST /api/check answering "edited_yaml", the text with the edits written in; its
   * comments and layout are kept). Null when it cannot: an older server, or an edit in error. */
  async function foldedYaml() {
    if (!S.sets.size) return S.yaml;
    try {
      const res = await api("POST", "/api/check", { yaml: S.yaml, scenario: S.file, set: [...S.sets].map(([p, v]) => `${p}=${v}`) });
      const text = res.edited_yaml ?? res.yaml;
      if (typeof text === "string") return text;
    } catch { /* null below */ }
    return null;
  }
  async function editedYaml() {
    const folded = await foldedYaml();
    if (folded != null) return folded;
    const lines = [...S.sets].map(([p, v]) => `#   --set '${p}=${v}'`);
    return `# Edited on the combatsim page; these field edits are applied on top of the text below:\n${lines.join("\n")}\n${S.yaml}`;
  }
  $("download-yaml").addEventListener("click", async () => {
    const text = await editedYaml();
    const a = el("a", { href: URL.createObjectURL(new Blob([text], { type: "text/yaml" })), download: (S.file || "scenario.yaml").split("/").pop() });
    document.body.append(a); a.click(); a.remove();
  });
  $("revert").addEventListener("click", () => {
    S.yaml = S.original; S.sets = new Map(); $("yaml").value = S.original;
    clearYamlErrors(); clearEditErrors();
    api("GET", "/api/scenarios/" + encodeURIComponent(S.file).replace(/%2F/g, "/")).then((d) => { S.view = d.view; renderForm(); fillStudyControls(); });
    markEdited(); editClock(); scheduleRun();
  });
  let overwriteArmed = false;
  /** ``base`` if no entry of the list has it (``taken``), else ``base`` numbered 2, 3... */
  function unused(taken, make) {
    for (let i = 2; ; i++) if (!taken.has(make(i))) return make(i);
  }
  $("save").addEventListener("click", () => {
    $("save-note").textContent = "Saved as a new file by default, under a new name: the file as written stays as it was. The edits are written into the text; its comments and layout are kept.";
    overwriteArmed = false;
    const stem = (S.file || "scenario.yaml").replace(/\.ya?ml$/, "").replace(/-edited(-\d+)?$/, "");
    const files = new Set(S.scenarios.map((s) => s.file));
    $("save-name").value = unused(files, (i) => `${stem}-edited${i > 2 ? "-" + (i - 1) : ""}.yaml`);
    const title = (S.view?.name || stem).replace(/ \(edited( \d+)?\)$/, "");
    const names = new Set(S.scenarios.map((s) => s.name));
    $("save-title").value = unused(names, (i) => `${title} (edited${i > 2 ? " " + (i - 1) : ""})`);
    $("save-warn").textContent = "";
    $("save-confirm").textContent = "Save";
    $("save-dialog").showModal();
  });
  $("save-dialog").addEventListener("close", async () => {
    if ($("save-dialog").returnValue !== "save") return;
    const name = $("save-name").value.trim(), title = $("save-title").value.trim();
    const overwrite = overwriteArmed;
    try {
      const sets = [...S.sets].map(([p, v]) => `${p}=${v}`);
      await api("PUT", "/api/scenarios/" + encodeURIComponent(name).replace(/%2F/g, "/"), { yaml: S.yaml, set: sets, name: title, overwrite });
      await loadScenarioList();
      await openScenario(name); // the saved file, as written now: its own entry in the list
      status("save-status", `Saved as ${name} (“${title}”) in the folder.`);
    } catch (e) {
      if (e.status === 409) {
        overwriteArmed = true;
        $("save-warn").textContent = `${name} already exists. Press “Overwrite” to replace it, or choose another name.`;
        $("save-confirm").textContent = "Overwrite";
        $("save-dialog").showModal();
      } else status("save-status", "Not saved: " + e.message, true);
    }
  });
  $("save-name").addEventListener("input", () => { overwriteArmed = false; $("save-confirm").textContent = "Save"; $("save-warn").textContent = ""; });

  // ---------- for the page's other scripts (static/story.js, static/map.js) ----------
  /** An edit from outside the form (a marker dragged on the map): the form's own way, through
   * its field when it shows one (so the field shows the new value), else straight to the edits. */
  function editField(path, value) {
    const input = [...document.querySelectorAll("#sides [data-path]")].find((i) => i.dataset.path === path);
    if (input) { input.value = value; onFieldEdit(input); return; }
    editClock();
    S.sets.set(path, value);
    S.lastEdited = null;
    markEdited();
    scheduleRun();
  }
  window.combatsimPage = {
    api, // the page's fetch, with its token
    el, // an element with attributes and children
    status, // a status line's text, marked bad or not
    edit: editField, // an edit from outside the form (a marker dragged on the map)
    colours: SIDE_COLOURS,
    source: () => (S.file ? sourceBody() : null), // the fight the run runs: {scenario} or {yaml}, with set
    view: () => S.view, // its sides and members
    file: () => S.file, // the file it came from
    seed: () => intOrNull("seed"),
    /** A whole scenario text (a design) into the editor, the form's edits dropped. */
    loadYaml(text) {
      S.sets = new Map();
      $("yaml").value = text;
      editClock(); renderGutter(); markEdited();
      checkYaml();
    },
  };

  // ---------- start ----------
  $("home").addEventListener("click", showOverview);
  $("jump").addEventListener("click", () => { $("results").scrollIntoView(); $("results").focus(); });
  $("scenario-pick").addEventListener("change", (ev) => openScenario(ev.target.value));
  window.addEventListener("beforeunload", stopRun);
  (async () => {
    await loadScenarioList();
    loadOdds();
    const wanted = decodeURIComponent(location.hash.slice(1));
    if (wanted && S.scenarios.some((s) => s.file === wanted)) openScenario(wanted);
    else pollOverview();
  })();
})();
