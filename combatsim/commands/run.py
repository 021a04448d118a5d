"""``combatsim run SCENARIO...``: many battles into result files and a summary, or one traced
battle. Also the options and the resume logic every batch command shares.

One scenario file: runs the batch (a progress bar on stderr for long runs), writes
``battles.csv``, ``combatants.csv`` (as ``--records`` keeps them), ``casualties.csv`` and
``casualties.parquet`` and ``summary.json`` into ``--out`` (default ``results/<scenario
stem>``, or with ``--set`` a folder of its own: ``default_out``), prints the summary
(casualties included) and where the files went. Several files or a folder: one row per
scenario and side in ``table.csv`` and ``table.parquet``, per-scenario summaries in
``summary.json``, and a printed table of one row per scenario and side. Ctrl-C writes what
finished, says so on stderr and exits 130; ``--resume DIR`` finishes the run. With
``--trace K``: runs only battle K of the seed, prints it blow by blow and writes nothing.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import sys
from pathlib import Path
from typing import Any, NoReturn

from ..errors import UsageError, check_range
from ..limits import (
    CHUNK_SIZE,
    DEFAULT_BATTLES,
    DEFAULT_MAX_BATTLES,
    MAX_SEED,
    RECORDS,
)
from ..names import for_terminal
from ..run_arguments import check_run_options, cli_flag
from . import examples, integer

EXIT_INTERRUPTED = 130
# Options that do not change any number of a run, so ``--resume`` accepts them.
RUN_ONLY = ("workers", "scheduler", "quiet")


CHECKED = ("battles", "workers", "seed", "chunk_size", "max_battles", "precision", "scheduler")


def add_parser(sub) -> None:
    p = sub.add_parser(
        "run",
        help="run many battles of one or more scenarios and summarise them",
        description="Run many battles of a scenario (or one row per scenario for several "
        "files or a folder) and summarise them with 95% intervals.",
        **examples(
            "combatsim run scenarios/sr-firefight-4v4.yaml",
            "combatsim run scenarios/sr-firefight-4v4.yaml --battles 5000 --seed 7 --out my-run",
            "combatsim run scenarios/sr-firefight-4v4.yaml --trace 0   # one battle, blow by blow",
            "combatsim run scenarios/sr-firefight-4v4.yaml --set 'sides[1].members[1].count=5'",
            "combatsim run scenarios/   # every scenario of a folder, one row each",
        ),
    )
    p.add_argument(
        "scenarios",
        nargs="*",
        default=[],
        metavar="SCENARIO",
        help="scenario files (YAML) or folders of them",
    )
    add_batch_options(p, records=None, battles=DEFAULT_BATTLES)
    p.add_argument(
        "--trace",
        type=integer,
        metavar="K",
        help="run only battle K (counting from 0) and print it blow by blow; writes no files",
    )
    p.add_argument(
        "--set",
        dest="sets",
        action="append",
        default=[],
        metavar="PATH=VALUE",
        help="set a field of the scenario first (repeatable; paths as in sweep --vary), "
        "e.g. 'sides[1].members[1].count=5'",
    )
    add_report_option(p)
    p.add_argument(
        "--exact",
        action="store_true",
        help="work out the exact odds instead of sampling battles (a fight that stands still: "
        "no movement, no grenades); writes summary.json only",
    )
    p.set_defaults(handler=_run, parser=p)


def add_report_option(p) -> None:
    """``--report`` (``run``, ``compare``, ``balance``; ``sweep`` has its own)."""
    p.add_argument(
        "--report",
        action="store_true",
        help="also write report.html and plots/ into the output folder (as combatsim report)",
    )


def run_study(args, command: str, keys, out: Path, resumed, study, describe, hint="") -> int:
    """The shared body of the study commands (sweep, compare, balance, explain): call
    ``study(**options)`` with the batch options under a progress display, write the report
    if ``--report`` asked for it, print ``describe(result)`` and where the files went (and
    ``hint`` when no report was written), and exit 130 with a note if it was interrupted."""
    with holding(args, out, resumed):
        progress = progress_display(args)
        try:
            result = study(**batch_options(args, command, keys, out, resumed, progress))
        finally:
            if progress is not None:
                progress.finish()
        files = with_report(args, out, result.files)
    if not args.quiet:
        print(for_terminal(describe(result)))
        print(for_terminal(f"\nresults in {out}: {listing(out, files)}"))
        if hint and not getattr(args, "report", False):
            print(hint)
    if result.interrupted:
        return say_interrupted(result, command, out)
    return 0


def start_study(
    args: argparse.Namespace,
    command: str,
    keys: tuple[str, ...],
    required: tuple[tuple[str, str], ...] = (),
) -> bool:
    """How every study command starts (sweep, compare, balance, explain): refuse out-of-range
    options before anything is loaded, take up an interrupted run's own arguments with
    ``--resume DIR``, then refuse what is still missing (``required``: each argument as its
    attribute and how the usage line shows it). Returns whether the run is resumed."""
    check_batch_options(args)
    resumed = resume(args, command, keys)
    refuse_missing(args, [shown for name, shown in required if getattr(args, name) is None])
    return resumed


def refuse_missing(args: argparse.Namespace, missing: list[str]) -> None:
    """argparse's own "required" error (exit 2) for the arguments named in ``missing``."""
    if missing:
        missing_arguments(args, missing)


