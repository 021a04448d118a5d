"""``combatsim odds coins``: the chance of k hits in n flips of the coin."""

from __future__ import annotations

from math import comb

from combatsim.odds import Table


class CoinOdds:
    name = "coins"
    help = "coin flips: hits in a number of attacks"
    description = "The chance of each number of hits in a number of coin-flip attacks."
    examples = ("combatsim odds coins --flips 3",)
    grid = False

    def add_arguments(self, parser):
        parser.add_argument("--flips", required=True, help="attacks (0-50)")

    def compute(self, args, read):
        flips = read("--flips")
        p = [comb(flips, k) / 2**flips for k in range(flips + 1)]
        payload = {"system": "coin-flips", "flips": flips, "hits": p}
        table = Table(f"{flips} coin flips", ["hits", "P"], [[k, p[k]] for k in range(flips + 1)])
        return payload, table

    def distribution(self, payload):
        return "hits", list(range(payload["flips"] + 1)), {"": payload["hits"]}


COINS = CoinOdds()
