"""Legality: which complete moves the rules allow in a position (docs/rules.md §3, §4, §7).

:func:`check` is the rules' one judge of a :class:`~risk_env.rules.moves.Move`
(it raises :class:`~risk_env.errors.IllegalMoveError` saying why and what is
allowed now), :func:`legal_moves` enumerates every legal move. :class:`Game
<risk_env.rules.engine.Game>` exposes both as methods; the action codec's mask
(:meth:`risk_env.envs.codec.ActionCodec.mask`) is the vectorised form for action
ids and is tested equal to :func:`legal_moves`.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np

from ..errors import IllegalMoveError
from .cards import MAX_STARS, MIN_STARS, composition_of
from .moves import Move, MoveKind
from .notation import move_to_text
from .state import GameState, Phase

if TYPE_CHECKING:
    from .engine import Game

__all__ = ["check", "legal_moves", "PHASE_NAME", "PHASE_ALLOWED"]

PHASE_NAME = {p: p.name.lower().replace("_", " ") for p in Phase}
"""Each phase's name in messages (``"setup place"``)."""

PHASE_ALLOWED = {
    Phase.CLAIM: "'claim <territory>' of an unclaimed territory",
    Phase.SETUP_PLACE: (
        "'place <own territory> 1' (or, for the neutral's army in a 2-player setup, 'neutral <neutral territory>')"
    ),
    Phase.REINFORCE: (
        "'trade <card>, <card>, <card> [bonus=<territory>]' of a set in hand (stars rules: 'trade stars=<2..10>'), "
        "or 'place <own territory> <armies>'"
    ),
    Phase.ATTACK: (
        "'attack <own>-><adjacent enemy> dice=<1..3>', 'blitz <own>-><adjacent enemy>', or 'end attack' "
        "(expert dice rules, after a roll: 'reroll die=<j>', 'six die=<j>' or 'keep roll')"
    ),
    Phase.DEFEND: "'defend dice=<1..2>'",
    Phase.OCCUPY: "'occupy <armies>'",
    Phase.FORTIFY: "'fortify <own>-><own> <armies>' or 'end turn'",
    Phase.GAME_OVER: "nothing: the game is over",
    Phase.CAPITAL: "'capital <own territory>'",
}
"""What each phase allows, in move notation (the tail of every illegal-move message)."""

_FIELD_DEFAULTS = (("src", -1), ("dst", -1), ("count", 0), ("cards", ()), ("bonus", -1))
_USED_FIELDS = {
    MoveKind.CLAIM: {"src"},
    MoveKind.PLACE: {"src", "count"},
    MoveKind.PLACE_NEUTRAL: {"src", "count"},
    MoveKind.TRADE: {"cards", "bonus"},
    MoveKind.ATTACK: {"src", "dst", "count"},
    MoveKind.BLITZ: {"src", "dst"},
    MoveKind.END_ATTACK: set(),
    MoveKind.DEFEND: {"count"},
    MoveKind.OCCUPY: {"count"},
    MoveKind.FORTIFY: {"src", "dst", "count"},
    MoveKind.END_TURN: set(),
    MoveKind.REROLL: {"count"},
    MoveKind.SIX: {"count"},
    MoveKind.KEEP_ROLL: set(),
    MoveKind.CAPITAL: {"src"},
}


def _hand_text(game: Game, hand: Iterable[int]) -> str:
    return ", ".join(game.map.card_name(c) for c in sorted(hand)) or "no cards"


def _illegal(game: Game, s: GameState, move: Move, why: str) -> IllegalMoveError:
    try:
        text = move_to_text(game.map, move)
    except ValueError:
        text = repr(move)
    ph = Phase(s.phase)
    return IllegalMoveError(f"{text!r} is not legal in the {PHASE_NAME[ph]} phase: {why}. Allowed now: {PHASE_ALLOWED[ph]}")


def _check_territory(game: Game, s: GameState, move: Move, t: int) -> None:
    if not isinstance(t, (int, np.integer)) or not 0 <= t < game.T:
        raise _illegal(game, s, move, f"territory id {t!r} is not in 0..{game.T - 1}")


