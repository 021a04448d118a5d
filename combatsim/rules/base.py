"""The plug-in contract: what a rule system answers for the engine to run a battle.

The engine owns time, turns, positions, movement, tactics and victory; a rule system owns
every number the rules decide. A system is a subclass of ``RuleSystem`` (an abstract class, so
a type checker and Python itself refuse one that leaves a required method out), found by its
``name`` through ``combatsim.rules.registry``. ``RuleSystem`` is what every system must
answer; what only some systems have is a capability, an abstract class of its own that a
system also inherits when it has it, so that a new system writes only what it uses.

The contract, ``RuleSystem``:

* ``name``, and the pydantic models ``Options`` (the scenario's ``rules.options``), ``Sheet``
  (a combatant), ``Weapon`` and ``Armor`` (catalogue entries). ``Sheet`` must have
  ``weapons`` (names) and ``armor`` (a name or None); ``Weapon`` must have ``kind``
  (``firearm``, ``melee`` or ``grenade``), ``max_range`` (meters; None for melee),
  ``ammo`` (rounds per load, None if it needs none) and ``can_autofire``.
* optionally ``Tactics``: a pydantic model of the system's own policies, written in a
  member's or side's ``tactics: {rules: {...}}``; the validated model is
  ``fighter.spec.rule_tactics`` (None when the system has no such model). ``tactics_at_top``
  names fields of it a file may also write at the top of ``tactics:``.
* class constants the engine, the tactics and the reports read: ``initiative_top`` (the
  scale initiative scores run down from), ``running_takes_turn``, ``running_stops_shooting``
  and ``damage_unit``.
* ``new_state(fighter)``: the mutable per-battle state of one combatant (monitors, pools...);
  ``initiative(battle, fighter)``: this turn's action scores, highest first;
  ``can_act(fighter)`` and ``status(fighter)``: who is out of the fight, and why;
  ``movement(fighter)``: meters walked with an action, and run as the turn's only action;
  ``threat(fighter)`` and ``harm(fighter)``: numbers the tactics use to pick targets;
  ``ranged_attack`` and ``melee_attack``: resolve an attack against the battle and return
  nothing; they record to the battle's trace and counters and apply damage through the
  battle (``damage_dealt``), which handles knock-outs.
* with defaults: ``check_scenario(scenario)`` (load-time checks that need the whole
  scenario), ``initiative_tiebreak`` (who goes first among equal scores), ``may_run``,
  ``begin_action`` (refresh what refreshes at the start of the owner's action) and
  ``end_battle``.

The capabilities; the engine, the tactics, the loader and the reports ask ``isinstance`` (or
the accessors below) and do without what a system lacks:

* ``WoundPenalties``: ``initiative_penalty(fighter)``, the wound penalty to initiative, so
  the engine moves a wounded fighter's remaining actions down as damage lands. Without it,
  wounds never move initiative.
* ``Autofire``: ``max_autofire`` (shots one action may fire) and ``autofire_sweeps`` (may
  they be spread over several enemies). Without it, one shot an action.
* ``Grenades``: how far off a throw lands, what a blast does to a fighter, who it catches,
  how long a grenade flies. The loader refuses, in one line, a scenario that hands a
  grenade to a fighter of a system without it.
* ``StartingConditions`` (a fighter that starts a battle wounded, its Karma or Edge spent: a
  ``combatsim.rules.start.Start``, from a member's ``start:`` or a chain of fights, ruling
  27): ``start_keys``, ``check_start``, ``down_at``, ``down_wounds``, ``apply_start``,
  ``carried``, ``long_rest_regain`` and ``boss_regain``. Without it, a ``start:`` may set
  only rounds, grenades and ``condition: up``, and a chain carries no wounds.
* ``Explainable``: ``levers(sheet, armors)`` and ``unread(spec)``, the knobs of a combatant
  ``combatsim explain`` turns. Without it, ``explain`` tries only the counts of groups.
* ``ExtraColumns``: ``record(fighter)``, extra columns of combatants.csv.
* ``ExactHooks``: ``exact_dice``, ``exact_key`` and ``condition``, which make exact answers
  (``combatsim odds attack``, ``run --exact``) faster or better worded. Without it, every
  face is enumerated and all of a fighter's state is compared, which is exact too.

Rules and tactics never import the engine: the engine hands them the battle, and what they may
use of it is written down here as two protocols, ``BattleView`` (the battle) and ``Combatant``
(one fighter's state in it). ``BattleView`` is generic in the engine's own combatant type
``C`` (a ``Combatant``): the battle takes back only fighters it handed out, so the methods
that get a battle are generic in ``C`` (``ranged_attack(battle: BattleView[C], attacker: C,
...)``) and a checker holds a system to that (``tests/test_types.py``). ``RuleSystem`` is
generic in the system's ``Options``, ``Sheet`` and ``Armor`` models, so ``self.options`` is
the system's own, as are ``Explainable.levers``' arguments. The layers read from the imports:
the engine imports the tactics and the rules; the tactics import this interface; the rules
import this interface and the dice.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar

if TYPE_CHECKING:
    from pydantic import BaseModel

    from .levers import Lever
    from .situation import EnemiesInView, Scatter, Situation
    from .start import Start, StartProblem


class Roll(Protocol):
    """The battle's dice (``combatsim.engine.roll.Roller``)."""

    def taker(self, low: int, high: int) -> Callable[[int], list[int]]: ...
    def d(self, sides: int, k: int) -> list[int]: ...
    def faces(self, kind: Any, k: int) -> list[int]: ...
    def chain_draw(self, kind: Any) -> Callable[[int], list[int]]: ...
    def angle(self) -> float: ...
    def below(self, n: int) -> int: ...

    # None in a battle; for an exact answer, a function a system may call between the shots
    # of a burst with what its code carries from one shot to the next (``where``, hashable):
    # paths reaching the same ``where`` in the same state then meet (``combatsim.dice.paths``)
    checkpoint: Callable[[Any], None] | None


