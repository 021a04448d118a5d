"""``combatsim report DIR``: plots and a self-contained HTML page from a results folder.

Works on the folder of ``run``, ``sweep``, ``compare``, ``balance``, ``explain``, ``design``
or ``chain`` (it reads
``summary.json``); writes ``DIR/plots/*.png`` and ``DIR/report.html``.
"""

from __future__ import annotations

import argparse

from ..names import for_terminal
from . import examples


def add_parser(sub) -> None:
    p = sub.add_parser(
        "report",
        help="turn a results folder into PNG plots and an HTML report",
        description="Write DIR/plots/*.png and DIR/report.html (images embedded) from the "
        "summary.json of a run, sweep, comparison, balance search, explain, design or chain.",
        **examples(
            "combatsim run scenarios/sr-firefight-4v4.yaml && combatsim report "
            "results/sr-firefight-4v4",
        ),
    )
    p.add_argument("folder", metavar="DIR", help="a results folder (with summary.json)")
    p.add_argument(
        "--side", metavar="NAME", help="the side shown in the heatmap (default: the first)"
    )
    p.set_defaults(handler=_report)


def _report(args: argparse.Namespace) -> int:
    from ..report import render_report

    paths = render_report(args.folder, args.side)
    print(for_terminal(f"report: {paths[-1]}"))
    print(for_terminal("plots: " + ", ".join(str(p) for p in paths[:-1])))
    return 0
