"""Rule systems as plug-ins, chosen by name in the scenario (``rules.system``).

The contract is ``base.RuleSystem``, and what only some systems have are the capabilities
beside it (``Grenades``, ``WoundPenalties``...); ``registry`` finds systems by name (the
packages here, installed plug-ins, and systems registered at run time)."""

from .base import (
    Autofire,
    ExactHooks,
    Explainable,
    ExtraColumns,
    Grenades,
    RuleSystem,
    StartingConditions,
    WoundPenalties,
)
from .registry import register, system_class, system_names

__all__ = [
    "Autofire",
    "ExactHooks",
    "Explainable",
    "ExtraColumns",
    "Grenades",
    "RuleSystem",
    "StartingConditions",
    "WoundPenalties",
    "register",
    "system_class",
    "system_names",
]