def check(game: Game, s: GameState, move: Move) -> None:
    """Raise :class:`IllegalMoveError` (saying why and what is allowed) unless ``move`` is legal in ``s``."""
    if not isinstance(move, Move):
        raise IllegalMoveError(f"expected a Move, got {type(move).__name__}: {move!r}")
    ph = s.phase
    k = move.kind
    used = _USED_FIELDS.get(k)
    if k == MoveKind.TRADE and game.stars:
        used = {"count"}
    if used is None:
        raise IllegalMoveError(f"unknown move kind {k!r}; kinds: {', '.join(m.name for m in MoveKind)}")
    for f, default in _FIELD_DEFAULTS:
        if f not in used and getattr(move, f) != default:
            raise IllegalMoveError(f"a {MoveKind(k).name} move takes no {f!r} (got {getattr(move, f)!r}): {move!r}")
    p = s.player
    if ph == Phase.GAME_OVER:
        raise _illegal(game, s, move, "the game is over")
    if k == MoveKind.CLAIM:
        if ph != Phase.CLAIM:
            raise _illegal(game, s, move, "claims happen only in the claim phase")
        _check_territory(game, s, move, move.src)
        if s.owner[move.src] != -1:
            raise _illegal(game, s, move, f"{game.map.name_of(move.src)} is already claimed")
        return
    if k == MoveKind.PLACE:
        if ph == Phase.SETUP_PLACE:
            if s.setup_step >= 2:
                raise _illegal(game, s, move, "this setup turn places a neutral army next")
            _check_territory(game, s, move, move.src)
            if s.owner[move.src] != p:
                raise _illegal(game, s, move, f"{game.map.name_of(move.src)} is not yours")
            if move.count != 1:
                raise _illegal(game, s, move, "setup places one army at a time")
            return
        if ph != Phase.REINFORCE:
            raise _illegal(game, s, move, "armies are placed only in setup and in the reinforce phase")
        if s.forced:
            raise _illegal(game, s, move, f"you hold {len(s.hands[p])} cards and must trade first")
        _check_territory(game, s, move, move.src)
        if s.owner[move.src] != p:
            whose = "an allied territory (the allied army's armies go there, §7)" if game.allied_acting(s) else "yours"
            raise _illegal(game, s, move, f"{game.map.name_of(move.src)} is not {whose}")
        if not 1 <= move.count <= s.to_place:
            raise _illegal(game, s, move, f"you have {s.to_place} armies to place; place 1..{s.to_place}")
        return
    if k == MoveKind.PLACE_NEUTRAL:
        if ph != Phase.SETUP_PLACE or s.setup_step != 2:
            raise _illegal(game, s, move, "a neutral army is placed only at the end of a 2-player setup turn")
        _check_territory(game, s, move, move.src)
        if s.owner[move.src] != game.neutral:
            raise _illegal(game, s, move, f"{game.map.name_of(move.src)} is not neutral")
        if move.count != 1:
            raise _illegal(game, s, move, "the neutral gets one army at a time")
        return
    if k == MoveKind.TRADE:
        if not game.uses_cards:
            raise _illegal(game, s, move, "these rules have no cards")
        if not game.can_trade(s):
            raise _illegal(game, s, move, "sets are traded only in the reinforce phase (after an elimination: only while forced)")
        if game.stars:
            if not MIN_STARS <= move.count <= MAX_STARS:
                raise _illegal(game, s, move, f"a stars trade is worth {MIN_STARS}..{MAX_STARS} stars ('trade stars=<k>')")
            if game.stars_cards(s, move.count) is None:
                have = sum(game.card_stars[c] for c in s.hands[p])
                raise _illegal(
                    game, s, move, f"your cards ({_hand_text(game, s.hands[p])}; {have} stars) cannot make {move.count} stars"
                )
            return
        cards = move.cards
        hand = s.hands[p]
        if len(cards) != 3 or len(set(cards)) != 3 or any(c not in hand for c in cards):
            raise _illegal(game, s, move, f"a trade names three different cards from your hand ({_hand_text(game, hand)})")
        if composition_of([game.card_symbol[c] for c in cards]) < 0:
            raise _illegal(game, s, move, "those cards are not a set (three of a kind, one of each, or two plus a wild)")
        cands = game.bonus_candidates(s, cards)
        if cands and move.bonus not in cands:
            names = ", ".join(game.map.name_of(c) for c in cands)
            raise _illegal(game, s, move, f"choose the +2 bonus territory: bonus= one of {names}")
        if not cands and move.bonus != -1:
            raise _illegal(game, s, move, "no +2 territory bonus is available for this trade")
        return
    if s.roll_pending and k not in (MoveKind.REROLL, MoveKind.SIX, MoveKind.KEEP_ROLL):
        raise _illegal(game, s, move, f"your roll {_roll_text(s)} waits: 'reroll die=<j>', 'six die=<j>' or 'keep roll'")
    if k in (MoveKind.REROLL, MoveKind.SIX, MoveKind.KEEP_ROLL):
        if not s.roll_pending:
            raise _illegal(game, s, move, "no roll waits for a re-roll or a six (expert dice rules)")
        if k == MoveKind.KEEP_ROLL:
            return
        if k == MoveKind.REROLL and not game.can_reroll(s):
            raise _illegal(
                game, s, move, "no re-roll: one per battle, when you hold the card of the attacking or the attacked territory"
            )
        if k == MoveKind.SIX and not game.can_six(s):
            raise _illegal(game, s, move, "no six: one per turn, and only for a die below six")
        if not 1 <= move.count <= s.att_dice:
            raise _illegal(game, s, move, f"name one of your {s.att_dice} dice: die=1..{s.att_dice} (highest first)")
        if k == MoveKind.SIX and s.last_roll[move.count - 1] == 6:
            raise _illegal(game, s, move, f"die {move.count} shows a six already")
        return
    if k in (MoveKind.ATTACK, MoveKind.BLITZ):
        if ph != Phase.ATTACK:
            raise _illegal(game, s, move, "attacks happen only in the attack phase")
        _check_territory(game, s, move, move.src)
        _check_territory(game, s, move, move.dst)
        a, b = move.src, move.dst
        if s.owner[a] != p:
            whose = "an allied territory (the allied army attacks from its own, §7)" if game.allied_acting(s) else "yours"
            raise _illegal(game, s, move, f"{game.map.name_of(a)} is not {whose}")
        if s.armies[a] < 2:
            raise _illegal(game, s, move, f"{game.map.name_of(a)} has 1 army; attacking needs at least 2")
        if not game.adjacency[a, b]:
            raise _illegal(game, s, move, f"{game.map.name_of(a)} and {game.map.name_of(b)} do not share a border")
        if s.owner[b] == p:
            raise _illegal(game, s, move, f"{game.map.name_of(b)} is yours")
        if not game.attackable(s)[b]:  # the allied army attacks only the mover (docs/rules.md §7)
            raise _illegal(
                game, s, move, f"the allied army attacks only the territories of the player on turn, not {game.map.name_of(b)}"
            )
        if k == MoveKind.ATTACK:
            most = min(3, int(s.armies[a]) - 1)
            if not 1 <= move.count <= most:
                raise _illegal(game, s, move, f"roll 1..{most} dice from {game.map.name_of(a)} ({s.armies[a]} armies)")
        return
    if k == MoveKind.END_ATTACK:
        if ph != Phase.ATTACK:
            raise _illegal(game, s, move, "not attacking")
        return
    if k == MoveKind.DEFEND:
        if ph != Phase.DEFEND:
            raise _illegal(game, s, move, "no attack awaits a defence")
        most = min(2, int(s.armies[s.att_dst]))
        if not 1 <= move.count <= most:
            raise _illegal(game, s, move, f"defend with 1..{most} dice")
        return
    if k == MoveKind.OCCUPY:
        if ph != Phase.OCCUPY:
            raise _illegal(game, s, move, "no conquest awaits an occupation")
        lo, hi = game.occupy_range(s)
        if not lo <= move.count <= hi:
            raise _illegal(game, s, move, f"move {lo}..{hi} armies into {game.map.name_of(s.att_dst)}")
        return
    if k == MoveKind.FORTIFY:
        if ph != Phase.FORTIFY:
            raise _illegal(game, s, move, "fortifying happens only in the fortify phase")
        _check_territory(game, s, move, move.src)
        _check_territory(game, s, move, move.dst)
        a, b = move.src, move.dst
        if s.owner[a] != p or s.owner[b] != p:
            raise _illegal(game, s, move, "both territories must be yours")
        if not game.fortify_reach(s, a)[b]:
            how = "share a border" if game.config.fortify == "adjacent" else "be joined through your territories"
            raise _illegal(game, s, move, f"{game.map.name_of(a)} and {game.map.name_of(b)} must {how}")
        most = int(s.armies[a]) - 1
        if not 1 <= move.count <= most:
            raise _illegal(
                game, s, move, f"move 1..{most} armies (one must stay)" if most else f"{game.map.name_of(a)} has 1 army"
            )
        return
    if k == MoveKind.END_TURN:
        if ph != Phase.FORTIFY:
            raise _illegal(game, s, move, "the turn ends from the fortify phase ('end attack' first)")
        return
    if k == MoveKind.CAPITAL:
        if ph != Phase.CAPITAL:
            raise _illegal(game, s, move, "capitals are chosen only after setup, with capitals=True (docs/rules.md §8)")
        _check_territory(game, s, move, move.src)
        if s.owner[move.src] != p:
            raise _illegal(game, s, move, f"{game.map.name_of(move.src)} is not yours")
        return
    raise _illegal(game, s, move, f"unknown move kind {k!r}")