class Combatant(Protocol):
    """One fighter in a battle, as rules and tactics see it. ``state`` is the rule system's own
    (``new_state``); the rest the engine keeps: the spec, the weapons by kind, walk and run
    meters (from ``movement``), the first firearm's range and shots per action (``burst``,
    from ``max_autofire``), position and cover, this turn's movement, the counters of
    combatants.csv, and whether it can still act."""

    spec: Any
    index: int
    name: str
    side: str
    tactics: Any
    weapons: Sequence[Any]
    firearm: Any
    firearm_index: int
    firearm_range: float
    burst: int
    melee: Any
    grenades: list[tuple[int, Any]]
    reach: float
    walk: float
    run: float
    state: Any
    position: tuple[float, float]
    cover: str
    ammo: list[int]
    can_act: bool
    running: bool
    ran_this_turn: bool
    moved_this_turn: float
    moved_this_action: float
    actions_this_turn: int
    lose_next_action: bool | str
    shots: int
    hits: int

    def weapon_label(self, weapon: Any) -> str: ...


# The engine's own combatant type: a ``BattleView[C]`` holds fighters of type ``C`` and takes
# back only those (its queries read the engine's bookkeeping on them), so the contract is
# generic in it and a rule system's methods hand a battle only fighters it got from it.
C = TypeVar("C", bound=Combatant)


class BattleView(Protocol[C]):
    """What the engine hands rules and tactics: the dice, the trace, the fighters and their
    geometry, ``situation`` (what the engine measures of an attack) and ``damage_dealt`` to
    report a change of a fighter's state (the engine then handles knock-outs and initiative).
    Build trace text only when ``tracing`` is on."""

    system: RuleSystem[Any, Any, Any]
    scenario: Any  # the ``Scenario`` being run (``check_scenario``'s)
    environment: Any
    melee_range: float
    fighters: list[C]

    @property
    def roll(self) -> Roll: ...  # read-only: the battle's own ``Roller`` (or a test's)

    tracing: bool
    turn: int
    layout: int  # changes whenever someone moves or leaves the fight
    focus: dict[str, C]

    def trace(self, kind: str, text: str, actor: C | None = None, **data: Any) -> None: ...
    def distance(self, a: C, b: C) -> float: ...
    def is_standing(self, f: C) -> bool: ...
    def standing_enemies(self, me: C) -> list[C]: ...
    def enemies_in_view(self, me: C) -> EnemiesInView: ...
    def situation(
        self, attacker: C, target: C | None, at: tuple[float, float] | None = None
    ) -> Situation: ...
    def opponents_in_melee(self, me: C) -> int: ...
    # the meters from ``at`` to ``me``'s standing enemies by index, and the nearest from there
    def measured_from(
        self, me: C, at: tuple[float, float]
    ) -> tuple[Mapping[int, float], C | None]: ...
    # the ``enemies`` no farther than ``reach`` by ``meters`` (by index), in order
    def within_reach(
        self, enemies: list[C], meters: Mapping[int, float], reach: float
    ) -> list[C]: ...
    def free_cover_point(self, me: C, within: float, kind: str | None = None) -> Any: ...
    def damage_dealt(self, attacker: C | None, target: C, boxes: int, what: str) -> None: ...


