"""Test helpers for the classic Shadowrun battles: scenario builders on the shared
``ScriptedRoller`` (``tests/helpers.py``), which deals every d6 face the battle asks for from a
list, in the order the battle asks for them, so a worked example is a real battle with no
randomness.

The order a classic-Shadowrun turn draws its faces in: the initiative dice of every fighter
able to act, in scenario order; then, action by action, each test's first faces for all its
dice at once, followed by the re-rolls of its sixes in die order
(``combatsim.dice.shadowrun.roll_chains``); the resistance test after its attack test; grenade
deviation dice after the throw test. Initiative tie-break draws and grenade directions are
scripted apart (default 0 and 0.0 radians).

The builders write scenario mappings in the scenario file's own shape and validate them with
``build_scenario``, so the tests use the loader exactly as a YAML file would.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from combatsim.engine.battle import Battle
from combatsim.engine.records import BattleResult, TraceEvent
from combatsim.scenario import Scenario
from tests.helpers import ScriptedRoller, build, events

# the shared roller's error and trace readers, for the tests that import them from here
from tests.helpers import ScriptExhausted as ScriptExhausted
from tests.helpers import dump as dump
from tests.helpers import fighter as fighter

# --- scenario builders ------------------------------------------------------------------------

# A small inline catalogue. "toy" is a gun that reaches no one (0.1 m): with ``movement: hold``
# its owner holds its action every turn and never moves, rolls or attacks: a sitting target.
WEAPONS: dict[str, dict[str, Any]] = {
    "rifle": {"kind": "firearm", "damage": "4M3", "ranges": [50, 150, 350, 550], "ammo": 100},
    "smg": {
        "kind": "firearm",
        "damage": "6M2",
        "ranges": [10, 40, 80, 150],
        "ammo": 30,
        "autofire": True,
    },
    "needle": {"kind": "firearm", "damage": "4L1", "ranges": [50, 150, 350, 550], "ammo": 100},
    "toy": {"kind": "firearm", "damage": "1L", "ranges": [0.1, 0.1, 0.1, 0.1], "ammo": 1},
    "club": {"kind": "melee", "damage": "STR+1M2"},
    "frag": {
        "kind": "grenade",
        "damage": "6S2",
        "ranges": [5, 10, 20, 40],
        "ammo": 2,
        "blast_falloff": 2,
    },
}
ARMOR: dict[str, dict[str, Any]] = {
    "vest": {"ballistic": 1, "impact": 3},
    "jacket": {"ballistic": 2, "impact": 1},
}


def member(
    name: str,
    *,
    body: int = 3,
    quickness: int = 3,
    strength: int = 3,
    reaction: int = 1,
    position: Sequence[float] = (0.0, 0.0),
    weapons: Sequence[str] = (),
    tactics: dict[str, Any] | None = None,
    **sheet: Any,
) -> dict[str, Any]:
    """A member entry; skills given as keywords (``firearms=4``), other sheet keys as they are."""
    skills = {k: sheet.pop(k) for k in list(sheet) if k in SKILLS}
    entry: dict[str, Any] = {
        "name": name,
        "attributes": {
            "body": body,
            "quickness": quickness,
            "strength": strength,
            "reaction": reaction,
        },
        "skills": skills,
        "weapons": list(weapons),
        "position": list(position),
        "tactics": dict(tactics or {}),
        **sheet,
    }
    return entry


SKILLS = ("firearms", "armed_combat", "unarmed_combat", "throwing")


def sitting_target(name: str = "Target", **kw: Any) -> dict[str, Any]:
    """A fighter that never moves, dodges or attacks: it holds its toy gun every action."""
    tactics = {"dodge": "none", "movement": "hold", **kw.pop("tactics", {})}
    return member(name, weapons=["toy"], tactics=tactics, **kw)


def scenario(
    sides: dict[str, list[dict[str, Any]]],
    *,
    options: dict[str, Any] | None = None,
    turn_limit: int = 1,
    environment: dict[str, Any] | None = None,
    weapons: dict[str, dict[str, Any]] | None = None,
    armor: dict[str, dict[str, Any]] | None = None,
    system: str = "sr-classic",
) -> Scenario:
    """Validate a scenario mapping: ``sides`` maps a side name to its member entries."""
    return build(
        system,
        sides,
        weapons={**WEAPONS, **(weapons or {})},
        armor={**ARMOR, **(armor or {})},
        options=options,
        environment=environment,
        turn_limit=turn_limit,
    )


def duel(shooter: dict[str, Any], target: dict[str, Any] | None = None, **kw: Any) -> Scenario:
    """Side ``A`` with one fighter against side ``B`` with one (a sitting target by default)."""
    return scenario({"A": [shooter], "B": [target or sitting_target(position=(20, 0))]}, **kw)


def run_scripted(
    sc: Scenario,
    faces: Iterable[int] = (),
    prepare: Callable[[Battle], None] | None = None,
    battle_type: type[Battle] = Battle,
    **roller_kw: Any,
) -> tuple[Battle, BattleResult, ScriptedRoller]:
    """Run one traced battle on scripted dice; returns the battle (for its final state too).
    ``prepare`` changes the battle before it starts (a wound); ``battle_type`` a subclass
    that watches it (a method patched on ``Battle`` itself is not seen by a compiled
    engine)."""
    roller = ScriptedRoller(faces, **roller_kw)
    battle = battle_type(sc, rng=None, index=0, trace=True, roller=roller)
    if prepare is not None:
        prepare(battle)
    return battle, battle.run(), roller


def rolls(result: BattleResult, what: str, actor: str | None = None) -> list[TraceEvent]:
    """The ``roll`` events of one kind of test (``Firearms``, ``Body``, ``Dodge Pool``...)."""
    return [e for e in events(result, "roll", actor) if e.text.startswith(what)]