def _roll_text(s: GameState) -> str:
    att = s.att_dice
    return f"{s.last_roll[:att]} against {s.last_roll[att + 1 :]}"


def dice_rule_moves(game: Game, s: GameState) -> list[Move]:
    """The decisions on a pending roll under the expert dice rules (docs/rules.md §8)."""
    out: list[Move] = []
    if game.can_reroll(s):
        out.extend(Move.reroll(j) for j in range(1, s.att_dice + 1))
    if game.can_six(s):
        out.extend(Move.six(j) for j in range(1, s.att_dice + 1) if s.last_roll[j - 1] < 6)
    out.append(Move.keep_roll())
    return out


def legal_moves(game: Game, s: GameState) -> list[Move]:
    """Every legal move in ``s`` (complete moves; counts enumerated one by one)."""
    ph = s.phase
    p = s.player
    owner = s.owner
    out: list[Move] = []
    if ph == Phase.CLAIM:
        return [Move.claim(int(t)) for t in np.flatnonzero(owner == -1)]
    if ph == Phase.CAPITAL:
        return [Move.capital(int(t)) for t in np.flatnonzero(owner == p)]
    if ph == Phase.SETUP_PLACE:
        if s.setup_step == 2:
            return [Move.place_neutral(int(t)) for t in np.flatnonzero(owner == game.neutral)]
        return [Move.place(int(t), 1) for t in np.flatnonzero(owner == p)]
    if ph == Phase.REINFORCE:
        if game.can_trade(s) and game.stars:
            out.extend(Move.trade_stars(k) for k in range(MIN_STARS, MAX_STARS + 1) if game.stars_cards(s, k) is not None)
        elif game.can_trade(s):
            for trio in itertools.combinations(sorted(s.hands[p]), 3):
                if composition_of([game.card_symbol[c] for c in trio]) >= 0:
                    cands = game.bonus_candidates(s, trio)
                    out.extend(Move.trade(trio, b) for b in (cands or [-1]))
        if game.can_place(s):
            for t in np.flatnonzero(owner == p):
                out.extend(Move.place(int(t), n) for n in range(1, s.to_place + 1))
        return out
    if ph == Phase.ATTACK:
        if s.roll_pending:
            return dice_rule_moves(game, s)
        for a in np.flatnonzero((owner == p) & (s.armies >= 2)).tolist():
            for b in game.attack_targets(s, a):
                out.extend(Move.attack(a, b, d) for d in range(1, min(3, int(s.armies[a]) - 1) + 1))
                out.append(Move.blitz(a, b))
        out.append(Move.end_attack())
        return out
    if ph == Phase.DEFEND:
        return [Move.defend(d) for d in range(1, min(2, int(s.armies[s.att_dst])) + 1)]
    if ph == Phase.OCCUPY:
        lo, hi = game.occupy_range(s)
        return [Move.occupy(n) for n in range(lo, hi + 1)]
    if ph == Phase.FORTIFY:
        for a in np.flatnonzero((owner == p) & (s.armies >= 2)).tolist():
            for b in np.flatnonzero(game.fortify_reach(s, a)).tolist():
                out.extend(Move.fortify(a, int(b), n) for n in range(1, int(s.armies[a])))
        out.append(Move.end_turn())
        return out
    return out