class SpecCache:
    """What a rule system derives from a combatant's spec, kept for every battle of the
    scenario (a spec is immutable): ``get(spec, make)`` calls ``make(spec)`` once per spec.
    Keyed by the spec's identity and holding the spec, so its id cannot be reused; pickled
    empty, since a worker process gets other spec objects."""

    __slots__ = ("_kept",)

    def __init__(self) -> None:
        self._kept: dict[int, tuple[Any, Any]] = {}

    def get(self, spec: Any, make: Callable[[Any], Any]) -> Any:
        kept = self._kept.get(id(spec))
        if kept is None or kept[0] is not spec:
            kept = self._kept[id(spec)] = (spec, make(spec))
        return kept[1]

    def __len__(self) -> int:
        return len(self._kept)

    def __reduce__(self) -> tuple[type, tuple]:
        return SpecCache, ()


# The names the rule systems' signatures use: ``battle: Battle[C], attacker: C`` (generic in
# the engine's combatant type, as the contract is); ``Fighter`` where a fighter is only read.
Battle = BattleView
Fighter = Combatant

# A system's own models: its options, its combatant sheet and its armor. ``RuleSystem`` is
# generic in them (``class Sr2097(RuleSystem[Options, Sheet, Armor])``), so ``self.options``
# and ``levers``' arguments have the system's own types for the checker.
OptionsT = TypeVar("OptionsT", bound="BaseModel")
SheetT = TypeVar("SheetT", bound="BaseModel")
ArmorT = TypeVar("ArmorT", bound="BaseModel")


