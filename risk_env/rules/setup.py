"""Setup: a new game's state, the claim phase, the setup placements and the start of
the game (docs/rules.md §3, §7, §8).

Under ``two_player="allied"`` (§7) the two players claim (or are dealt) ``T // 3``
territories each (14 on the classic map), the rest go to the allied army with 2
armies each, and the players then place their remaining armies one at a time, in
turn, as in the standard setup.

Plain functions taking ``(game, state, ...)``; :meth:`Game.new_game
<risk_env.rules.engine.Game.new_game>` forwards to :func:`new_game`, and
:meth:`Game.apply_unchecked <risk_env.rules.engine.Game.apply_unchecked>` calls
:func:`claim`, :func:`after_setup_placement` and :func:`next_setup_turn` for the
setup moves. The first turn begins with ``Game._begin_turn``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..errors import ConfigError
from .missions import deal_missions
from .state import GameState, Phase

if TYPE_CHECKING:
    from .engine import Game

__all__ = [
    "ALLIED_START_ARMIES",
    "after_setup_placement",
    "claim",
    "claim_cycle",
    "give_allied_the_rest",
    "new_game",
    "next_setup_turn",
    "start_game",
]

ALLIED_START_ARMIES = 2
"""Armies on each allied territory at the start (docs/rules.md §7: 14 territories, 28 armies)."""


def new_game(game: Game, seed: int | None | np.random.SeedSequence = None) -> GameState:
    """A new game: the turn order drawn, setup done up to the first decision (docs/rules.md §3, §7).

    Args:
        seed: seeds the game's one generator (``None``: fresh entropy).

    Raises:
        ConfigError: ``seed`` is not ``None``, an integer >= 0 or a numpy ``SeedSequence``.
    """
    cfg = game.config
    n = game.num_players
    T = game.T
    if not (
        seed is None
        or isinstance(seed, np.random.SeedSequence)
        or (isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_)) and seed >= 0)
    ):
        raise ConfigError(f"seed must be None, an integer >= 0 or a numpy SeedSequence, got {seed!r}")
    rng = np.random.default_rng(seed)
    order = [int(x) for x in rng.permutation(n)]
    start = game.starting_armies
    s = GameState(  # the other fields start at their declared defaults (risk_env.rules.state)
        rng=rng,
        owner=np.full(T, -1, dtype=np.int64),
        armies=np.zeros(T, dtype=np.int32),
        order=order,
        alive=[True] * n,
        hands=[[] for _ in range(n)],
        setup_left=[start] * n + [start if game.neutral >= 0 else 0],
        player=order[0],
        eliminated_by=[-1] * n if cfg.secret_missions else [],
        capitals=[-1] * n if cfg.capitals else [],
    )
    if cfg.setup != "claim":  # deal (or draw at random) the territories; a claim game starts claiming
        cycle = claim_cycle(game, s)
        terr = s.rng.permutation(T)
        dealt = terr if game.allied < 0 else terr[: n * game.allied_claims]
        for k, t in enumerate(dealt):
            seat = cycle[k % len(cycle)]
            s.owner[t] = seat
            s.armies[t] = 1
            s.setup_left[seat] -= 1
        if game.allied >= 0:
            give_allied_the_rest(game, s)
        if cfg.setup == "random":
            for seat in range(game.num_seats):
                left = s.setup_left[seat]
                if left > 0:
                    own = np.flatnonzero(s.owner == seat)
                    picks = s.rng.integers(0, len(own), size=left)
                    np.add.at(s.armies, own[picks], 1)
                    s.setup_left[seat] = 0
            start_game(game, s)
        else:
            start_setup_placement(game, s)
    if game.uses_cards:
        s.deck = [int(c) for c in s.rng.permutation(game.num_cards)]
    if cfg.secret_missions:  # dealt last, so the other draws match a game without missions (§8)
        s.missions = deal_missions(s.own_rng(), n)
    return s


def claim_cycle(game: Game, s: GameState) -> list[int]:
    """The seats in claiming order: the turn order, then the neutral if there is one (docs/rules.md §3, §7)."""
    return s.order + ([game.neutral] if game.neutral >= 0 else [])


def give_allied_the_rest(game: Game, s: GameState) -> None:
    """The 1975 two-player rules (docs/rules.md §7): every territory not claimed by the two
    players goes to the allied army, with :data:`ALLIED_START_ARMIES` armies on each."""
    rest = s.owner == -1
    s.owner[rest] = game.allied
    s.armies[rest] = ALLIED_START_ARMIES


def start_setup_placement(game: Game, s: GameState) -> None:
    """After the last claim: the setup placements, from the first seat in turn order (docs/rules.md §3)."""
    s.phase = Phase.SETUP_PLACE
    s.player = s.order[-1]
    s.setup_step = 0
    next_setup_turn(game, s, first=True)


def next_setup_turn(game: Game, s: GameState, first: bool = False) -> None:
    """Hand the setup turn to the next seat in order with armies to place, or start the game."""
    order = s.order
    start = 0 if first else order.index(s.player) + 1
    neutral_left = s.setup_left[-1] if game.neutral >= 0 else 0
    for k in range(len(order)):
        seat = order[(start + k) % len(order)]
        if s.setup_left[seat] > 0 or neutral_left > 0:
            s.player = seat
            s.setup_step = 0 if s.setup_left[seat] > 0 else 2
            return
    start_game(game, s)


def start_game(game: Game, s: GameState) -> None:
    """After setup: the capital choices in turn order when ``capitals=True``, then the first turn (docs/rules.md §8)."""
    s.turn = 0
    for seat in s.order:
        if s.capitals and s.capitals[seat] < 0:
            s.phase = Phase.CAPITAL
            s.player = seat
            return
    s.player = s.order[0]
    game._begin_turn(s)


def claim(game: Game, s: GameState, t: int, seat: int) -> None:
    """``seat`` claims territory ``t`` (docs/rules.md §3; the 2-player neutral claims at random in the rotation, §7)."""
    s.owner[t] = seat
    s.armies[t] = 1
    s.setup_left[seat] -= 1
    cycle = claim_cycle(game, s)
    nxt = cycle[(cycle.index(seat) + 1) % len(cycle)]
    if game.allied >= 0 and int((s.owner >= 0).sum()) == game.num_players * game.allied_claims:
        give_allied_the_rest(game, s)  # each player has claimed its share (§7)
    if not (s.owner == -1).any():
        start_setup_placement(game, s)
    elif nxt == game.neutral:
        free = np.flatnonzero(s.owner == -1)
        claim(game, s, int(free[s.own_rng().integers(len(free))]), nxt)
    else:
        s.player = nxt


def after_setup_placement(game: Game, s: GameState) -> None:
    """After one setup army: one army at a time in turn order; in a 2-player neutral game 2 own + 1 neutral
    per setup turn (docs/rules.md §3, §7)."""
    p = s.player
    if game.neutral < 0:
        next_setup_turn(game, s)
        return
    s.setup_step += 1
    if s.setup_step < 2 and s.setup_left[p] > 0:
        return
    if s.setup_left[-1] > 0:
        s.setup_step = 2
    else:
        next_setup_turn(game, s)
