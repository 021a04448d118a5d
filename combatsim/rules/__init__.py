"""Rule systems as plug-ins, chosen by name in the scenario (``rules.system``).

The contract is ``base.RuleSystem``; ``registry`` finds systems by name (the packages here,
installed plug-ins, and systems registered at run time)."""

from .base import Grenades, RuleSystem
from .registry import register, system_class, system_names

__all__ = ["Grenades", "RuleSystem", "register", "system_class", "system_names"]
