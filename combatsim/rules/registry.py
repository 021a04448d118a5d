"""Rule systems and odds calculators by name: the one place the program looks them up.

A name is found in three places, in this order:

* ``register(cls)`` (and ``register_odds``): a class handed over while the program runs, as a
  test or a notebook does; it wins over a system of the same name found below.
* The packages under ``combatsim.rules``, found by scanning the folder (no list to keep):
  each package's ``__init__`` declares ``SYSTEMS``, system name -> ``"module:Class"``, and
  optionally ``ODDS``, calculator name -> ``"module:object"`` (``combatsim odds NAME``).
* Entry points of installed distributions, so a system can live in a package of its own:
  group ``combatsim.rule_systems`` (system name -> ``module:Class``) and group
  ``combatsim.odds`` (calculator name -> ``module:object``).

A reference is imported only when its name is asked for: loading a scenario imports its own
system and no other, and the installed distributions are read only for a name not built in
(or to list every name).
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..odds import Calculator
    from .base import RuleSystem

RULES = __name__.rpartition(".")[0]  # combatsim.rules, whose packages are the built-in systems
SYSTEMS_GROUP = "combatsim.rule_systems"
ODDS_GROUP = "combatsim.odds"

_registered: dict[str, type[RuleSystem]] = {}
_registered_odds: dict[str, Calculator] = {}


def register(cls: type[RuleSystem]) -> type[RuleSystem]:
    """Make ``cls`` a rule system scenarios can name (``rules.system: <cls.name>``) in this
    process; returns it, so it can decorate the class."""
    _registered[cls.name] = cls
    return cls


def unregister(name: str) -> None:
    """Forget a system given to ``register`` (a test cleaning up after itself)."""
    _registered.pop(name, None)


def register_odds(calculator: Calculator) -> Calculator:
    """Make ``calculator`` available as ``combatsim odds <calculator.name>`` in this process."""
    _registered_odds[calculator.name] = calculator
    return calculator


def unregister_odds(name: str) -> None:
    _registered_odds.pop(name, None)


def system_class(name: str) -> type[RuleSystem] | None:
    """The rule system called ``name``, or None when no package offers one."""
    if name in _registered:
        return _registered[name]
    reference = _built_in("SYSTEMS").get(name) or _installed(SYSTEMS_GROUP).get(name)
    if reference is None:
        return None
    from .base import RuleSystem

    cls = _load(reference)
    if not (isinstance(cls, type) and issubclass(cls, RuleSystem)) or cls.name != name:
        raise TypeError(
            f"{reference} is offered as rule system {name!r}: it is not a "
            f"RuleSystem subclass whose name is {name!r}"
        )
    return cls


def system_names() -> list[str]:
    """Every system a scenario can name, sorted."""
    return sorted({*_registered, *_built_in("SYSTEMS"), *_installed(SYSTEMS_GROUP)})


def odds_calculators() -> dict[str, Calculator]:
    """Every ``combatsim odds`` calculator by name, in the order their packages are found."""
    found: dict[str, Calculator] = {}
    for references in (_built_in("ODDS"), _installed(ODDS_GROUP)):
        for name, reference in references.items():
            found.setdefault(name, _load(reference))
    return {**found, **_registered_odds}


@functools.cache
def _built_in(kind: str) -> dict[str, str]:
    """``SYSTEMS`` or ``ODDS`` of every package under ``combatsim.rules``, merged."""
    from . import __path__ as folder

    declared: dict[str, str] = {}
    for module in pkgutil.iter_modules(folder):
        if module.ispkg:
            package = importlib.import_module(f"{RULES}.{module.name}")
            declared.update(getattr(package, kind, {}))
    return declared


@functools.cache
def _installed(group: str) -> dict[str, str]:
    """The entry points of ``group`` in the installed distributions: name -> reference."""
    from importlib.metadata import entry_points

    return {point.name: point.value for point in entry_points(group=group)}


def _load(reference: str) -> Any:
    """The object a ``"package.module:attribute"`` reference names."""
    module, _, attribute = reference.partition(":")
    found: Any = importlib.import_module(module)
    for part in attribute.split(".") if attribute else ():
        found = getattr(found, part)
    return found