def missing_arguments(args: argparse.Namespace, missing: list[str]) -> NoReturn:
    """argparse's own "required" error (exit 2) for the arguments named in ``missing``; a
    caller that goes on knows they were given."""
    parser: argparse.ArgumentParser = args.parser
    parser.error("the following arguments are required: " + ", ".join(missing))


def out_folder(args: argparse.Namespace, name: str) -> Path:
    """Where a command writes: ``--out``, else ``results/NAME``."""
    return Path(args.out) if args.out else Path("results") / name


def holding(args: argparse.Namespace, out: Path, resumed: bool):
    """Hold the output folder for the whole command, the report included (see
    ``combatsim.folder.writing``): one writer at a time, foreign files refused unless
    ``--force``."""
    from ..folder import writing

    return writing(out, force=args.force, resume=resumed)


def with_report(args: argparse.Namespace, out: Path, files) -> list:
    """``files``, and the report's files if ``--report`` asked for them."""
    if not getattr(args, "report", False):
        return list(files)
    from ..report import render_report

    return [*files, *render_report(out)]


def add_batch_options(p, records: str | None, battles: int | None) -> None:
    """The options every batch command takes (``run``, ``sweep``, ``compare``, ``balance``).

    ``records`` None: ``all`` for one scenario, ``none`` for several (``run``)."""
    shown = "all for one scenario, none for several" if records is None else records
    p.add_argument(
        "--battles",
        type=integer,
        default=battles,
        help="battles per scenario or variant (default 1000); with --precision, the first round",
    )
    p.add_argument("--seed", type=integer, help="root seed (default: the scenario's seed)")
    p.add_argument("--out", metavar="DIR", help="output folder (default under results/)")
    p.add_argument(
        "--workers", type=integer, help="worker processes on this machine (default: all cores)"
    )
    p.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="run on the Dask cluster whose scheduler is at ADDRESS (needs combatsim[dask])",
    )
    p.add_argument(
        "--records",
        choices=RECORDS,
        default=records,
        help=f"per-battle records to keep: none, battles, all (default: {shown})",
    )
    p.add_argument(
        "--precision",
        type=float,
        metavar="P",
        help="run rounds of battles until every win rate's 95%% interval is within +-P (e.g. 0.02)",
    )
    p.add_argument(
        "--max-battles",
        type=integer,
        default=DEFAULT_MAX_BATTLES,
        metavar="N",
        help=f"with --precision, stop at N battles per variant (default {DEFAULT_MAX_BATTLES:,})",
    )
    p.add_argument(
        "--chunk-size",
        type=integer,
        default=CHUNK_SIZE,
        metavar="N",
        help=f"battles per unit of work (default {CHUNK_SIZE}); results do not depend on it",
    )
    p.add_argument(
        "--resume",
        metavar="DIR",
        help="finish the interrupted run in DIR (only --workers, --scheduler, --quiet apply)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress display and no summary")
    p.add_argument(
        "--force",
        action="store_true",
        help="write into a folder holding files combatsim did not write (they are kept)",
    )


