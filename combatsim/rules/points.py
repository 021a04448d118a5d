"""What rule systems with a pool of points share (Lost Souls' life, 4D8's health).

Neither the Lost Souls nor the 4D8 rules have combat damage, so both systems give each
combatant a pool of points that armor protects and hits drain: out of the fight at 0
("down"), dead at ``-dead_at`` times the maximum (option ``dead_at``). One mechanism serves
both; each system names its pool (``pool``) and keeps ``<pool>`` and ``max_<pool>`` on its
per-battle state.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from operator import attrgetter
from typing import TYPE_CHECKING, Any, ClassVar

from .start import KARMA_SPENT, StartProblem

if TYPE_CHECKING:
    from .base import Battle, C, Combatant
    from .start import Start


class PointPoolRules:
    """Mixin for a ``RuleSystem`` whose fighters' state has ``<pool>``, ``max_<pool>``,
    ``armor``, ``prev_target`` and ``this_target``, and which resolves every attack in its
    ``ranged_attack(battle, attacker, target, weapon, shots=1, sweep=(), *, ranged=True,
    interception=False)`` (it remembers the target for an aimed follow-up); the mixin's
    ``melee_attack`` calls it with ``ranged=False``. A grenade's points come from
    ``blast_points``.

    Everything else a pool system answers the same way is here: who can act and its status,
    harm, movement, armor against a hit (``hurt``) and against a blast (``grenade_blast``)."""

    pool: ClassVar[str]
    options: Any
    if TYPE_CHECKING:  # declared for the checker only: the subclass and __init_subclass__ set them
        # every attack, ranged or not
        def ranged_attack(
            self,
            battle: Battle[C],
            attacker: C,
            target: C,
            weapon: Any,
            shots: int = 1,
            sweep: Sequence[tuple[C, int]] = (),
            *,
            ranged: bool = True,
            interception: bool = False,
        ) -> None: ...

        # a grenade's points, the armor they pierce and (for the trace) how they come about,
        # the same for everyone inside the blast

        def blast_points(self, battle: Battle[C], weapon: Any) -> tuple[int, int, str]: ...

        # the pool and its maximum read off a fighter's state, made once per class
        @staticmethod
        def _pool_of(state: Any) -> int: ...
        @staticmethod
        def _max_of(state: Any) -> int: ...

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "pool" in cls.__dict__:
            # setattr: the checker knows them as the static methods declared above
            setattr(cls, "_pool_of", staticmethod(attrgetter(cls.pool)))  # noqa: B010
            setattr(cls, "_max_of", staticmethod(attrgetter("max_" + cls.pool)))  # noqa: B010

    def _points(self, fighter: C) -> tuple[int, int]:
        st = fighter.state
        return self._pool_of(st), self._max_of(st)

    def end_battle(self, battle: Battle[C]) -> None:
        """The targets remembered for aimed follow-ups refer to other fighters: dropped."""
        for f in battle.fighters:
            st = f.state
            st.prev_target = st.this_target = None

    def _drained(self, state: Any) -> None:
        """Called after a hit took points off ``state``'s pool: a system keeps here what
        depends on the pool (nothing by default)."""

    def can_act(self, fighter: C) -> bool:
        return self._pool_of(fighter.state) > 0

    # --- starting conditions (ruling 27): ``wounds`` are points off the pool ----------------
    def _most(self, spec: Any) -> int:
        """The pool's maximum for a fighter of ``spec`` (its sheet's)."""
        return int(getattr(spec.sheet, self.pool))

    def _dead_left(self, most: int) -> int:
        """The highest pool that is dead (``status``): ``-dead_at`` times the maximum."""
        return math.floor(-self.options.dead_at * most)

    def check_start(self, spec: Any, start: Start) -> list[StartProblem]:
        """Wounds short of death (the pool above ``-dead_at`` times its maximum)."""
        most = self._most(spec)
        alive = most - self._dead_left(most) - 1
        out = []
        if start.wounds > alive:
            allowed = f"at most {alive}: {alive + 1} {self.pool} points off {most} is dead"
            out.append(StartProblem("wounds", start.wounds, allowed))
        karma = self._karma_of(spec)
        if start.spent > karma:
            out.append(StartProblem(KARMA_SPENT, start.spent, f"at most the Karma, {karma}"))
        return out

    def down_at(self, spec: Any, start: Start) -> bool:
        """Down at 0 points left."""
        return start.dead or start.wounds >= self._most(spec)

    def down_wounds(self, spec: Any) -> int:
        return self._most(spec)

    def apply_start(self, fighter: Combatant, start: Start) -> None:
        """The pool less the wounds (the dead at ``-dead_at`` times its maximum)."""
        st = fighter.state
        most = self._max_of(st)
        setattr(st, self.pool, self._dead_left(most) if start.dead else most - start.wounds)
        self._drained(st)
        if start.spent:
            st.karma = st.karma - start.spent if st.karma > start.spent else 0
            st.karma_spent = start.spent

    def carried(self, fighter: Combatant) -> tuple[int, int, int]:
        left, most = self._points(fighter)
        return most - left, 0, getattr(fighter.state, "karma_spent", 0)

    def _karma_of(self, spec: Any) -> int:
        """The Karma a fighter of ``spec`` has to spend (its sheet's; none without)."""
        return int(getattr(spec.sheet, "karma", 0))

    def status(self, fighter: C) -> str:
        left, most = self._points(fighter)
        if left <= -self.options.dead_at * most:
            return "dead"
        if left <= 0:
            return "down"
        return "wounded" if left < most else "unhurt"

    def harm(self, fighter: C) -> float:
        left, most = self._points(fighter)
        return min(1.0, (most - left) / most)

    def movement(self, fighter: C) -> tuple[float, float]:
        sheet = fighter.spec.sheet
        return float(sheet.move), float(sheet.move * sheet.run_multiplier)

    def melee_attack(
        self, battle: Battle[C], attacker: C, target: C, weapon: Any, interception: bool = False
    ) -> None:
        self.ranged_attack(
            battle, attacker, target, weapon, ranged=False, interception=interception
        )

    def blast_radius(self, weapon: Any) -> float:
        return weapon.blast_radius

    def grenade_blast(
        self, battle: Battle[C], thrower: C, weapon: Any, victim: C, distance: float
    ) -> None:
        """Everyone inside the blast (the engine measured ``distance``; its edge included)
        takes the grenade's points less armor; the dead are past hurting."""
        if self.status(victim) == "dead":
            return
        points, pierce, how = self.blast_points(battle, weapon)
        armor = victim.state.armor - pierce
        self.hurt(battle, thrower, victim, points, armor if armor > 0 else 0, "blast", how)

    def hurt(
        self,
        battle: Battle[C],
        attacker: C | None,
        target: C,
        points: int,
        armor: int,
        what: str,
        how: str,
    ) -> None:
        """Armor stops ``armor`` points of the hit; the rest comes off the target's pool.

        ``what`` and ``how`` are read only when tracing (callers pass "" otherwise)."""
        dealt = points - armor
        tracing = battle.tracing
        detail = f"{how} = {points} points, armor {armor}" if tracing else ""
        if dealt <= 0:
            if tracing:
                battle.trace(
                    "armor", f"{target.name}'s armor stops a {what} ({detail})", actor=target
                )
            return
        st, pool = target.state, self.pool
        setattr(st, pool, self._pool_of(st) - dealt)
        self._drained(st)
        what = f"{what} ({detail}: {dealt} off {pool})" if tracing else ""
        battle.damage_dealt(attacker, target, dealt, what)
