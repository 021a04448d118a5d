"""The HTML page of a report: headline, tables, method note, with the plots embedded."""

from __future__ import annotations

import base64
import html
import os

from ..names import html_name as _n
from ..names import isolated as _iso
from .figures import DRAW_COLOR, NEUTRAL, side_colors
from .results import (
    AS_WRITTEN,
    aim_of,
    aim_text,
    is_missing,
    off_grid,
    row_sides,
    side_counts,
    value_text,
)

STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto;
       max-width: 1100px; padding: 0 1em; color: #222; line-height: 1.45; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ddd; padding-bottom: 0.2em; }
.meta { color: #555; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.92em; }
th, td { padding: 0.3em 0.7em; border-bottom: 1px solid #e4e4e4; text-align: right;
         vertical-align: top; }
th { background: #f4f4f4; }
td { white-space: nowrap; }
td.label { white-space: normal; }
td.nowrap { white-space: nowrap; }
td.label, th.label { text-align: left; }
td small { color: #666; white-space: nowrap; }
tr.best td, tr.baseline td { background: #fff6d6; }
tr.first td { border-top: 2px solid #ccc; }
.swatch { display: inline-block; width: 0.8em; height: 0.8em; border-radius: 2px;
          margin-right: 0.35em; vertical-align: baseline; }
.tag { font-size: 0.8em; background: #f0d98c; border-radius: 3px; padding: 0 0.3em; }
figure { margin: 1.5em 0; }
figure img { max-width: 100%; border: 1px solid #eee; }
figcaption { color: #555; font-size: 0.92em; margin-top: 0.4em; }
.note { background: #f7f7f7; padding: 0.7em 1em; border-left: 3px solid #bbb; font-size: 0.92em; }
"""


def page_html(summary, rows, names, sides, plots, casualties=None, attacks=None) -> str:
    e = html.escape
    kind = summary.get("kind", "run")
    colors = side_colors(sides, side_counts(rows))
    title, name = page_heading(summary, rows)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{e(title + (': ' + _iso(name) if name is not None else ''))}</title>",
        f"<style>{STYLE}</style></head><body>",
        f"<h1>{e(title)}{': ' + _n(name) if name is not None else ''}</h1>",
        f'<p class="meta">{e(meta_line(summary, rows))}</p>',
    ]
    if summary.get("interrupted"):
        parts.append(
            '<p class="note"><b>Interrupted:</b> these are the battles that finished; '
            "resume the run to complete it.</p>"
        )
    note = chain_note(summary)
    if note is not None:
        parts.append(f'<p class="note">{e(note)}</p>')
    parts += headline_html(summary, colors)
    parts.append("<h2>Results</h2>")
    if kind == "runs":
        parts.append(runs_table_html(rows, colors))
    else:
        parts.append(table_html(summary, rows, names, sides, colors))
    for plot in plots:
        data = base64.b64encode(plot.path.read_bytes()).decode("ascii")
        parts.append(
            f'<figure id="{e(plot.name)}"><h2>{e(plot.title)}</h2>'
            f'<img alt="{e(plot.title)}" src="data:image/png;base64,{data}">'
            f"<figcaption>{e(plot.caption)}</figcaption></figure>"
        )
        if plot.name == "casualties":
            parts.append(casualty_table_html(casualties, colors))
    if attacks:
        parts.append(exact_attacks_html(attacks, colors))
    parts.append("<h2>How to read this</h2>")
    parts.append(f'<p class="note">{e(method_note(kind))}</p>')
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def chain_note(summary) -> str | None:
    """For a study of a chain of encounters: what a battle, a win, a draw and turns are on
    its page (a run of the chain counts as a battle). None for a scenario."""
    chain = summary.get("chain") or (summary.get("a") or {}).get("chain")
    if not chain:
        return None
    side = chain["side"]
    return (
        f"A chain of {chain['encounters']} encounters: each battle counted here is one run of "
        f"the whole chain, {side} carried from fight to fight. {side} win a run they complete; "
        "a draw is a run ended at a drawn fight; turns are the combat turns of the whole run; "
        "down and dead are how its fighters end the run."
    )


def page_heading(summary, rows) -> tuple[str, str | None]:
    """The page's title and the scenario's name it is about (None for a batch)."""
    kind = summary.get("kind", "run")
    if kind == "runs":
        return f"Batch of {len(rows)} scenario{'s' if len(rows) != 1 else ''}", None
    title = {
        "run": "Battle results",
        "sweep": "Sweep",
        "compare": "Comparison",
        "balance": "Balance search",
    }[kind]
    head = rows[0].summary if rows else summary
    return title, summary.get("scenario") or head.get("scenario", "")


def meta_line(summary, rows) -> str:
    kind = summary.get("kind", "run")
    bits = []
    if kind == "runs":
        sources = [r.summary.get("source", "") for r in rows]
        folder = os.path.commonpath(sources) if sources and all(sources) else ""
        if folder and not folder.endswith((".yaml", ".yml")):
            bits.append(f"from {_iso(folder)}")
        systems = sorted({r.summary.get("system", "") for r in rows} - {""})
        if systems:
            bits.append("rule systems " + ", ".join(systems))
        bits.append(
            "each scenario under its own seed"
            if summary.get("seed") is None
            else f"seed {summary['seed']}"
        )
    elif summary.get("source"):
        bits.append(f"{_iso(summary['source'])} ({summary.get('system', '')})")
    if kind != "runs" and summary.get("seed") is not None:
        bits.append(f"seed {summary['seed']}")
    total = summary.get("battles_completed")
    per = "scenario" if kind == "runs" else "variant"
    if kind == "compare":
        bits.append(f"{total:,} battles each for A and B, run in pairs on the same seeds")
    elif kind != "run" and rows:
        counts = {r.summary["battles_completed"] for r in rows}
        if len(counts) == 1:
            bits.append(f"{counts.pop():,} battles per {per}, {total:,} in all")
        else:
            bits.append(f"{min(counts):,} to {max(counts):,} battles per {per}, {total:,} in all")
    else:
        bits.append(f"{total:,} battles")
    precision = summary.get("precision")
    if precision:
        state = "reached" if precision["reached"] else "not reached"
        bits.append(f"precision ±{precision['target']:g} {state}")
    return "; ".join(bits)


def swatch(color: str) -> str:
    return f'<span class="swatch" style="background:{color}"></span>'


def rate_cell(stats: dict | None, rate_key: str = "win_rate") -> str:
    if stats is None or stats.get(rate_key) is None:
        return "<td>–</td>"
    low, high = stats["ci95"]
    return f"<td>{stats[rate_key]:.1%} <small>({low:.1%}–{high:.1%})</small></td>"


def headline_html(summary, colors) -> list[str]:
    e = html.escape
    kind = summary.get("kind", "run")
    if kind == "run" and summary.get("battles_completed"):
        bits = [
            f"{swatch(colors[s])}<b>{_n(s)}</b> win {st['win_rate']:.1%} "
            f"<small>({st['ci95'][0]:.1%}–{st['ci95'][1]:.1%})</small>"
            for s, st in ((s, summary["sides"][s]) for s in colors if s in summary["sides"])
            if st["win_rate"] is not None
        ]
        d = summary["draws"]
        bits.append(
            f"{swatch(DRAW_COLOR)}<b>draws</b> {d['rate']:.1%} "
            f"<small>({d['ci95'][0]:.1%}–{d['ci95'][1]:.1%})</small>"
        )
        return ["<p>" + "; ".join(bits) + ".</p>"]
    if kind == "balance" and summary.get("best"):
        best, aim = summary["best"], aim_of(summary)
        rate = best.get("rate", best["win_rate"])
        if aim.op == "=":
            verdict = "holds" if best["target_in_interval"] else "does not hold"
            verdict = f"whose interval {verdict} the aim"
        else:
            verdict = "which keeps to the bound" if best.get("meets") else "which does not"
            verdict += " (no value did)" if not best.get("meets") else ""
        text = (
            f"<p><b>Aim: {e(aim_text(aim))}.</b> The search chose "
            f"{_n(summary['vary']['name'])} = {_n(best['value'])}: {e(aim.phrase)} "
            f"{rate:.1%} (95% interval {best['ci95'][0]:.1%} – {best['ci95'][1]:.1%}), "
            f"{verdict}."
        )
        if aim.rate != "win" and best.get("win_rate") is not None and summary.get("side"):
            text += f" At that value {_n(summary['side'])} win {best['win_rate']:.1%}."
        target = summary["target"]
        across = [
            n
            for n in summary["neighbours"]
            if (n.get("rate", n["win_rate"]) - target) * (rate - target) < 0
        ]
        if aim.op == "=" and across and not best["target_in_interval"]:
            text += f" The aim lies between {_n(best['value'])} and {_n(across[0]['value'])}."
        return [text + "</p>"]
    if kind == "compare":
        out = ["<ul>"]
        for key in ("a", "b"):
            one = summary[key]
            what = f"{_n(one['scenario'])} ({_n(one['source'])})"
            if one.get("changes"):
                what += f" with {_n(one['changes'])}"
            out.append(f"<li><b>{key.upper()}:</b> {what}</li>")
        out.append("</ul>")
        out.append(
            "<div class='scroll'><table><tr><th class='label'>side</th><th>A</th><th>B</th>"
            "<th>B − A</th><th>95% interval</th><th>p</th><th class='label'>verdict</th></tr>"
        )
        for d in summary["differences"]:
            if d["difference"] is None:
                continue
            verdict = "significant" if d["significant"] else "not significant (could be noise)"
            color = DRAW_COLOR if d["side"] == "draws" else colors.get(d["side"], NEUTRAL)
            out.append(
                f"<tr><td class='label'>{swatch(color)}{_n(d['side'])}</td>"
                f"<td>{pct(d['a'])}</td><td>{pct(d['b'])}</td>"
                f"<td>{d['difference'] * 100:+.1f} pts</td>"
                f"<td>{d['ci95'][0] * 100:+.1f} to {d['ci95'][1] * 100:+.1f}</td>"
                f"<td>{p_text(d['p_value'])}</td><td class='label'>{verdict}</td></tr>"
            )
        out.append("</table></div>")
        return out
    return []


def table_html(summary, rows, names, sides, colors) -> str:
    e = html.escape
    kind = summary.get("kind", "run")
    best = (summary.get("best") or {}).get("variant") if kind == "balance" else None
    labels = names or ["scenario"]
    head = "".join(f"<th class='label'>{_n(n)}</th>" for n in labels)
    head += "<th>battles</th>"
    head += "".join(f"<th>{swatch(colors[s])}{_n(s)} wins</th>" for s in sides)
    head += f"<th>{swatch(DRAW_COLOR)}draws</th><th>turns (mean)</th>"
    aim = aim_of(summary) if kind == "balance" else None
    if aim is not None and aim.rate != "win":
        head += f"<th>{e(aim.phrase)} (the aim)</th>"
    ordered = sorted(rows, key=lambda r: not r.baseline) if kind == "sweep" else rows
    body = []
    for r in ordered:
        s = r.summary
        cells = ""
        for k, n in enumerate(labels):
            text = _n(value_text(r.values.get(n)) if names else r.label)
            if r.baseline and k == 0:
                text += f" <span class='tag'>{AS_WRITTEN}</span>"
            cells += f"<td class='label'>{text}</td>"
        cells += f"<td>{s['battles_completed']:,}</td>"
        for side in sides:
            cells += rate_cell(s["sides"].get(side))
        cells += rate_cell(s["draws"], "rate")
        mean = s["turns"]["mean"]
        cells += f"<td>{'–' if mean is None else f'{mean:.1f}'}</td>"
        if aim is not None and aim.rate != "win":
            rate, interval = aim.of(s)
            cells += rate_cell(None if rate is None else {"rate": rate, "ci95": interval}, "rate")
        mark = ""
        if best is not None and s.get("variant") == best:
            mark = " class='best'"
        elif r.baseline:
            mark = " class='baseline'"
        body.append(f"<tr{mark}>{cells}</tr>")
    note = ""
    if kind == "sweep" and any(r.baseline for r in rows):
        note = (
            f"<p class='meta'>The row marked <span class='tag'>{AS_WRITTEN}</span> is the "
            "scenario file unchanged, on the same battle seeds"
            + (
                "; it is also one of the grid's rows."
                if not off_grid(summary)
                else "; it is not one of the grid's rows"
                + (
                    f" (a field it sets differently for different members reads {AS_WRITTEN})."
                    if any(r.baseline and any(map(is_missing, r.values.values())) for r in rows)
                    else "."
                )
            )
            + "</p>"
        )
    return f"<div class='scroll'><table><tr>{head}</tr>{''.join(body)}</table></div>{note}"


def runs_table_html(rows, colors) -> str:
    """A batch: one row per scenario and side, so the table is as wide as one scenario's."""
    e = html.escape
    head = (
        "<tr><th class='label'>scenario</th><th class='label'>system</th><th>battles</th>"
        "<th class='label'>side</th><th>wins</th><th>draws</th><th>turns (mean)</th></tr>"
    )
    body = []
    for r in rows:
        s = r.summary
        sides = row_sides(r)
        span = f" rowspan='{len(sides)}'"
        mean = s["turns"]["mean"]
        for k, side in enumerate(sides):
            cells = ""
            if k == 0:
                cells += (
                    f"<td class='label'{span}>{_n(r.label)}</td>"
                    f"<td class='label nowrap'{span}>{e(s.get('system', ''))}</td>"
                    f"<td{span}>{s['battles_completed']:,}</td>"
                )
            cells += f"<td class='label'>{swatch(colors[side])}{_n(side)}</td>"
            cells += rate_cell(s["sides"].get(side))
            if k == 0:
                cells += rate_cell(s["draws"], "rate").replace("<td>", f"<td{span}>", 1)
                cells += f"<td{span}>{'–' if mean is None else f'{mean:.1f}'}</td>"
            body.append(f"<tr{' class=first' if k == 0 else ''}>{cells}</tr>")
    return f"<div class='scroll'><table>{head}{''.join(body)}</table></div>"


def casualty_table_html(casualties, colors) -> str:
    e = html.escape
    head = (
        "<tr><th class='label'>combatant</th><th class='label'>side</th>"
        "<th>ends down</th><th>ends dead</th></tr>"
    )
    body = []
    # a group's row, then each copy's indented under it: the group and every copy
    rows = [
        r for c in casualties for r in [(c, False)] + [(k, True) for k in c.get("copy_entries", ())]
    ]
    for c, copy in rows:
        who = f"anyone of {_n(c['side'])}" if c.get("level") == "side" else _n(c["who"])
        if c.get("copies"):
            who += e(f" (any of {c['copies']})")
        indent = " style='padding-left:1.6em'" if copy else ""
        body.append(
            f"<tr><td class='label'{indent}>{who}</td>"
            f"<td class='label'>{swatch(colors.get(c['side'], NEUTRAL))}{_n(c['side'])}</td>"
            + rate_cell({"rate": c["down_rate"], "ci95": c["down_ci95"]}, "rate")
            + rate_cell({"rate": c["dead_rate"], "ci95": c["dead_ci95"]}, "rate")
            + "</tr>"
        )
    return (
        f"<div class='scroll'><table>{head}{''.join(body)}</table></div>"
        "<p class='meta'>The share of battles each ended down (out of the fight: unconscious, "
        "dying, dead or fled) and dead, "
        "with 95% intervals; a group's copies are listed one by one under it.</p>"
    )


def exact_attacks_html(attacks, colors) -> str:
    """The section "Exact odds of one attack" (rows of ``report.attacks.exact_attack_rows``):
    who attacked whom with what, how often, the exact chances of one such attack, and the
    target's sampled casualty rates."""
    from .attacks import NOTE

    e = html.escape
    head = (
        "<tr><th class='label'>attack</th><th>made</th><th>P(hit)</th><th>P(down)</th>"
        "<th>P(dead)</th><th>target ends down</th><th>target ends dead</th></tr>"
    )
    body = []
    for a in attacks:
        target = (
            f"{swatch(colors.get(a['target_side'], NEUTRAL))}{_n(a['target'])}"
            if a["target"] is not None
            else "<i>a point</i>"
        )
        cells = (
            f"<td class='label'>{swatch(colors.get(a['attacker_side'], NEUTRAL))}"
            f"{_n(a['attacker'])} → {target}<br><small>{_how(a)}</small></td>"
            f"<td>{a['attacks']:,}</td>"
        )
        if a.get("reason"):
            cells += f"<td class='label' colspan='3'><small>{e(a['reason'])}</small></td>"
        else:
            cells += "".join(
                f"<td title='{e(a['exact'][key])}'>{a[key]:.1%}</td>"
                for key in ("p_hit", "p_down", "p_dead")
            )
        cells += rate_cell({"rate": a["down_rate"], "ci95": a["down_ci95"]}, "rate")
        cells += rate_cell({"rate": a["dead_rate"], "ci95": a["dead_ci95"]}, "rate")
        body.append(f"<tr>{cells}</tr>")
    return (
        "<h2 id='exact-attacks'>Exact odds of one attack</h2>"
        f"<div class='scroll'><table>{head}{''.join(body)}</table></div>"
        f"<p class='meta'>{e(NOTE)} Hover a chance for its exact fraction.</p>"
    )


def _how(attack) -> str:
    """The weapon, the shots of a burst, and how far a melee attacker was moved in to reach."""
    words = _n(attack["weapon"])
    if attack["shots"] > 1:
        words += f", {attack['shots']} shots"
    if attack.get("closed_in") is not None:
        words += f", moved in {attack['closed_in']:g} m"
    return words


def method_note(kind: str) -> str:
    text = (
        "Win rates are shown with 95% Wilson score intervals: intervals computed this way hold "
        "the true win rate (the one infinitely many battles would give) in 95 runs out of 100. "
        "A narrow interval needs many battles: its width shrinks with the square root of their "
        "number. "
    )
    if kind in ("sweep", "balance", "compare"):
        text += (
            "Every variant ran the same battle seeds (common random numbers): battle i of each "
            "variant starts from the same dice, so the differences between variants come from "
            "the change itself much more than from luck. "
        )
    if kind == "runs":
        text += "Each scenario ran under its own seed; its rows are independent of the others'. "
    if kind == "compare":
        text += (
            "The difference B − A is judged pair by pair: Newcombe's interval for paired "
            "proportions, and McNemar's exact test for the p-value. "
        )
    text += "Draws are battles that reached the turn limit or ended with nobody standing."
    return text


def pct(x) -> str:
    return "–" if x is None else f"{x:.1%}"


def p_plain(p: float) -> str:
    """A p-value as the CLI prints it: a tiny one is "< 0.0001", never a 0.0000 that reads as
    impossible."""
    return "< 0.0001" if p < 0.0001 else f"{p:.4f}"


def p_text(p: float) -> str:
    return html.escape(p_plain(p))


def p_equation(p: float) -> str:
    """``p < 0.0001`` or ``p = 0.0123``, as ``combatsim compare`` writes it."""
    text = p_plain(p)
    return f"p {text}" if text.startswith("<") else f"p = {text}"
