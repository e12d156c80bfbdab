"""How a game ends and what each player gets (docs/rules.md §4.5).

:func:`outcome` is the one place where returns are decided; the AEC env, the
single-agent env and the soak read it through :meth:`Game.outcome
<risk_env.rules.engine.Game.outcome>`.

Returns per player seat (the 2-player neutral has none):

* +1 to the winner, -1 to every eliminated player (from the step it is eliminated),
  and -1 to every other player when a secret mission or the capitals end the game
  (docs/rules.md §8);
* at the turn limit (truncation) each surviving player gets 0
  (``truncation_reward="draw"``) or its rank reward (``"rank"``): survivors are
  ranked by territories, then armies; place ``i`` of ``k`` is worth
  ``1 - 2 i / (k - 1)`` (+1 best, -1 worst), and tied players share the mean of
  the places they span;
* 0 to a surviving player while the game goes on.

>>> rank_returns([(10, 30), (5, 9), (10, 30)])
(0.5, -1.0, 0.5)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .state import GameState, Phase

if TYPE_CHECKING:
    from .engine import Game

__all__ = ["Outcome", "outcome", "rank_returns"]


@dataclass(frozen=True, slots=True)
class Outcome:
    """The result of a position so far.

    Attributes:
        terminated: the game ended by a victory (docs/rules.md §4.5).
        truncated: the game ended at the turn limit without a winner.
        winner: the winning seat, or -1.
        returns: float, one per player seat (``num_players`` entries): the total
            reward each player has earned by this position (see the module docstring).
        eliminated: seats in the order they were eliminated.
    """

    terminated: bool
    truncated: bool
    winner: int
    returns: tuple[float, ...]
    eliminated: tuple[int, ...]

    @property
    def over(self) -> bool:
        """Whether the game has ended (terminated or truncated)."""
        return self.terminated or self.truncated


def rank_returns(keys: Sequence[tuple[int, ...]]) -> tuple[float, ...]:
    """Rank rewards for survivors with sort keys ``keys`` (higher is better):
    ``1 - 2 i / (k - 1)`` for place ``i`` of ``k``, ties sharing the mean of their places.

    A single survivor gets 0 (there is no one to rank against).
    """
    k = len(keys)
    if k < 2:
        return (0.0,) * k
    out = []
    for key in keys:
        better = sum(q > key for q in keys)
        ties = sum(q == key for q in keys)
        out.append(sum(1.0 - 2.0 * i / (k - 1) for i in range(better, better + ties)) / ties)
    return tuple(out)


def outcome(game: Game, s: GameState) -> Outcome:
    """The :class:`Outcome` of ``s`` under ``game``'s rules (``truncation_reward`` decides
    the survivors' returns at the turn limit)."""
    n = game.num_players
    returns = [0.0] * n
    for seat in s.elim_order:
        returns[seat] = -1.0
    over = s.phase == Phase.GAME_OVER
    won = over and s.winner >= 0
    if won:
        returns = [-1.0] * n  # a mission or capitals win ends the game with survivors (§8)
        returns[s.winner] = 1.0
    truncated = over and not won
    if truncated and game.config.truncation_reward == "rank":
        live = [p for p in range(n) if s.alive[p]]
        owner, armies = s.owner, s.armies
        keys = []
        for p in live:
            own = owner == p
            keys.append((int(np.count_nonzero(own)), int(armies[own].sum())))
        for p, r in zip(live, rank_returns(keys), strict=True):
            returns[p] = r
    return Outcome(won, truncated, int(s.winner) if won else -1, tuple(returns), tuple(s.elim_order))
