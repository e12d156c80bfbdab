"""Move -> action ids: how a complete :class:`~risk_env.rules.moves.Move` is played
through the action codec's sub-steps (source, then target, then dice or an
amount). :class:`~risk_env.envs.codec.ActionCodec` exposes these as
:meth:`~risk_env.envs.codec.ActionCodec.move_to_action`,
:meth:`~risk_env.envs.codec.ActionCodec.move_to_actions` and
:meth:`~risk_env.envs.codec.ActionCodec.amount_action`; scripted agents use them.
"""

from __future__ import annotations

import numpy as np

from ..errors import RiskError
from ..rules.cards import MIN_STARS, composition_of
from ..rules.moves import Move, MoveKind
from ..rules.state import GameState, Phase
from .codec import ActionCodec, Selection, amount_of

__all__ = ["amount_action", "move_to_action", "move_to_actions"]


def amount_action(codec: ActionCodec, lo: int, hi: int, desired: int) -> int:
    """The legal amount id for the range ``lo..hi`` whose count is closest to ``desired``
    (ties go to the smaller count). See :func:`amount_of`.

    >>> import risk_env
    >>> codec = risk_env.ActionCodec(risk_env.Game(num_players=3))
    >>> amount_action(codec, 1, 30, 12) - codec.amount, amount_of(3, 1, 30)
    (3, 11)
    """
    desired = min(max(int(desired), lo), hi)
    best, best_d, prev = 0, None, None
    for j in range(codec.K):
        c = amount_of(j, lo, hi, codec.K)
        if c == prev:
            continue  # repeated counts are illegal levels
        prev = c
        d = abs(c - desired)
        if best_d is None or d < best_d:
            best, best_d = j, d
    return codec.amount + best