class RuleSystem(ABC, Generic[OptionsT, SheetT, ArmorT]):
    name: ClassVar[str]
    Options: ClassVar[type[BaseModel]]
    Sheet: ClassVar[type[BaseModel]]
    Weapon: ClassVar[type[BaseModel]]
    Armor: ClassVar[type[BaseModel]]
    Tactics: ClassVar[type[BaseModel] | None] = None
    # Fields of ``Tactics`` a scenario may also write at the top of ``tactics:`` rather than
    # under ``rules:`` (Shadowrun's, which were once every system's tactics).
    tactics_at_top: ClassVar[tuple[str, ...]] = ()
    # Initiative scores run from this down to 1 within one turn's time; a higher score acts
    # at the top of the scale.
    initiative_top: ClassVar[int] = 100
    # Is running the turn's only action (Shadowrun: 2097)? Then a fighter may run only as its
    # first action of the turn, and loses the turn's other actions once it has run.
    running_takes_turn: ClassVar[bool] = False
    # Does running stop a fighter from shooting or throwing until the next turn (the classic rules'
    # Weapon Modifiers)? The tactics then have a fighter that ran reload or wait instead.
    running_stops_shooting: ClassVar[bool] = False
    # What a point of damage is called (a fighter's ``damage_taken`` counts them): the
    # reports label the damage axis with it.
    damage_unit: ClassVar[str] = "points"

    def __init__(self, options: OptionsT):
        self.options = options

    def check_scenario(self, scenario: Any) -> None:  # noqa: B027
        """Called once the scenario is built: check what needs all of it (files named in the
        options, relative to ``scenario.source``); raise ``ScenarioError``. Default: nothing."""

    # --- combatants -----------------------------------------------------------------------
    @abstractmethod
    def new_state(self, fighter: Combatant) -> Any: ...

    @abstractmethod
    def initiative(self, battle: BattleView[C], fighter: C) -> Sequence[int]:
        """This turn's action scores, highest first, from ``initiative_top`` down to 1."""

    def initiative_tiebreak(self, fighter: Combatant) -> int:
        """Among equal scores the higher value (an integer) acts first, then a random draw."""
        return 0

    def may_run(self, fighter: Combatant) -> bool:
        """May the fighter run with this action? Always, unless running takes the whole turn
        and the fighter has acted before in it (its ``actions_this_turn`` counts this one)."""
        return not self.running_takes_turn or fighter.actions_this_turn <= 1

    def begin_action(self, battle: BattleView[C], fighter: C) -> None:  # noqa: B027
        """Nothing refreshes by default."""

    def end_battle(self, battle: BattleView[C]) -> None:  # noqa: B027
        """Called once a battle is over and its result recorded: drop what the fighters'
        states hold of one another (a target remembered, say), so that the finished battle
        is freed at once rather than by the cyclic garbage collector. Nothing by default."""

    @abstractmethod
    def can_act(self, fighter: Combatant) -> bool: ...

    @abstractmethod
    def status(self, fighter: Combatant) -> str: ...

    @abstractmethod
    def movement(self, fighter: Combatant) -> tuple[float, float]:
        """Walk and run meters per turn; fixed for a battle (asked once per combatant)."""

    @abstractmethod
    def threat(self, fighter: Combatant) -> float: ...

    @abstractmethod
    def harm(self, fighter: Combatant) -> float:
        """Share of the way to being out of the fight, 0 (fresh) to 1 (out)."""

    # --- actions --------------------------------------------------------------------------
    @abstractmethod
    def ranged_attack(
        self,
        battle: BattleView[C],
        attacker: C,
        target: C,
        weapon: Any,
        shots: int,
        sweep: Sequence[tuple[C, int]] = (),
    ) -> None:
        """``shots`` rounds in all; ``sweep``: further (target, rounds) an autofire walks across
        (only passed when ``autofire_sweeps`` says the fighter sweeps)."""

    @abstractmethod
    def melee_attack(
        self,
        battle: BattleView[C],
        attacker: C,
        target: C,
        weapon: Any,
        interception: bool = False,
    ) -> None: ...


class Grenades(ABC):
    """The grenade capability: a system with grenade rules inherits this besides
    ``RuleSystem``. Without it, a scenario that hands a combatant a grenade is refused.
    The engine lands the grenade and measures the blast; the system says how far off a throw
    goes and what a blast does to one fighter."""

    @abstractmethod
    def throw_grenade(
        self, battle: BattleView[C], thrower: C, weapon: Any, aim: tuple[float, float]
    ) -> Scatter:
        """Resolve the throw: how far from ``aim`` it lands (the engine draws the direction)."""

    @abstractmethod
    def grenade_blast(
        self, battle: BattleView[C], thrower: C, weapon: Any, victim: C, distance: float
    ) -> None:
        """What the blast does to ``victim``, ``distance`` meters from the burst
        (``blast_distance``); asked for every fighter ``in_blast`` catches, in order."""

    @abstractmethod
    def blast_radius(self, weapon: Any) -> float:
        """How far the blast reaches: ``in_blast`` catches nobody farther from the burst (the
        tactics ask ``in_blast`` only of those nearer)."""

    def in_blast(self, weapon: Any, distance: float) -> bool:
        """Is a fighter ``distance`` meters from the burst (``blast_distance``) caught in the
        blast? The tactics ask this of friends and enemies before throwing. Default: within
        ``blast_radius``, its edge included."""
        return distance <= self.blast_radius(weapon)

    def grenade_flight(self, weapon: Any) -> float:
        """Initiative points between the throw and the burst. Default: 0, it bursts at once."""
        return 0


def grenade_rules(system: RuleSystem) -> Grenades:
    """``system`` as the grenade rules it has. Asked only about a fighter carrying a grenade,
    which the loader allows only under a system with the ``Grenades`` capability."""
    assert isinstance(system, Grenades), f"{system.name} has no grenade rules"
    return system


