"""What rule systems with a pool of points share (Lost Souls' life, 4D8's health).

Neither seed 001 nor seed 004 has combat damage, so both systems give each combatant a pool
of points that armor protects and hits drain: out of the fight at 0 ("down"), dead at
``-dead_at`` times the maximum (option ``dead_at``). One mechanism serves both; each system
names its pool (``pool``) and keeps ``<pool>`` and ``max_<pool>`` on its per-battle state.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from .base import Battle, Fighter


class PointPoolRules:
    """Mixin for a ``RuleSystem`` whose fighters' state has ``<pool>``, ``max_<pool>`` and
    ``this_target``, and which resolves every attack in ``_attack(battle, attacker, target,
    weapon, ranged, interception=False)``."""

    pool: ClassVar[str]
    _max_pool: ClassVar[str]  # "max_<pool>", named once per class

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if "pool" in cls.__dict__:
            cls._max_pool = "max_" + cls.pool

    def _points(self, fighter: Fighter) -> tuple[int, int]:
        st = fighter.state
        return getattr(st, self.pool), getattr(st, self._max_pool)

    def end_battle(self, battle: Battle) -> None:
        """The targets remembered for aimed follow-ups refer to other fighters: dropped."""
        for f in battle.fighters:
            st = f.state
            st.prev_target = st.this_target = None

    def _drained(self, state) -> None:
        """Called after a hit took points off ``state``'s pool: a system keeps here what
        depends on the pool (nothing by default)."""

    def can_act(self, fighter: Fighter) -> bool:
        return self._points(fighter)[0] > 0

    def status(self, fighter: Fighter) -> str:
        left, most = self._points(fighter)
        if left <= -self.options.dead_at * most:
            return "dead"
        if left <= 0:
            return "down"
        return "wounded" if left < most else "unhurt"

    def harm(self, fighter: Fighter) -> float:
        left, most = self._points(fighter)
        return min(1.0, (most - left) / most)

    def movement(self, fighter: Fighter) -> tuple[float, float]:
        sheet = fighter.spec.sheet
        return float(sheet.move), float(sheet.move * sheet.run_multiplier)

    def ranged_attack(
        self, battle: Battle, attacker: Fighter, target: Fighter, weapon, shots: int, sweep=()
    ) -> None:
        """One roll whatever the rounds (a burst is one attack); the target is remembered so a
        follow-up shot at it can count as aimed."""
        attacker.state.this_target = target
        self._attack(battle, attacker, target, weapon, ranged=True)

    def melee_attack(
        self, battle: Battle, attacker: Fighter, target: Fighter, weapon, interception: bool = False
    ) -> None:
        self._attack(battle, attacker, target, weapon, ranged=False, interception=interception)

    def blast_radius(self, weapon) -> float:
        return weapon.blast_radius

    def blast_points(self, battle: Battle, weapon) -> tuple[int, int, str]:
        """A grenade's points, the armor it pierces and (for the trace) how the points come
        about; the same for everyone inside the blast."""
        raise NotImplementedError

    def grenade_blast(
        self, battle: Battle, thrower: Fighter, weapon, victim: Fighter, distance: float
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
        battle: Battle,
        attacker: Fighter | None,
        target: Fighter,
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
        setattr(st, pool, getattr(st, pool) - dealt)
        self._drained(st)
        what = f"{what} ({detail}: {dealt} off {pool})" if tracing else ""
        battle.damage_dealt(attacker, target, dealt, what)