def check_batch_options(args: argparse.Namespace) -> None:
    """Refuse out-of-range options before anything is loaded (one line, exit 2), as every
    front end does (``combatsim.run_arguments``). The bounds are listed in docs/limits.md."""
    given = {key: getattr(args, key) for key in CHECKED if getattr(args, key) is not None}
    check_run_options(given, cli_flag)
    if args.out is not None:
        check_out("--out", args.out)


def check_out(argument: str, value: str | os.PathLike) -> Path:
    """An output folder: a name a folder can have, not an existing file, inside a folder this
    process may write to (else one line naming ``argument``)."""
    text = os.fspath(value)
    if not text.strip():
        raise UsageError(argument, text, "a folder name (not empty)")
    if "\0" in text:
        raise UsageError(argument, text.replace("\0", "\\0"), "a folder name without NUL bytes")
    parts = text.split(os.sep)
    if len(text) > 4096 or any(len(os.fsencode(part)) > 255 for part in parts):
        raise UsageError(argument, f"{text[:40]}... ({len(text)} characters)", "a shorter name")
    from ..folder import check_folder

    path = check_folder(argument, text)  # not a file, not a link to nowhere
    for place in (path, *path.parents):
        try:
            exists, is_dir = place.exists(), place.is_dir()
        except OSError as err:
            raise UsageError(
                argument, text, f"a folder that can be made ({err.strerror})"
            ) from None
        if not exists:
            continue
        if not is_dir:
            what = "is a file" if place == path else f"is inside {place}, a file"
            raise UsageError(argument, text, f"a folder (it {what})")
        if not os.access(place, os.W_OK | os.X_OK):
            raise UsageError(argument, text, f"a folder you may write in ({place} is not)")
        break
    return path


def load_subject(path: str):
    """A scenario or a chain of encounters, told apart by the file's content: what a study
    (sweep, compare, balance, explain, design) runs."""
    from ..chains.loader import load_study_subject

    return load_study_subject(path)


def scenarios_of(subject) -> list:
    """The scenarios a study subject fights: a chain's encounters, or the scenario itself."""
    return [e.scenario for e in subject.encounters] if hasattr(subject, "encounters") else [subject]


def load_scenario(path: str):
    """``combatsim.scenario.load_scenario``, imported only when a command needs it."""
    from ..scenario import load_scenario

    return load_scenario(path)


def battle_runner():
    """``combatsim.engine.run_battle``, imported only when a command needs it."""
    from ..engine import run_battle

    return run_battle


def resume(args: argparse.Namespace, command: str, keys: tuple[str, ...]) -> bool:
    """With ``--resume DIR``: put the interrupted run's own arguments into ``args``.

    ``keys`` are the arguments that fix the run's numbers; the run recorded them in
    ``DIR/.combatsim/run.json`` when it started. Returns whether this is a resumed run.
    """
    if args.resume is None:
        return False
    from ..run.study import read_run_file

    check_out("--resume", args.resume)
    meta = read_run_file(Path(args.resume))["meta"]
    if meta.get("command") != command:
        raise UsageError(
            "--resume", args.resume, f"an unfinished `combatsim {meta.get('command')}` run there"
        )
    for key in keys:
        if getattr(args, key) != args.parser.get_default(key):
            flag = "--" + key.replace("_", "-")
            raise UsageError(
                "--resume",
                args.resume,
                f"no {flag}: the run keeps its own settings; only "
                "--workers, --scheduler and --quiet apply",
            )
    started_in = meta.get("cwd")
    if started_in and Path(started_in).resolve() != Path.cwd().resolve():
        raise UsageError(
            "--resume", args.resume, f"running from {started_in}, where the run started"
        )
    stored = meta.get("args") or {}
    missing = [key for key in keys if key not in stored]
    if missing:
        raise UsageError(
            "--resume",
            args.resume,
            f"the folder of an unfinished run whose run file names its {', '.join(missing)}",
        )
    for key in keys:
        value = stored[key]
        if not _plain(value) or (key in NUMERIC and isinstance(value, str | list)):
            raise UsageError(
                "--resume", args.resume, f"a run file whose {key} is what it was (found {value!r})"
            )
        setattr(args, key, value)
    try:  # a run file edited by hand must still hold usable settings
        check_batch_options(args)
    except UsageError as err:
        raise UsageError(
            "--resume",
            args.resume,
            f"a run file with usable settings (its {err.argument} is {err.found!r}; "
            f"allowed: {err.allowed})",
        ) from None
    args.out = args.resume
    return True