# --- capabilities a system may lack --------------------------------------------------------
# Each is an abstract class a system inherits besides ``RuleSystem`` when it has the rules;
# the code that needs one asks ``isinstance`` (or an accessor here) and does without.


class WoundPenalties(ABC):
    """Wounds that move a fighter's initiative scores. The engine asks when the turn's
    initiative is rolled and after each ``damage_dealt`` for the fighter: the penalty may
    change only with damage reported there. Without it, wounds never move initiative."""

    @abstractmethod
    def initiative_penalty(self, fighter: Combatant) -> int:
        """The current wound penalty to initiative (points off every score)."""


def wound_penalty(system: RuleSystem) -> Callable[[Combatant], int] | None:
    """``system``'s ``initiative_penalty``, or None when wounds never move initiative."""
    return system.initiative_penalty if isinstance(system, WoundPenalties) else None


class Autofire(ABC):
    """More than one shot an action. Without it, every firing action fires one shot."""

    @abstractmethod
    def max_autofire(self, fighter: Combatant, weapon: Any) -> int:
        """Most shots one autofire action may fire (1 when the weapon cannot autofire).
        Fixed for a battle: the engine asks once per combatant, at the start."""

    def autofire_sweeps(self, fighter: Combatant) -> bool:
        """May the fighter's autofire walk across enemies standing close together (the
        tactics then plan a ``sweep``, passed to ``ranged_attack``)? Default: no."""
        return False


def max_autofire(system: RuleSystem, fighter: Combatant, weapon: Any) -> int:
    """Most shots one action of ``fighter`` may fire with ``weapon``: 1 without ``Autofire``."""
    return system.max_autofire(fighter, weapon) if isinstance(system, Autofire) else 1


class StartingConditions(ABC):
    """Fighters that start a battle otherwise than fresh (``Start``; ruling 27): wounded,
    stunned, their Karma or Edge spent, from a member's ``start:`` or a chain of fights.
    Rounds and grenades are the engine's. Without it, a ``start:`` may set only rounds,
    grenades and ``condition: up``, and a chain carries no wounds from fight to fight."""

    # The keys of a member's ``start:`` the system reads beyond rounds, grenades and an ``up``
    # condition: ``wounds`` (its own unit, ``damage_unit``), ``stun``, and its spent pool by
    # its name (``karma_spent`` or ``edge_spent``). A file's other keys are refused; ``down``
    # and ``dead`` need ``wounds``.
    start_keys: ClassVar[tuple[str, ...]]
    # Between encounters of a chain: the spent pool a long rest gives back, and what each
    # survivor of the side that defeated a boss gets back. Nothing by default.
    long_rest_regain: ClassVar[int] = 0
    boss_regain: ClassVar[int] = 0

    @abstractmethod
    def check_start(self, spec: Any, start: Start) -> list[StartProblem]:
        """What of ``start`` is out of bounds for the fighter of ``spec`` (a wound past the
        monitor, more Karma spent than it has), one ``StartProblem`` per key; the loader makes
        each a one-line error at ``start.<key>``. Rounds and grenades are the loader's."""

    @abstractmethod
    def down_at(self, spec: Any, start: Start) -> bool:
        """Does a fighter of ``spec`` starting at ``start`` start out of the fight (down, or
        dead)? The loader holds ``condition: up/down`` to it."""

    @abstractmethod
    def down_wounds(self, spec: Any) -> int:
        """The fewest wounds that put a fighter of ``spec`` down: what ``condition: down``
        without ``wounds`` starts it at. Asked only when ``wounds`` is in ``start_keys``."""

    @abstractmethod
    def apply_start(self, fighter: Combatant, start: Start) -> None:
        """Set ``fighter.state`` (just made by ``new_state``) to ``start``'s wounds, stun, spent
        pool and death. Called only when ``start`` sets one of them; the engine then asks
        ``can_act``, and a fighter that cannot starts out of the fight."""

    @abstractmethod
    def carried(self, fighter: Combatant) -> tuple[int, int, int]:
        """Wounds, stun and the spent pool of ``fighter`` now (at a battle's end), in the
        units ``apply_start`` reads: a ``Start`` of them, fed to the next battle, starts the
        fighter where this one left it."""


