"""Shadowrun: 2097 (docs/rules-sr2097.md) as a rule system for the battle engine: ``sr2097``.

``SYSTEMS`` and ``ODDS`` are what ``combatsim.rules.registry`` reads (see shadowrun/)."""

SYSTEMS = {"sr2097": f"{__name__}.system:Shadowrun2097"}
ODDS = {"2097": f"{__name__}.odds:CHECK"}
