"""Rule systems as plug-ins, chosen by name in the scenario (``rules.system``)."""

from .base import RuleSystem, register, system_class, system_names

__all__ = ["RuleSystem", "register", "system_class", "system_names"]
