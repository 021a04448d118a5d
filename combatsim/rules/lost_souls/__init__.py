"""``lost-souls``: Lost Souls' bonus and penalty dice as a rule system (see system.py and
docs/rules-lost-souls.md).

``SYSTEMS`` and ``ODDS`` are what ``combatsim.rules.registry`` reads (see shadowrun/)."""

SYSTEMS = {"lost-souls": f"{__name__}.system:LostSouls"}
ODDS = {"lost-souls": f"{__name__}.odds:PERCENTILE"}