# Stored arguments that are numbers (or None); the others are texts or lists of texts.
NUMERIC = ("battles", "seed", "precision", "max_battles", "chunk_size")


def _plain(value: Any) -> bool:
    """A value a command line could have given: None, a number, a text, a list of texts."""
    if value is None or isinstance(value, str):
        return True
    if isinstance(value, int | float) and not isinstance(value, bool):
        return True
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def run_meta(args: argparse.Namespace, command: str, keys: tuple[str, ...]) -> dict[str, Any]:
    """What ``resume`` needs, stored with the run."""
    return {
        "command": command,
        "cwd": os.getcwd(),
        "args": {key: getattr(args, key) for key in keys},
    }


def batch_options(
    args: argparse.Namespace,
    command: str,
    keys: tuple[str, ...],
    out: Path,
    resumed: bool,
    progress,
    records: str | None = None,
) -> dict[str, Any]:
    """The keyword arguments every ``combatsim.sweeps.api`` entry point takes from a batch
    command's options (its own: battles, seed, precision and the like, it adds itself)."""
    check_out("--out", out)  # the default folder too: results/NAME may be a file
    return {
        "max_battles": args.max_battles,
        "records": records if records is not None else args.records,
        "workers": args.workers,
        "scheduler": args.scheduler,
        "runner": battle_runner(),
        "progress": progress,
        "out": out,
        "resume": resumed,
        "chunk_size": args.chunk_size,
        "meta": run_meta(args, command, keys),
        "force": args.force,
    }


def progress_display(args: argparse.Namespace):
    if args.quiet:
        return None
    from ..progress import Progress

    return Progress(sys.stderr)


def say_interrupted(result, command: str, out: Path) -> int:
    done = result.summary["battles_completed"]
    of = f" of {result.summary['battles_requested']}" if result.kind == "run" else ""
    print(
        for_terminal(
            f"combatsim: interrupted: wrote the {done}{of} battles that finished to {out}\n"
            f"combatsim: continue with: combatsim {command} --resume {out}"
        ),
        file=sys.stderr,
    )
    return EXIT_INTERRUPTED


def expand(paths: list[str]) -> list[str]:
    """Scenario files, with each folder replaced by the scenario files in it and its
    subfolders (sorted; catalogues, chains and sweep files are skipped), the ones the page
    lists (``scenario.files``)."""
    out = []
    for path in paths:
        folder = Path(path)
        if not folder.is_dir():
            out.append(path)
            continue
        from ..scenario.files import scenario_files

        found = [str(f) for f, _ in scenario_files(folder)]
        if not found:
            raise UsageError("SCENARIO", path, "a folder with scenario files (*.yaml) in it")
        out += found
    return out


# --- the command ------------------------------------------------------------------------------

# The options that change a batch's numbers: a resumed run refuses to change any of them.
BATCH_KEYS = (
    "battles",
    "seed",
    "records",
    "precision",
    "max_battles",
    "chunk_size",
)
KEYS = ("scenarios", "sets", *BATCH_KEYS)


