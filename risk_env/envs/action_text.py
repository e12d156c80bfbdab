"""Readable text of action ids: what an id of the action codec means in a position
with a pending selection (``"attack from Alaska"``, ``"amount 7"``, ``"trade ICA"``).
:class:`~risk_env.envs.codec.ActionCodec` exposes it as
:meth:`~risk_env.envs.codec.ActionCodec.action_to_string`; the env's render, the
error messages and the tools use it. Text is for people: it decides nothing.
"""

from __future__ import annotations

from ..rules.cards import COMPOSITION_NAMES, MIN_STARS
from ..rules.state import GameState, Phase
from .codec import _NONE, ActionCodec, Selection, amount_of

__all__ = ["action_to_string"]


def action_to_string(codec: ActionCodec, s: GameState, action: int, sel: Selection | None = None) -> str:
    """What ``action`` means in ``s`` with the pending selection ``sel`` (None: no selection).

    An id outside ``0..codec.n - 1`` gives ``"invalid action ..."`` rather than an error.

    >>> import risk_env
    >>> game = risk_env.Game(num_players=3, setup="random")
    >>> codec = risk_env.ActionCodec(game)
    >>> action_to_string(codec, game.new_game(0), codec.end)
    'end'
    """
    if sel is None:
        sel = _NONE
    g = codec.game
    a = int(action)
    if not 0 <= a < codec.n:
        return f"invalid action {a} (ids are 0..{codec.n - 1})"
    if a < codec.amount:
        name = g.map.name_of(a)
        ph = s.phase
        if ph == Phase.CLAIM:
            return f"claim {name}"
        if ph == Phase.CAPITAL:
            return f"capital {name}"
        if ph == Phase.SETUP_PLACE:
            return f"neutral {name}" if s.setup_step == 2 else f"place {name} 1"
        if ph == Phase.REINFORCE:
            return f"bonus {name}" if sel.trade >= 0 else f"place on {name}"
        if ph in (Phase.ATTACK, Phase.FORTIFY):
            verb = "attack" if ph == Phase.ATTACK else "fortify"
            if sel.src >= 0:
                return f"{verb} {g.map.name_of(sel.src)}->{name}"
            return f"{verb} from {name}"
        return f"territory {name}"
    if a < codec.dice:
        span = _span(codec, s, sel)
        level = a - codec.amount
        return f"amount {amount_of(level, *span)}" if span else f"amount level {level}"
    if a < codec.blitz:
        if s.phase == Phase.DEFEND:
            return f"defend dice={a - codec.dice + 1}"
        pair = _battle(codec, s, sel)
        return f"attack {pair} dice={a - codec.dice + 1}" if pair else f"roll dice={a - codec.dice + 1}"
    if a == codec.blitz:
        pair = _battle(codec, s, sel)
        return f"blitz {pair}" if pair else "blitz"
    mod = codec._dice_rule_move(a)
    if mod is not None:
        return g.move_to_text(mod)
    if codec.trade >= 0 and codec.trade <= a < codec.trade_end:
        if g.stars:
            return f"trade stars={a - codec.trade + MIN_STARS}"
        return f"trade {COMPOSITION_NAMES[a - codec.trade]}"
    if s.phase == Phase.ATTACK:
        return "end attack"
    if s.phase == Phase.FORTIFY:
        return "end turn"
    return "end"


def _battle(codec: ActionCodec, s: GameState, sel: Selection) -> str:
    """``"Src->Dst"`` of the battle a dice or blitz id would roll, or "" if none is set."""
    if s.phase != Phase.ATTACK:
        return ""
    if sel.dst >= 0:
        a, b = sel.src, sel.dst
    elif sel.src < 0 and codec.can_continue(s):
        a, b = s.att_src, s.att_dst
    else:
        return ""
    name = codec.game.map.name_of
    return f"{name(a)}->{name(b)}"


def _span(codec: ActionCodec, s: GameState, sel: Selection) -> tuple[int, int] | None:
    """The army range ``(lo, hi)`` that the amount ids cover now, or None outside an amount sub-step."""
    ph = s.phase
    if ph == Phase.REINFORCE and sel.src >= 0:
        return 1, s.to_place
    if ph == Phase.OCCUPY:
        return codec.game.occupy_range(s)
    if ph == Phase.FORTIFY and sel.dst >= 0:
        return 1, int(s.armies[sel.src]) - 1
    return None
