"""The continent holder: take one continent, guard its entrances, expand from there."""

from __future__ import annotations

import numpy as np

from risk_env.rules.missions import MISSIONS
from risk_env.rules.moves import Move

from .heuristic import HeuristicAgent, Situation, win_probabilities

__all__ = ["ContinentAgent"]


class ContinentAgent(HeuristicAgent):
    """A continent holder.

    * Target continent: the one with the best :meth:`~.heuristic.HeuristicAgent.continent_scores`
      (bonus per territory and per entrance, share owned, armies inside against
      the enemies'); on the classic board that is Australia, then South America,
      unless the position says otherwise. Claims go there first.
    * Reinforcements first cover the entrances of held continents (up to the
      hostile armies next to them, plus 2), then go next to the weakest enemy
      territory of the target continent.
    * Attacks into the target continent when the exact odds (:mod:`risk_env.rules.odds`)
      are at least 50 %; elsewhere only at 80 %, or 60 % to break an enemy
      continent bonus or to earn the turn's card; never strips a held
      continent's entrance below its threat.
    * Occupies by threat (leaves guards on entrances), fortifies idle stacks to
      the most threatened entrance, trades a set at once.
    * With a secret mission naming continents (docs/rules.md §8), those
      continents' scores are doubled, so it heads for its mission.

    Args:
        seed: seeds the tie-breaking generator.
    """

    name = "continent"

    def target(self, sit: Situation) -> int:
        scores = self.continent_scores(sit)
        m = sit.view.my_mission
        if m >= 0 and MISSIONS[m].kind == "continents":  # a secret mission's continents first (§8)
            names = sit.view.game.map.continent_names
            for c in (names.index(x) for x in MISSIONS[m].continents):
                if c not in sit.held:
                    scores[c] = scores[c] * 2.0 + 0.05
        return int(np.argmax(scores + self.jitter(sit.board.C, 1e-6)))

    def claim(self, sit: Situation) -> int:
        b = sit.board
        free = np.flatnonzero(sit.owner == -1)
        score = np.zeros(b.C)
        for c, idx in enumerate(b.members):
            o = sit.owner[idx]
            left = (o == -1).sum()
            if left == 0:
                continue
            mine = (o == sit.me).sum()
            foes = ((o >= 0) & (o != sit.me)).sum()
            # can we still own most of it? appeal weighted by our share of the claimed part
            score[c] = b.appeal[c] * (1.0 + mine) / (1.0 + 2.0 * foes)
        own_nb = b.adj[free] @ sit.mine.astype(np.float64)
        s = score[b.cont_of[free]] * 10.0 + 0.2 * own_nb + self.jitter(len(free))
        return int(free[np.argmax(s)])

    def place_target(self, sit: Situation, n: int) -> int:
        ts, deficit = self.held_border_deficits(sit)
        if len(ts) and deficit.max() > 0:
            return int(ts[np.argmax(deficit + self.jitter(len(ts)))])
        return self.expansion_base(sit, n)

    def expansion_base(self, sit: Situation, n: int) -> int:
        """Own territory next to the target continent's weakest enemy territory (or the
        closest own frontier territory if none borders it)."""
        b = sit.board
        c = self.target(sit)
        in_c = np.zeros(b.T, dtype=bool)
        in_c[b.members[c]] = True
        src, dst = sit.attack_pairs(min_armies=1)
        if len(src) == 0:
            return int(np.flatnonzero(sit.mine)[0])
        into = in_c[dst]
        if into.any():
            src, dst = src[into], dst[into]
            score = (sit.armies[src] + n - 1) - sit.armies[dst] + 2.0 * in_c[src] + self.jitter(len(src))
            return int(src[np.argmax(score)])
        # head towards the target: frontier territory nearest to it
        near = np.full(b.T, 0.0)
        near[b.members[c]] = 1.0
        closeness = b.adj @ near
        score = 3.0 * closeness[src] + 0.1 * sit.armies[src] - 0.05 * sit.armies[dst] + self.jitter(len(src))
        return int(src[np.argmax(score)])

    def place(self, sit: Situation) -> tuple[int, int]:
        n = sit.view.to_place
        ts, deficit = self.held_border_deficits(sit)
        if len(ts) and deficit.max() > 0:
            j = int(np.argmax(deficit + self.jitter(len(ts))))
            return int(ts[j]), int(min(n, max(1, np.ceil(deficit[j]))))
        return self.expansion_base(sit, n), n

    def reserve(self, sit: Situation, t: int) -> float:
        """Armies to keep in ``t`` (besides the one that must stay): its threat if it guards a held continent."""
        b = sit.board
        if b.is_entry[t] and int(b.cont_of[t]) in sit.held:
            return float(sit.threat[t])
        return 0.0

    def attack(self, sit: Situation) -> Move | None:
        b = sit.board
        src, dst = sit.attack_pairs()
        if len(src) == 0:
            return None
        c = self.target(sit)
        avail = sit.armies[src] - 1 - np.array([self.reserve(sit, int(t)) for t in src])
        keep = avail >= 1
        if not keep.any():
            return None
        src, dst, avail = src[keep], dst[keep], avail[keep]
        p = win_probabilities(avail, sit.armies[dst])
        in_target = b.cont_of[dst] == c
        breaks = np.array([int(b.cont_of[t]) in sit.their_held for t in dst])
        need = np.where(in_target, 0.5, 0.8)
        need = np.where(breaks, np.minimum(need, 0.6), need)
        if not sit.view.state.conquered:
            need = np.minimum(need, 0.6)
        ok = p >= need
        if not ok.any():
            return None
        score = p + 0.3 * in_target + 0.2 * breaks + self.jitter(len(src))
        score[~ok] = -1.0
        j = int(np.argmax(score))
        return self.attack_move(sit, src[j], dst[j])

    def occupy(self, sit: Situation, lo: int, hi: int) -> int:
        s = sit.view.state
        keep = self.reserve(sit, s.att_src)
        if keep > 0:
            return int(max(lo, min(hi, hi + 1 - (keep + 1))))
        return super().occupy(sit, lo, hi)

    def fortify(self, sit: Situation) -> Move | None:
        view = sit.view
        game = view.game
        s = view.state
        ts, deficit = self.held_border_deficits(sit)
        if len(ts) and deficit.max() > 0:
            order = ts[np.argsort(-deficit, kind="stable")]
            for dst in order.tolist():
                donors = np.flatnonzero(sit.mine & (sit.armies >= 2))
                best, give = -1, 0
                for a in donors.tolist():
                    if a == dst or not game.fortify_reach(s, a)[dst]:
                        continue
                    spare = int(sit.armies[a] - 1 - self.reserve(sit, a)) if sit.frontier[a] else int(sit.armies[a] - 1)
                    if sit.frontier[a] and not sit.board.is_entry[a]:
                        spare = int(min(spare, sit.armies[a] - 1 - sit.threat[a]))
                    if spare > give:
                        best, give = a, spare
                if best >= 0 and give >= 1:
                    return Move.fortify(best, dst, int(min(give, max(1, np.ceil(deficit[ts == dst][0])) + 2)))
        return super().fortify(sit)