def start_rules(system: RuleSystem) -> StartingConditions | None:
    """``system`` as its starting conditions, or None when it has none."""
    return system if isinstance(system, StartingConditions) else None


def start_keys(system: RuleSystem) -> tuple[str, ...]:
    """The keys of a ``start:`` ``system`` reads: none without the capability."""
    return system.start_keys if isinstance(system, StartingConditions) else ()


class Explainable(ABC, Generic[SheetT, ArmorT]):
    """The knobs of a combatant a game master can turn, for ``combatsim explain``. Without
    it, ``explain`` tries only the counts of groups. Generic in the system's ``Sheet`` and
    ``Armor`` models, as ``RuleSystem`` is."""

    @abstractmethod
    def levers(self, sheet: SheetT, armors: Mapping[str, ArmorT]) -> list[Lever]:
        """The knobs of one combatant a game master can turn.

        ``sheet``: the member's validated ``Sheet`` (archetype and overrides merged);
        ``armors``: every armor the scenario can name (catalogues and its own), by name.
        Return one ``Lever`` per field worth trying: its path inside the member entry
        (``skills.firearms``, as a sweep's field path continues ``sides[0].members[1].``), its
        value now and the values one natural step down and up (a point; an armor grade), None
        where the rules allow no step. Every step must be a value the sheet accepts; the
        helpers in ``combatsim.rules.levers`` take the bounds from the model. The count of a
        group is added by ``explain`` itself.
        """

    def unread(self, spec: Any) -> frozenset[str]:
        """Lever paths of one member (as ``levers`` names them) that no roll or decision of any
        fighter can read under this system's options, so that turning them cannot change any
        battle: ``explain`` reports them as "no effect: not used by anyone" without running
        them. ``spec``: the member's ``FighterSpec`` (its sheet and resolved weapons).

        Name a field here only when the code proves it (the Karma pool with Instant Karma
        off); a field only *rarely* read (melee skills of shooters, read when someone is
        intercepted) is read. ``tests/test_explain_unread.py`` checks every answer against
        traced battles of the shipped scenarios. Default: nothing is known to be unread.
        """
        return frozenset()


class ExtraColumns(ABC):
    """Per-combatant columns of combatants.csv beyond the engine's own."""

    @abstractmethod
    def record(self, fighter: Combatant) -> dict[str, Any]:
        """The extra columns of ``fighter`` at the battle's end, by name."""


class ExactHooks(ABC):
    """Help for exact answers (``combatsim odds attack``, ``run --exact``): whole tests
    taken from the dice layer's distributions, a tight key of what later rolls read, a
    fighter's condition in words. ``exact_dice`` and ``exact_key`` have defaults. Without
    the capability every face is enumerated and all of a fighter's state is compared, which
    is exact too, only slower, and a fighter's condition is its ``status``."""

    def exact_dice(self, fighter: Combatant, choose: Callable[[Any], Any]) -> None:  # noqa: B027
        """Arm ``fighter``'s state for an exact answer: where the rules roll a whole test,
        let it take the test's outcome from ``choose`` over the dice layer's exact
        distribution (``choose(options)`` with ``(outcome, probability)`` pairs, as
        ``combatsim.dice.paths`` explains) rather than face by face. The battle's dice then
        enumerate only what is left. Nothing by default."""

    def exact_key(self, fighter: Combatant) -> Any:
        """What of the fighter's state a later roll, decision or ``condition`` can read, as
        a hashable, or None (the default) for all of it, walked generically. Paths of an
        exact answer that reach the same keys meet (``combatsim.dice.paths``), so a tight key
        (no counters kept only for combatants.csv) makes long bursts cheap; a key that leaves
        out something read gives wrong answers, which ``tests/exact`` would show."""
        return None

    @abstractmethod
    def condition(self, fighter: Combatant) -> str:
        """The fighter's condition in a few words, for exact-odds tables (its monitor,
        "4 Physical, 2 Stun")."""


def condition(system: RuleSystem, fighter: Combatant) -> str:
    """``fighter``'s condition in words: ``ExactHooks.condition``, else its ``status``."""
    return system.condition(fighter) if isinstance(system, ExactHooks) else system.status(fighter)
