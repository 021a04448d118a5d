"""``combatsim chain FILE``: many runs of a chain of encounters, the carried side's wounds,
rounds, grenades and Karma or Edge handed from one fight to the next, and what they answer.

Writes ``summary.json`` and the tidy tables (``encounters``, ``casualties``, ``members``,
``resources``: ``.csv`` and ``.parquet``) into ``--out`` (default ``results/<chain stem>``) and
prints the answers beside the same chain with every fight fresh; ``--report`` adds
``report.html`` and its plots. ``--trace I`` replays run I
fight by fight and writes nothing; ``--resume DIR`` finishes an interrupted run.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..names import for_terminal
from . import examples, integer, run

KEYS = ("chain", "battles", "seed", "precision", "max_battles", "chunk_size")


def add_parser(sub) -> None:
    p = sub.add_parser(
        "chain",
        help="run a chain of encounters, the side's state carried from one fight to the next",
        description="Run a chain of encounters many times: the carried side keeps its wounds, "
        "rounds, grenades and spent Karma or Edge from one fight to the next, with the rests "
        "the chain file gives. Prints the chance to complete the run, each encounter's chance "
        "to be reached and won, and how each member ends, beside every fight fresh.",
        **examples(
            "combatsim chain scenarios/chains/sr-loading-dock-run.yaml",
            "combatsim chain scenarios/chains/sr2097-patrol-and-boss.yaml --precision 0.01",
            "combatsim chain scenarios/chains/sr-loading-dock-run.yaml --trace 3",
        ),
    )
    p.add_argument("chain", nargs="?", metavar="FILE", help="chain file (YAML)")
    p.add_argument(
        "--trace",
        type=integer,
        metavar="I",
        help="replay only run I (counting from 0) fight by fight; writes no files",
    )
    run.add_batch_options(p, records="none", battles=None)
    run.add_report_option(p)
    p.set_defaults(handler=_chain, parser=p)


def _chain(args: argparse.Namespace) -> int:
    from ..errors import UsageError

    resumed = run.start_study(args, "chain", KEYS, (("chain", "FILE"),))
    from ..chains import load_chain

    chain = load_chain(args.chain)
    if args.trace is not None:
        if args.report:
            raise UsageError("--report", "given", "nothing with --trace (it writes no files)")
        return _trace(chain, args)
    from ..chains.study import run_chain_study
    from ..limits import DEFAULT_BATTLES

    args.battles = args.battles or DEFAULT_BATTLES
    out = run.out_folder(args, Path(args.chain).stem)
    options = run.batch_options(args, "chain", KEYS, out, resumed, None)
    with run.holding(args, out, resumed):
        progress = run.progress_display(args)
        options.update(
            progress=progress, battles=args.battles, seed=args.seed, precision=args.precision
        )
        del options["runner"]
        try:
            result = run_chain_study(chain, **options)
        finally:
            if progress is not None:
                progress.finish()
        files = run.with_report(args, out, result.files)
    if not args.quiet:
        print(for_terminal(result.text()))
        print(for_terminal(f"\nresults in {out}: {run.listing(out, files)}"))
    if result.interrupted:
        done = result.summary["carried"]["runs_completed"]
        print(
            for_terminal(
                f"combatsim: interrupted: wrote the {done} runs that finished to {out}\n"
                f"combatsim: continue with: combatsim chain --resume {out}"
            ),
            file=sys.stderr,
        )
        return run.EXIT_INTERRUPTED
    return 0


def _trace(chain, args: argparse.Namespace) -> int:
    from ..chains.runner import run_chain
    from ..chains.trace import format_run
    from ..errors import check_range
    from ..limits import MAX_BATTLES

    check_range("--trace", args.trace, 0, MAX_BATTLES - 1)
    seed = chain.seed if args.seed is None else args.seed
    print(for_terminal(format_run(chain, run_chain(chain, seed, args.trace, trace=True), seed)))
    return 0
