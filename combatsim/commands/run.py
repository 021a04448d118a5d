"""``combatsim run SCENARIO``: many battles into result files and a summary, or one traced battle.

Without ``--trace``: runs the batch (progress on stderr for long runs), writes ``battles.csv``,
``combatants.csv`` and ``summary.json`` into ``--out`` (default ``results/<scenario stem>``),
prints the summary and where the files went. Ctrl-C writes what finished, says so on stderr
and exits 130. With ``--trace K``: runs only battle K of the seed, prints it blow by blow and
writes nothing.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import check_range

EXIT_INTERRUPTED = 130
DEFAULT_BATTLES = 1000


def add_parser(sub) -> None:
    p = sub.add_parser("run", help="run many battles of a scenario and summarise them")
    p.add_argument("scenario", metavar="SCENARIO", help="scenario file (YAML)")
    p.add_argument(
        "--battles",
        type=int,
        default=DEFAULT_BATTLES,
        help=f"how many battles (default {DEFAULT_BATTLES})",
    )
    p.add_argument("--seed", type=int, help="root seed (default: the scenario's seed)")
    p.add_argument(
        "--out", metavar="DIR", help="output folder (default results/<scenario file stem>)"
    )
    p.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    p.add_argument(
        "--trace",
        type=int,
        metavar="K",
        help="run only battle K (counting from 0) and print it blow by blow; writes no files",
    )
    p.add_argument("--quiet", action="store_true", help="no progress display and no summary")
    p.set_defaults(handler=_run)


def load_scenario(path: str):
    """``combatsim.scenario.load_scenario``, imported only when a command needs it."""
    from ..scenario import load_scenario

    return load_scenario(path)


def battle_runner():
    """``combatsim.engine.run_battle``, imported only when a command needs it."""
    from ..engine import run_battle

    return run_battle


def _run(args: argparse.Namespace) -> int:
    check_range("--battles", args.battles, 1)
    check_range("--workers", args.workers, 1)
    if args.seed is not None:
        check_range("--seed", args.seed, 0)
    if args.trace is not None:
        check_range("--trace", args.trace, 0)

    scenario = load_scenario(args.scenario)
    seed = scenario.seed if args.seed is None else args.seed
    if args.trace is not None:
        return _trace(scenario, seed, args.trace)

    from ..batch import simulate
    from ..output import format_summary, write_results
    from ..progress import Progress

    progress = None if args.quiet else Progress(sys.stderr)
    try:
        result = simulate(
            scenario,
            args.battles,
            seed=seed,
            workers=args.workers,
            progress=progress,
            runner=battle_runner(),
        )
    finally:
        if progress is not None:
            progress.finish()
    out = Path(args.out) if args.out else Path("results") / Path(args.scenario).stem
    paths = write_results(result, out)
    if not args.quiet:
        print(format_summary(result.summary))
        print(f"\nresults in {out}: {', '.join(path.name for path in paths)}")
    if result.interrupted:
        print(
            f"combatsim: interrupted: wrote the {result.battles_completed} of {args.battles} "
            f"battles that finished to {out}",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    return 0


def _trace(scenario, seed: int, index: int) -> int:
    from ..output import format_trace

    result = battle_runner()(scenario, seed, index, trace=True)
    print(f"{scenario.name} ({scenario.source}, {scenario.system.name}), seed {seed}")
    print(format_trace(result, [side.name for side in scenario.sides]))
    return 0