def _run(args: argparse.Namespace) -> int:
    check_batch_options(args)
    if args.exact:
        return _exact(args)
    if args.trace is not None:
        check_range("--trace", args.trace, 0, MAX_SEED)
    resumed = resume(args, "run", KEYS)
    refuse_missing(args, [] if args.scenarios else ["SCENARIO (or --resume DIR)"])
    files = expand(args.scenarios)
    single = len(files) == 1 and not Path(args.scenarios[0]).is_dir()

    if args.sets and not single:
        raise UsageError("--set", args.sets[0], "one scenario file, not several")
    if args.trace is not None:
        if not single:
            raise UsageError("--trace", args.trace, "one scenario file, not several")
        scenario = with_sets(load_scenario(files[0]), args.sets)
        seed = scenario.seed if args.seed is None else args.seed
        return _trace(scenario, seed, args.trace, args.sets)

    records = args.records or ("all" if single else "none")
    scenarios = [load_scenario(path) for path in files]
    with_sets(scenarios[0], args.sets)  # a bad --set is refused before the folder is made
    if args.out:
        out = Path(args.out)
    elif single:
        out = default_out(files[0], args.sets)
    else:
        out = Path("results") / (
            Path(args.scenarios[0]).name if len(args.scenarios) == 1 else "runs"
        )

    from ..sweeps import api

    check_out("--out", out)  # the default folder too: results/NAME may be a file
    if not args.quiet:
        warn_if_long(scenarios, args.battles)
    with holding(args, out, resumed):
        progress = progress_display(args)
        options = batch_options(args, "run", KEYS, out, resumed, progress, records=records)
        common = {"battles": args.battles, "seed": args.seed, "precision": args.precision}
        try:
            if single:
                result = api.run_one(scenarios[0], sets=args.sets, **common, **options)
            else:
                result = api.run_many(scenarios, **common, **options)
        finally:
            if progress is not None:
                progress.finish()
        files = with_report(args, out, result.files)
    if not args.quiet:
        print(for_terminal(result.text()))
        print(for_terminal(f"\nresults in {out}: {listing(out, files)}"))
    if result.interrupted:
        return say_interrupted(result, "run", out)
    return 0


def _exact(args: argparse.Namespace) -> int:
    """``run --exact``: the exact odds of one scenario's fight (``combatsim.exact.fight``),
    as the summary.json a sampled run writes, into the same folder under the same rules (held
    by one writer, written whole); no battles.csv, as no battle is run."""
    for flag, given in (
        ("--trace", args.trace is not None),
        ("--resume", args.resume is not None),
        ("--precision", args.precision is not None),
        ("--report", args.report),
        ("--scheduler", args.scheduler is not None),
    ):
        if given:
            raise UsageError(flag, "given", "nothing with --exact (no battles are run)")
    refuse_missing(args, [] if args.scenarios else ["SCENARIO"])
    files = expand(args.scenarios)
    if len(files) != 1 or Path(args.scenarios[0]).is_dir():
        raise UsageError("SCENARIO", " ".join(args.scenarios), "one scenario file with --exact")
    from ..sweeps.api import label_of, set_fields

    variant = set_fields(load_scenario(files[0]), args.sets)
    scenario = variant.scenario
    out = Path(args.out) if args.out else default_out(files[0], args.sets)
    check_out("--out", out)
    from ..exact.fight import fight_odds
    from ..exact.summary import exact_summary, format_exact
    from ..folder import remove_stale
    from ..output import SUMMARY_JSON, write_summary

    odds = fight_odds(scenario)  # refused (exit 2) before the folder is touched
    summary = exact_summary(odds)
    if variant.settings:  # as a sampled run records them
        summary["sets"] = [f"{p}={label_of(v)}" for p, v in variant.settings]
    with holding(args, out, False):
        written = write_summary(summary, out / SUMMARY_JSON)
        remove_stale(out, [written])  # an earlier run's battles are not this answer's
    if not args.quiet:
        print(for_terminal(format_exact(summary, odds.seconds)))
        print(for_terminal(f"\nresults in {out}: {SUMMARY_JSON} (exact: no battles.csv)"))
    return 0


# CPU seconds of one turn: a part per fighter, and a part per pair of fighters (each looks at
# every enemy), measured on the 4v4 and on 2,000 fighters that walk toward each other.
TURN_PER_FIGHTER = 5e-5
TURN_PER_PAIR = 1.0e-7  # a turn of 2,000 walking fighters costs up to about 0.5 s
LONG_RUN = 3600.0  # CPU seconds past which a run says what it may cost before it starts


def worst_cpu_seconds(scenario, battles: int) -> float:
    """The CPU time of ``battles`` battles that all last to the turn limit (most end sooner)."""
    n = _fighters(scenario)
    return battles * scenario.turn_limit * (n * TURN_PER_FIGHTER + n * n * TURN_PER_PAIR)


