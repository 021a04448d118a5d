"""The page's odds calculators, read and computed as ``combatsim odds`` does.

- ``GET /api/odds``: the calculators and their arguments;
- ``POST /api/odds``: one computed, as ``combatsim odds ... --json`` (plus the distribution
  the picture draws). The arguments are the calculator's own, read as the command line reads
  them (``combatsim.odds_arguments``).
"""

from __future__ import annotations

import argparse
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.routing import Route

from ..errors import CombatsimError, UsageError
from . import common as web
from .common import JSON as JSONResponse


class _Arguments(argparse.ArgumentParser):
    """A calculator's arguments, a mistake raised rather than printed and exited on."""

    def error(self, message: str):
        raise CombatsimError(message)


def _calculator_parser(calculator) -> argparse.ArgumentParser:
    from ..odds_arguments import add_output_flags

    parser = _Arguments(prog=f"odds {calculator.name}", add_help=False)
    calculator.add_arguments(parser)
    add_output_flags(parser, grid=calculator.grid)
    return parser


HIDDEN = {"json", "plot", "grid", "help"}


async def list_odds(request: Request):
    def listed() -> list[dict[str, Any]]:
        from ..rules.registry import odds_calculators

        out = []
        for calculator in odds_calculators().values():
            arguments = []
            for action in _calculator_parser(calculator)._actions:
                if action.dest in HIDDEN or not action.option_strings:
                    continue
                arguments.append(
                    {
                        "name": action.option_strings[-1].lstrip("-"),
                        "help": (action.help or "") % {"default": action.default}
                        if action.help and "%(" in action.help
                        else action.help or "",
                        "default": action.default,
                        "choices": list(action.choices) if action.choices else None,
                        "required": action.required,
                        "type": "flag" if action.nargs == 0 else "value",
                    }
                )
            out.append({"name": calculator.name, "help": calculator.help, "arguments": arguments})
        return out

    return JSONResponse(await run_in_threadpool(listed))


async def compute_odds(request: Request):
    body = await web.read_json(request)

    def computed() -> dict[str, Any]:
        from ..odds_arguments import reader
        from ..rules.registry import odds_calculators

        found = odds_calculators()
        name = body.get("calculator") or body.get("system")
        if not isinstance(name, str) or name not in found:
            raise UsageError("calculator", name, ", ".join(found))
        calculator = found[name]
        args = body.get("args") or {}
        if not isinstance(args, dict):
            raise UsageError("args", args, "an object of the calculator's arguments")
        argv = []
        for key, value in args.items():
            if value is True:
                argv.append(f"--{key}")
            elif value is not None and value is not False:
                argv += [f"--{key}", str(value)]
        namespace = _calculator_parser(calculator).parse_args(argv)
        payload, table, *rest = calculator.compute(namespace, reader(namespace))
        out = {**payload, "table": table.render()}
        if not rest:
            outcome, values, series = calculator.distribution(payload)
            out["distribution"] = {"outcome": outcome, "values": values, "series": series}
        return out

    return JSONResponse(await run_in_threadpool(computed))


def routes() -> list:
    return [
        Route("/api/odds", list_odds, methods=["GET"]),
        Route("/api/odds", compute_odds, methods=["POST"]),
    ]
