"""The aggressive conqueror: stack everything on one front, attack whenever the
numbers favour it, trade cards at once."""

from __future__ import annotations

import numpy as np

from risk_env.rules.moves import Move

from .heuristic import HeuristicAgent, Situation

__all__ = ["AggressiveAgent"]


class AggressiveAgent(HeuristicAgent):
    """An aggressive conqueror.

    * Claims territories next to its own (clusters), places every army on the
      frontier territory with the best attack margin (one big stack).
    * Trades a set as soon as it holds one.
    * Attacks, with the most dice, the enemy territory where its armies that may
      roll outnumber the defenders by the largest margin, as long as they outnumber
      them (``armies - 1 > defenders``, at least a 51 % battle up to 10 vs 10), preferring
      real players to the 2-player neutral and players close to elimination.
    * Moves the whole stack into each conquest that borders more enemies.
    * Fortifies its largest idle stack towards the front.

    Args:
        seed: seeds the tie-breaking generator.
    """

    name = "aggressive"

    def place_target(self, sit: Situation, n: int) -> int:
        return self.strongest_base(sit, extra=n)

    def attack(self, sit: Situation) -> Move | None:
        src, dst = sit.attack_pairs()
        if len(src) == 0:
            return None
        a = sit.armies[src] - 1
        d = sit.armies[dst]
        ok = a > d
        if not ok.any():
            return None
        src, dst, a, d = src[ok], dst[ok], a[ok], d[ok]
        owners = sit.owner[dst].astype(np.int64)
        weak = np.where(sit.hostile[dst], 1.0 / np.maximum(sit.territories[owners], 1), 0.0)
        score = (a - d) + 0.5 * sit.hostile[dst] + 3.0 * weak + self.jitter(len(src))
        j = int(np.argmax(score))
        return self.attack_move(sit, src[j], dst[j])

    def occupy(self, sit: Situation, lo: int, hi: int) -> int:
        s = sit.view.state
        if sit.enemy_adj[s.att_dst] > 0:
            return hi
        if sit.enemy_adj[s.att_src] > 0:
            return lo
        return hi
