"""``combatsim sweep SCENARIO --vary PATH=VALUES ...``: one scenario under a grid of variations.

Each ``--vary [NAME:]PATH=VALUES`` (or an entry of ``--file SWEEP.yaml``) sets one field of the
scenario to each of its values; every combination is a variant, one row of ``table.csv`` and
``table.parquet`` with the varied values as columns. Every variant runs the same battle
seeds (common random numbers), so differences between rows come from the variant, not luck.
See ``combatsim.sweeps.fields`` for the path and value syntax.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from ..errors import ScenarioError, UsageError
from ..limits import DEFAULT_BATTLES
from . import examples, run

KEYS = ("scenario", "vary", "file", *run.BATCH_KEYS)


def add_parser(sub) -> None:
    p = sub.add_parser(
        "sweep",
        help="run a scenario under a grid of variations (weapons, armor, counts, options)",
        description="Run one scenario under every combination of the varied fields; every "
        "variant uses the same battle seeds. PATH names a field as errors do: "
        "sides[0].members[1].weapons[0], sides[runners].members[Grunt].armor, "
        "sides[1].members[*].armor, rules.options.wound_modifiers. VALUES: a,b,c "
        "(YAML, as in the scenario file), LO..HI or LO..HI/STEP.",
        **examples(
            "combatsim sweep scenarios/sr-firefight-4v4.yaml \\",
            "  --vary 'guards:sides[corp security].members[Guard].count=1..5'",
            "combatsim sweep scenarios/sr-firefight-4v4.yaml --battles 500 --report \\",
            "  --vary 'armor:sides[runners].members[*].armor=lined_coat,armor_jacket'",
        ),
    )
    p.add_argument("scenario", nargs="?", metavar="SCENARIO", help="scenario file (YAML)")
    p.add_argument(
        "--vary",
        action="append",
        default=[],
        metavar="[NAME:]PATH=VALUES",
        help="a field and its values, e.g. 'weapon:sides[0].members[1].weapons[0]=ak97,fn_har' "
        "(repeat for a grid)",
    )
    p.add_argument("--file", metavar="SWEEP.yaml", help="a sweep file (scenario, vary, defaults)")
    p.add_argument(
        "--report", action="store_true", help="also write the HTML report and plots (see report)"
    )
    run.add_batch_options(p, records="none", battles=None)
    p.set_defaults(handler=_sweep, parser=p)


def _sweep(args: argparse.Namespace) -> int:
    resumed = run.start_study(args, "sweep", KEYS)
    from ..sweeps import api
    from ..sweeps.fields import load_sweep_file, parse_vary

    spec = load_sweep_file(args.file) if args.file else None
    path = args.scenario or (spec.scenario if spec else None)
    if path is None:
        run.missing_arguments(args, ["SCENARIO (or --file, --resume)"])
    varies = list(spec.varies if spec else ()) + [parse_vary(v) for v in args.vary]
    if not varies:
        raise UsageError("--vary", None, "at least one [NAME:]PATH=VALUES (or a --file)")
    battles = args.battles or (spec.battles if spec else None) or DEFAULT_BATTLES
    seed = args.seed if args.seed is not None else (spec.seed if spec else None)
    precision = args.precision if args.precision is not None else (spec.precision if spec else None)
    out = run.out_folder(args, f"{Path(path).stem}-sweep")

    try:
        scenario = run.load_subject(path)
    except ScenarioError as err:
        raise (spec.referring(err) if spec and not args.scenario else err) from None
    if not args.quiet:
        run.warn_if_long(
            run.scenarios_of(scenario), battles, math.prod(len(v.values) for v in varies) + 1
        )
    return run.run_study(
        args,
        "sweep",
        KEYS,
        out,
        resumed,
        lambda **options: api.sweep(
            scenario,
            varies,
            battles=battles,
            seed=seed,
            precision=precision,
            **options,
        ),
        lambda result: result.text(),
        f"plots and report: combatsim report {out}",
    )
