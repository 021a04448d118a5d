"""``lost-souls``: seed 001's bonus and penalty dice as a rule system (see system.py).

``SYSTEMS`` and ``ODDS`` are what ``combatsim.rules.registry`` reads (see shadowrun/)."""

SYSTEMS = {"lost-souls": f"{__name__}.system:LostSouls"}
ODDS = {"lost-souls": f"{__name__}.odds:PERCENTILE"}
