"""Battles: the dice, one roll and its losses, the expert dice rules and conquest
(docs/rules.md §4.2, §4.5, §8).

Plain functions taking ``(game, state, ...)``; :class:`~risk_env.rules.engine.Game`
calls them while applying attack, blitz, defend, re-roll, six, keep and occupy moves,
and keeps :meth:`~risk_env.rules.engine.Game.can_reroll`,
:meth:`~risk_env.rules.engine.Game.can_six` and ``Game._draw_dice`` as thin methods
(a subclass may override ``_draw_dice`` to watch the dice; every roll here draws through it).
All dice come from the state's one seeded generator, drawn in batches.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .dice import resolve_roll
from .state import GameState, Phase

if TYPE_CHECKING:
    from .engine import Game

__all__ = [
    "after_occupation",
    "can_reroll",
    "can_six",
    "conquer",
    "draw_dice",
    "roll",
    "roll_or_wait",
    "settle",
    "settle_unless_options",
]

_DICE_BATCH = 600


def draw_dice(s: GameState, k: int) -> list[int]:
    """The next ``k`` die faces (ints 1-6) of ``s``, refilling its buffer of
    ``_DICE_BATCH`` faces from the state's generator when it runs short."""
    pos = s.dice_pos
    if pos + k > len(s.dice_buf):
        s.dice_buf = s.own_rng().integers(1, 7, size=_DICE_BATCH, dtype=np.int8).tolist()
        pos = 0
    s.dice_pos = pos + k
    return s.dice_buf[pos : pos + k]


def roll(game: Game, s: GameState, a: int, b: int, att: int, dfd: int) -> bool:
    """One roll of ``att`` attacking dice from ``a`` against ``dfd`` defending dice on ``b``
    (docs/rules.md §4.2). Returns True if it conquered ``b``."""
    faces = game._draw_dice(s, att + dfd)
    ad = sorted(faces[:att], reverse=True)
    dd = sorted(faces[att:], reverse=True)
    al, dl = resolve_roll(ad, dd)
    s.armies[a] -= al
    s.armies[b] -= dl
    s.last_roll = ad + [0] + dd
    s.last_dice = att
    if s.armies[b] == 0:
        conquer(game, s, a, b, att)
        return True
    return False


# ---------------------------------------------------------------------- the expert dice rules (docs/rules.md §8)
def can_reroll(game: Game, s: GameState) -> bool:
    """Whether the attacker may re-roll one die of the pending roll now: ``reroll_with_card``,
    not yet used in this battle (a run of rolls on one source-target pair), and the attacker
    holds the card of the source or of the target (docs/rules.md §8)."""
    if not (game.config.reroll_with_card and s.roll_pending) or s.reroll_used:
        return False
    hand = s.hands[s.player]
    return s.att_src in hand or s.att_dst in hand


def can_six(game: Game, s: GameState) -> bool:
    """Whether the attacker may turn one die of the pending roll into a six now: ``die_to_six``,
    not yet used this turn, and a die below six (docs/rules.md §8)."""
    return game.config.die_to_six and s.roll_pending and not s.six_used and any(f < 6 for f in s.last_roll[: s.att_dice])


def roll_or_wait(game: Game, s: GameState, dfd: int) -> None:
    """Draw the roll of the battle ``att_src -> att_dst``; settle it at once unless the attacker may
    still change it (docs/rules.md §8)."""
    att = s.att_dice
    faces = game._draw_dice(s, att + dfd)
    s.last_roll = sorted(faces[:att], reverse=True) + [0] + sorted(faces[att:], reverse=True)
    s.last_dice = att
    s.roll_pending = True
    settle_unless_options(game, s)


def settle_unless_options(game: Game, s: GameState) -> None:
    """Settle the pending roll unless the attacker may still re-roll a die or make one a six."""
    if not (game.can_reroll(s) or game.can_six(s)):
        settle(game, s)


def settle(game: Game, s: GameState) -> None:
    """Take the losses of the pending roll (as :func:`roll` does, docs/rules.md §4.2)."""
    a, b, att = s.att_src, s.att_dst, s.att_dice
    s.roll_pending = False
    al, dl = resolve_roll(s.last_roll[:att], s.last_roll[att + 1 :])
    s.armies[a] -= al
    s.armies[b] -= dl
    if s.armies[b] == 0:
        conquer(game, s, a, b, att)


# ---------------------------------------------------------------------- conquest
def conquer(game: Game, s: GameState, a: int, b: int, dice: int) -> None:
    """Conquest of ``b`` from ``a`` with ``dice`` dice: elimination, card transfer and the win
    (docs/rules.md §4.2, §4.5)."""
    p = s.player
    allied = p == game.allied  # the allied army conquers for no one: no card, no hand (§7)
    loser = int(s.owner[b])
    s.owner[b] = p
    s.armies[a] -= dice
    s.armies[b] = dice
    if not allied:
        s.conquered = True
    s.att_src, s.att_dst = a, b
    # the neutral and the allied army are never eliminated (the allied army just stops growing, §7)
    eliminated = loser < game.num_players and not (s.owner == loser).any()
    s.trade_down = False
    if eliminated:
        s.alive[loser] = False
        s.elim_order.append(loser)
        if s.eliminated_by:
            s.eliminated_by[loser] = p
        if game.uses_cards and allied:
            s.discard.extend(s.hands[loser])  # the allied army takes no cards (§7)
            s.hands[loser] = []
        elif game.uses_cards:
            s.hands[p].extend(s.hands[loser])
            s.hands[loser] = []
            s.trade_down = game.trades_sets and len(s.hands[p]) >= game.config.elimination_trade_at
        if sum(s.alive) == 1:
            s.winner = s.alive.index(True)  # the last player with territories (§4.5, §7)
            s.phase = Phase.GAME_OVER
            return
    if s.armies[a] > 1:
        s.phase = Phase.OCCUPY
    else:
        after_occupation(s)


def after_occupation(s: GameState) -> None:
    """Back to the attack phase, or to a forced trade-down after taking an eliminated
    player's cards (docs/rules.md §4.2)."""
    if s.trade_down:
        s.trade_down = False
        s.phase = Phase.REINFORCE
        s.forced = True
        s.resume_attack = True
        s.to_place = 0
    else:
        s.phase = Phase.ATTACK