def move_to_action(codec: ActionCodec, s: GameState, move: Move, sel: Selection | None = None) -> int:
    """The next action id that plays ``move`` in ``s`` from the pending selection ``sel``.

    Call it once per decision with the same move until the move completes. It handles:

    * a battle to continue: the dice or blitz id at the top of the attack
      phase when ``move`` attacks the last battle's pair again;
    * pending selections that do not match ``move`` (the codec has no cancel):
      the pending decision is completed as close to ``move`` as it can (a
      mismatched attack source attacks its first target with one die);
    * amounts (placing, occupying, fortifying): the legal level whose count is
      closest to ``move.count`` (:func:`amount_action`), so the count played
      may differ from ``move.count`` when the range is wider than the 10 levels;
    * trades: the id of ``move``'s set composition; when the codec then asks for
      the +2 bonus territory, ``move.bonus`` if it is an option
      (:meth:`ActionCodec.bonus_options`), else the first option. The codec picks the other
      cards itself, so the traded cards may differ from ``move.cards`` (same
      composition, same value). Under ``card_trade="stars"`` the id of the trade's star total.

    Returns:
        an action id that is legal under ``codec.mask(s, sel)`` when ``move`` is legal in ``s``.

    Raises:
        RiskError: ``move`` cannot be played in this phase (e.g. an attack in the fortify phase),
            or the trade's cards are not a set.
    """
    src, dst, trade = (sel.src, sel.dst, sel.trade) if sel is not None else (-1, -1, -1)
    g = codec.game
    ph = s.phase
    k = move.kind
    if (ph == Phase.CLAIM and k == MoveKind.CLAIM) or (ph == Phase.CAPITAL and k == MoveKind.CAPITAL):
        return int(move.src)
    if ph == Phase.SETUP_PLACE and k in (MoveKind.PLACE, MoveKind.PLACE_NEUTRAL):
        return int(move.src)
    if ph == Phase.REINFORCE and k in (MoveKind.TRADE, MoveKind.PLACE):
        if trade >= 0:
            cands = codec.bonus_options(s, trade)
            if k == MoveKind.TRADE and move.bonus in cands:
                return int(move.bonus)
            return int(cands[0])
        if src >= 0:
            want = move.count if (k == MoveKind.PLACE and move.src == src) else s.to_place
            return amount_action(codec, 1, s.to_place, want)
        if k == MoveKind.TRADE and g.stars:
            return codec.trade + int(move.count) - MIN_STARS
        if k == MoveKind.TRADE:
            comp = composition_of([g.card_symbol[c] for c in move.cards])
            if comp < 0:
                raise RiskError(f"{g.move_to_text(move)!r}: those cards are not a set")
            return codec.trade + comp
        return int(move.src)
    if ph == Phase.ATTACK and s.roll_pending and k in (MoveKind.REROLL, MoveKind.SIX, MoveKind.KEEP_ROLL):
        if k == MoveKind.KEEP_ROLL:
            return codec.keep
        return (codec.reroll if k == MoveKind.REROLL else codec.six) + int(move.count) - 1
    if ph == Phase.ATTACK and k in (MoveKind.ATTACK, MoveKind.BLITZ, MoveKind.END_ATTACK):
        roll = codec.blitz if k == MoveKind.BLITZ else codec.dice + int(move.count) - 1
        if k == MoveKind.END_ATTACK:
            return codec.end
        if src < 0:
            if (s.att_src, s.att_dst) == (move.src, move.dst) and codec.can_continue(s):
                return roll  # roll again in the last battle
            return int(move.src)
        if src != move.src:  # no cancel: attack from the selected source instead
            return int(g.attack_targets(s, src)[0]) if dst < 0 else codec.dice
        if dst < 0:
            return int(move.dst)
        if dst != move.dst:
            return codec.dice
        return roll
    if ph == Phase.DEFEND and k == MoveKind.DEFEND:
        return codec.dice + int(move.count) - 1
    if ph == Phase.OCCUPY and k == MoveKind.OCCUPY:
        lo, hi = g.occupy_range(s)
        return amount_action(codec, lo, hi, move.count)
    if ph == Phase.FORTIFY and k in (MoveKind.FORTIFY, MoveKind.END_TURN):
        if dst >= 0:  # only an amount is accepted now
            same = k == MoveKind.FORTIFY and (move.src, move.dst) == (src, dst)
            return amount_action(codec, 1, int(s.armies[src]) - 1, move.count if same else 1)
        if k == MoveKind.END_TURN:
            return codec.end
        if src < 0:
            return int(move.src)
        if src != move.src:  # no cancel: fortify from the selected source instead
            return int(np.flatnonzero(g.fortify_reach(s, src))[0])
        return int(move.dst)
    raise RiskError(f"{g.move_to_text(move)!r} cannot be played in the {Phase(ph).name.lower()} phase")


def move_to_actions(codec: ActionCodec, s: GameState, move: Move, sel: Selection | None = None) -> list[int]:
    """Every action id, in order, that plays ``move`` in ``s`` from the selection ``sel``
    (None: none); neither ``s`` nor ``sel`` changes. The last id completes a move
    (``move`` itself, up to the amount and card choices :func:`move_to_action` describes).

    >>> import risk_env
    >>> g = risk_env.Game(num_players=3, setup="random"); s = g.new_game(3)
    >>> codec = risk_env.ActionCodec(g)
    >>> t = g.map.id_of("Alaska"); s.owner[t] = s.player; s.to_place = 5
    >>> ids = move_to_actions(codec, s, risk_env.Move.place(t, 3))
    >>> ids[0] == t, amount_of(ids[1] - codec.amount, 1, 5)  # the territory, then the amount
    (True, 3)

    Raises:
        RiskError: ``move`` cannot be played in this phase; IllegalActionError: it is not legal here.
    """
    work = sel.copy() if sel is not None else Selection()
    out: list[int] = []
    while True:
        a = move_to_action(codec, s, move, work)
        out.append(a)
        res = codec.decode(s, a, work)
        if isinstance(res, Move):
            return out
        work.choose(*res)
