"""``4d8``: the roll-under 4D8 system (docs/rules-4d8.md) as a rule system (see system.py).

``SYSTEMS`` and ``ODDS`` are what ``combatsim.rules.registry`` reads (see shadowrun/)."""

SYSTEMS = {"4d8": f"{__name__}.system:FourD8"}
ODDS = {"4d8": f"{__name__}.odds:ROLL_UNDER"}
