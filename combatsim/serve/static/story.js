/* combatsim live page: the story of a run, the whole run of a chain, and design's best fights.
 *
 * Three panels, each mounted by this script beside the page's own (static/app.js):
 * - "What a typical and an unlucky fight look like", under the results: every fighter's
 *   condition turn by turn in the run's median battle and in its worst tenth
 *   (GET /api/runs/ID/story, once the run is done), one click from any row to that battle
 *   traced;
 * - "Chains of encounters", on the folder overview: a chain file run as `combatsim chain`
 *   runs it (POST /api/chains), its encounters in order with the chance to reach and win each;
 * - "Design the opposition", under "What if…": `combatsim design` on the page's fight
 *   (POST /api/designs), its best designs with their rates against the targets, each
 *   loadable into the editor.
 * It learns about the page's run from the events app.js sends ("combatsim:run-done",
 * "combatsim:run-stale") and reads the page's fight through window.combatsimPage.
 */
"use strict";
(() => {
  const TOKEN = new URLSearchParams(location.search).get("token") || "";
  const PAGE = "story-" + Math.random().toString(36).slice(2, 10);
  const $ = (id) => document.getElementById(id);
  const page = () => window.combatsimPage || null;

  // ---------- the page's own helpers (app.js): its fetch with the token, elements, status lines
  const api = (...args) => page().api(...args);
  const el = (...args) => page().el(...args);
  const say = (...args) => page().status(...args);
  /** A job of the server followed to its end: its figures as they come, then the last ones. */
  function follow(id, onData) {
    const url = `/api/studies/${id}/events` + (TOKEN ? `?token=${encodeURIComponent(TOKEN)}` : "");
    const stream = new EventSource(url);
    let over = false;
    const finish = () => {
      if (over) return;
      over = true; stream.close();
      api("GET", `/api/studies/${id}`).then(onData).catch(() => {});
    };
    stream.onmessage = (ev) => {
      let data;
      try { data = JSON.parse(ev.data); } catch { return; }
      if (data.state && data.state !== "running") finish(); else onData(data);
    };
    stream.onerror = finish;
    return { close: () => { over = true; stream.close(); } };
  }
  const count = (n) => Number(n).toLocaleString("en");
  const pct = (x) => (x == null ? "–" : (100 * x).toFixed(0) + "%");
  const SIDE_COLOURS = ["var(--side0)", "var(--side1)", "var(--side2)", "var(--side3)"];
  const OUT = { dead: "dead", dying: "down", unconscious: "down", fled: "fled", down: "down" };

  // ---------- what a typical and an unlucky fight look like ----------
  const story = el("section", { class: "panel", id: "story", "aria-labelledby": "story-h", hidden: true },
    el("h3", { id: "story-h", text: "What a typical and an unlucky fight look like" }),
    el("p", { class: "muted small", id: "story-note" }),
    el("p", { class: "status", id: "story-status", role: "status", "aria-live": "polite" }),
    el("div", { id: "story-picks", class: "story-picks" }));
  const storyState = { run: null };

  function mountStory() {
    const after = $("exact-attacks") || $("results");
    if (after && after.parentNode) after.parentNode.insertBefore(story, after.nextSibling);
  }
  async function loadStory(id) {
    if (storyState.run === id) return;
    storyState.run = id;
    story.hidden = false;
    story.classList.remove("stale");
    say("story-status", "Picking the median and the worst-tenth battles of this run…");
    $("story-picks").replaceChildren();
    try {
      const d = await api("GET", `/api/runs/${id}/story`);
      if (storyState.run === id) renderStory(d);
    } catch (e) {
      if (storyState.run === id) say("story-status", "No story for this run: " + e.message, true);
    }
  }
  function renderStory(d) {
    $("story-note").textContent =
      `The ${count(d.battles)} battles ranked for ${d.side}, worst first: lost, then drawn, then won; ` +
      "then more of its fighters dead, out of the fight, and more damage taken. The median is the middle " +
      "battle; the worst tenth is the battle one in ten is as bad as or worse than. Each is played again: " +
      "every fighter's condition at the start and after each turn (a full bar: fresh).";
    $("story-note").append(el("span", { class: "story-key" },
      el("span", { class: "cond out down", text: "×" }), "down",
      el("span", { class: "cond out dead", text: "✝" }), "dead",
      el("span", { class: "cond out fled", text: "↗" }), "fled"));
    say("story-status", "");
    const sides = [...new Set(d.picks.flatMap((p) => p.fighters.map((f) => f.side)))];
    $("story-picks").replaceChildren(...d.picks.map((p) => pickBlock(p, d, sides)));
  }
  function outcome(p, d) {
    const how = p.winner == null ? (p.end_reason === "turn_limit" ? "a draw at the turn limit" : "a draw") : `${p.winner} won`;
    return `${how} after ${p.turns} turn${p.turns === 1 ? "" : "s"} · ranked ${count(p.position + 1)} of ${count(d.battles)} from the worst`;
  }
  function pickBlock(p, d, sides) {
    const trace = () => traceBattle(p.battle);
    const head = el("div", { class: "story-head" },
      el("h4", { text: `${p.label[0].toUpperCase()}${p.label.slice(1)}: battle ${p.battle}` }),
      el("button", { type: "button", class: "small", "data-trace": p.battle, onclick: trace, text: `Trace battle ${p.battle}` }));
    const turns = [...Array(p.turns + 1).keys()];
    const thead = el("thead", {}, el("tr", {},
      el("th", { scope: "col", text: "Fighter" }),
      turns.map((t) => el("th", { scope: "col", class: "turn", text: t === 0 ? "start" : String(t) })),
      el("th", { scope: "col", text: "End" })));
    const rows = p.fighters.map((f) => {
      const colour = SIDE_COLOURS[sides.indexOf(f.side) % 4];
      const name = el("button", { type: "button", class: "linkish who", onclick: trace,
        title: `Trace battle ${p.battle}`, "aria-label": `${f.name} (${f.side}): trace battle ${p.battle}`, text: f.name });
      const cells = f.condition.map((c, t) => conditionCell(f, c, f.status[t], f.standing[t], t));
      const last = f.status[f.status.length - 1], up = f.standing[f.standing.length - 1];
      return el("tr", { "data-fighter": f.name, style: `--side: ${colour}` },
        el("th", { scope: "row", class: "story-who" }, name, el("span", { class: "muted", text: f.side })),
        cells, el("td", { class: "story-end " + (up ? "up" : OUT[last] || "down"), text: last }));
    });
    const table = el("table", { class: "story-table", "aria-label": `${p.label}: each fighter's condition by turn` }, thead, el("tbody", {}, rows));
    return el("div", { class: "story-pick", "data-kind": p.kind, "data-battle": p.battle },
      head, el("p", { class: "small muted", text: outcome(p, d) }), el("div", { class: "table-wrap" }, table));
  }
  function conditionCell(f, c, status, standing, t) {
    const out = standing ? null : OUT[status] || "down";
    const when = t === 0 ? "at the start" : `after turn ${t}`;
    const words = `${f.name} ${when}: ${pct(c)}${status ? ` (${status})` : ""}`;
    const hue = Math.round(120 * c);
    const bar = out
      ? el("span", { class: "cond out " + out, text: out === "dead" ? "✝" : out === "fled" ? "↗" : "×" })
      : el("span", { class: "cond" }, el("span", { class: "fill", style: `width: ${Math.max(4, 100 * c)}%; background: hsl(${hue}, 60%, 42%)` }));
    return el("td", { class: "turn", title: words, "data-condition": c }, bar, el("span", { class: "sr-only", text: words }));
  }
  function traceBattle(battle) {
    const index = $("trace-index"), form = $("trace-form");
    if (!index || !form) return;
    index.value = String(battle);
    form.requestSubmit();
    const box = $("trace");
    box.scrollIntoView({ block: "start" });
    box.focus({ preventScroll: true });
  }
  document.addEventListener("combatsim:run-done", (ev) => loadStory(ev.detail.id));
  document.addEventListener("combatsim:run-stale", () => {
    storyState.run = null;
    if (story.hidden) return;
    story.classList.add("stale");
    say("story-status", "Edited: the story comes again when the new run is done (below: the previous fight's).");
  });

  // ---------- chains of encounters: the whole run ----------
  const chains = el("section", { class: "panel", id: "chains", "aria-labelledby": "chains-h", hidden: true },
    el("h3", { id: "chains-h", text: "Chains of encounters: the whole run" }),
    el("p", { class: "muted small", text: "The side goes through every fight of a chain file keeping its wounds, spent ammunition, Karma or Edge, as combatsim chain runs it (the same numbers for the same seed and runs)." }),
    el("form", { id: "chain-form", class: "inline" },
      el("label", {}, "Chain ", el("select", { id: "chain-pick" })),
      el("label", {}, "Runs ", el("input", { id: "chain-runs", type: "number", min: 10, max: 20000, step: 10, value: 1000 })),
      el("label", {}, "Seed ", el("input", { id: "chain-seed", type: "number", min: 0, step: 1, placeholder: "file's" })),
      el("button", { type: "submit", id: "chain-run", text: "Run the chain" })),
    el("p", { class: "status", id: "chain-status", role: "status", "aria-live": "polite" }),
    el("div", { id: "chain-out" }));
  const chainState = { list: [], job: null, stream: null };

  async function loadChains() {
    try { chainState.list = await api("GET", "/api/chains"); } catch { chainState.list = []; }
    chains.hidden = !chainState.list.length;
    $("chain-pick").replaceChildren(...chainState.list.map((c) =>
      el("option", { value: c.file, text: `${c.name} (${c.encounters.length} encounters)` })));
  }
  async function runChain() {
    const file = $("chain-pick").value;
    if (!file) return;
    if (chainState.stream) chainState.stream.close();
    const body = { chain: file, battles: Number($("chain-runs").value) || 1000, page: PAGE };
    if ($("chain-seed").value.trim() !== "") body.seed = Number($("chain-seed").value);
    say("chain-status", "Starting…");
    $("chain-out").replaceChildren();
    try {
      const { id } = await api("POST", "/api/chains", body);
      chainState.job = id;
      chainState.stream = follow(id, (d) => {
        if (chainState.job !== id) return;
        if (d.state === "failed") return say("chain-status", "The chain failed: " + (d.errors || []).join(" "), true);
        if (!d.encounters) return say("chain-status", `${count(d.battles_done || 0)} of ${count(d.battles_total || body.battles)} runs…`);
        say("chain-status", `${count(d.runs)} runs, seed ${d.seed}${d.state === "cancelled" ? " (stopped)" : ""}.`);
        renderChain(d);
      });
    } catch (e) {
      say("chain-status", "Not run: " + e.message, true);
    }
  }
  function renderChain(d) {
    const c = d.completes;
    const completes = el("p", { class: "chain-completes" },
      `${d.side} complete the run: `, el("strong", { text: `${c.carried.cells[0]} (${c.carried.cells[1]})` }),
      " carrying what each fight leaves; ", el("strong", { text: `${c.fresh.cells[0]} (${c.fresh.cells[1]})` }),
      " with every fight fresh.");
    const head = el("tr", {}, ["#", "Encounter", "Reached", "Won once reached", "95% interval", "Ends the run", "Fresh: won"]
      .map((t) => el("th", { scope: "col", text: t })));
    const rows = d.encounters.map((e, k) => el("tr", { class: e.ends_most_runs ? "ends-most" : null, "data-encounter": e.encounter },
      el("td", { text: String(k + 1) }),
      el("th", { scope: "row", text: e.encounter }),
      el("td", { title: `95% interval: ${e.cells.reached_interval}` }, meter(e.reach.rate), " ", e.cells.reached),
      el("td", {}, meter(e.win_once_reached.rate), " ", e.cells.won),
      el("td", { text: e.cells.interval }),
      el("td", {}, e.cells.ends, e.ends_most_runs ? el("span", { class: "mark", text: "← ends most runs" }) : null),
      el("td", { text: e.cells.fresh_won })));
    const table = el("table", { class: "chain-table", "aria-label": `${d.chain}: each encounter in order` }, el("thead", {}, head), el("tbody", {}, rows));
    const printed = el("details", {}, el("summary", { text: "What combatsim chain prints" }), el("pre", { class: "trace", text: d.text || "" }));
    $("chain-out").replaceChildren(el("h4", { text: d.chain }), completes, el("div", { class: "table-wrap" }, table), printed);
  }
  const meter = (rate) => el("span", { class: "meter", "aria-hidden": "true" }, el("span", { style: `width: ${Math.round(100 * (rate || 0))}%` }));

  // ---------- design the opposition ----------
  const design = el("section", { class: "panel", id: "design", "aria-labelledby": "design-h" },
    el("h3", { id: "design-h", text: "Design the opposition" }),
    el("p", { class: "muted small", text: "Searches the make-up of one side (which archetypes, how many of each) for fights that hit every target, as combatsim design does: the best are confirmed on fresh battles, with their rates and 95% intervals." }),
    el("form", { id: "design-form", class: "design-form" },
      el("label", {}, "Side ", el("select", { id: "design-side" })),
      el("label", { class: "targets" }, "Targets, one a line ", el("textarea", { id: "design-targets", rows: 2, cols: 30, spellcheck: "false" })),
      el("label", {}, "Archetypes ", el("input", { id: "design-pool", type: "text", size: 22, placeholder: "the side's own" })),
      el("label", {}, "Most fighters ", el("input", { id: "design-max", type: "number", min: 1, max: 12, value: 6 })),
      el("label", {}, "Battles ", el("input", { id: "design-battles", type: "number", min: 50, max: 2000, step: 50, value: 400 })),
      el("button", { type: "submit", id: "design-run", text: "Design" })),
    el("p", { class: "status", id: "design-status", role: "status", "aria-live": "polite" }),
    el("div", { id: "design-out" }));
  const designState = { job: null, stream: null, scenario: null };

  function mountDesign() {
    const whatIf = $("whatif-h")?.closest("section");
    const anchor = whatIf || $("exact-attacks");
    if (anchor && anchor.parentNode) anchor.parentNode.insertBefore(design, anchor.nextSibling);
  }
  /** The side choices and default targets for the fight on the page (once per scenario). */
  function fillDesignForm() {
    const view = page()?.view();
    const sides = (view?.sides || []).map((s) => s.name);
    if (!sides.length) return;
    const key = `${page().file()}|${sides.join("|")}`; // a design loaded keeps the list`
    if (designState.scenario === key) return;
    designState.scenario = key;
    $("design-side").replaceChildren(...sides.map((s, i) => el("option", { value: s, text: s, selected: i === sides.length - 1 })));
    $("design-targets").value = `${sides[0]} win 0.6..0.9\n${sides[0]} dead <= 0.05`;
    $("design-out").replaceChildren();
    say("design-status", "");
  }
  async function runDesign() {
    const source = page()?.source();
    if (!source) return;
    if (designState.stream) designState.stream.close();
    const targets = $("design-targets").value.split("\n").map((t) => t.trim()).filter(Boolean);
    const body = { ...source, side: $("design-side").value, targets, page: PAGE,
      max_members: Number($("design-max").value) || 6, battles: Number($("design-battles").value) || 400 };
    const pool = $("design-pool").value.trim();
    if (pool) body.pool = pool.split(",").map((p) => p.trim()).filter(Boolean);
    const seed = page().seed();
    if (seed != null) body.seed = seed;
    say("design-status", "Starting the search…");
    $("design-out").replaceChildren();
    try {
      const { id } = await api("POST", "/api/designs", body);
      designState.job = id;
      designState.stream = follow(id, (d) => {
        if (designState.job !== id) return;
        if (d.state === "failed") return say("design-status", "The search failed: " + (d.errors || []).join(" "), true);
        if (!d.designs) return say("design-status", `Searching: ${count(d.battles_done || 0)} battles so far…`);
        say("design-status", d.state === "cancelled" ? "Stopped." : `${d.candidates} make-ups screened; ${count(d.battles_completed)} battles in all.`);
        renderDesigns(d);
      });
    } catch (e) {
      say("design-status", "Not run: " + e.message, true);
    }
  }
  function renderDesigns(d) {
    const targets = (d.targets || []).map((t) => t.text);
    const head = el("tr", {}, el("th", { scope: "col", text: "#" }), el("th", { scope: "col", text: "Design" }),
      el("th", { scope: "col", text: "Verdict" }), targets.map((t) => el("th", { scope: "col", text: t })), el("th", { scope: "col", text: "" }));
    const rows = d.designs.map((entry) => el("tr", { "data-rank": entry.rank },
      el("td", { text: String(entry.rank) }),
      el("th", { scope: "row", text: entry.design }),
      el("td", { class: "verdict-" + entry.verdict.replace(/\s+/g, "-"), text: entry.verdict }),
      entry.rates.map((r) => el("td", { class: r.inside ? "inside" : "outside", title: r.inside ? "inside the target" : "outside the target", text: r.shown })),
      el("td", {}, el("button", { type: "button", class: "small", disabled: !entry.yaml,
        "aria-label": `Load design ${entry.rank} (${entry.design}) into the editor`, text: "Load into the editor",
        onclick: () => loadDesign(entry) }))));
    const table = el("table", { class: "design-table", "aria-label": "The best designs against the targets" }, el("thead", {}, head), el("tbody", {}, rows));
    const lines = d.verdict || [];
    const printed = el("details", {}, el("summary", { text: "What combatsim design prints" }), el("pre", { class: "trace", text: lines.join("\n") }));
    const gist = d.gist || "";
    $("design-out").replaceChildren(el("p", { class: "gist", text: gist }),
      d.designs.length ? el("div", { class: "table-wrap" }, table) : null, printed);
  }
  function loadDesign(entry) {
    const p = page();
    if (!p || !entry.yaml) return;
    p.loadYaml(entry.yaml);
    say("design-status", `Design ${entry.rank} (${entry.design}) is in the editor; its figures follow. Revert to the file to go back.`);
    $("scenario-h")?.scrollIntoView({ block: "start" });
  }

  // ---------- mounting ----------
  mountStory();
  mountDesign();
  const overview = $("overview");
  if (overview) overview.append(chains);
  $("chain-form").addEventListener("submit", (e) => { e.preventDefault(); runChain(); });
  $("design-form").addEventListener("submit", (e) => { e.preventDefault(); runDesign(); });
  $("design-side").addEventListener("focus", fillDesignForm);
  document.addEventListener("combatsim:run-done", fillDesignForm);
  document.addEventListener("combatsim:run-stale", fillDesignForm);
  loadChains();
})();
