"""The balanced player: exact battle odds, cards held for value, weak players hunted."""

from __future__ import annotations

import numpy as np

from risk_env.rules.moves import Move
from risk_env.rules.state import Phase

from .heuristic import HeuristicAgent, Situation, hunting_values, variant_values, win_probabilities

__all__ = ["BalancedAgent"]


class BalancedAgent(HeuristicAgent):
    """A balanced player driven by exact battle odds (:mod:`risk_env.rules.odds`).

    * Every attackable enemy territory gets a value: 1, plus a continent bonus it
      would complete for us (x1.5), plus the bonus of an enemy continent it would
      break, plus a hunting value for players close to elimination (more when they
      hold many cards, which pass to their conqueror, docs/rules.md §4.2), plus 1.5 for
      the first conquest of the turn (the card); the 2-player neutral is worth half.
    * It attacks the target with the best ``p * value`` (``p`` the exact probability
      that the armies that may roll take the territory), re-evaluating after every
      roll, while ``p`` clears a bar that falls as the value rises (0.7 for an
      ordinary territory, down to 0.4 for a kill or a continent). Once the turn's
      card is earned it only goes on for a value of 2 or more or at ``p >= 0.85``
      (it does not spread itself thin).
    * Cards: trades when forced, when holding 4 or more, when the set is worth 10+,
      when the hostile armies facing its frontier outnumber its own there 1.5 to 1,
      or when a player it could hunt is on the board; otherwise holds them.
    * Reinforcements: first half to held-continent entrances short of their threat,
      the rest where they raise the best ``p * value``. Occupies and fortifies by threat.
    * Variants (docs/rules.md §8): a territory's value also counts
      :func:`~.heuristic.variant_values`: its own secret mission (the mission's
      continents, the player to destroy, any conquest for a territory count) and
      the capitals (another player's capital, much more for the last one lacking);
      its capital is the own territory farthest from enemies, guarded like a
      continent entrance.

    Args:
        seed: seeds the tie-breaking generator.
    """

    name = "balanced"

    def target_values(self, sit: Situation, dst: np.ndarray) -> np.ndarray:
        b = sit.board
        view = sit.view
        hunt = hunting_values(sit)
        vals = np.ones(len(dst))
        for i, t in enumerate(dst):
            t = int(t)
            c = int(b.cont_of[t])
            idx = b.members[c]
            others = idx[idx != t]
            if sit.mine[others].all():
                vals[i] += 1.5 * b.bonus[c]
            if c in sit.their_held:
                vals[i] += float(b.bonus[c])
            o = int(sit.owner[t])
            if o < view.num_players:
                vals[i] += hunt[o]
            else:
                vals[i] *= 0.5  # the neutral
        if not view.state.conquered:
            vals += 1.5
        return vals + variant_values(sit, dst)

    def _scored_pairs(self, sit: Situation, extra_at: int = -1, extra: int = 0):  # type: ignore[no-untyped-def]
        src, dst = sit.attack_pairs(min_armies=1 if extra_at >= 0 else 2)
        if len(src) == 0:
            return src, dst, np.zeros(0), np.zeros(0)
        a = sit.armies[src] - 1
        if extra_at >= 0:
            a = a + np.where(src == extra_at, extra, 0)
        p = win_probabilities(a, sit.armies[dst])
        v = self.target_values(sit, dst)
        return src, dst, p, v

    @staticmethod
    def bar(v: np.ndarray) -> np.ndarray:
        return np.clip(0.75 - 0.05 * v, 0.4, 0.65)

    def attack(self, sit: Situation) -> Move | None:
        src, dst, p, v = self._scored_pairs(sit)
        if len(src) == 0:
            return None
        ok = p >= self.bar(v)
        if sit.view.state.conquered:  # the card is secured: only valuable or near-certain conquests
            ok &= (v >= 2.0) | (p >= 0.85)
        if not ok.any():
            return None
        score = np.where(ok, p * v, -1.0) + self.jitter(len(src))
        j = int(np.argmax(score))
        return self.attack_move(sit, src[j], dst[j])

    def want_trade(self, sit: Situation, trade: Move) -> bool:
        view = sit.view
        if len(view.hand) >= 4:
            return True
        if view.game.trade_move_value(view.state, trade) >= 10:
            return True
        front = sit.frontier
        if sit.threat[front].sum() > 1.5 * sit.armies[front].sum():  # under pressure: armies now
            return True
        return bool((hunting_values(sit) > 2.0).any())

    def place(self, sit: Situation) -> tuple[int, int]:
        n = sit.view.to_place
        ts, deficit = self.held_border_deficits(sit)
        if len(ts) and deficit.max() > 0 and n > 1:
            j = int(np.argmax(deficit + self.jitter(len(ts))))
            return int(ts[j]), int(min(max(1, n // 2), max(1, np.ceil(deficit[j]))))
        return self.place_target(sit, n), n

    def place_target(self, sit: Situation, n: int) -> int:
        if sit.view.phase == Phase.SETUP_PLACE:
            return self.strongest_base(sit, extra=n)
        src, dst = sit.attack_pairs(min_armies=1)
        if len(src) == 0:
            return int(np.flatnonzero(sit.mine)[0])
        a = sit.armies[src] - 1 + n
        p = win_probabilities(a, sit.armies[dst])
        v = self.target_values(sit, dst)
        score = p * v + 0.01 * sit.threat[src] / (sit.armies[src] + n) + self.jitter(len(src))
        return int(src[np.argmax(score)])

    def occupy(self, sit: Situation, lo: int, hi: int) -> int:
        s = sit.view.state
        a, b = s.att_src, s.att_dst
        guard = sit.board.is_entry[a] and int(sit.board.cont_of[a]) in sit.held and sit.threat[a] > 0
        if sit.enemy_adj[b] > 0 and not guard:
            return hi  # keep the stack together and moving
        return super().occupy(sit, lo, hi)
