"""Classic Shadowrun and its D8 variant as rule systems (docs/rules-sr-classic.md).

``SYSTEMS`` and ``ODDS`` are what ``combatsim.rules.registry`` reads: the systems and the
``combatsim odds`` calculators this package offers, imported only when asked for."""

SYSTEMS = {
    "sr-classic": f"{__name__}.system:ClassicShadowrun",
    "sr-d8": f"{__name__}.system:ShadowrunD8",
}
ODDS = {"sr": f"{__name__}.odds:POOL"}