def _fighters(scenario) -> int:
    return sum(len(side.fighters) for side in scenario.sides)


def warn_if_long(scenarios, battles: int | None, variants: int = 1, each: bool = False) -> None:
    """One line on stderr before a run that may keep the machine busy for hours: the battles
    of ``scenarios``, each run ``variants`` times (a study's variants); ``each``: the count of
    variants is not known yet, so the estimate is for each of them."""
    battles = battles or DEFAULT_BATTLES
    seconds = variants * sum(worst_cpu_seconds(s, battles) for s in scenarios)
    if seconds < LONG_RUN:
        return
    big = max(scenarios, key=_fighters)
    hours = seconds / 3600
    cost = f"{hours / 24:,.0f} days" if hours >= 48 else f"{hours:,.0f} h"
    what = "each variant of this study" if each else "this run"
    times = f" x {variants:,} variants" if variants > 1 else ""
    print(
        f"combatsim: {what} could take up to about {cost} of CPU ({battles:,} battles{times} "
        f"of up to {_fighters(big):,} combatants x {big.turn_limit:,} turns); Ctrl-C stops it "
        "and keeps what it finished",
        file=sys.stderr,
    )


def listing(out: Path, files) -> str:
    """``a.csv, b.csv, records``: the files directly in ``out`` and its folders, named once."""
    return ", ".join(_name(out, p) for p in shown_files(out, files))


def shown_files(out: Path, files) -> list[Path]:
    """Files to list: those directly in ``out``, and each folder in it once."""
    shown: dict[Path, None] = {}
    for path in files:
        rel = Path(path).relative_to(out) if Path(path).is_relative_to(out) else Path(path)
        shown[out / rel.parts[0] if len(rel.parts) > 1 else Path(path)] = None
    return list(shown)


def _name(out: Path, path: Path) -> str:
    try:
        return str(Path(path).relative_to(out))
    except ValueError:
        return str(path)


def default_out(file: str, sets: list[str]) -> Path:
    """``results/<file stem>``; with ``--set``, a folder of its own named from the edits
    (``results/<stem>--set-count-5-1a2b3c4d``: the fields and values, then a hash of every
    edit, so the same edits find the same folder), so that a variant never writes over the
    results of the file as written."""
    stem = Path(file).stem
    if not sets:
        return Path("results") / stem
    words = "_".join(_slug(setting) for setting in sets)[:MAX_SLUG].strip("-_.")
    digest = hashlib.sha256("\0".join(sets).encode("utf-8", "surrogatepass")).hexdigest()
    return Path("results") / f"{stem}--set-{words + '-' if words else ''}{digest[:8]}"


MAX_SLUG = 40  # characters of the edits' words in a --set run's folder name


def _slug(setting: str) -> str:
    """``sides[1].members[1].count=5`` -> ``count-5``: the field's own key and its value, in
    ASCII letters, digits, ``_`` and ``-`` only (and a decimal point)."""
    path, _, value = setting.partition("=")
    key = ([part for part in re.split(r"[.\[\]]", path) if part] or [""])[-1]
    safe = re.sub(r"[^A-Za-z0-9_.]|(?<!\d)\.|\.(?!\d)", "-", f"{key}-{value}")  # 0.5 kept
    return re.sub("-+", "-", safe).strip("-")


def with_sets(scenario, sets: list[str]):
    """``scenario`` with each ``--set PATH=VALUE`` applied and validated again, as ``run``
    with ``--set`` runs it (a bad path or value is one line, exit 2)."""
    if not sets:
        return scenario
    from ..sweeps.api import set_fields

    return set_fields(scenario, sets).scenario


def _trace(scenario, seed: int, index: int, sets: list[str]) -> int:
    from ..output import format_trace

    result = battle_runner()(scenario, seed, index, trace=True)
    head = f"{scenario.name} ({scenario.source}, {scenario.system.name}), seed {seed}"
    print(for_terminal(head + "".join(f", --set {s}" for s in sets)))
    print(for_terminal(format_trace(result, [side.name for side in scenario.sides])))
    return 0
