"""``4d8``: seed 004's roll-under 4D8 system as a rule system (see system.py).

``SYSTEMS`` and ``ODDS`` are what ``combatsim.rules.registry`` reads (see shadowrun/)."""

SYSTEMS = {"4d8": f"{__name__}.system:FourD8"}
ODDS = {"4d8": f"{__name__}.odds:ROLL_UNDER"}
