"""Classic Shadowrun (seed 002) and its D8 variant (seed 000) as rule systems (see system.py).

``SYSTEMS`` and ``ODDS`` are what ``combatsim.rules.registry`` reads: the systems and the
``combatsim odds`` calculators this package offers, imported only when asked for."""

SYSTEMS = {
    "sr-classic": f"{__name__}.system:ClassicShadowrun",
    "sr-d8": f"{__name__}.system:ShadowrunD8",
}
ODDS = {"sr": f"{__name__}.odds:POOL"}
