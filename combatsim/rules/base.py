"""The rule-system interface: what a system must answer for the engine to run a battle.

The engine owns time, turns, positions, movement, tactics and victory; a rule system owns
every number the rules decide. A subclass provides:

* ``name`` and the pydantic models ``Options`` (the scenario's ``rules.options``), ``Sheet``
  (a combatant), ``Weapon`` and ``Armor`` (catalogue entries). ``Sheet`` must have
  ``weapons`` (names) and ``armor`` (a name or None); ``Weapon`` must have ``kind``
  (``firearm``, ``melee`` or ``grenade``), ``max_range`` (meters; None for melee),
  ``ammo`` (rounds per load, None if it needs none) and ``can_autofire``.
* optionally ``Tactics``: a pydantic model for the system's own policies, given in a
  member's or side's ``tactics: {rules: {...}}``; the validated model is
  ``fighter.spec.rule_tactics`` (None when the system has no such model).
* optionally ``check_scenario(scenario)``: load-time checks that need the whole scenario.
* ``new_state(fighter)``: the mutable per-battle state of one combatant (monitors, pools...).
* ``initiative(fighter, roll)``: this turn's action scores, highest first.
* ``initiative_penalty(fighter)``: the current wound penalty to initiative, so the engine can
  move a wounded fighter's remaining actions down as damage lands; optionally
  ``initiative_tiebreak(fighter)``: who goes first among equal scores.
* ``begin_action(fighter)``: refresh what refreshes at the start of the owner's action.
* ``can_act(fighter)`` and ``status(fighter)``: who is out of the fight, and why.
* ``movement(fighter)``: meters walked with an action, and run as the turn's only action.
* ``ranged_attack``, ``melee_attack``, ``throw_grenade``, ``grenade_blast``: resolve an
  attack against the battle and return nothing; they record to the battle's trace and
  counters and apply damage through the battle, which handles knock-outs.
* ``threat(fighter)`` and ``harm(fighter)``: numbers the tactics use to pick targets.
* optionally ``levers(sheet, armors)``: the knobs of a combatant a game master can turn
  (attributes, skills, pools, initiative dice, armor grades, karma or edge), as
  ``combatsim.rules.levers.Lever`` s, for ``combatsim explain``. Default: none.

The built-in systems register themselves with ``register`` exactly as a plug-in would.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel

if TYPE_CHECKING:
    from ..engine.battle import Battle, Fighter
    from .levers import Lever


class RuleSystem(ABC):
    name: ClassVar[str]
    Options: ClassVar[type[BaseModel]]
    Sheet: ClassVar[type[BaseModel]]
    Weapon: ClassVar[type[BaseModel]]
    Armor: ClassVar[type[BaseModel]]
    Tactics: ClassVar[type[BaseModel] | None] = None

    def __init__(self, options: BaseModel):
        self.options = options

    def check_scenario(self, scenario: Any) -> None:  # noqa: B027
        """Called once the scenario is built: check what needs all of it (files named in the
        options, relative to ``scenario.source``); raise ``ScenarioError``. Default: nothing."""

    # --- combatants -----------------------------------------------------------------------
    @abstractmethod
    def new_state(self, fighter: Fighter) -> Any: ...

    @abstractmethod
    def initiative(self, battle: Battle, fighter: Fighter) -> list[int]: ...

    @abstractmethod
    def initiative_penalty(self, fighter: Fighter) -> int: ...

    def initiative_tiebreak(self, fighter: Fighter) -> int:
        """Among equal scores the higher value acts first (then a random draw)."""
        return 0

    def begin_action(self, battle: Battle, fighter: Fighter) -> None:  # noqa: B027
        """Nothing refreshes by default."""

    @abstractmethod
    def can_act(self, fighter: Fighter) -> bool: ...

    @abstractmethod
    def status(self, fighter: Fighter) -> str: ...

    @abstractmethod
    def movement(self, fighter: Fighter) -> tuple[float, float]: ...

    @abstractmethod
    def threat(self, fighter: Fighter) -> float: ...

    @abstractmethod
    def harm(self, fighter: Fighter) -> float:
        """Share of the way to being out of the fight, 0 (fresh) to 1 (out)."""

    def levers(self, sheet: BaseModel, armors: Mapping[str, BaseModel]) -> list[Lever]:
        """The knobs of one combatant a game master can turn, for ``combatsim explain``.

        ``sheet``: the member's validated ``Sheet`` (archetype and overrides merged);
        ``armors``: every armor the scenario can name (catalogues and its own), by name.
        Return one ``Lever`` per field worth trying: its path inside the member entry
        (``skills.firearms``, as a sweep's field path continues ``sides[0].members[1].``), its
        value now and the values one natural step down and up (a point; an armor grade), None
        where the rules allow no step. Every step must be a value the sheet accepts; the
        helpers in ``combatsim.rules.levers`` take the bounds from the model. The count of a
        group is added by ``explain`` itself. Default: no levers (``explain`` then tries
        only the counts of groups).
        """
        return []

    def record(self, fighter: Fighter) -> dict[str, Any]:
        """Extra per-combatant columns for combatants.csv."""
        return {}

    # --- actions --------------------------------------------------------------------------
    @abstractmethod
    def ranged_attack(
        self,
        battle: Battle,
        attacker: Fighter,
        target: Fighter,
        weapon: Any,
        shots: int,
        sweep: Sequence[tuple[Fighter, int]] = (),
    ) -> None:
        """``shots`` rounds in all; ``sweep``: further (target, rounds) an autofire walks across
        (only passed when the fighter's tactics ask to sweep)."""

    @abstractmethod
    def melee_attack(
        self,
        battle: Battle,
        attacker: Fighter,
        target: Fighter,
        weapon: Any,
        interception: bool = False,
    ) -> None: ...

    @abstractmethod
    def throw_grenade(
        self, battle: Battle, thrower: Fighter, weapon: Any, aim: tuple[float, float]
    ) -> tuple[float, float]:
        """Resolve the throw; return where the grenade lands."""

    @abstractmethod
    def grenade_blast(
        self, battle: Battle, thrower: Fighter, weapon: Any, at: tuple[float, float]
    ) -> None: ...

    @abstractmethod
    def blast_radius(self, weapon: Any) -> float: ...

    def max_autofire(self, fighter: Fighter, weapon: Any) -> int:
        """Most shots one autofire action may fire (1 when the weapon cannot autofire)."""
        return 1


_REGISTRY: dict[str, type[RuleSystem]] = {}


def register(cls: type[RuleSystem]) -> type[RuleSystem]:
    """Class decorator: make a rule system available to scenarios by its ``name``."""
    _REGISTRY[cls.name] = cls
    return cls


def system_class(name: str) -> type[RuleSystem] | None:
    _load_builtin()
    return _REGISTRY.get(name)


def system_names() -> list[str]:
    _load_builtin()
    return sorted(_REGISTRY)


def _load_builtin() -> None:
    """Import ``combatsim.rules.<package>.system`` for every package here: each registers."""
    if _LOADED:
        return
    import importlib
    import pkgutil

    from . import __path__ as here

    for module in pkgutil.iter_modules(here):
        if module.ispkg:
            importlib.import_module(f"{__package__}.{module.name}.system")
    _LOADED.append(True)


_LOADED: list[bool] = []
